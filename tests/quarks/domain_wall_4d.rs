//! The 4-D physics of domain-wall quarks (`ongpu::qcd::domain_wall::propagator`), each
//! check an identity that a wrong convention breaks:
//!
//! - the effective 4-D operator `D_eff = [P⁻¹ D(1)⁻¹ D(0) P]_{00}` of a free field obeys
//!   the Ginsparg–Wilson relation up to exactly what the tanh approximation leaves:
//!   `γ5 D + D γ5 − 2 D γ5 D = γ5 (1 − ε_Ls(λ_p)²)/2` on every plane wave, with `λ_p` the
//!   Möbius kernel's eigenvalue at momentum `p`, for several `Ls`, Shamir and Möbius;
//! - `D_eff(m) = m + (1 − m) D_eff(0)` on a random gauge field;
//! - the propagator of the library is `(D_eff⁻¹ − 1)/(1 − m)`:
//!   `(1 − m) D_eff S η + D_eff η = η`, and the even-odd and plain solves give the same one;
//! - the residual mass is positive and falls with `Ls`.

#![allow(clippy::needless_range_loop)] // site, slice and spin indices read best as indices

use ongpu::prelude::*;
use ongpu::qcd::domain_wall::{DomainWall, DomainWallEvenOdd, FiveField, FiveSpinor, MobiusParams};
use ongpu::qcd::gauge::GaugeField;
use ongpu::qcd::solver::{Cgnr, LinearSolver};
use ongpu::qcd::wilson::{random_spinors, HostSpinor, SpinorField};

/// `D_eff(m) v` on the host field `v` for the links of `u`: `v` on the walls through `P`,
/// `D(m)`, a solve of the Pauli–Villars `D(1)`, and back through `P⁻¹` at `s = 0`.
fn effective<const L: usize>(
    u: &GaugeField,
    params: MobiusParams,
    v: &[HostSpinor],
) -> Vec<HostSpinor> {
    let lat = u.lattice();
    // (P v)(0) = P_− v (spins 2, 3), (P v)(L−1) = P_+ v (spins 0, 1).
    let pv: FiveField<L> = Field::from_fn(v.len(), |x| {
        let mut f = FiveSpinor::<f64, L>::default();
        f.0[0][2] = v[x][2];
        f.0[0][3] = v[x][3];
        f.0[L - 1][0] = v[x][0];
        f.0[L - 1][1] = v[x][1];
        f
    });
    let d = DomainWall::<L>::new(u, params).unwrap();
    let mut scratch: FiveField<L> = lat.zeros().unwrap();
    let mut y: FiveField<L> = lat.zeros().unwrap();
    d.apply(&pv, &mut scratch, &mut y).unwrap();
    let pauli_villars = DomainWall::<L>::new(u, MobiusParams { mf: 1.0, ..params }).unwrap();
    let eo = DomainWallEvenOdd::new(&pauli_villars).unwrap();
    let mut w: FiveField<L> = lat.zeros().unwrap();
    eo.solve(&mut Cgnr::new(1e-14, 10_000), &y, &mut w).unwrap();
    w.to_vec()
        .unwrap()
        .iter()
        .map(|site| {
            [
                site.0[L - 1][0],
                site.0[L - 1][1],
                site.0[0][2],
                site.0[0][3],
            ]
        })
        .collect()
}

fn gamma5(v: &[HostSpinor]) -> Vec<HostSpinor> {
    v.iter().map(|s| [s[0], s[1], -s[2], -s[3]]).collect()
}

fn combine(terms: &[(f64, &[HostSpinor])]) -> Vec<HostSpinor> {
    (0..terms[0].1.len())
        .map(|x| {
            std::array::from_fn(|spin| {
                terms
                    .iter()
                    .fold(ColorVector::zero(), |acc, (f, v)| acc + v[x][spin] * *f)
            })
        })
        .collect()
}

/// The largest |part| of `a − b` and of `b`.
fn max_diff(a: &[HostSpinor], b: &[HostSpinor]) -> (f64, f64) {
    let (mut diff, mut scale) = (0.0f64, 0.0f64);
    for (x, y) in a.iter().zip(b) {
        for spin in 0..4 {
            for (p, q) in x[spin].v.iter().zip(y[spin].v) {
                diff = diff.max((p - q).norm());
                scale = scale.max(q.norm());
            }
        }
    }
    (diff, scale)
}

/// `|λ_p|` of the Möbius kernel `H = γ5 (b + c) D_W (2 + (b − c) D_W)⁻¹` on a free plane
/// wave of momentum `p`: with `D_W(p) = W + i γ·s`, `W = Σ (1 − cos p) − M5`,
/// `s = sin p`, `H² = (b + c)² (a² + 4 s²) / N²`, `a = W A + (b − c) s²`,
/// `A = 2 + (b − c) W`, `N = A² + (b − c)² s²`.
fn kernel_eigenvalue(params: MobiusParams, p: [f64; 4]) -> f64 {
    let w: f64 = p.iter().map(|q| 1.0 - q.cos()).sum::<f64>() - params.m5;
    let s2: f64 = p.iter().map(|q| q.sin().powi(2)).sum();
    let beta = params.b - params.c;
    let big_a = 2.0 + beta * w;
    let a = w * big_a + beta * s2;
    let n = big_a * big_a + beta * beta * s2;
    (params.b + params.c) * (a * a + 4.0 * s2).sqrt() / n
}

/// `ε_Ls(λ) = ((1 + λ)^Ls − (1 − λ)^Ls) / ((1 + λ)^Ls + (1 − λ)^Ls)`: `tanh(Ls artanh λ)`.
fn polar_approximation(lambda: f64, ls: usize) -> f64 {
    let (plus, minus) = (
        (1.0 + lambda).powi(ls as i32),
        (1.0 - lambda).powi(ls as i32),
    );
    (plus - minus) / (plus + minus)
}

/// The Ginsparg–Wilson violation of the free `D_eff(0)` on a sum of three plane waves,
/// against `γ5 (1 − ε²)/2` of each; returns the largest violation (relative to `|v|`).
fn ginsparg_wilson_case<const L: usize>(params: MobiusParams) -> f64 {
    let lat = Lattice::new([4, 4, 2, 2]).unwrap();
    let u = GaugeField::unit(lat).unwrap();
    let dims = lat.extents();
    let spinors = random_spinors(&Lattice::new([2, 2, 2, 2]).unwrap(), 41);
    let modes = [[1, 0, 0, 0], [2, 1, 1, 0], [1, 3, 0, 1]];
    let (mut v, mut want) = (vec![[ColorVector::zero(); 4]; lat.volume()], Vec::new());
    let mut largest = 0.0f64;
    for (k, n) in modes.iter().enumerate() {
        let p: [f64; 4] =
            std::array::from_fn(|mu| 2.0 * std::f64::consts::PI * n[mu] as f64 / dims[mu] as f64);
        let eps = polar_approximation(kernel_eigenvalue(params, p), L);
        let violation = 0.5 * (1.0 - eps * eps);
        largest = largest.max(violation);
        let wave: Vec<HostSpinor> = (0..lat.volume())
            .map(|x| {
                let phase: f64 = (0..4).map(|mu| p[mu] * lat.coord(x, mu) as f64).sum();
                spinors[k].map(|c| c * Complex::new(phase.cos(), phase.sin()))
            })
            .collect();
        v = combine(&[(1.0, &v), (1.0, &wave)]);
        want.push((violation, gamma5(&wave)));
    }
    let want = combine(
        &want
            .iter()
            .map(|(f, w)| (*f, w.as_slice()))
            .collect::<Vec<_>>(),
    );
    let massless = MobiusParams { mf: 0.0, ..params };
    let dv = effective::<L>(&u, massless, &v);
    let dg5v = effective::<L>(&u, massless, &gamma5(&v));
    let dg5dv = effective::<L>(&u, massless, &gamma5(&dv));
    let got = combine(&[(1.0, &gamma5(&dv)), (1.0, &dg5v), (-2.0, &dg5dv)]);
    let (diff, _) = max_diff(&got, &want);
    let (_, scale) = max_diff(&v, &v);
    assert!(
        diff < 1e-10 * scale,
        "{params:?}, Ls = {L}: the Ginsparg–Wilson violation differs from γ5 (1 − ε²)/2 by \
         {diff:e} (|v| {scale:e})"
    );
    largest
}

/// The free effective operator breaks the Ginsparg–Wilson relation by exactly
/// `γ5 (1 − ε_Ls²)/2`, which falls as `Ls` grows (and is not zero: the check can fail).
fn ginsparg_wilson_at_the_tanh_rate() {
    crate::support::backends::with_stack(64, ginsparg_wilson_checks)
}

fn ginsparg_wilson_checks() {
    for params in [
        MobiusParams::shamir(1.4, 0.0),
        MobiusParams::mobius(1.2, 0.0, 1.5, 0.5),
    ] {
        let by_ls = [
            ginsparg_wilson_case::<4>(params),
            ginsparg_wilson_case::<6>(params),
            ginsparg_wilson_case::<8>(params),
        ];
        assert!(
            by_ls[0] > 1e-4 && by_ls[0] > by_ls[1] && by_ls[1] > by_ls[2],
            "{params:?}: the violation should fall with Ls: {by_ls:?}"
        );
    }
}

const LS: usize = 4;

fn spinor_field(v: &[HostSpinor]) -> SpinorField {
    Field::from_fn(v.len(), |x| v[x])
}

/// `D_eff(m) = m + (1 − m) D_eff(0)`, and the library's propagator is
/// `S = (D_eff⁻¹ − 1)/(1 − m)`, from the even-odd solve and from the plain one alike.
fn propagator_inverts_the_effective_operator() {
    let lat = Lattice::new([2, 2, 2, 4]).unwrap();
    let u = GaugeField::random(lat, 42).unwrap();
    let eta = random_spinors(&lat, 43);
    for params in [
        MobiusParams::shamir(1.6, 0.2),
        MobiusParams::mobius(1.5, 0.1, 1.5, 0.5),
    ] {
        let m = params.mf;
        let massless = effective::<LS>(&u, MobiusParams { mf: 0.0, ..params }, &eta);
        let massive = effective::<LS>(&u, params, &eta);
        let (diff, scale) = max_diff(&massive, &combine(&[(m, &eta), (1.0 - m, &massless)]));
        assert!(
            diff < 1e-10 * scale,
            "{params:?}: D_eff(m) − m − (1 − m) D_eff(0): {diff:e}"
        );

        let d = DomainWall::<LS>::new(&u, params).unwrap();
        let eo = DomainWallEvenOdd::new(&d).unwrap();
        let mut x: FiveField<LS> = lat.zeros().unwrap();
        let mut q: SpinorField = lat.zeros().unwrap();
        let solution = d
            .propagator(
                |b, x| eo.solve(&mut Cgnr::new(1e-13, 10_000), b, x),
                &spinor_field(&eta),
                &mut x,
                &mut q,
            )
            .unwrap();
        assert!(solution.iterations > 3, "{solution:?}");
        let s_eta = q.to_vec().unwrap();
        let d_s_eta = effective::<LS>(&u, params, &s_eta);
        let got = combine(&[(1.0 - m, &d_s_eta), (1.0, &massive)]);
        let (diff, scale) = max_diff(&got, &eta);
        assert!(
            diff < 1e-9 * scale,
            "{params:?}: (1 − m) D_eff S η + D_eff η − η: {diff:e}"
        );

        let mut plain_q: SpinorField = lat.zeros().unwrap();
        d.propagator(
            |b, x| Cgnr::new(1e-13, 20_000).solve(&d, b, x),
            &spinor_field(&eta),
            &mut x,
            &mut plain_q,
        )
        .unwrap();
        let (diff, scale) = max_diff(&plain_q.to_vec().unwrap(), &s_eta);
        assert!(
            diff < 1e-9 * scale,
            "{params:?}: even-odd and plain propagators: {diff:e}"
        );
    }
}

/// The residual mass of a smooth gauge field: positive, and smaller at larger `Ls`.
fn residual_mass_falls_with_ls() {
    crate::support::backends::with_stack(64, residual_mass_checks)
}

fn residual_mass_checks() {
    fn plateau<const L: usize>(u: &GaugeField) -> f64 {
        let d = DomainWall::<L>::new(u, MobiusParams::shamir(1.5, 0.4)).unwrap();
        let eo = DomainWallEvenOdd::new(&d).unwrap();
        let mut cgnr = Cgnr::new(1e-9, 10_000);
        let mut calls = 0;
        let c = d
            .correlators(
                |b, x| eo.solve(&mut cgnr, b, x),
                [1, 0, 1, 2],
                |_| calls += 1,
            )
            .unwrap();
        assert_eq!(calls, 12);
        assert!(c.pion.correlator.iter().all(|&p| p > 0.0), "{c:?}");
        c.residual_mass_plateau(2..5).unwrap()
    }
    let lat = Lattice::new([2, 2, 2, 8]).unwrap();
    let u = GaugeField::smooth(lat, 0.3, 44).unwrap();
    let (short, long) = (plateau::<4>(&u), plateau::<8>(&u));
    assert!(
        long > 0.0 && long < 0.5 * short,
        "m_res should fall with Ls: {short:e} at Ls = 4, {long:e} at Ls = 8"
    );
}

on_both_backends!(
    ginsparg_wilson_at_the_tanh_rate,
    propagator_inverts_the_effective_operator,
    residual_mass_falls_with_ls,
);
