//! The graph CG, the device-loop CG and the device-scalar CG of `ongpu::qcd::staggered` (what
//! `examples/small_lattice` measures): they meet the tolerance on the true residual and
//! agree with the eager solver, on the CPU backend and, with `cargo test --test quarks small_lattice:: --
//! --include-ignored`, on the GPU, where the graph holds four kernels per iteration; on
//! CPUs, their kernels are compiled by NVRTC for sm_90 and sm_80 without spills.

#[cfg(feature = "cuda")]
use crate::support;

use ongpu::prelude::*;
use ongpu::qcd::gauge::GaugeField;
use ongpu::qcd::solver::{LinearSolver, Solution};
use ongpu::qcd::staggered::{
    cg_solver, even_part, random_vector, Cg, CgVariant, DeviceCg, Fermion, FermionOf, GraphCg,
    HostVector, LoopCg, Staggered, KERNELS_PER_ITERATION,
};
use ongpu::SplitLattice;
use ongpu_reference::staggered::HostStaggered;

const MASS: f64 = 0.1;
const TOL: f64 = 1e-10;
const BLOCK: usize = 7;

/// The test problem on 4^4: the operator, its host twin, the source, and the eager
/// solution.
struct Problem {
    lat: Lattice,
    op: Staggered,
    host: HostStaggered,
    b_host: HostVector,
    b: Fermion,
    eager: Solution,
    x_eager: HostVector,
}

fn problem() -> Problem {
    let lat = Lattice::new([4; 4]).unwrap();
    let gauge = GaugeField::random(lat, 21).unwrap();
    let b_host = even_part(&lat, &random_vector(&lat, 22));
    let op = Staggered::new(&gauge, MASS).unwrap();
    let b = Fermion::from_vec(b_host.clone());
    let mut x = Fermion::zeros(lat.volume());
    let eager = Cg::new(lat, TOL, 2000).solve(&op, &b, &mut x).unwrap();
    Problem {
        lat,
        host: HostStaggered::from_gauge(&gauge, MASS).unwrap(),
        op,
        b_host,
        b,
        eager,
        x_eager: x.to_vec().unwrap(),
    }
}

/// Solves on 4^4 both ways, twice with the graph solver (the second solve replays).
fn graph_cg_meets_the_tolerance_and_agrees_with_the_eager_solver() {
    let Problem {
        lat,
        op,
        host,
        b_host,
        b,
        eager,
        x_eager,
    } = problem();
    let mut cg = GraphCg::new(lat, TOL, 2000, BLOCK).unwrap();
    // Each solve into a field of its own, all kept alive: the replay's solution is at
    // another address than the recording's.
    let mut solutions = Vec::new();
    for solve in 0..2 {
        solutions.push(Fermion::zeros(lat.volume()));
        let x = solutions.last_mut().unwrap();
        let sol = cg.solve(&op, &b, x).unwrap();
        let x = x.to_vec().unwrap();
        let residual = host.relative_residual(&b_host, &x);
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
    let Problem {
        lat,
        op,
        host,
        b_host,
        b,
        eager,
        ..
    } = problem();
    let mut cg = LoopCg::new(lat, TOL, 2000).unwrap();
    let mut iterations = Vec::new();
    // Each solve into a field of its own, all kept alive: the replay's solution is at
    // another address than the recording's.
    let mut solutions = Vec::new();
    for solve in 0..2 {
        solutions.push(Fermion::zeros(lat.volume()));
        let x = solutions.last_mut().unwrap();
        let sol = cg.solve(&op, &b, x).unwrap();
        let residual = host.relative_residual(&b_host, &x.to_vec().unwrap());
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

/// Solves on 4^4 with the device-loop CG and with device scalars queued in blocks, twice
/// (the second solve reuses the solver's fields): the same recursion on the device, so the
/// same iterations and the same bits; the block solver stops exactly where the loop does
/// (iterations queued past the target change nothing) and waits for the host far fewer
/// times than it iterates.
fn device_cg_stops_where_the_device_loop_does() {
    let Problem {
        lat,
        op,
        host,
        b_host,
        b,
        ..
    } = problem();
    let mut looped = LoopCg::new(lat, TOL, 2000).unwrap();
    let mut x_loop = Fermion::zeros(lat.volume());
    let by_loop = looped.solve(&op, &b, &mut x_loop).unwrap();
    let x_loop = x_loop.to_vec().unwrap();
    let mut cg = DeviceCg::new(lat, TOL, 2000);
    for solve in 0..2 {
        let poison = ColorVector::new([Complex::new(f64::NAN, 0.0); 3]);
        let mut x = Fermion::from_vec(vec![poison; lat.volume()]);
        let sol = cg.solve(&op, &b, &mut x).unwrap();
        // The solver writes the even sites: the poison stays on the odd ones.
        let x = x.to_vec().unwrap();
        assert!(x.iter().any(|v| v[0].re.is_nan()));
        let x = even_part(&lat, &x);
        assert_eq!(sol.iterations, by_loop.iterations, "solve {solve}");
        assert_eq!(sol.restarts, by_loop.restarts, "solve {solve}");
        let same = x.iter().zip(&x_loop).all(|(a, b)| {
            (0..3).all(|k| {
                a[k].re.to_bits() == b[k].re.to_bits() && a[k].im.to_bits() == b[k].im.to_bits()
            })
        });
        assert!(same, "solve {solve}: the solutions differ in their bits");
        let residual = host.relative_residual(&b_host, &x);
        assert!(
            residual <= TOL,
            "solve {solve}: |b − A x|/|b| = {residual:e}"
        );
        assert!(
            cg.looks() * 4 <= sol.iterations,
            "solve {solve}: {} looks at |r|² for {} iterations",
            cg.looks(),
            sol.iterations
        );
        assert!(cg.passes().updates >= sol.iterations);
    }
}

#[test]
fn cpu_device_cg() {
    ongpu::with_backend(
        ongpu::Backend::Cpu,
        device_cg_stops_where_the_device_loop_does,
    )
}

#[cfg(feature = "cuda")]
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_device_cg() {
    ongpu::with_backend(
        ongpu::Backend::Cuda,
        device_cg_stops_where_the_device_loop_does,
    )
}

/// `DeviceCg` over a lattice split into parts (emulated on the CPU backend, where every
/// part reads the host's scalars): the tolerance met on the host operator's residual, and
/// the iterations and bits of `Cg` over the same split (on the CPU the one-site kernel
/// computes α and β as the host does).
#[test]
fn cpu_device_cg_over_split_parts() {
    ongpu::with_backend(ongpu::Backend::Cpu, || {
        let p = problem();
        let split = p
            .lat
            .split_along(&ongpu::Devices::emulated(2).unwrap(), 3)
            .unwrap();
        let gauge = GaugeField::random(split, 21).unwrap();
        let op = Staggered::new(&gauge, MASS).unwrap();
        let b: FermionOf<SplitLattice> = split.field_from_vec(p.b_host.clone()).unwrap();
        let mut x: FermionOf<SplitLattice> = split.zeros().unwrap();
        let sol = DeviceCg::new(split, TOL, 2000)
            .solve(&op, &b, &mut x)
            .unwrap();
        let x = x.values().unwrap();
        let residual = p.host.relative_residual(&p.b_host, &x);
        assert!(residual <= TOL, "{split}: |b − A x|/|b| = {residual:e}");
        let mut x_cg: FermionOf<SplitLattice> = split.zeros().unwrap();
        let by_cg = Cg::new(split, TOL, 2000).solve(&op, &b, &mut x_cg).unwrap();
        assert_eq!(sol.iterations, by_cg.iterations);
        assert!(x == x_cg.values().unwrap(), "{split}: the solutions differ");
    })
}

/// The four variants behind one interface, chosen at run time: each meets the tolerance
/// on the host operator's residual, reports its own true residual and a time, and a solver
/// made for too few iterations says so instead of answering.
fn every_variant_behind_one_interface() {
    let p = problem();
    for variant in [
        CgVariant::Eager,
        CgVariant::Graph { block: 5 },
        CgVariant::DeviceLoop,
        CgVariant::DeviceScalars,
    ] {
        let mut solver = cg_solver(variant, p.lat, TOL, 2000).unwrap();
        let mut x = Fermion::zeros(p.lat.volume());
        let sol = solver.solve(&p.op, &p.b, &mut x).unwrap();
        let residual = p.host.relative_residual(&p.b_host, &x.to_vec().unwrap());
        assert!(residual <= TOL, "{}: {residual:e}", solver.name());
        assert!(
            (sol.relative_residual - residual).abs() <= 1e-3 * residual,
            "{}: reported {} against the host's {residual}",
            solver.name(),
            sol.relative_residual
        );
        assert!(sol.seconds > 0.0 && sol.iterations >= p.eager.iterations - 1);
        let mut short = cg_solver(variant, p.lat, TOL, 10).unwrap();
        let err = short.solve(&p.op, &p.b, &mut x).unwrap_err();
        assert!(
            err.to_string().contains("did not converge"),
            "{}: {err}",
            solver.name()
        );
    }
}

#[test]
fn cpu_every_variant() {
    ongpu::with_backend(ongpu::Backend::Cpu, every_variant_behind_one_interface)
}

#[cfg(feature = "cuda")]
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_every_variant() {
    ongpu::with_backend(ongpu::Backend::Cuda, every_variant_behind_one_interface)
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
    if !support::require_nvrtc() {
        return;
    }
    let kernels = support::cpu_kernel_sources(|| {
        let lat = Lattice::new([4; 4]).unwrap();
        let op = Staggered::new(&GaugeField::smooth(lat, 0.2, 14).unwrap(), 1.0).unwrap();
        let b = Fermion::from_vec(even_part(&lat, &random_vector(&lat, 15)));
        let mut x = Fermion::zeros(lat.volume());
        GraphCg::new(lat, 1e-6, 100, 3)
            .unwrap()
            .solve(&op, &b, &mut x)
            .unwrap();
    });
    let sources: Vec<&str> = kernels.iter().map(|k| k.source.as_str()).collect();
    for needle in ["ongpu_result", "alpha_old"] {
        assert!(
            sources.iter().any(|s| s.contains(needle)),
            "no kernel with {needle}"
        );
    }
    support::check_kernels_stay_in_registers(&kernels);
}

/// An exact solution after one iteration: unit links and a constant source, which the hops
/// cancel (`D ψ = 0`), so `A b = m² b` with m² = 1/4 exact; α = 4 and the residual is zero.
/// The graph solver's block then runs on at r = 0, where `⟨p, A p⟩ = 0`: that stops the
/// updates, and the solve has converged, not broken down. Returns the solution's largest
/// distance from `b / m²`.
fn graph_cg_stops_cleanly_at_an_exact_solution() {
    let lat = Lattice::new([4; 4]).unwrap();
    let op = Staggered::new(&GaugeField::unit(lat).unwrap(), 0.5).unwrap();
    let one = ColorVector::new([Complex::new(1.0, 0.0); 3]);
    let b = Fermion::from_vec(
        (0..lat.volume())
            .map(|s| {
                if s < lat.volume() / 2 {
                    one
                } else {
                    ColorVector::zero()
                }
            })
            .collect(),
    );
    let mut cg = GraphCg::new(lat, 1e-12, 100, 4).unwrap();
    let mut x = Fermion::zeros(lat.volume());
    let sol = cg.solve(&op, &b, &mut x).unwrap();
    assert_eq!(sol.relative_residual, 0.0, "{sol:?}");
    let x = x.to_vec().unwrap();
    for v in &x[..lat.volume() / 2] {
        assert_eq!(*v, ColorVector::new([Complex::new(4.0, 0.0); 3]));
    }
}

#[test]
fn cpu_graph_cg_exact_solution() {
    ongpu::with_backend(
        ongpu::Backend::Cpu,
        graph_cg_stops_cleanly_at_an_exact_solution,
    )
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_graph_cg_exact_solution() {
    ongpu::with_backend(
        ongpu::Backend::Cuda,
        graph_cg_stops_cleanly_at_an_exact_solution,
    )
}
