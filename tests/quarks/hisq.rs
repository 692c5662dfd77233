//! HISQ quarks (`ongpu::qcd::hisq`) and the multi-shift CG, each check able to fail on a
//! wrong coefficient or path:
//!
//! - the U(3) projection is unitary and is the polar factor (`W†V` Hermitian and positive
//!   definite) of random matrices;
//! - the smeared links are gauge covariant: `V, W, X` transform as links, the Naik line as
//!   a three-link line;
//! - the free field: every smeared link is its tree-level value (`V = W = 1`, `X = 9/8`)
//!   and the operator on plane waves obeys `−D² = Σ_μ (c_f sin p_μ + c_N sin 3p_μ)²`
//!   exactly, with `c_f = (9 + ε)/8`, `c_N = −(1 + ε)/24`: the Naik term removes the
//!   `O(p⁴)` error of the dispersion at `ε = 0`;
//! - the HISQ CG solves its system, and the multi-shift CG gives the solutions of separate
//!   CG solves of each shifted system (staggered and HISQ), with their true residuals.
//!
//! Both backends (`cargo test --test quarks hisq:: -- --include-ignored` on a GPU).

#![allow(clippy::needless_range_loop)] // site and direction indices read best as indices

use ongpu::prelude::*;
use ongpu::qcd::boundary::TimeBoundary;
use ongpu::qcd::gauge::{random_gauge_transformation, GaugeField, LinksOf};
use ongpu::qcd::hisq::links::smeared;
use ongpu::qcd::hisq::{polar_u3, Hisq, HisqLinks};
use ongpu::qcd::solver::LinearSolver;
use ongpu::qcd::staggered::{
    even_part, random_vector, Cg, Fermion, Fermions, MixedMultiShiftCg, MultiShiftCg, Staggered,
};
use rand::{Rng, SeedableRng};

type MatrixField = Field<ColorMatrix<f64>, ongpu::qcd::SiteLayout>;

fn random_matrix(r: &mut rand::rngs::SmallRng) -> ColorMatrix<f64> {
    ColorMatrix::new(std::array::from_fn(|_| {
        std::array::from_fn(|_| Complex::new(r.random_range(-1.0..1.0), r.random_range(-1.0..1.0)))
    }))
}

fn mat_dist(a: &ColorMatrix<f64>, b: &ColorMatrix<f64>) -> f64 {
    (*a - *b).norm2().sqrt()
}

fn det(m: &ColorMatrix<f64>) -> Complex<f64> {
    m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        + m[0][1] * (m[1][2] * m[2][0] - m[1][0] * m[2][2])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
}

/// The site `hops` steps from `x` along `mu` (periodic).
fn neighbour(lat: &Lattice, x: usize, mu: usize, hops: i64) -> usize {
    let mut c = lat.coords(x);
    let l = lat.extents()[mu] as i64;
    c[mu] = ((c[mu] as i64 + hops).rem_euclid(l)) as usize;
    lat.index(c)
}

/// `W = polar_u3(V)` of random matrices: `W†W = 1`, and `W†V` Hermitian with positive
/// leading principal minors (positive definite): the polar factor, which is unique.
fn u3_projection_is_the_polar_factor() {
    let mut r = rand::rngs::SmallRng::seed_from_u64(61);
    let host: Vec<ColorMatrix<f64>> = (0..64).map(|_| random_matrix(&mut r)).collect();
    let v: MatrixField = Field::from_vec(host.clone());
    let mut w: MatrixField = Field::from_vec(vec![ColorMatrix::zero(); 64]);
    on_gpu!(64, {
        w = polar_u3(v);
    })
    .unwrap();
    for (k, (w, v)) in w.to_vec().unwrap().iter().zip(&host).enumerate() {
        let unit = w.adj() * *w;
        assert!(
            mat_dist(&unit, &ColorMatrix::identity()) < 1e-13,
            "{k}: W†W = {unit:?}"
        );
        let h = w.adj() * *v;
        assert!(
            mat_dist(&h, &h.adj()) < 1e-12,
            "{k}: W†V not Hermitian: {h:?}"
        );
        let m1 = h[0][0].re;
        let m2 = (h[0][0] * h[1][1] - h[0][1] * h[1][0]).re;
        let m3 = det(&h).re;
        assert!(
            m1 > 0.0 && m2 > 0.0 && m3 > 0.0,
            "{k}: W†V not positive: {m1} {m2} {m3}"
        );
    }
}

/// `V, W, X` of `g U g†` are `g(x) V_μ(x) g(x+μ̂)†` …, and the Naik line
/// `g(x) N_μ(x) g(x+3μ̂)†`.
fn smeared_links_are_gauge_covariant() {
    let lat = Lattice::new([4, 4, 6, 4]).unwrap();
    let u = GaugeField::random(lat, 62).unwrap();
    let g = random_gauge_transformation(lat, 63).unwrap();
    let mut ug = u.try_clone().unwrap();
    ug.gauge_transform(&g).unwrap();
    let (s, sg) = (smeared(&u).unwrap(), smeared(&ug).unwrap());
    let gh = g.to_vec().unwrap();
    let transformed = |links: &LinksOf<Lattice>, hops: i64| -> Vec<[ColorMatrix<f64>; 4]> {
        let l = links.to_vec().unwrap();
        (0..lat.volume())
            .map(|x| {
                std::array::from_fn(|mu| {
                    let y = neighbour(&lat, x, mu, hops);
                    gh[x] * l[x][mu] * gh[y].adj()
                })
            })
            .collect()
    };
    let naik = |links: &LinksOf<Lattice>| -> LinksOf<Lattice> {
        let l = links.to_vec().unwrap();
        Field::from_fn(lat.volume(), |x| {
            std::array::from_fn(|mu| {
                let (y, z) = (neighbour(&lat, x, mu, 1), neighbour(&lat, x, mu, 2));
                l[x][mu] * l[y][mu] * l[z][mu]
            })
        })
    };
    for (name, a, b, hops) in [
        ("V", &s.v, &sg.v, 1),
        ("W", &s.w, &sg.w, 1),
        ("X", &s.x, &sg.x, 1),
        ("Naik", &naik(&s.w), &naik(&sg.w), 3),
    ] {
        let want = transformed(a, hops);
        for (x, (got, want)) in b.to_vec().unwrap().iter().zip(&want).enumerate() {
            for mu in 0..4 {
                let d = mat_dist(&got[mu], &want[mu]);
                assert!(
                    d < 1e-12,
                    "{name} at site {x}, direction {mu}: off by {d:e}"
                );
            }
        }
    }
}

/// The free field: `V = W = 1`, `X = 9/8`, and `−D² ψ = Σ_μ s_μ(p)² ψ` on plane waves.
fn free_field_dispersion() {
    let lat = Lattice::new([8, 6, 6, 8]).unwrap();
    let u = GaugeField::unit(lat).unwrap();
    let s = smeared(&u).unwrap();
    for (name, links, want) in [("V", &s.v, 1.0), ("W", &s.w, 1.0), ("X", &s.x, 9.0 / 8.0)] {
        for (x, l) in links.to_vec().unwrap().iter().enumerate() {
            for mu in 0..4 {
                let d = mat_dist(&l[mu], &(ColorMatrix::identity() * Complex::new(want, 0.0)));
                assert!(
                    d < 1e-13,
                    "{name} at site {x}, direction {mu}: off by {d:e}"
                );
            }
        }
    }
    let dims = lat.extents();
    let mut r = rand::rngs::SmallRng::seed_from_u64(64);
    for epsilon in [0.0, -0.2] {
        let op = Hisq::new(&u, 0.1, epsilon, TimeBoundary::Periodic).unwrap();
        let (c_fat, c_naik) = ((9.0 + epsilon) / 8.0, -(1.0 + epsilon) / 24.0);
        for n in [[1, 0, 0, 0], [2, 1, 3, 5], [3, 5, 1, 2], [4, 3, 0, 7]] {
            let p: [f64; 4] = std::array::from_fn(|mu| {
                2.0 * std::f64::consts::PI * n[mu] as f64 / dims[mu] as f64
            });
            let colour = ColorVector::new(std::array::from_fn(|_| {
                Complex::new(r.random_range(-1.0..1.0), r.random_range(-1.0..1.0))
            }));
            let wave: Vec<ColorVector<f64>> = (0..lat.volume())
                .map(|x| {
                    let phase: f64 = (0..4).map(|mu| p[mu] * lat.coord(x, mu) as f64).sum();
                    colour * Complex::new(phase.cos(), phase.sin())
                })
                .collect();
            let psi: Fermion = Field::from_vec(wave.clone());
            let mut d1: Fermion = lat.zeros().unwrap();
            let mut d2: Fermion = lat.zeros().unwrap();
            op.dslash(&psi, &mut d1).unwrap();
            op.dslash(&d1, &mut d2).unwrap();
            let k2: f64 = p
                .iter()
                .map(|&q| (c_fat * q.sin() + c_naik * (3.0 * q).sin()).powi(2))
                .sum();
            for (x, (got, w)) in d2.to_vec().unwrap().iter().zip(&wave).enumerate() {
                let want = *w * Complex::new(-k2, 0.0);
                let d = (*got - want).norm2().sqrt();
                assert!(
                    d < 1e-12,
                    "ε = {epsilon}, p = {n:?}, site {x}: off by {d:e}"
                );
            }
        }
    }
    // The dispersion's error: O(p⁴) naive, O(p⁶) with the Naik term at ε = 0.
    let s = |q: f64| 9.0 / 8.0 * q.sin() - (3.0 * q).sin() / 24.0;
    for q in [0.1, 0.05] {
        assert!((s(q).powi(2) - q * q).abs() < 0.2 * q.powi(6), "q = {q}");
        assert!((q.sin().powi(2) - q * q).abs() > 0.3 * q.powi(4), "q = {q}");
    }
}

/// CG on the HISQ normal operator, and the multi-shift CG against separate CG solves of
/// each shifted system, for staggered and HISQ quarks.
fn multi_shift_matches_separate_solves() {
    let lat = Lattice::new([4, 4, 4, 6]).unwrap();
    let u = GaugeField::random(lat, 65).unwrap();
    let b: Fermion = Field::from_vec(even_part(&lat, &random_vector(&lat, 66)));
    let mass: f64 = 0.2;
    let shifts = [0.0, 0.05, 0.3, 1.7];
    let check = |name: &str, x: &Fermions<4>, solve: &dyn Fn(f64, &mut Fermion)| {
        let many = x.to_vec().unwrap();
        for (k, sigma) in shifts.iter().enumerate() {
            let mut one: Fermion = lat.zeros().unwrap();
            solve((mass * mass + sigma).sqrt(), &mut one);
            let one = one.to_vec().unwrap();
            let (mut diff, mut scale) = (0.0f64, 0.0f64);
            for x in (0..lat.volume()).filter(|&x| lat.parity(x) == 0) {
                diff = diff.max((many[x][k] - one[x]).norm2().sqrt());
                scale = scale.max(one[x].norm2().sqrt());
            }
            assert!(
                diff < 1e-8 * scale,
                "{name}, shift {sigma}: off by {diff:e} of {scale:e}"
            );
        }
    };
    // Staggered.
    let op = Staggered::new(&u, mass).unwrap();
    let mut x: Fermions<4> = lat.zeros().unwrap();
    let report = MultiShiftCg::<4>::new(1e-11, 2000)
        .solve(&op, shifts, &b, &mut x)
        .unwrap();
    assert!(
        report.relative_residuals.iter().all(|&r| r < 1e-10),
        "{report:?}"
    );
    assert!(
        report.converged_at[3] < report.converged_at[0],
        "{report:?}"
    );
    check("staggered", &x, &|m, out| {
        let op = Staggered::new(&u, m).unwrap();
        Cg::new(lat, 1e-12, 2000).solve(&op, &b, out).unwrap();
    });
    // HISQ, with its own CG first.
    let links = || HisqLinks::new(&u, 0.0, TimeBoundary::Antiperiodic).unwrap();
    let op = Hisq::from_links(lat, links(), mass, 0.0);
    let mut single: Fermion = lat.zeros().unwrap();
    let s = Cg::new(lat, 1e-11, 2000)
        .solve(&op, &b, &mut single)
        .unwrap();
    assert!(s.iterations > 10 && s.relative_residual < 1e-10, "{s:?}");
    let mut x: Fermions<4> = lat.zeros().unwrap();
    let report = MultiShiftCg::<4>::new(1e-11, 2000)
        .solve(&op, shifts, &b, &mut x)
        .unwrap();
    assert!(
        report.relative_residuals.iter().all(|&r| r < 1e-10),
        "{report:?}"
    );
    check("HISQ", &x, &|m, out| {
        let op = Hisq::from_links(lat, links(), m, 0.0);
        Cg::new(lat, 1e-12, 2000).solve(&op, &b, out).unwrap();
    });
    // Bad shifts are errors.
    let e = MultiShiftCg::<2>::new(1e-8, 10)
        .solve(&op, [0.1, -0.5], &b, &mut lat.zeros().unwrap())
        .unwrap_err();
    assert!(e.to_string().contains("not negative"), "{e}");
}

/// The mixed-precision multi-shift CG: the f32 stage stops at 1e-5, so every shift is
/// refined in f64 to the tolerance; each solution's reported residual is below it and
/// equals the one recomputed here, and the solutions equal the f64 multi-shift's.
fn mixed_multi_shift_meets_its_tolerance() {
    let lat = Lattice::new([4, 4, 4, 6]).unwrap();
    let u = GaugeField::random(lat, 69).unwrap();
    let b: Fermion = Field::from_vec(even_part(&lat, &random_vector(&lat, 70)));
    let shifts = [0.0, 0.05, 0.3, 1.7];
    let op = Hisq::new(&u, 0.2, 0.0, TimeBoundary::Antiperiodic).unwrap();
    let single = op.single().unwrap();
    let mut x: Fermions<4> = lat.zeros().unwrap();
    let report = MixedMultiShiftCg::<4>::new(1e-10, 2000)
        .solve(&op, &single, shifts, &b, &mut x)
        .unwrap();
    assert!(report.multi_shift_iterations > 10, "{report:?}");
    for k in 0..4 {
        assert!(
            report.refinement_iterations[k] > 0 && report.reliable_updates[k] > 0,
            "shift {k} was not refined: {report:?}"
        );
        assert!(report.relative_residuals[k] < 1e-10, "{report:?}");
    }
    let mut exact: Fermions<4> = lat.zeros().unwrap();
    MultiShiftCg::<4>::new(1e-12, 2000)
        .solve(&op, shifts, &b, &mut exact)
        .unwrap();
    let (mixed, exact) = (x.to_vec().unwrap(), exact.to_vec().unwrap());
    let b_host = b.to_vec().unwrap();
    for (k, sigma) in shifts.iter().enumerate() {
        // The residual recomputed from solution k alone.
        let xk: Fermion = Field::from_vec(mixed.iter().map(|v| v[k]).collect());
        let (mut t, mut w): (Fermion, Fermion) = (lat.zeros().unwrap(), lat.zeros().unwrap());
        op.apply_shifted(&xk, *sigma, &mut t, &mut w).unwrap();
        let w = w.to_vec().unwrap();
        let (mut r2, mut b2, mut diff, mut scale) = (0.0, 0.0, 0.0f64, 0.0f64);
        for x in (0..lat.volume()).filter(|&x| lat.parity(x) == 0) {
            r2 += (b_host[x] - w[x]).norm2();
            b2 += b_host[x].norm2();
            diff = diff.max((mixed[x][k] - exact[x][k]).norm2().sqrt());
            scale = scale.max(exact[x][k].norm2().sqrt());
        }
        let recomputed = (r2 / b2).sqrt();
        assert!(
            (recomputed - report.relative_residuals[k]).abs() < 1e-3 * recomputed,
            "shift {sigma}: reported {:e}, recomputed {recomputed:e}",
            report.relative_residuals[k]
        );
        assert!(
            diff < 1e-8 * scale,
            "shift {sigma}: off by {diff:e} of {scale:e}"
        );
    }
    // Stops outside (0, 1) and an f32 operator of another lattice are errors.
    let e = MixedMultiShiftCg::<4>::new(1e-10, 2000)
        .with_stops(1e-5, 1.5)
        .solve(&op, &single, shifts, &b, &mut x)
        .unwrap_err();
    assert!(e.to_string().contains("(0, 1)"), "{e}");
    let other = Lattice::new([4, 4, 4, 8]).unwrap();
    let other_single = Hisq::new(
        &GaugeField::unit(other).unwrap(),
        0.2,
        0.0,
        TimeBoundary::Antiperiodic,
    )
    .unwrap()
    .single()
    .unwrap();
    let e = MixedMultiShiftCg::<4>::new(1e-10, 2000)
        .solve(&op, &other_single, shifts, &b, &mut x)
        .unwrap_err();
    assert!(e.to_string().contains("another lattice"), "{e}");
}

on_both_backends!(
    u3_projection_is_the_polar_factor,
    smeared_links_are_gauge_covariant,
    free_field_dispersion,
    multi_shift_matches_separate_solves,
    mixed_multi_shift_meets_its_tolerance,
);

/// The HISQ hop (f32 and f64), the normal operator's fused pass and the multi-shift CG's
/// passes compile for sm_90 and sm_80 with no local memory. (The smearing's passes, which
/// index the links by a run-time direction, are not held to it.)
#[cfg(feature = "cuda")]
#[test]
fn hisq_kernels_compile_without_local_memory() {
    if !crate::support::require_nvrtc() {
        return;
    }
    let lat = Lattice::new([4, 4, 4, 6]).unwrap();
    let u = GaugeField::random(lat, 67).unwrap();
    let links = HisqLinks::new(&u, 0.0, TimeBoundary::Antiperiodic).unwrap();
    let kernels = crate::support::cpu_kernel_sources(|| {
        let op = Hisq::from_links(lat, links, 0.1, 0.0);
        let b: Fermion = Field::from_vec(even_part(&lat, &random_vector(&lat, 68)));
        let mut x: Fermions<4> = lat.zeros().unwrap();
        MultiShiftCg::<4>::new(1e-6, 5)
            .solve(&op, [0.0, 0.1, 0.2, 0.3], &b, &mut x)
            .ok();
        // The f32 passes of the mixed solver.
        MixedMultiShiftCg::<4>::new(1e-6, 5)
            .solve(&op, &op.single().unwrap(), [0.0, 0.1, 0.2, 0.3], &b, &mut x)
            .ok();
        let f32_links: LinksOf<Lattice, f32> = lat.zeros().unwrap();
        let (psi, mut out): (ongpu::qcd::staggered::FermionOf<Lattice, f32>, _) =
            (lat.zeros().unwrap(), lat.zeros().unwrap());
        ongpu::qcd::hisq::hop(lat.even(), &f32_links, &f32_links, &psi, &mut out).unwrap();
    });
    let operator: Vec<_> = kernels
        .into_iter()
        .filter(|k| !k.location.file.contains("links.rs") && !k.location.file.contains("paths.rs"))
        .collect();
    assert!(
        operator.len() >= 5,
        "only {} distinct kernels",
        operator.len()
    );
    crate::support::check_kernels_stay_in_registers(&operator);
}
