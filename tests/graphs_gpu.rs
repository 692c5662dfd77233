//! Graphs and device scalars on the GPU: replays match the eager calls and the CPU backend,
//! fields keep their coherence across replays, and misuse is an `Error::Graph`. Run on a
//! CUDA machine with `cargo test -- --include-ignored`.

#![cfg(feature = "cuda")]

mod graph_programs;

use graph_programs::{eager, graphed, Cg};
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
