//! `println!` and friends in `on_gpu!` bodies, reductions and `#[ongpu::kernel]`s: the
//! lines each backend prints, compared with the text Rust's own formatting gives for the same
//! values (CPU), between the backends (GPU: `--include-ignored`), and the kernels compiled by
//! NVRTC without a GPU.

use crate::support;

use ongpu::prelude::*;
use ongpu::print::capture;
use ongpu::{with_backend, Backend};

/// A printing program: what it computed (so that printing is seen not to disturb it) and
/// the text it printed.
type Program = fn() -> (Vec<f32>, String);

/// One site of 64 prints, the others only compute: the branch a print sits in is taken by
/// one site.
fn one_site() -> (Vec<f32>, String) {
    let n = 64;
    let mut x: Field<f32> = Field::from_fn(n, |i| i as f32 * 0.25);
    let y: Field<f32> = Field::filled(n, 2.0);
    let ((), text) = capture(|| {
        on_gpu!(n, |i| {
            x = x * y + 1.0;
            if i == 9 {
                println!("site {} x = {:.3} y = {y}", i, x);
            }
        })
        .unwrap()
    });
    (x.to_vec().unwrap(), text)
}

/// Every site prints twice: lines in site order, a site's two lines in program order.
fn every_site() -> (Vec<f32>, String) {
    let n = 300;
    let mut x: Field<f32> = Field::from_fn(n, |i| (i % 7) as f32);
    let ((), text) = capture(|| {
        on_gpu!(n, 64, |i| {
            print!("{i}:");
            x += 1.5;
            println!(" {x}");
        })
        .unwrap()
    });
    (x.to_vec().unwrap(), text)
}

/// The types and formats a body prints, from one site.
fn types_and_formats() -> (Vec<f32>, String) {
    let n = 8;
    let m: Field<ColorMatrix<f64>> = Field::from_fn(n, |i| {
        let mut m = ColorMatrix::<f64>::identity() * (0.5 + i as f64);
        m.m[0][2] = Complex::new(-1.0 / 3.0, 2.5e-9);
        m
    });
    let v: Field<ColorVector<f32>> = Field::from_fn(n, |i| {
        ColorVector::new([
            Complex::new(i as f32, -1.0),
            Complex::new(0.1, 0.2),
            Complex::new(1e10, -0.0),
        ])
    });
    let mut out: Field<f32> = Field::zeros(n);
    let (big, small) = (-9_000_000_000i64, 200u32);
    let ((), text) = capture(|| {
        on_gpu!(n, |i| {
            if i == 5 {
                let z = m[0][2];
                let flag = z.re < 0.0;
                let k = i as i32 - 7;
                let b = k as i8;
                let s = small as u16;
                println!("{flag} {k} {k:x} {b} {big} {s:>6} {i:03}");
                println!("z = {z}, {z:.4}, {:e} |{:10.2}|", z.im, z.re);
                println!("v = {v:.2}");
                println!("m = {:.1}", m);
                eprintln!("{:?} {:?}", z.re, v[2].re);
                println!("{{literal}} {n0} {n0:.1} {0}", k, n0 = z.re);
            }
            out = v.norm2();
        })
        .unwrap()
    });
    (out.to_vec().unwrap(), text)
}

/// A reduction that prints while it sums.
fn reduction() -> (Vec<f32>, String) {
    let n = 50;
    let x: Field<f64> = Field::from_fn(n, |i| i as f64);
    let (sum, text) = capture(|| {
        on_gpu!(sum: n, |i| {
            if i % 10 == 3 {
                println!("term {i} = {}", x * x);
            }
            x * x
        })
        .unwrap()
    });
    (vec![sum as f32], text)
}

/// Adds `a` to `c` and notes the threads of its last block and one of its first.
#[ongpu::kernel]
fn noted_add(a: &[f32], c: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < c.len() {
        c[i] += a[i];
        if block_idx().x == grid_dim().x - 1 || i == 5 {
            println!(
                "block {} thread {} c = {}",
                block_idx().x,
                thread_idx().x,
                c[i]
            );
        }
    }
}

/// A kernel of three blocks of 32 that prints from some threads.
fn kernel() -> (Vec<f32>, String) {
    let n = 70;
    let a: Field<f32, AoS> = Field::from_fn(n, |i| i as f32);
    let mut c: Field<f32, AoS> = Field::filled(n, 0.5);
    let shape = LaunchShape {
        grid: (3, 1, 1),
        block: (32, 1, 1),
    };
    let ((), text) = capture(|| noted_add::launch(shape, &a, &mut c).unwrap());
    (c.to_vec().unwrap(), text)
}

const PROGRAMS: [(&str, Program); 5] = [
    ("one_site", one_site),
    ("every_site", every_site),
    ("types_and_formats", types_and_formats),
    ("reduction", reduction),
    ("kernel", kernel),
];

fn cpu(p: Program) -> (Vec<f32>, String) {
    with_backend(Backend::Cpu, p)
}

#[test]
fn one_site_prints_its_line_with_rust_formatting() {
    let (x, text) = cpu(one_site);
    assert_eq!(x[9], 9.0 * 0.25 * 2.0 + 1.0);
    assert_eq!(text, format!("site 9 x = {:.3} y = {}\n", x[9], 2.0f32));
}

#[test]
fn lines_are_ordered_by_site_then_program_order() {
    let (x, text) = cpu(every_site);
    let expected: String = x
        .iter()
        .enumerate()
        .map(|(i, v)| format!("{i}: {v}\n"))
        .collect();
    assert_eq!(text, expected);
}

#[test]
fn every_printable_type_reads_as_in_rust() {
    let (_, text) = cpu(types_and_formats);
    let z = Complex::new(-1.0f64 / 3.0, 2.5e-9);
    let v = ColorVector::new([
        Complex::new(5.0f32, -1.0),
        Complex::new(0.1, 0.2),
        Complex::new(1e10, -0.0),
    ]);
    let mut m = ColorMatrix::<f64>::identity() * 5.5;
    m.m[0][2] = z;
    let (k, big, small, i) = (-2i32, -9_000_000_000i64, 200u16, 5usize);
    let expected = [
        format!("true {k} {k:x} {} {big} {small:>6} {i:03}\n", k as i8),
        format!("z = {z}, {z:.4}, {:e} |{:10.2}|\n", z.im, z.re),
        format!("v = {v:.2}\n"),
        format!("m = {m:.1}\n"),
        format!("{:?} {:?}\n", z.re, v[2].re),
        format!("{{literal}} {} {:.1} {k}\n", z.re, z.re),
    ]
    .concat();
    assert_eq!(text, expected);
    assert!(
        text.contains("[[5.5+0.0i, 0.0+0.0i, -0.3+0.0i], "),
        "{text}"
    );
}

#[test]
fn reductions_print_and_still_sum() {
    let (sum, text) = cpu(reduction);
    assert_eq!(sum[0], (0..50).map(|i| (i * i) as f32).sum::<f32>());
    let expected: String = (0..50)
        .filter(|i| i % 10 == 3)
        .map(|i| format!("term {i} = {}\n", (i * i) as f64))
        .collect();
    assert_eq!(text, expected);
}

#[test]
fn kernel_lines_are_ordered_by_global_thread() {
    let (c, text) = cpu(kernel);
    let mut expected = format!("block 0 thread 5 c = {}\n", c[5]);
    for (t, ci) in c[64..].iter().enumerate() {
        expected += &format!("block 2 thread {t} c = {ci}\n");
    }
    assert_eq!(text, expected);
}

/// Without a capture the lines reach the process's stdout (the test runs itself as a child
/// to read it).
#[test]
fn lines_reach_stdout_when_not_captured() {
    if support::is_child() {
        let n = 4;
        let x: Field<i32> = Field::from_fn(n, |i| 10 * i as i32);
        let mut y: Field<i32> = Field::zeros(n);
        on_gpu!(n, |i| {
            y = x + 1;
            if i >= 2 {
                println!("stdout line {i}: {y}");
            }
        })
        .unwrap();
        return;
    }
    let out = support::run_child(
        module_path!(),
        "lines_reach_stdout_when_not_captured",
        &[("ONGPU_BACKEND", "cpu")],
    );
    assert!(
        out.contains("stdout line 2: 21\nstdout line 3: 31\n"),
        "{out}"
    );
}

#[cfg(feature = "cuda")]
mod nvrtc {
    use super::*;
    use crate::support::{check_no_warnings, require_nvrtc};
    use ongpu::inspect::{collect_kernel_sources, compile};

    /// The printing kernels compile, for Hopper and Ampere, without warnings; the print
    /// sits out of line (`print_record` is a function of its own in the PTX).
    #[test]
    fn printing_kernels_compile_with_nvrtc() {
        if !require_nvrtc() {
            return;
        }
        let mut compiled = 0;
        for (name, program) in PROGRAMS {
            let (_, sources) = collect_kernel_sources(|| cpu(program));
            assert!(!sources.is_empty(), "{name} generated no kernel");
            for s in &sources {
                assert!(s.source.contains("#define ONGPU_PRINTS 1"), "{name}");
                for arch in ["sm_90", "sm_80"] {
                    let what = format!("{name} ({arch})");
                    let log = compile(s, arch).unwrap_or_else(|e| panic!("{what}: {e}"));
                    check_no_warnings(&what, &log);
                    compiled += 1;
                }
            }
        }
        assert!(compiled >= 10, "{compiled}");
    }
}

/// The GPU prints the same lines as the CPU, and computes the same values.
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_prints_the_same_lines_as_the_cpu() {
    for (name, program) in PROGRAMS {
        let (cpu_values, cpu_text) = cpu(program);
        for checked in [false, true] {
            let (gpu_values, gpu_text) =
                ongpu::with_bounds_checks(checked, || with_backend(Backend::Cuda, program));
            assert_eq!(gpu_text, cpu_text, "{name} (bounds checks {checked})");
            assert_eq!(gpu_values, cpu_values, "{name}");
        }
    }
}
