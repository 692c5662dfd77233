//! Mixed-precision CG with reliable updates (`ongpu::qcd::staggered::MixedCg`): with inner
//! iterations in f32 and in 16 bits (f16 vectors and two-row links) it meets the same true
//! residual 1e-10 as the f64 CG, checked by the independent host operator, at several
//! masses on random gauge fields (a light one among them, where many reliable updates are
//! needed), reports its reliable updates, and refuses a bad δ. On the CPU backend, and on
//! the GPU with `--include-ignored`.

#[cfg(feature = "cuda")]
use crate::support;

use ongpu::prelude::*;
use ongpu::qcd::gauge::GaugeField;
use ongpu::qcd::solver::{LinearSolver, Solution, SolverError};
use ongpu::qcd::staggered::{even_part, random_vector, Cg, Fermion, MixedCg, Staggered};
use ongpu_reference::staggered::HostStaggered;

const TOL: f64 = 1e-10;

/// Solves with `solver` and checks the true residual on the host.
fn solve_checked(
    solver: &mut dyn LinearSolver<Staggered>,
    gauge: &GaugeField,
    mass: f64,
    seed: u64,
) -> Solution {
    let lat = gauge.lattice();
    let b_host = even_part(&lat, &random_vector(&lat, seed));
    let b = Fermion::from_vec(b_host.clone());
    let mut x = Fermion::filled(
        lat.volume(),
        ColorVector::new([Complex::new(f64::NAN, 0.0); 3]),
    );
    let op = Staggered::new(gauge, mass).unwrap();
    let s = solver.solve(&op, &b, &mut x).unwrap();
    let host = HostStaggered::from_gauge(gauge, mass)
        .unwrap()
        .relative_residual(&b_host, &x.to_vec().unwrap());
    assert!(
        s.relative_residual <= TOL && host <= TOL,
        "{} at mass {mass}: |b - A x|/|b| = {:e} (solver), {host:e} (host)",
        solver.name(),
        s.relative_residual
    );
    assert!(
        (s.relative_residual - host).abs() <= 1e-3 * host,
        "the solver's residual {:e} is not the host's {host:e}",
        s.relative_residual
    );
    s
}

/// f32 inner iterations at a heavy, a middle and a light mass: the f64 CG's true residual,
/// with reliable updates, in not many more iterations than the f64 CG (at the light mass on
/// this tiny lattice of Haar-random links both lose orthogonality, the f32 one more: 1.41×
/// the f64 iterations for this configuration, hence its wider bound).
fn f32_inner_iterations() {
    let lat = Lattice::new([4, 4, 4, 6]).unwrap();
    let gauge = GaugeField::random(lat, 3).unwrap();
    for mass in [0.5, 0.1, 0.02] {
        let exact = solve_checked(&mut Cg::new(lat, TOL, 5000), &gauge, mass, 4);
        let mut mixed = MixedCg::<Lattice, f32>::new(lat, TOL, 5000);
        let s = solve_checked(&mut mixed, &gauge, mass, 4);
        assert!(s.reliable_updates >= 3, "mass {mass}: {s:?}");
        let bound = if mass < 0.05 { 1.5 } else { 1.4 };
        assert!(
            s.iterations as f64 <= bound * exact.iterations as f64 + 5.0,
            "mass {mass}: {} mixed iterations, {} in f64",
            s.iterations,
            exact.iterations
        );
    }
}

/// Vectors and links in 16 bits (f16): at a heavy mass the same true residual, with
/// reliable updates; at a light one, where an 11-bit significand cannot resolve the system,
/// either the same true residual or a `Stagnated` error, never a wrong answer.
fn f16_inner_iterations() {
    let lat = Lattice::new([4, 4, 4, 6]).unwrap();
    let gauge = GaugeField::random(lat, 5).unwrap();
    let s = solve_checked(
        &mut MixedCg::<Lattice, f16>::new(lat, TOL, 5000),
        &gauge,
        0.5,
        6,
    );
    assert!(s.reliable_updates >= 4, "{s:?}");
    let b = Fermion::from_vec(even_part(&lat, &random_vector(&lat, 6)));
    let mut x = Fermion::zeros(lat.volume());
    let op = Staggered::new(&gauge, 0.02).unwrap();
    match MixedCg::<Lattice, f16>::new(lat, TOL, 5000).solve(&op, &b, &mut x) {
        Ok(s) => assert!(s.relative_residual <= TOL, "{s:?}"),
        Err(e @ SolverError::Stagnated { .. }) => {
            assert!(e.to_string().contains("inner precision"), "{e}")
        }
        Err(e) => panic!("{e}"),
    }
}

/// A zero source gives zero at once; δ outside (0, 1) is refused.
fn edge_cases() {
    let lat = Lattice::new([4; 4]).unwrap();
    let gauge = GaugeField::random(lat, 7).unwrap();
    let op = Staggered::new(&gauge, 0.3).unwrap();
    let b = Fermion::zeros(lat.volume());
    let mut x = Fermion::filled(lat.volume(), ColorVector::new([Complex::new(1.0, 0.0); 3]));
    let s = MixedCg::<Lattice, f16>::new(lat, TOL, 10)
        .solve(&op, &b, &mut x)
        .unwrap();
    assert_eq!((s.iterations, s.relative_residual), (0, 0.0));
    assert!(x
        .to_vec()
        .unwrap()
        .iter()
        .enumerate()
        .all(|(i, v)| { lat.parity(i) == 1 || *v == ColorVector::zero() }));
    for bad in [0.0, 1.0, f64::NAN] {
        let err = MixedCg::<Lattice, f32>::new(lat, TOL, 10).with_delta(bad);
        assert!(
            err.is_err_and(|e| e.to_string().contains("(0, 1)")),
            "δ = {bad}"
        );
    }
}

on_both_backends!(f32_inner_iterations, f16_inner_iterations, edge_cases);

/// The kernels of the inner iterations compile with the real NVRTC for Hopper and Ampere,
/// without warnings and without local memory.
#[cfg(feature = "cuda")]
#[test]
fn kernels_compile_with_nvrtc() {
    if !support::require_nvrtc() {
        return;
    }
    let kernels = support::cpu_kernel_sources(|| {
        let lat = Lattice::new([4; 4]).unwrap();
        let gauge = GaugeField::random(lat, 8).unwrap();
        solve_checked(
            &mut MixedCg::<Lattice, f32>::new(lat, TOL, 5000),
            &gauge,
            0.2,
            9,
        );
        solve_checked(
            &mut MixedCg::<Lattice, f16>::new(lat, TOL, 5000),
            &gauge,
            0.5,
            9,
        );
        solve_checked(
            &mut MixedCg::<Lattice, bf16>::new(lat, TOL, 5000),
            &gauge,
            2.0,
            9,
        );
    });
    support::check_kernels_stay_in_registers(&kernels);
}
