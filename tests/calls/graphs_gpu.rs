//! Graphs and device scalars on the GPU: replays match the eager calls and the CPU backend,
//! fields keep their coherence across replays, and misuse is an `Error::Graph`. Run on a
//! CUDA machine with `cargo test -- --include-ignored`.

#![cfg(feature = "cuda")]

use crate::graphs;

use graphs::{eager, eager_until, graphed, looped, Cg};
use ongpu::prelude::*;
use ongpu::{with_backend, Backend, Error};

fn gpu<R>(f: impl FnOnce() -> R) -> R {
    with_backend(Backend::Cuda, f)
}

#[test]
#[ignore = "needs a CUDA device"]
fn replays_match_the_eager_calls_bit_for_bit() {
    gpu(|| {
        for n in [1, 33, 1000, 1 << 16] {
            let (xe, rre) = eager(n, 10);
            let (xg, rrg, graph) = graphed(n, 10);
            // Bit patterns: at n = 1 the CG has converged after one step and later steps
            // divide 0 by 0, so both hold the same NaNs.
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&xe), bits(&xg), "n = {n}");
            assert_eq!(rre.to_bits(), rrg.to_bits(), "n = {n}");
            assert_eq!(graph.kernels(), 6);
        }
    });
}

#[test]
#[ignore = "needs a CUDA device"]
fn graph_and_cpu_agree() {
    let (xg, rrg, _) = gpu(|| graphed(4096, 25));
    let (xc, rrc) = with_backend(Backend::Cpu, || eager(4096, 25));
    for (g, c) in xg.iter().zip(&xc) {
        assert!((g - c).abs() <= 1e-12 * c.abs().max(1.0), "{g} vs {c}");
    }
    assert!((rrg - rrc).abs() <= 1e-12 * rrc.abs().max(1e-300) + 1e-300);
}

#[test]
#[ignore = "needs a CUDA device"]
fn replays_keep_field_coherence() {
    gpu(|| {
        let mut x: Field<f64> = Field::filled(100, 1.0);
        let mut s = DeviceScalar::zero();
        let mut graph = Graph::new();
        let step = |x: &mut Field<f64>, s: &mut DeviceScalar, graph: &mut Graph| {
            graph.run(|| {
                on_gpu!({
                    x *= 2.0;
                })?;
                on_gpu!(sum -> s: { x })
            })
        };
        step(&mut x, &mut s, &mut graph).unwrap();
        assert_eq!(x.get(0).unwrap(), 2.0, "a host read sees the graph's write");
        assert_eq!(s.get().unwrap(), 200.0);
        x.set(0, 10.0).unwrap(); // the host copy is newer: the replay uploads it first
        step(&mut x, &mut s, &mut graph).unwrap();
        assert_eq!(x.get(0).unwrap(), 20.0);
        assert_eq!(s.get().unwrap(), 20.0 + 99.0 * 4.0);
    });
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_replaced_field_is_an_error() {
    gpu(|| {
        let mut x: Field<f64> = Field::filled(100, 1.0);
        let mut graph = Graph::new();
        let step = |x: &mut Field<f64>, graph: &mut Graph| {
            graph.run(|| {
                on_gpu!({
                    x += 1.0;
                })
            })
        };
        step(&mut x, &mut graph).unwrap();
        let _keep = std::mem::replace(&mut x, Field::filled(100, 5.0)); // new device memory
        let err = step(&mut x, &mut graph).unwrap_err();
        assert!(matches!(err, Error::Graph(_)), "{err}");
        assert!(
            err.to_string().contains("differs from its recording"),
            "{err}"
        );
    });
}

#[test]
#[ignore = "needs a CUDA device"]
fn host_access_and_host_reductions_in_a_graph_are_errors() {
    gpu(|| {
        let x: Field<f64> = Field::filled(10, 1.0);
        let mut g = Graph::new();
        let err = g.run(|| x.to_vec().map(drop)).unwrap_err();
        assert!(matches!(err, Error::Graph(_)), "{err}");
        let mut g = Graph::new();
        let err = g.run(|| on_gpu!(sum: { x }).map(drop)).unwrap_err();
        assert!(matches!(err, Error::Graph(_)), "{err}");
        assert_eq!(
            x.to_vec().unwrap(),
            vec![1.0; 10],
            "usable after the errors"
        );
    });
}

#[test]
#[ignore = "needs a CUDA device"]
fn cg_as_a_graph_converges() {
    gpu(|| {
        let mut cg = Cg::new(1 << 12);
        cg.start().unwrap();
        let mut graph = Graph::new();
        for _ in 0..60 {
            graph.run(|| cg.iterate()).unwrap();
        }
        assert!(cg.true_residual() < 1e-10, "{}", cg.true_residual());
    });
}

/// `|r|²` at which the device loops stop.
const TOL2: f64 = 1e-16;

#[test]
#[ignore = "needs a CUDA device"]
fn a_device_loop_matches_the_eager_loop_and_the_graph_bit_for_bit() {
    gpu(|| {
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for n in [33, 1000, 1 << 16] {
            let (xe, rre, ie) = eager_until(n, TOL2, 1000);
            let (xl, rrl, il, solve) = looped(n, TOL2, 1000);
            assert!(ie > 0 && ie < 1000, "n = {n}: {ie} eager iterations");
            assert_eq!(il, ie, "n = {n}: iterations");
            assert_eq!(bits(&xe), bits(&xl), "n = {n}");
            assert_eq!(rre.to_bits(), rrl.to_bits(), "n = {n}");
            assert_eq!(solve.kernels(), 6, "n = {n}");
            let (xg, rrg, _) = graphed(n, ie as usize);
            assert_eq!(bits(&xg), bits(&xl), "n = {n}: the plain graph");
            assert_eq!(rrg.to_bits(), rrl.to_bits(), "n = {n}: the plain graph");
        }
    });
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_device_loop_stops_at_its_limit_and_replays_with_new_limits() {
    gpu(|| {
        let (xe, _, ie) = eager_until(4096, TOL2, 1000);
        let (x5, _) = eager(4096, 5);
        let mut cg = Cg::new(4096);
        cg.start().unwrap();
        let mut solve = GraphLoop::new();
        let run = |cg: &mut Cg, solve: &mut GraphLoop, max: u32| {
            solve
                .run_while(cg, |cg| LoopTest::above(&cg.rr, TOL2), max, Cg::iterate)
                .unwrap();
            solve.iterations().unwrap()
        };
        assert_eq!(run(&mut cg, &mut solve, 5), 5, "stops at max_iterations");
        assert_eq!(cg.x.to_vec().unwrap(), x5);
        let rest = run(&mut cg, &mut solve, 1000); // a replay: only the limit changed
        assert_eq!(5 + rest, ie);
        assert_eq!(cg.x.to_vec().unwrap(), xe);
        assert_eq!(run(&mut cg, &mut solve, 1000), 0, "converged: no iteration");
        assert_eq!(run(&mut cg, &mut solve, 0), 0, "max_iterations 0");
        assert_eq!(solve.runs(), 4);
        assert_eq!(cg.x.to_vec().unwrap(), xe);
    });
}

#[test]
#[ignore = "needs a CUDA device"]
fn misuse_of_a_device_loop_is_an_error() {
    gpu(|| {
        let mut cg = Cg::new(100);
        cg.start().unwrap();
        // A loop that works first, so that the errors below are the misuse, not the device.
        let mut solve = GraphLoop::new();
        solve
            .run_while(
                &mut cg,
                |cg| LoopTest::above(&cg.rr, 1e300),
                10,
                Cg::iterate,
            )
            .unwrap();
        assert_eq!(
            solve.iterations().unwrap(),
            0,
            "|r|² is below 1e300 at once"
        );
        let mut solve = GraphLoop::new();
        let err = solve
            .run_while(
                &mut cg,
                |cg| LoopTest::above(&cg.rr, TOL2),
                10,
                |cg| cg.rr.get().map(drop),
            )
            .unwrap_err();
        assert!(
            matches!(err, Error::Graph(_)) && err.to_string().contains("GraphLoop's body"),
            "a host read in the body: {err}"
        );
        let mut graph = Graph::new();
        let err = graph
            .run(|| {
                GraphLoop::new().run_while(
                    &mut cg,
                    |cg| LoopTest::above(&cg.rr, TOL2),
                    10,
                    Cg::iterate,
                )
            })
            .unwrap_err();
        assert!(
            matches!(err, Error::Graph(_)) && err.to_string().contains("do not nest"),
            "a loop in a graph: {err}"
        );
        // Still usable: a fresh loop runs to the tolerance.
        let mut solve = GraphLoop::new();
        solve
            .run_while(
                &mut cg,
                |cg| LoopTest::above(&cg.rr, TOL2),
                1000,
                Cg::iterate,
            )
            .unwrap();
        assert!(solve.iterations().unwrap() > 0);
        assert!(cg.rr.get().unwrap() <= TOL2);
    });
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_device_loop_and_the_cpu_agree() {
    let (xl, _, il, _) = gpu(|| looped(4096, TOL2, 1000));
    let (xc, _, ic, _) = with_backend(Backend::Cpu, || looped(4096, TOL2, 1000));
    assert!(il.abs_diff(ic) <= 1, "{il} GPU against {ic} CPU iterations");
    for (g, c) in xl.iter().zip(&xc) {
        // Both are within |r| ≤ 1e-8 of the solution (A ≥ 1), whatever the last iteration.
        assert!((g - c).abs() <= 1e-7 * c.abs().max(1.0), "{g} vs {c}");
    }
}
