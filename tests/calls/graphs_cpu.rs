//! Graphs and device scalars on the current backend (the CPU in CI): a graph's replays give
//! what the same calls give eagerly, scalars flow between calls, and misuse is an error.

use crate::graphs;

use graphs::{eager, eager_until, graphed, looped, Cg};
use ongpu::prelude::*;
use ongpu::{with_backend, Backend, Error};

fn cpu<R>(f: impl FnOnce() -> R) -> R {
    with_backend(Backend::Cpu, f)
}

#[test]
fn a_graph_gives_what_the_calls_give_eagerly() {
    cpu(|| {
        let (xe, rre) = eager(1000, 12);
        let (xg, rrg, graph) = graphed(1000, 12);
        assert_eq!(xe, xg);
        assert_eq!(rre.to_bits(), rrg.to_bits());
        assert_eq!(graph.runs(), 12);
    });
}

#[test]
fn cg_with_device_scalars_converges() {
    cpu(|| {
        let mut cg = Cg::new(500);
        cg.start().unwrap();
        let rr0 = cg.rr.get().unwrap();
        for _ in 0..40 {
            cg.iterate().unwrap();
        }
        assert!(cg.rr.get().unwrap() < 1e-20 * rr0, "|r|² did not fall");
        assert!(cg.true_residual() < 1e-10);
    });
}

#[test]
fn a_reduction_writes_its_scalar_and_a_body_reads_it() {
    cpu(|| {
        let x: Field<f32> = Field::from_fn(100, |i| i as f32);
        let mut total = DeviceScalar::zero();
        on_gpu!(sum -> total: { x }).unwrap();
        assert_eq!(total.get().unwrap(), 4950.0);
        let mut hi: DeviceScalar<f32> = DeviceScalar::zero();
        on_gpu!(max -> hi: { x }).unwrap();
        assert_eq!(hi.get().unwrap(), 99.0);
        let mut y: Field<f64> = Field::zeros(100);
        on_gpu!(|i| {
            y = total - i as f64;
        })
        .unwrap();
        assert_eq!(y.get(10).unwrap(), 4940.0);
        let mut z: DeviceScalar<Complex<f64>> = DeviceScalar::zero();
        let c: Field<Complex<f64>> = Field::filled(4, Complex::new(1.0, -1.0));
        on_gpu!(sum -> z: { c }).unwrap();
        assert_eq!(z.get().unwrap(), Complex::new(4.0, -4.0));
    });
}

#[test]
fn a_reduction_over_no_sites_stores_the_identity() {
    cpu(|| {
        let x: Field<f64> = Field::zeros(0);
        let mut s = DeviceScalar::new(7.0);
        on_gpu!(sum -> s: { x }).unwrap();
        assert_eq!(s.get().unwrap(), 0.0);
    });
}

#[test]
fn a_written_scalar_is_one_site() {
    cpu(|| {
        let mut s = DeviceScalar::new(1.0);
        let x: Field<f64> = Field::filled(10, 1.0);
        let err = on_gpu!(10, {
            s = x;
        })
        .unwrap_err();
        assert!(
            matches!(
                err,
                Error::SitesExceedField { .. } | Error::UnequalLengths { .. }
            ),
            "{err}"
        );
        assert_eq!(s.get().unwrap(), 1.0);
    });
}

/// `|r|²` of the test program falls below this after a few dozen iterations at n = 1000.
const TOL2: f64 = 1e-16;

#[test]
fn a_device_loop_stops_where_the_eager_loop_stops() {
    cpu(|| {
        let (xe, rre, ie) = eager_until(1000, TOL2, 500);
        let (xl, rrl, il, solve) = looped(1000, TOL2, 500);
        assert!(ie > 3 && ie < 500, "{ie} eager iterations");
        assert_eq!(il, ie);
        assert!(rrl <= TOL2, "{rrl}");
        assert_eq!(xe, xl);
        assert_eq!(rre.to_bits(), rrl.to_bits());
        assert_eq!(solve.runs(), 1);
    });
}

#[test]
fn a_device_loop_stops_at_its_largest_iteration_count() {
    cpu(|| {
        let (xe, rre) = eager(1000, 5);
        let (xl, rrl, il, _) = looped(1000, TOL2, 5);
        assert_eq!(il, 5);
        assert_eq!(xe, xl);
        assert_eq!(rre.to_bits(), rrl.to_bits());
    });
}

#[test]
fn a_device_loop_that_need_not_start_makes_no_iteration() {
    cpu(|| {
        let (x, _, i, _) = looped(100, f64::MAX, 50);
        assert_eq!(i, 0, "|r|² is below the bound before the first test");
        assert!(x.iter().all(|&v| v == 0.0));
        let (x, _, i, _) = looped(100, TOL2, 0);
        assert_eq!(i, 0, "no iteration allowed");
        assert!(x.iter().all(|&v| v == 0.0));
    });
}

#[test]
fn a_device_loop_runs_again_with_new_limits() {
    cpu(|| {
        let (xe, _, ie) = eager_until(1000, TOL2, 500);
        let mut cg = Cg::new(1000);
        cg.start().unwrap();
        let mut solve = GraphLoop::new();
        let mut total = 0;
        for max in [3, 500] {
            solve
                .run_while(
                    &mut cg,
                    |cg| LoopTest::above(&cg.rr, TOL2),
                    max,
                    Cg::iterate,
                )
                .unwrap();
            total += solve.iterations().unwrap();
        }
        assert_eq!(total, ie);
        assert_eq!(cg.x.to_vec().unwrap(), xe);
        assert_eq!(solve.runs(), 2);
    });
}

#[test]
fn a_device_loop_tests_below_and_complex_real_parts() {
    cpu(|| {
        let mut z: DeviceScalar<Complex<f64>> = DeviceScalar::new(Complex::new(0.0, -1.0));
        let mut solve = GraphLoop::new();
        let step = |z: &mut DeviceScalar<Complex<f64>>| {
            on_gpu!({
                z += Complex::new(1.5, 0.0);
            })
        };
        solve
            .run_while(&mut z, |z| LoopTest::below(z, 10.0), 100, step)
            .unwrap();
        assert_eq!(solve.iterations().unwrap(), 7, "0 → 10.5 in steps of 1.5");
        assert_eq!(z.get().unwrap(), Complex::new(10.5, -1.0));
    });
}
