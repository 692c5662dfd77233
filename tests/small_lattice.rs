//! The graph CG and the device-loop CG of `examples/small_lattice` (its files included
//! here): they meet the tolerance on the true residual and agree with the eager solver of
//! `staggered_cg`, on the CPU backend and, with `cargo test --test small_lattice --
//! --include-ignored`, on the GPU, where the graph holds four kernels per iteration; on
//! CPUs, their kernels are compiled by NVRTC for sm_90 and sm_80 without spills.

#[cfg(feature = "cuda")]
mod common;
#[path = "../examples/small_lattice/device_passes.rs"]
mod device_passes;
#[allow(dead_code)] // the example's set-up; not all of it is needed here
#[path = "../examples/staggered_cg/gauge.rs"]
mod gauge;
#[path = "../examples/small_lattice/graph_cg.rs"]
mod graph_cg;
#[allow(dead_code)]
#[path = "../examples/staggered_cg/host.rs"]
mod host;
#[path = "../examples/small_lattice/loop_cg.rs"]
mod loop_cg;
#[allow(dead_code)] // the example's report uses the byte and flop counts
#[path = "../examples/staggered_cg/operator.rs"]
mod operator;
#[allow(dead_code)]
#[path = "../examples/staggered_cg/solver.rs"]
mod solver;

use gauge::{device_links, even_part, links, random_vector, GaugeKind};
use graph_cg::{GraphCg, KERNELS_PER_ITERATION};
use host::HostOperator;
use loop_cg::LoopCg;
use ongpu::prelude::*;
use operator::Fermion;
use solver::Solver;

const MASS: f64 = 0.1;
const TOL: f64 = 1e-10;
const BLOCK: usize = 7;

/// Solves on 4^4 both ways, twice with the graph solver (the second solve replays).
fn graph_cg_meets_the_tolerance_and_agrees_with_the_eager_solver() {
    let lat = Lattice::new([4; 4]).unwrap();
    let u_host = links(&lat, GaugeKind::Random, 21);
    let b_host = even_part(&lat, &random_vector(&lat, 22));
    let u = device_links(&lat, &u_host);
    let b = Fermion::from_vec(b_host.clone());
    let op = HostOperator::new(lat, &u_host, MASS);

    let mut x_eager = Fermion::zeros(lat.volume());
    let eager = Solver::new(lat, MASS, TOL, 2000)
        .solve(&u, &b, &mut x_eager)
        .unwrap();
    let x_eager = x_eager.to_vec().unwrap();

    let mut cg = GraphCg::new(lat, MASS, TOL, 2000, BLOCK).unwrap();
    for solve in 0..2 {
        let mut x = Fermion::zeros(lat.volume());
        let sol = cg.solve(&u, &b, &mut x).unwrap();
        let x = x.to_vec().unwrap();
        let residual = op.relative_residual(&b_host, &x);
        assert!(
            residual <= TOL,
            "solve {solve}: |b − A x|/|b| = {residual:e}"
        );
        assert!(sol.relative_residual <= TOL);
        assert_eq!(sol.iterations % BLOCK, 0);
        assert!(
            sol.iterations >= eager.iterations && sol.iterations < eager.iterations + 2 * BLOCK,
            "{} graph iterations against {} eager ones",
            sol.iterations,
            eager.iterations
        );
        let diff = x
            .iter()
            .zip(&x_eager)
            .map(|(a, b)| (*a - *b).norm2())
            .sum::<f64>();
        let norm = x_eager.iter().map(|a| a.norm2()).sum::<f64>();
        assert!(
            diff.sqrt() <= 1e-8 * norm.sqrt(),
            "solutions differ by {:e}",
            (diff / norm).sqrt()
        );
    }
    if ongpu::backend().unwrap() == ongpu::Backend::Cuda {
        assert_eq!(cg.graph_kernels(), BLOCK * KERNELS_PER_ITERATION);
    }
}

/// Solves on 4^4 eagerly and with the loop on the device, twice (the second solve replays
/// the loop): the same iterations as the eager solver, give or take one (α and β are
/// computed on the device, in another order of operations), and the tolerance met.
fn loop_cg_meets_the_tolerance_and_agrees_with_the_eager_solver() {
    let lat = Lattice::new([4; 4]).unwrap();
    let u_host = links(&lat, GaugeKind::Random, 21);
    let b_host = even_part(&lat, &random_vector(&lat, 22));
    let u = device_links(&lat, &u_host);
    let b = Fermion::from_vec(b_host.clone());
    let op = HostOperator::new(lat, &u_host, MASS);

    let mut x_eager = Fermion::zeros(lat.volume());
    let eager = Solver::new(lat, MASS, TOL, 2000)
        .solve(&u, &b, &mut x_eager)
        .unwrap();

    let mut cg = LoopCg::new(lat, MASS, TOL, 2000).unwrap();
    let mut iterations = Vec::new();
    for solve in 0..2 {
        let mut x = Fermion::zeros(lat.volume());
        let sol = cg.solve(&u, &b, &mut x).unwrap();
        let residual = op.relative_residual(&b_host, &x.to_vec().unwrap());
        assert!(
            residual <= TOL,
            "solve {solve}: |b − A x|/|b| = {residual:e}"
        );
        assert!(
            sol.iterations.abs_diff(eager.iterations) <= 1,
            "{} device-loop iterations against {} eager ones",
            sol.iterations,
            eager.iterations
        );
        iterations.push(sol.iterations);
    }
    assert_eq!(iterations[0], iterations[1], "a replay repeats the solve");
    if ongpu::backend().unwrap() == ongpu::Backend::Cuda {
        assert_eq!(cg.loop_kernels(), KERNELS_PER_ITERATION);
    }
}

#[test]
fn cpu_loop_cg() {
    ongpu::with_backend(
        ongpu::Backend::Cpu,
        loop_cg_meets_the_tolerance_and_agrees_with_the_eager_solver,
    )
}

#[cfg(feature = "cuda")]
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_loop_cg() {
    ongpu::with_backend(
        ongpu::Backend::Cuda,
        loop_cg_meets_the_tolerance_and_agrees_with_the_eager_solver,
    )
}

#[test]
fn cpu_graph_cg() {
    ongpu::with_backend(
        ongpu::Backend::Cpu,
        graph_cg_meets_the_tolerance_and_agrees_with_the_eager_solver,
    )
}

#[cfg(feature = "cuda")]
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_graph_cg() {
    ongpu::with_backend(
        ongpu::Backend::Cuda,
        graph_cg_meets_the_tolerance_and_agrees_with_the_eager_solver,
    )
}

/// Every kernel of the graph solver compiles with NVRTC for Hopper and Ampere, with no
/// warnings, spills or stack frame (the sources come from a CPU run).
#[cfg(feature = "cuda")]
#[test]
fn graph_cg_kernels_compile_for_sm90_and_sm80_without_spills() {
    use ongpu::codegen::collect_kernel_sources;
    if !common::require_nvrtc() {
        return;
    }
    let ((), sources) = collect_kernel_sources(|| {
        ongpu::with_bounds_checks(false, || {
            ongpu::with_backend(ongpu::Backend::Cpu, || {
                let lat = Lattice::new([4; 4]).unwrap();
                let u = device_links(&lat, &links(&lat, GaugeKind::Smooth, 14));
                let b = Fermion::from_vec(even_part(&lat, &random_vector(&lat, 15)));
                let mut x = Fermion::zeros(lat.volume());
                GraphCg::new(lat, 1.0, 1e-6, 100, 3)
                    .unwrap()
                    .solve(&u, &b, &mut x)
                    .unwrap();
            })
        })
    });
    let kernels = common::distinct_kernels(sources);
    let sources: Vec<&str> = kernels.iter().map(|k| k.source.as_str()).collect();
    for needle in ["ongpu_result", "alpha_old"] {
        assert!(
            sources.iter().any(|s| s.contains(needle)),
            "no kernel with {needle}"
        );
    }
    common::check_kernels_stay_in_registers(&kernels);
}
