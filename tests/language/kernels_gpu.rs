//! Explicit kernels on the GPU: each kernel program matches its reference and the CPU
//! backend's result, with and without bounds checks; out-of-range indices are reported by
//! the bounds checks; launch limits and field coherence. Run on a CUDA machine with
//! `cargo test --test language kernels_gpu:: -- --include-ignored`.

#![cfg(feature = "cuda")]

use crate::kernels;
use crate::programs;

use kernels::faults::*;
use ongpu::prelude::*;
use ongpu::{with_backend, with_bounds_checks, Backend, Error, Residency};
use programs::assert_backends_agree;

fn compare(name: &str, program: kernels::Program) {
    let cpu = with_backend(Backend::Cpu, program);
    for checked in [false, true] {
        let gpu = with_bounds_checks(checked, || with_backend(Backend::Cuda, program));
        assert_backends_agree(&format!("{name} (checked: {checked})"), &gpu, &cpu);
    }
}

macro_rules! gpu_kernel_tests {
    ($($name:ident),*) => {$(
        #[test]
        #[ignore = "needs a CUDA device"]
        fn $name() {
            compare(stringify!($name), kernels::$name);
        }
    )*};
}

gpu_kernel_tests!(
    indices,
    barriers,
    atomics,
    control_flow,
    lattice_types,
    matmul_examples,
    histogram_examples,
    dot_examples,
    local_arrays,
    device_arrays,
    generic_fns,
    device_barriers
);

fn gpu<R>(f: impl FnOnce() -> R) -> R {
    with_backend(Backend::Cuda, f)
}

#[test]
#[ignore = "needs a CUDA device"]
fn bounds_checks_report_the_first_out_of_range_index() {
    gpu(|| {
        with_bounds_checks(true, || {
            let a: Field<f32, AoS> = Field::filled(8, 1.0);
            let mut out: Field<f32, AoS> = Field::zeros(8);
            let e = read_past::launch(LaunchShape::linear(1, 8), &a, &mut out, 1).unwrap_err();
            match &e {
                Error::KernelIndexOutOfRange {
                    kernel,
                    array,
                    index,
                    len,
                    block,
                    thread,
                    ..
                } => {
                    assert_eq!(*kernel, "read_past");
                    assert_eq!(array, "parameter `a`");
                    assert_eq!((*index, *len), (8, 8));
                    assert_eq!((*block, *thread), ((0, 0, 0), (7, 0, 0)));
                }
                other => panic!("{other}"),
            }
            let e = read_past::launch(LaunchShape::linear(1, 8), &a, &mut out, -1).unwrap_err();
            assert!(
                matches!(e, Error::KernelIndexOutOfRange { index: -1, .. }),
                "{e}"
            );
            let e = shared_past::launch(LaunchShape::linear(2, 6), &mut out).unwrap_err();
            let text = e.to_string();
            assert!(
                text.contains("shared array `s` (dimension 2 of 2)"),
                "{text}"
            );
            assert!(
                matches!(
                    e,
                    Error::KernelIndexOutOfRange {
                        index: 4 | 5,
                        len: 4,
                        ..
                    }
                ),
                "{text}"
            );
            // The out-of-range writes went to the scratch space, not to another thread's element.
            assert_eq!(out.to_vec().unwrap()[..4], [1.0, 2.0, 3.0, 4.0]);
            // In range: no error, and the checked kernel computes the same.
            read_past::launch(LaunchShape::linear(1, 7), &a, &mut out, 1).unwrap();
            assert_eq!(out.to_vec().unwrap()[..7], [1.0; 7]);
        })
    });
}

#[test]
#[ignore = "needs a CUDA device"]
fn launch_shapes_are_checked_on_the_gpu_too() {
    gpu(|| {
        let a: Field<f32, AoS> = Field::filled(8, 1.0);
        let mut out: Field<f32, AoS> = Field::filled(8, 5.0);
        for (grid, block) in [
            ((1, 1, 1), (0, 1, 1)),
            ((1, 1, 1), (33, 32, 1)),
            ((1, 70_000, 1), (8, 1, 1)),
        ] {
            let e = read_past::launch(LaunchShape { grid, block }, &a, &mut out, 0).unwrap_err();
            assert!(matches!(e, Error::InvalidLaunch { .. }), "{e}");
        }
        assert_eq!(out.to_vec().unwrap(), vec![5.0; 8]);
        assert_eq!(
            out.transfers().uploads,
            0,
            "nothing was copied for a refused launch"
        );
    });
}

#[test]
#[ignore = "needs a CUDA device"]
fn kernels_and_on_gpu_share_the_device_copies() {
    #[ongpu::kernel]
    fn scale(x: &mut [f32], k: f32) {
        let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
        if i < x.len() {
            x[i] *= k;
        }
    }
    gpu(|| {
        let n = 10_000;
        let y: Field<f32, AoS> = Field::from_fn(n, |i| i as f32);
        let mut x: Field<f32, AoS> = Field::zeros(n);
        on_gpu!({
            x = y + 1.0;
        })
        .unwrap();
        scale::launch(LaunchShape::linear(40, 256), &mut x, 2.0).unwrap();
        on_gpu!({
            x += y;
        })
        .unwrap();
        assert_eq!(x.transfers().uploads, 0, "x never lived on the host");
        assert_eq!(x.residency(), Residency::Device);
        let v = x.to_vec().unwrap();
        for (i, &e) in v.iter().enumerate() {
            assert_eq!(e, 3.0 * i as f32 + 2.0, "element {i}");
        }
        assert_eq!(y.transfers().uploads, 1);
    });
}
