//! Out-of-range indices of colour types and element arrays in bodies: on the CPU a panic of
//! the body (`Error::BodyPanicked`); on the GPU, with bounds checks on, an
//! `Error::BodyIndexOutOfRange` naming the site, never an access past the local array.
//! The GPU tests run on a CUDA machine with `cargo test --test language index_checks:: -- --include-ignored`.

use ongpu::prelude::*;
use ongpu::{with_backend, with_bounds_checks, Backend, Error};

/// Runs the four out-of-range bodies on `backend` with bounds checks on; `k` is the bad
/// index and `bad` the one site that uses it.
fn out_of_range_calls(backend: Backend) -> Vec<ongpu::Result<()>> {
    with_bounds_checks(true, || {
        with_backend(backend, || {
            let n = 300;
            let bad = 217usize;
            let m: Field<ColorMatrix<f32>> = Field::filled(n, ColorMatrix::identity());
            let v: Field<ColorVector<f32>> = Field::zeros(n);
            let u: Field<[ColorMatrix<f32>; 4]> = Field::zeros(n);
            let mut x: Field<f32> = Field::zeros(n);
            let mut w: Field<ColorVector<f32>> = Field::zeros(n);
            let (k, mu) = (3usize, 4usize);
            vec![
                on_gpu!(|i| {
                    let r = if i == bad { k } else { 0 };
                    x = m[r][0].re;
                }),
                on_gpu!(|i| {
                    let c = if i == bad { k + 2 } else { 1 };
                    x = m[1][c].im;
                }),
                on_gpu!(|i| {
                    let j = if i == bad { i % 4 + 3 } else { 2 };
                    w = v;
                    w[j] = Complex::new(1.0, 0.0);
                }),
                on_gpu!(|i| {
                    let d = if i == bad { mu } else { 0 };
                    x = u[d].trace().re;
                }),
                on_gpu!(sum: |i| {
                    let d = if i == bad { mu } else { 1 };
                    u[d].trace().re
                })
                .map(|_| ()),
            ]
        })
    })
}

#[test]
fn on_the_cpu_an_out_of_range_index_is_a_panicking_body() {
    for (k, r) in out_of_range_calls(Backend::Cpu).into_iter().enumerate() {
        match r {
            Err(Error::BodyPanicked { index, message, .. }) => {
                assert_eq!(index, Some(217), "call {k}: {message}");
                assert!(message.contains("out of bounds"), "call {k}: {message}");
            }
            other => panic!("call {k}: expected BodyPanicked, got {other:?}"),
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn on_the_gpu_an_out_of_range_index_is_an_error_naming_the_site() {
    for (k, r) in out_of_range_calls(Backend::Cuda).into_iter().enumerate() {
        match r {
            Err(Error::BodyIndexOutOfRange {
                index_site, len, ..
            }) => {
                assert_eq!(index_site, Some(217), "call {k}");
                assert!(len == 3 || len == 4, "call {k}: length {len}");
            }
            other => panic!("call {k}: expected BodyIndexOutOfRange, got {other:?}"),
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn in_range_indices_pass_the_checks_on_the_gpu() {
    with_bounds_checks(true, || {
        with_backend(Backend::Cuda, || {
            let m: Field<ColorMatrix<f64>> = Field::filled(1000, ColorMatrix::identity());
            let mut x: Field<f64> = Field::zeros(1000);
            on_gpu!({
                let mut t = 0.0;
                for a in 0..3 {
                    t += m[a][a].re;
                }
                x = t;
            })
            .unwrap();
            assert_eq!(x.to_vec().unwrap(), vec![3.0; 1000]);
        })
    })
}
