//! Reductions on the CPU backend: every program against its f64 reference at 0, 1 and a
//! prime number of sites (and 2^24 + 3 for the scalar ones), results the same bit for bit
//! whatever the thread count, run-time misuse as errors, and every generated reduction
//! kernel compiled by the real NVRTC.

use crate::reductions;

use ongpu::prelude::*;
use ongpu::{with_backend, Backend, Error};
use reductions::{check_all, Outcome, Program, LARGE, SMALL_COUNTS};

fn cpu<R>(f: impl FnOnce() -> R) -> R {
    with_backend(Backend::Cpu, f)
}

fn run_small(name: &str, program: Program) {
    for n in SMALL_COUNTS {
        check_all(&cpu(|| program(n)), &format!("{name} (CPU, n = {n})"));
    }
}

macro_rules! program_tests {
    ($($name:ident),*) => {$(
        #[test]
        fn $name() {
            run_small(stringify!($name), reductions::$name);
        }
    )*};
}

program_tests!(
    sum_real,
    sum_int,
    sum_complex,
    min_max,
    field_methods,
    color,
    fused,
    partial
);

#[test]
fn the_list_of_programs_is_complete() {
    assert_eq!(
        reductions::all().len(),
        8,
        "add new programs to program_tests! above too"
    );
}

#[test]
fn scalar_programs_at_2_pow_24_plus_3_sites() {
    for (name, program) in [
        ("sum_real", reductions::sum_real as Program),
        ("sum_int", reductions::sum_int),
        ("min_max", reductions::min_max),
    ] {
        check_all(
            &cpu(|| program(LARGE)),
            &format!("{name} (CPU, n = {LARGE})"),
        );
    }
}

fn bits(outcomes: &[Outcome]) -> Vec<Vec<u64>> {
    outcomes.iter().map(|o| o.got.bits()).collect()
}

#[test]
fn results_are_the_same_bit_for_bit_whatever_the_thread_count() {
    let n = 300_007;
    for (name, program) in [
        ("sum_real", reductions::sum_real as Program),
        ("sum_complex", reductions::sum_complex),
        ("field_methods", reductions::field_methods),
    ] {
        let mut seen: Option<Vec<Vec<u64>>> = None;
        for threads in [1, 2, 3, 1] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let got = pool.install(|| cpu(|| program(n)));
            check_all(&got, &format!("{name} ({threads} threads)"));
            match &seen {
                None => seen = Some(bits(&got)),
                Some(first) => assert_eq!(
                    first,
                    &bits(&got),
                    "{name}: {threads} threads changed a result's bits"
                ),
            }
        }
    }
}

#[test]
fn a_count_larger_than_a_field_is_an_error() {
    cpu(|| {
        let x: Field<f32> = Field::filled(10, 1.0);
        let e = on_gpu!(sum: 11, { x }).unwrap_err();
        assert!(
            matches!(
                e,
                Error::SitesExceedField {
                    n: 11,
                    len: 10,
                    field: "x",
                    ..
                }
            ),
            "{e}"
        );
        let y: Field<f32> = Field::filled(9, 1.0);
        let e = on_gpu!(max: { x + y }).unwrap_err();
        assert!(matches!(e, Error::UnequalLengths { .. }), "{e}");
    });
}

#[test]
fn an_invalid_block_size_is_an_error() {
    cpu(|| {
        let x: Field<f64> = Field::filled(10, 1.0);
        let e = on_gpu!(sum: 10, 2048, { x }).unwrap_err();
        assert!(matches!(e, Error::InvalidLaunch { .. }), "{e}");
        let e = on_gpu!(min: 10, 0, { x }).unwrap_err();
        assert!(matches!(e, Error::InvalidLaunch { .. }), "{e}");
    });
}

#[test]
fn a_panicking_body_is_an_error() {
    cpu(|| {
        let k: Field<i32> = Field::from_fn(20_000, |i| i as i32 - 10_000);
        let e = on_gpu!(sum: { 100 / k }).unwrap_err();
        // The site is found inside its group of 32 (which runs lane by lane).
        assert!(
            matches!(
                e,
                Error::BodyPanicked {
                    index: Some(10_000),
                    ..
                }
            ),
            "{e}"
        );
    });
}

/// The CPU backend adds each chunk's values in site order (whole groups of 32 sites run
/// together and their values are added after the group, in the same order), and combines the
/// chunks of 4096 sites in halves: with values whose order of addition shows, the sum is that
/// order's bit for bit, on a count that is not a multiple of a group and on a subset.
#[test]
fn a_sum_adds_in_site_order_within_chunks() {
    fn tree(parts: &[f64]) -> f64 {
        match parts.len() {
            0 => 0.0,
            1 => parts[0],
            k => tree(&parts[..k / 2]) + tree(&parts[k / 2..]),
        }
    }
    fn in_order(xs: &[f64]) -> f64 {
        let chunks: Vec<f64> = xs
            .chunks(4096)
            .map(|c| c.iter().fold(0.0, |a, &x| a + x))
            .collect();
        tree(&chunks)
    }
    cpu(|| {
        let value =
            |i: usize| [1e16, 1.0, -1e16, 0.5, 3.25, -7.0, 1e-3][i % 7] * (1.0 + i as f64 * 1e-9);
        let n = 10_007;
        let x: Field<f64> = Field::from_fn(n, value);
        let got = on_gpu!(sum: { x }).unwrap();
        let xs: Vec<f64> = (0..n).map(value).collect();
        assert_eq!(
            got.to_bits(),
            in_order(&xs).to_bits(),
            "{got} {}",
            in_order(&xs)
        );
        // The odd sites of a lattice: a range that starts inside a group.
        let lat = Lattice::new([6, 6, 6, 6]).unwrap();
        let y: Field<f64> = Field::from_fn(lat.volume(), value);
        let got = on_gpu!(sum: lat.odd(), { y }).unwrap();
        let odd: Vec<f64> = (lat.volume() / 2..lat.volume()).map(value).collect();
        assert_eq!(got.to_bits(), in_order(&odd).to_bits());
    });
}

#[test]
fn dot_of_fields_of_different_lengths_is_an_error() {
    cpu(|| {
        let x: Field<Complex<f64>> = Field::zeros(4);
        let y: Field<Complex<f64>> = Field::zeros(5);
        let e = x.dot(&y).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
        assert!(
            e.to_string().contains("reductions_cpu.rs"),
            "names the call: {e}"
        );
    });
}

#[test]
fn norm2_into_and_dot_into_store_what_norm2_and_dot_return() {
    cpu(|| {
        let x: Field<ColorMatrix<f32>> =
            Field::from_fn(1001, |i| ColorMatrix::identity() * (i as f32 * 0.25 - 3.0));
        let y: Field<ColorMatrix<f32>> =
            Field::from_fn(1001, |i| ColorMatrix::identity() * (1.5 - i as f32 * 0.125));
        let (mut n2, mut xy) = (DeviceScalar::zero(), DeviceScalar::zero());
        x.norm2_into(&mut n2).unwrap();
        x.dot_into(&y, &mut xy).unwrap();
        assert_eq!(n2.get().unwrap().to_bits(), x.norm2().unwrap().to_bits());
        assert_eq!(xy.get().unwrap(), x.dot(&y).unwrap());
        let short: Field<ColorMatrix<f32>> = Field::zeros(3);
        let e = x.dot_into(&short, &mut xy).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
        assert!(
            e.to_string().contains("reductions_cpu.rs"),
            "names the call: {e}"
        );
    });
}

#[test]
fn no_sites_give_the_identity() {
    cpu(|| {
        let x: Field<f32> = Field::zeros(0);
        let k: Field<u32> = Field::zeros(0);
        assert_eq!(on_gpu!(sum: { x }).unwrap(), 0.0);
        assert_eq!(on_gpu!(min: { x }).unwrap(), f32::INFINITY);
        assert_eq!(on_gpu!(max: { x }).unwrap(), f32::NEG_INFINITY);
        assert_eq!(on_gpu!(min: { k }).unwrap(), u32::MAX);
        assert_eq!(on_gpu!(max: { k }).unwrap(), 0);
        assert_eq!(x.norm2().unwrap(), 0.0);
    });
}

#[cfg(feature = "cuda")]
#[test]
fn every_reduction_kernel_compiles_for_sm90_and_sm80_without_spills() {
    use crate::support::{check_no_local_memory, require_nvrtc};
    use ongpu::inspect::{collect_kernel_sources, compile};
    if !require_nvrtc() {
        return;
    }
    let (mut kernels, mut reported) = (0, 0);
    for (name, program) in reductions::all() {
        let (_, sources) = collect_kernel_sources(|| cpu(|| program(1000)));
        assert!(!sources.is_empty(), "{name} generated no kernel");
        for s in &sources {
            assert!(
                s.source.contains("ongpu::red::finish<"),
                "{name}: not a reduction kernel"
            );
            // (The prelude's print buffer, compiled only where a body prints, has an atomic.)
            assert!(
                !s.source
                    .replace(ongpu::__private::PRELUDE, "")
                    .contains("atomicAdd"),
                "{name}: no floating-point atomics"
            );
            for arch in ["sm_90", "sm_80"] {
                let log = compile(s, arch).unwrap_or_else(|e| panic!("{name} ({arch}): {e}"));
                reported += usize::from(check_no_local_memory(&format!("{name} ({arch})"), &log));
            }
            kernels += 1;
        }
    }
    assert!(kernels >= 36, "only {kernels} kernels compiled");
    assert!(
        reported >= kernels,
        "ptxas reported on only {reported} of {} compiles",
        2 * kernels
    );
}
