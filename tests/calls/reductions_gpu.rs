//! Reductions on the GPU: every program against its f64 reference and against the CPU
//! backend (exactly for integers, min and max), at 0, 1, a prime and 2^24 + 3 sites;
//! results the same bit for bit from run to run; fields copied only when stale; calls from
//! several threads at once. Run on a CUDA machine with `cargo test -- --include-ignored`.

#![cfg(feature = "cuda")]

use crate::reductions;

use ongpu::prelude::*;
use ongpu::{with_backend, Backend, Residency};
use reductions::{abs_err, check_all, Check, Outcome, Program, Value, LARGE, SMALL_COUNTS};

fn gpu<R>(f: impl FnOnce() -> R) -> R {
    with_backend(Backend::Cuda, f)
}

fn bits(outcomes: &[Outcome]) -> Vec<Vec<u64>> {
    outcomes.iter().map(|o| o.got.bits()).collect()
}

/// The GPU's results match the references and the CPU's (exactly where the check is
/// exact; floating-point sums add in another order, so within the tolerance).
fn compare(name: &str, program: Program, n: usize) {
    let g = gpu(|| program(n));
    let c = with_backend(Backend::Cpu, || program(n));
    check_all(&g, &format!("{name} (GPU, n = {n})"));
    for (g, c) in g.iter().zip(&c) {
        match (&g.got, &c.got, g.check) {
            (a, b, Check::Exact) => assert_eq!(a, b, "{name}/{}: GPU and CPU differ", g.name),
            (Value::Real(a), Value::Real(b), Check::Rel(tol)) => {
                let scale = g.scale.unwrap_or_else(|| abs_err(b, &vec![0.0; b.len()]));
                let e = abs_err(a, b) / scale.max(f64::MIN_POSITIVE);
                assert!(
                    e <= tol,
                    "{name}/{}: GPU vs CPU relative difference {e:.3e}",
                    g.name
                );
            }
            (a, b, _) => panic!("{name}/{}: {a:?} vs {b:?}", g.name),
        }
    }
}

macro_rules! gpu_program_tests {
    ($($name:ident),*) => {$(
        #[test]
        #[ignore = "needs a CUDA device"]
        fn $name() {
            for n in SMALL_COUNTS {
                compare(stringify!($name), reductions::$name, n);
            }
        }
    )*};
}

gpu_program_tests!(
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
#[ignore = "needs a CUDA device"]
fn every_program_but_colour_at_2_pow_24_plus_3_sites() {
    for (name, program) in reductions::all() {
        if name != "color" {
            check_all(
                &gpu(|| program(LARGE)),
                &format!("{name} (GPU, n = {LARGE})"),
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn colour_norm2_and_dot_at_2_pow_24_plus_3_sites_match_the_cpu() {
    let n = LARGE;
    // Made on the device: cheap, and the same on both backends.
    let mut m: Field<ColorMatrix<f32>> = Field::zeros(n);
    let mut p: Field<ColorMatrix<f32>> = Field::zeros(n);
    gpu(|| {
        on_gpu!(|i| {
            for a in 0..3 {
                for b in 0..3 {
                    let k = (i * 9 + a * 3 + b) as u32;
                    let h = (k ^ (k >> 15)) * 2654435761u32;
                    m[a][b] = Complex::new(
                        (h >> 8) as f32 / 16777216.0 - 0.25,
                        (h & 255) as f32 / 256.0,
                    );
                    p[a][b] =
                        Complex::new((h & 4095) as f32 / 4096.0, 0.5 - (h >> 20) as f32 / 4096.0);
                }
            }
        })
    })
    .unwrap();
    let (gn, gd) = gpu(|| (m.norm2().unwrap(), m.dot(&p).unwrap()));
    let (cn, cd) = with_backend(Backend::Cpu, || (m.norm2().unwrap(), m.dot(&p).unwrap()));
    assert!((gn - cn).abs() <= 1e-12 * cn, "norm2: GPU {gn}, CPU {cn}");
    assert!(
        (gd - cd).norm() <= 1e-12 * cd.norm(),
        "dot: GPU {gd}, CPU {cd}"
    );
    let again = gpu(|| (m.norm2().unwrap(), m.dot(&p).unwrap()));
    assert_eq!(
        gn.to_bits(),
        again.0.to_bits(),
        "norm2 differs between runs"
    );
    assert_eq!(
        (gd.re.to_bits(), gd.im.to_bits()),
        (again.1.re.to_bits(), again.1.im.to_bits())
    );
}

/// Reductions into device scalars give the host-returning reductions' bits, at sizes on
/// both sides of a full wave and for light sites (four per thread) and heavy ones (one).
#[test]
#[ignore = "needs a CUDA device"]
fn reductions_into_device_scalars_match_the_returned_values_bit_for_bit() {
    gpu(|| {
        for n in [1, 255, 257, 4099, 1 << 16, (1 << 18) + 7, 1 << 20] {
            let m: Field<ColorMatrix<f32>> =
                Field::from_fn(n, |i| ColorMatrix::identity() * ((i % 97) as f32 - 40.0));
            let w: Field<ColorMatrix<f32>> =
                Field::from_fn(n, |i| ColorMatrix::identity() * ((i % 13) as f32 * 0.5));
            let light: Field<f32> = Field::from_fn(n, |i| (i % 31) as f32 * 0.125 - 1.0);
            let (mut a, mut b, mut c) = (
                DeviceScalar::zero(),
                DeviceScalar::zero(),
                DeviceScalar::zero(),
            );
            m.norm2_into(&mut a).unwrap();
            m.dot_into(&w, &mut b).unwrap();
            light.norm2_into(&mut c).unwrap();
            assert_eq!(
                a.get().unwrap().to_bits(),
                m.norm2().unwrap().to_bits(),
                "n = {n}"
            );
            assert_eq!(b.get().unwrap(), m.dot(&w).unwrap(), "n = {n}");
            let light_norm = light.norm2().unwrap();
            assert_eq!(c.get().unwrap().to_bits(), light_norm.to_bits(), "n = {n}");
            let cpu_norm = with_backend(Backend::Cpu, || light.norm2()).unwrap();
            assert!(
                (light_norm - cpu_norm).abs() <= 1e-12 * cpu_norm,
                "n = {n}: {light_norm} vs {cpu_norm}"
            );
        }
    });
}

#[test]
#[ignore = "needs a CUDA device"]
fn results_are_the_same_bit_for_bit_from_run_to_run() {
    for (name, program) in reductions::all() {
        let first = bits(&gpu(|| program(100_003)));
        for _ in 0..3 {
            assert_eq!(
                first,
                bits(&gpu(|| program(100_003))),
                "{name} differs between runs"
            );
        }
    }
    let big = bits(&gpu(|| reductions::sum_real(LARGE)));
    assert_eq!(big, bits(&gpu(|| reductions::sum_real(LARGE))));
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_reduction_copies_nothing_that_is_current() {
    gpu(|| {
        let n = 50_000;
        let a: Field<f32> = Field::from_fn(n, |i| (i % 100) as f32);
        let mut r: Field<f32> = Field::zeros(n);
        on_gpu!({
            r = a * 2.0;
        })
        .unwrap();
        assert_eq!(
            r.norm2().unwrap(),
            4.0 * (n / 100) as f64 * (0..100).map(|v| (v * v) as f64).sum::<f64>()
        );
        assert_eq!(
            r.transfers().downloads,
            0,
            "a reduction reads the device copy"
        );
        assert_eq!(r.residency(), Residency::Device);
        assert_eq!(a.transfers().uploads, 1, "uploaded once");
        let s: f64 = on_gpu!(sum: { r - a }).unwrap();
        assert_eq!(s, (n / 100) as f64 * 4950.0);
        assert_eq!(a.transfers().uploads, 1);
        assert_eq!(r.transfers().downloads, 0);
    });
}

#[test]
#[ignore = "needs a CUDA device"]
fn reductions_from_several_threads_at_once() {
    let n = 200_003;
    let x: Field<f64> = Field::from_fn(n, |i| (i % 1000) as f64);
    let k: Field<i32> = Field::from_fn(n, |i| i as i32 - 100_000);
    let want_sum = ref_sum_mod(n);
    std::thread::scope(|s| {
        for t in 0..4 {
            let (x, k) = (&x, &k);
            s.spawn(move || {
                gpu(|| {
                    for _ in 0..50 {
                        if t % 2 == 0 {
                            assert_eq!(on_gpu!(sum: { x }).unwrap(), want_sum);
                        } else {
                            assert_eq!(on_gpu!(max: { k }).unwrap(), n as i32 - 1 - 100_000);
                        }
                    }
                })
            });
        }
    });
}

fn ref_sum_mod(n: usize) -> f64 {
    (0..n).map(|i| (i % 1000) as f64).sum()
}

#[test]
#[ignore = "needs a CUDA device"]
fn launch_errors_are_reported_before_anything_runs() {
    gpu(|| {
        let x: Field<f32> = Field::filled(10, 1.0);
        let e = on_gpu!(sum: 10, 2048, { x }).unwrap_err();
        assert!(matches!(e, ongpu::Error::InvalidLaunch { .. }), "{e}");
        let e = on_gpu!(max: 11, { x }).unwrap_err();
        assert!(matches!(e, ongpu::Error::SitesExceedField { .. }), "{e}");
        assert_eq!(x.transfers().uploads, 0, "nothing ran");
    });
}
