//! Run-time misuse is an `Error`, checked before anything runs (nothing is written).

use crate::support::{is_child, run_child};
use ongpu::prelude::*;
use ongpu::{with_backend, Backend, Error};

fn cpu<R>(f: impl FnOnce() -> R) -> R {
    with_backend(Backend::Cpu, f)
}

#[test]
fn n_larger_than_a_field_names_the_field_and_writes_nothing() {
    cpu(|| {
        let y: Field<f32> = Field::filled(8, 1.0);
        let mut x: Field<f32> = Field::filled(10, 5.0);
        let e = on_gpu!(9, {
            x = y * 2.0;
        })
        .unwrap_err();
        match &e {
            Error::SitesExceedField {
                n: 9,
                field: "y",
                len: 8,
                ..
            } => {}
            other => panic!("unexpected {other:?}"),
        }
        assert!(
            e.to_string().contains("`y`") && e.to_string().contains("only 8"),
            "{e}"
        );
        assert_eq!(x.to_vec().unwrap(), vec![5.0; 10]);
    });
}

#[test]
fn unequal_lengths_without_n_are_an_error() {
    cpu(|| {
        let y: Field<f32> = Field::filled(8, 1.0);
        let mut x: Field<f32> = Field::filled(10, 5.0);
        let e = on_gpu!({
            x = y;
        })
        .unwrap_err();
        assert!(
            matches!(
                e,
                Error::UnequalLengths {
                    first: "y",
                    first_len: 8,
                    other: "x",
                    other_len: 10,
                    ..
                }
            ),
            "{e:?}"
        );
        assert_eq!(x.to_vec().unwrap(), vec![5.0; 10]);
    });
}

#[test]
fn no_field_and_no_n_is_an_error() {
    cpu(|| {
        let a = 1.0f32;
        let e = on_gpu!({
            let t = a * 2.0;
            let _u = t;
        })
        .unwrap_err();
        assert!(matches!(e, Error::NoSiteCount { .. }), "{e:?}");
    });
}

#[test]
fn negative_or_oversized_counts_are_errors() {
    cpu(|| {
        let mut x: Field<f32> = Field::filled(4, 0.0);
        let n = -1i32;
        assert!(matches!(
            on_gpu!(n, {
                x = 1.0;
            }),
            Err(Error::InvalidSiteCount { .. })
        ));
        assert!(matches!(
            on_gpu!(4, 0, {
                x = 1.0;
            }),
            Err(Error::InvalidLaunch { .. })
        ));
        assert!(matches!(
            on_gpu!(4, 4096, {
                x = 1.0;
            }),
            Err(Error::InvalidLaunch { .. })
        ));
        assert!(matches!(
            on_gpu!(4, -5, {
                x = 1.0;
            }),
            Err(Error::InvalidArgument(_))
        ));
        assert_eq!(x.to_vec().unwrap(), vec![0.0; 4]);
    });
}

#[test]
fn a_panicking_body_is_an_error_on_the_cpu() {
    cpu(|| {
        let d: Field<i32> = Field::from_vec(vec![1, 2, 0, 4]);
        let mut q: Field<i32> = Field::filled(4, 0);
        let e = on_gpu!({
            q = 100 / d;
        })
        .unwrap_err();
        match e {
            Error::BodyPanicked { message, .. } => {
                assert!(message.contains("divide by zero"), "{message}")
            }
            other => panic!("unexpected {other:?}"),
        }
    });
}

#[test]
fn zero_sites_run_nothing() {
    cpu(|| {
        let mut x: Field<f32> = Field::filled(3, 7.0);
        on_gpu!(0, {
            x = 1.0;
        })
        .unwrap();
        assert_eq!(x.to_vec().unwrap(), vec![7.0; 3]);
        let mut e: Field<f32> = Field::zeros(0);
        on_gpu!({
            e = 1.0;
        })
        .unwrap();
        assert!(e.to_vec().unwrap().is_empty());
    });
}

/// With `ONGPU_BACKEND=cuda` and no device, a call is `Error::NoDevice` (without the `cuda`
/// feature, `Error::BackendNotCompiled`); run in a child process, since the variable is
/// read once per process.
#[test]
fn forcing_cuda_without_a_device_is_an_error() {
    if is_child() {
        let mut x: Field<f32> = Field::filled(4, 0.0);
        let r = on_gpu!({
            x = 1.0;
        });
        match r {
            Err(Error::NoDevice { reason }) => println!("CHILD: NoDevice: {reason}"),
            Err(Error::BackendNotCompiled { .. }) => println!("CHILD: not compiled in"),
            Ok(()) => println!("CHILD: ran on a device"),
            Err(other) => println!("CHILD: other error {other}"),
        }
        return;
    }
    let stdout = run_child(
        module_path!(),
        "forcing_cuda_without_a_device_is_an_error",
        &[("ONGPU_BACKEND", "cuda")],
    );
    if !cfg!(feature = "cuda") {
        assert!(stdout.contains("CHILD: not compiled in"), "{stdout}");
    } else if ongpu::cuda_available() {
        assert!(stdout.contains("CHILD: ran on a device"), "{stdout}");
    } else {
        assert!(stdout.contains("CHILD: NoDevice"), "{stdout}");
    }
}

#[test]
fn an_unknown_backend_name_is_an_error() {
    if is_child() {
        let mut x: Field<f32> = Field::filled(4, 0.0);
        match on_gpu!({
            x = 1.0;
        }) {
            Err(e @ Error::InvalidArgument(_)) => println!("CHILD: {e}"),
            other => println!("CHILD: unexpected {other:?}"),
        }
        return;
    }
    let stdout = run_child(
        module_path!(),
        "an_unknown_backend_name_is_an_error",
        &[("ONGPU_BACKEND", "quantum")],
    );
    assert!(
        stdout.contains("CHILD: ONGPU_BACKEND=\"quantum\" is not one of cuda, cpu, auto"),
        "{stdout}"
    );
}
