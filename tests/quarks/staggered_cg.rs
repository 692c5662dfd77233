//! The staggered operator and CG of `ongpu::qcd::staggered`:
//! the operator is anti-Hermitian, gauge covariant and equal to an independent host
//! implementation at every site; CG agrees with a dense direct solve, meets its tolerance
//! on the true residual, returns zero for a zero source and fails when it runs out of
//! iterations. Every check runs on the CPU backend, and on the GPU with
//! `cargo test --test quarks staggered_cg:: -- --include-ignored`; on CPUs, the CG kernels are compiled
//! by NVRTC for sm_90 and sm_80 without spills.

#[cfg(feature = "cuda")]
use crate::support;
use crate::support::dense;

use ongpu::prelude::*;
use ongpu::qcd::gauge::{su3::random_su3, GaugeField};
use ongpu::qcd::solver::{LinearSolver, SolverError};
use ongpu::qcd::staggered::passes::{apply_and_reduce, hop};
use ongpu::qcd::staggered::{even_part, random_vector, Cg, Fermion, HostVector, Staggered};
use ongpu_reference::staggered::{self as reference, parity_of, HostStaggered};
use rand::SeedableRng;

/// The mass of the solves: small enough for a hundred-odd iterations on random links.
const MASS: f64 = 0.25;

/// Which gauge field a test solves on.
#[derive(Debug, Clone, Copy)]
enum GaugeKind {
    /// Independent random SU(3) links.
    Random,
    /// Links near the identity.
    Smooth,
}

/// The gauge field of `kind` on `lat` from `seed`.
fn gauge(lat: Lattice, kind: GaugeKind, seed: u64) -> GaugeField {
    match kind {
        GaugeKind::Random => GaugeField::random(lat, seed).unwrap(),
        GaugeKind::Smooth => GaugeField::smooth(lat, 0.2, seed).unwrap(),
    }
}

/// The full-lattice `D ψ` of the `on_gpu!` operator: `D_oe` on the odd sites and `D_eo` on
/// the even ones, the two calls the solver makes.
fn device_dslash(op: &Staggered, psi: &HostVector) -> HostVector {
    let psi = Fermion::from_vec(psi.clone());
    let mut out = Fermion::zeros(op.lattice().volume());
    op.dslash(&psi, &mut out).unwrap();
    out.to_vec().unwrap()
}

/// The largest |real or imaginary part| of `a − b`, and of `b`.
fn max_diff(a: &[ColorVector<f64>], b: &[ColorVector<f64>]) -> (f64, f64) {
    let parts = |v: &ColorVector<f64>| v.v.map(|z| [z.re, z.im]).concat();
    let mut diff = 0.0f64;
    let mut scale = 0.0f64;
    for (x, y) in a.iter().zip(b) {
        for (p, q) in parts(x).into_iter().zip(parts(y)) {
            diff = diff.max((p - q).abs());
            scale = scale.max(q.abs());
        }
    }
    (diff, scale)
}

/// `⟨a, b⟩ = Σ_x a(x)† b(x)` over every site.
fn dot(a: &[ColorVector<f64>], b: &[ColorVector<f64>]) -> Complex<f64> {
    a.iter().zip(b).map(|(x, y)| x.dot(*y)).sum()
}

/// `⟨χ, D ψ⟩ = −⟨D χ, ψ⟩` for random χ and ψ on the whole lattice.
fn anti_hermiticity() {
    let lat = Lattice::new([4, 2, 4, 6]).unwrap();
    let op = Staggered::new(&GaugeField::random(lat, 1).unwrap(), MASS).unwrap();
    let (chi, psi) = (random_vector(&lat, 2), random_vector(&lat, 3));
    let lhs = dot(&chi, &device_dslash(&op, &psi));
    let rhs = -dot(&device_dslash(&op, &chi), &psi);
    assert!(
        lhs.norm() > 1.0,
        "<chi, D psi> = {lhs} is suspiciously small"
    );
    let rel = (lhs - rhs).norm() / lhs.norm();
    assert!(
        rel <= 1e-12,
        "<chi, D psi> = {lhs}, -<D chi, psi> = {rhs}: {rel:e} apart"
    );
}

/// With `U'_mu(x) = g(x) U_mu(x) g(x+mû)†` and `ψ' = g ψ`, `D[U'] ψ' = g D[U] ψ` at every site.
fn gauge_covariance() {
    let lat = Lattice::new([4, 4, 2, 6]).unwrap();
    let v = lat.volume();
    let u = GaugeField::random(lat, 4).unwrap().to_host().unwrap();
    let mut r = rand::rngs::SmallRng::seed_from_u64(5);
    let g: Vec<ColorMatrix<f64>> = (0..v).map(|_| random_su3(&mut r)).collect();
    let u_g: Vec<[ColorMatrix<f64>; 4]> = (0..v)
        .map(|i| std::array::from_fn(|mu| g[i] * u[i][mu] * g[lat.shift(i, mu, 1)].adj()))
        .collect();
    let psi = random_vector(&lat, 6);
    let psi_g: HostVector = (0..v).map(|i| g[i] * psi[i]).collect();
    let op = |links| Staggered::new(&GaugeField::from_host(lat, links).unwrap(), MASS).unwrap();
    let d = device_dslash(&op(u), &psi);
    let got = device_dslash(&op(u_g), &psi_g);
    let want: HostVector = (0..v).map(|i| g[i] * d[i]).collect();
    let (diff, scale) = max_diff(&got, &want);
    assert!(
        diff <= 1e-12 * scale,
        "D[U'] g psi differs from g D[U] psi by {diff:e} (scale {scale})"
    );
}

/// The `on_gpu!` passes against the host operator at every site: `D` on both parities,
/// `A r` of `hop` + `apply_and_reduce`, and that pass's two sums.
fn operator_matches_host() {
    let lat = Lattice::new([4, 6, 2, 4]).unwrap();
    let gauge = GaugeField::random(lat, 7).unwrap();
    let op = Staggered::new(&gauge, MASS).unwrap();
    let u = op.links();
    let host = HostStaggered::from_gauge(&gauge, MASS).unwrap();
    let psi = random_vector(&lat, 8);
    let (diff, scale) = max_diff(&device_dslash(&op, &psi), &host.dslash_at(&psi, None));
    assert!(
        diff <= 1e-14 * scale,
        "D: {diff:e} from the host (scale {scale})"
    );

    let r_host = even_part(&lat, &psi);
    let r = Fermion::from_vec(r_host.clone());
    let (mut t, mut w) = (Fermion::zeros(lat.volume()), Fermion::zeros(lat.volume()));
    hop(lat.odd(), u, &r, &mut t).unwrap();
    let sums = apply_and_reduce(lat, u, &t, &r, MASS * MASS, &mut w).unwrap();
    let want = host.apply(&r_host);
    let got: HostVector = even_part(&lat, &w.to_vec().unwrap());
    let (diff, scale) = max_diff(&got, &want);
    assert!(
        diff <= 1e-14 * scale,
        "A r: {diff:e} from the host (scale {scale})"
    );
    // The operator's own normal operator, through its calls: the same A r.
    let (mut tmp, mut ar) = (Fermion::zeros(lat.volume()), Fermion::zeros(lat.volume()));
    op.normal(&r, &mut tmp, &mut ar).unwrap();
    let (diff, scale) = max_diff(&even_part(&lat, &ar.to_vec().unwrap()), &want);
    assert!(
        diff <= 1e-14 * scale,
        "Staggered::normal: {diff:e} from the host (scale {scale})"
    );
    let want_r2 = reference::norm2_even(&lat, &r_host);
    let want_rar = dot(&r_host, &want);
    assert!(
        (sums.r_norm2 - want_r2).abs() <= 1e-13 * want_r2,
        "|r|²: {sums:?}, {want_r2}"
    );
    assert!(
        (sums.r_dot_ar - want_rar.re).abs() <= 1e-13 * want_rar.re,
        "<r, A r>: {sums:?}, {want_rar}"
    );
    assert!(
        want_rar.im.abs() <= 1e-12 * want_rar.re,
        "A is not Hermitian: <r, A r> = {want_rar}"
    );
}

/// A solve and what went into it.
struct Solved {
    lat: Lattice,
    gauge: GaugeField,
    b: HostVector,
    x: HostVector,
    solution: ongpu::qcd::solver::Solution,
    passes: ongpu::qcd::staggered::PassCounts,
}

/// Solves on `dims` with links of `kind` and a random even source, and checks the true
/// residual of the solver and of the host operator against `tol`.
fn solve(dims: [usize; 4], kind: GaugeKind, tol: f64) -> Solved {
    let lat = Lattice::new(dims).unwrap();
    let gauge = gauge(lat, kind, 9);
    let b_host = even_part(&lat, &random_vector(&lat, 10));
    let b = Fermion::from_vec(b_host.clone());
    let mut x = Fermion::zeros(lat.volume());
    let mut cg = Cg::new(lat, tol, 1000);
    let solution = cg
        .solve(&Staggered::new(&gauge, MASS).unwrap(), &b, &mut x)
        .unwrap();
    let x = x.to_vec().unwrap();
    let host_residual = HostStaggered::from_gauge(&gauge, MASS)
        .unwrap()
        .relative_residual(&b_host, &x);
    assert!(
        solution.relative_residual <= tol && host_residual <= tol,
        "{dims:?}: |b - A x|/|b| = {} (solver), {host_residual:e} (host), tolerance {tol:e}",
        solution.relative_residual
    );
    assert!(
        (solution.relative_residual - host_residual).abs() <= 1e-3 * host_residual,
        "the solver's residual {} is not the host's {host_residual}",
        solution.relative_residual
    );
    assert!(solution.seconds > 0.0);
    Solved {
        lat,
        gauge,
        b: b_host,
        x,
        solution,
        passes: cg.passes().into(),
    }
}

/// The CG meets the true residual 1e-10 on 4^4 and on a lattice of unequal extents, in
/// three passes per iteration.
fn cg_meets_the_tolerance() {
    for dims in [[4, 4, 4, 4], [4, 4, 6, 8]] {
        let Solved {
            lat,
            solution: s,
            passes: p,
            ..
        } = solve(dims, GaugeKind::Random, 1e-10);
        assert!(
            s.iterations > 10,
            "{dims:?}: only {} iterations",
            s.iterations
        );
        // One application of A per update, one more per (re)start, one per true residual.
        let applications = s.iterations + 2 * (s.restarts + 1);
        assert_eq!((p.hop, p.apply_and_reduce), (applications, applications));
        assert_eq!((p.update, p.residual), (s.iterations, s.restarts + 1));
        let half = (lat.volume() / 2) as f64;
        let want = half
            * (applications as f64 * (570.0 + 606.0)
                + s.iterations as f64 * 48.0
                + (s.restarts + 1) as f64 * 18.0
                + 12.0);
        assert_eq!(p.flops(&lat), want);
    }
    let s = solve([4, 4, 6, 8], GaugeKind::Smooth, 1e-10).solution;
    assert!(
        s.iterations > 5,
        "smooth links: only {} iterations",
        s.iterations
    );
}

/// At 4^4, CG (to 1e-12) against Gaussian elimination on the 384x384 matrix of the host
/// operator, assembled column by column: the largest difference of a component, relative
/// to the largest component, is at most 1e-8.
fn cg_matches_a_dense_solve() {
    let Solved {
        lat, gauge, b, x, ..
    } = solve([4; 4], GaugeKind::Random, 1e-12);
    let host = HostStaggered::from_gauge(&gauge, MASS).unwrap();
    let even: Vec<usize> = (0..lat.volume())
        .filter(|&i| parity_of(lat.coords(i)) == 0)
        .collect();
    let n = 3 * even.len();
    assert_eq!(n, 384);
    let mut a = vec![vec![Complex::new(0.0, 0.0); n]; n];
    for (col, (&site, c)) in even
        .iter()
        .flat_map(|s| (0..3).map(move |c| (s, c)))
        .enumerate()
    {
        let mut e = vec![ColorVector::zero(); lat.volume()];
        e[site].v[c] = Complex::new(1.0, 0.0);
        let ae = host.apply(&e);
        for (k, &s) in even.iter().enumerate() {
            for cc in 0..3 {
                a[3 * k + cc][col] = ae[s].v[cc];
            }
        }
    }
    let rhs = even.iter().flat_map(|&s| b[s].v).collect();
    let direct = dense::solve(a, rhs);
    let got: Vec<Complex<f64>> = even.iter().flat_map(|&s| x[s].v).collect();
    let diff = got
        .iter()
        .zip(&direct)
        .map(|(p, q)| (p - q).norm())
        .fold(0.0, f64::max);
    let scale = direct.iter().map(|q| q.norm()).fold(0.0, f64::max);
    assert!(
        diff <= 1e-8 * scale,
        "CG and the direct solve differ by {diff:e} (scale {scale})"
    );
}

/// A zero source gives x = 0 at iteration 0 (x's even sites zeroed, its odd ones untouched).
fn zero_source_gives_zero_at_once() {
    let lat = Lattice::new([4; 4]).unwrap();
    let op = Staggered::new(&GaugeField::random(lat, 11).unwrap(), MASS).unwrap();
    let b = Fermion::zeros(lat.volume());
    let marker = ColorVector::new([Complex::new(7.0, -7.0); 3]);
    let mut x = Fermion::filled(lat.volume(), marker);
    let s = Cg::new(lat, 1e-10, 100).solve(&op, &b, &mut x).unwrap();
    assert_eq!((s.iterations, s.restarts, s.relative_residual), (0, 0, 0.0));
    for (i, xi) in x.to_vec().unwrap().iter().enumerate() {
        let want = if lat.parity(i) == 0 {
            ColorVector::zero()
        } else {
            marker
        };
        assert_eq!(*xi, want, "site {i}");
    }
}

/// Too few iterations is an error that says how far it got, not a wrong answer.
fn too_few_iterations_is_an_error() {
    let lat = Lattice::new([4; 4]).unwrap();
    let op = Staggered::new(&GaugeField::random(lat, 12).unwrap(), MASS).unwrap();
    let b = Fermion::from_vec(even_part(&lat, &random_vector(&lat, 13)));
    let mut x = Fermion::zeros(lat.volume());
    match Cg::new(lat, 1e-10, 5).solve(&op, &b, &mut x) {
        Err(SolverError::NotConverged {
            iterations,
            relative_residual,
        }) => {
            assert_eq!(iterations, 5);
            assert!(relative_residual > 1e-10 && relative_residual.is_finite());
        }
        other => panic!("want NotConverged, got {other:?}"),
    }
    // A solver for another lattice, or vectors of another size, are refused before any call.
    let other = Lattice::new([4, 4, 4, 6]).unwrap();
    match Cg::new(other, 1e-10, 5).solve(&op, &b, &mut x) {
        Err(SolverError::Ongpu(e)) => assert!(e.to_string().contains("4x4x4x6"), "{e}"),
        other => panic!("want a lattice error, got {other:?}"),
    }
    let mut short = Fermion::zeros(10);
    match Cg::new(lat, 1e-10, 5).solve(&op, &b, &mut short) {
        Err(SolverError::Ongpu(e)) => assert!(e.to_string().contains("solution"), "{e}"),
        other => panic!("want a size error, got {other:?}"),
    }
}

/// The staggered phases, checked by physics rather than by a reference written with the same
/// phases: on the free field the normal operator is `A = m² − D_eo D_oe = m² + ¼ Σ_μ (2 −
/// T_{+2μ} − T_{−2μ})` on the even sites, because the phases make the mixed terms
/// `η_μ(x) η_ν(x+μ) + η_ν(x) η_μ(x+ν)` of `D²` vanish for μ ≠ ν. Any other choice of signs
/// (all +1, say) leaves hops along two directions, and anti-hermiticity and covariance
/// hold for every choice, so they cannot tell.
fn free_field_normal_operator_has_no_mixed_terms() {
    use ongpu::qcd::solver::LinearOperator;
    let lat = Lattice::new([4, 6, 4, 8]).unwrap();
    let mass = 0.3;
    let unit = GaugeField::unit(lat).unwrap();
    let op = Staggered::new(&unit, mass).unwrap();
    let b_host = even_part(&lat, &random_vector(&lat, 17));
    let b = Fermion::from_vec(b_host.clone());
    let mut scratch = op.vector().unwrap();
    let mut out = op.vector().unwrap();
    op.apply(&b, &mut scratch, &mut out).unwrap();
    let got = out.to_vec().unwrap();
    let mut worst: f64 = 0.0;
    for i in (0..lat.volume()).filter(|&i| lat.parity(i) == 0) {
        let mut want = b_host[i] * (mass * mass + 2.0);
        for mu in 0..4 {
            let (up, down) = (lat.shift(i, mu, 2), lat.shift(i, mu, -2));
            want -= (b_host[up] + b_host[down]) * 0.25;
        }
        worst = worst.max((got[i] - want).norm2().sqrt());
    }
    assert!(worst < 1e-12, "free-field m² − D_eo D_oe off by {worst:e}");
}

on_both_backends!(
    free_field_normal_operator_has_no_mixed_terms,
    anti_hermiticity,
    gauge_covariance,
    operator_matches_host,
    cg_meets_the_tolerance,
    cg_matches_a_dense_solve,
    zero_source_gives_zero_at_once,
    too_few_iterations_is_an_error,
);

/// Every kernel of the solver compiles with NVRTC for Hopper and Ampere, with no warnings,
/// spills or stack frame (no GPU needed: the kernels' sources come from a CPU run).
#[cfg(feature = "cuda")]
#[test]
fn cg_kernels_compile_for_sm90_and_sm80_without_spills() {
    if !support::require_nvrtc() {
        return;
    }
    let kernels = support::cpu_kernel_sources(|| {
        let lat = Lattice::new([4; 4]).unwrap();
        let op = Staggered::new(&gauge(lat, GaugeKind::Smooth, 14), 1.0).unwrap();
        let b = Fermion::from_vec(even_part(&lat, &random_vector(&lat, 15)));
        let mut x = Fermion::zeros(lat.volume());
        Cg::new(lat, 1e-6, 100).solve(&op, &b, &mut x).unwrap();
    });
    assert!(
        kernels.len() >= 7,
        "only {} distinct kernels",
        kernels.len()
    );
    support::check_kernels_stay_in_registers(&kernels);
}
