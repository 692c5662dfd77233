//! The test programs on the GPU: each matches its f64 reference and the CPU backend's result
//! (bit for bit for integers and exactly rounded results, 1e-6 relative for f32). Run on a
//! CUDA machine with `cargo test -- --include-ignored`.

#![cfg(feature = "cuda")]

use crate::programs;

use ongpu::prelude::*;
use ongpu::{with_backend, Backend, Residency};
use programs::assert_backends_agree;

fn compare(name: &str, program: fn() -> Vec<programs::Output>) {
    let gpu = with_backend(Backend::Cuda, program);
    let cpu = with_backend(Backend::Cpu, program);
    assert_backends_agree(name, &gpu, &cpu);
}

macro_rules! gpu_program_tests {
    ($($name:ident),*) => {$(
        #[test]
        #[ignore = "needs a CUDA device"]
        fn $name() {
            compare(stringify!($name), programs::$name);
        }
    )*};
}

programs::with_program_names!(gpu_program_tests);

#[test]
#[ignore = "needs a CUDA device"]
fn copies_happen_only_when_the_other_side_is_stale() {
    with_backend(Backend::Cuda, || {
        let n = 10_000;
        let a: Field<f32> = Field::from_fn(n, |i| i as f32);
        let mut c: Field<f32> = Field::zeros(n);
        on_gpu!({
            c = a * 2.0;
        })
        .unwrap();
        on_gpu!({
            c += a;
        })
        .unwrap();
        assert_eq!(a.transfers().uploads, 1, "a is uploaded once");
        assert_eq!(c.transfers().uploads, 0, "c never lived on the host");
        assert_eq!(c.residency(), Residency::Device);
        let v = c.to_vec().unwrap();
        for (i, &e) in v.iter().enumerate() {
            assert_eq!(e, 3.0 * i as f32, "site {i}");
        }
        assert_eq!(c.transfers().downloads, 1);
        let _ = c.to_vec().unwrap();
        assert_eq!(
            c.transfers().downloads,
            1,
            "the host copy is current: no second download"
        );
        assert_eq!(c.residency(), Residency::Both);
        let mut z: Field<ColorMatrix<f64>> = Field::zeros(1000);
        on_gpu!({
            z += ColorMatrix::identity();
        })
        .unwrap();
        assert_eq!(z.transfers().uploads, 0, "zeros are made on the device");
        for (i, e) in z.to_vec().unwrap().iter().enumerate() {
            assert_eq!(*e, ColorMatrix::identity(), "site {i}");
        }
    });
}

#[test]
#[ignore = "needs a CUDA device"]
fn large_n_runs_every_site_through_the_grid_stride_loop() {
    with_backend(Backend::Cuda, || {
        let n = (1 << 24) + 3;
        let mut x: Field<u32> = Field::filled(n, 0xDEAD_BEEF);
        on_gpu!(n, 128, |i| {
            x = (i as u32) ^ 0x5555_5555;
        })
        .unwrap();
        let v = x.to_vec().unwrap();
        for (i, &e) in v.iter().enumerate() {
            assert_eq!(e, (i as u32) ^ 0x5555_5555, "site {i}");
        }
    });
}

#[test]
#[ignore = "needs a CUDA device"]
fn launch_errors_are_reported_before_anything_runs() {
    with_backend(Backend::Cuda, || {
        let y: Field<f32> = Field::filled(10, 1.0);
        let mut x: Field<f32> = Field::filled(10, 5.0);
        let e = on_gpu!(10, 2048, {
            x = y;
        })
        .unwrap_err();
        assert!(matches!(e, ongpu::Error::InvalidLaunch { .. }), "{e}");
        let e = on_gpu!(11, {
            x = y;
        })
        .unwrap_err();
        assert!(
            matches!(e, ongpu::Error::SitesExceedField { n: 11, len: 10, .. }),
            "{e}"
        );
        assert_eq!(x.to_vec().unwrap(), vec![5.0; 10]);
    });
}
