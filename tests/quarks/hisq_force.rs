//! The HISQ force (`ongpu::qcd::hisq::force`) against finite differences, stage by stage
//! and whole:
//!
//! - the pullback through the U(3) projection, at random matrices and at a multiple of the
//!   unit matrix (degenerate eigenvalues, where eigenvalue formulas divide by zero);
//! - the pullback through each level of smearing (with and without the Lepage paths), for
//!   links that are any complex matrices;
//! - the whole force of a two-term rational action `Σ αₖ φ† (A + βₖ)⁻¹ φ` with a Naik
//!   correction and an antiperiodic boundary, along `U → exp(ωT) U` for random `T ∈ su(3)`:
//!   `dS/dω = 2 Σ tr(F T)` to a part in 10⁶ against central differences of solves to 10⁻¹³
//!   (Richardson-extrapolated: the plain difference is off by 1.5e-5 at ω = 10⁻⁴, as ω²).
//!
//! Both backends (`cargo test --test quarks hisq_force:: -- --include-ignored` on a GPU).

use crate::support::md;
use ongpu::prelude::*;
use ongpu::qcd::boundary::TimeBoundary;
use ongpu::qcd::gauge::su3::random_matrix;
use ongpu::qcd::gauge::{GaugeField, LinksOf};
use ongpu::qcd::hisq::force::{
    accumulate_momenta, accumulate_shifted_gradients, pull_back_to_thin_links, LinkGradients,
};
use ongpu::qcd::hisq::links::smeared;
use ongpu::qcd::hisq::paths::{smear, PathCoefficients};
use ongpu::qcd::hisq::paths_pullback::smear_pullback;
use ongpu::qcd::hisq::polar_pullback::polar_u3_pullback;
use ongpu::qcd::hisq::{polar_u3, Hisq, HisqLinks, LEVEL_ONE, LEVEL_TWO};
use ongpu::qcd::staggered::{even_part, random_vector, Fermion, Fermions, MultiShiftCg};
use rand::SeedableRng;

type MatrixField = Field<ColorMatrix<f64>, ongpu::qcd::SiteLayout>;

/// `Re tr(a† b)`.
fn re_dot(a: &ColorMatrix<f64>, b: &ColorMatrix<f64>) -> f64 {
    (a.adj() * *b).trace().re
}

/// `Σ Re tr(a† b)` over the links of two host copies.
fn links_dot(a: &[[ColorMatrix<f64>; 4]], b: &[[ColorMatrix<f64>; 4]]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (0..4).map(|mu| re_dot(&x[mu], &y[mu])).sum::<f64>())
        .sum()
}

/// The pullback through `polar_u3` against central differences of `Re tr(Ξ† polar(V))`.
fn polar_pullback_matches_finite_differences() {
    let mut r = rand::rngs::SmallRng::seed_from_u64(71);
    let n = 32;
    let mut v: Vec<ColorMatrix<f64>> = (0..n)
        .map(|_| ColorMatrix::identity() * 1.5 + random_matrix(&mut r) * 0.6)
        .collect();
    // Degenerate: a multiple of the unit matrix, and a unitary matrix.
    v[0] = ColorMatrix::identity() * 0.8;
    v[1] = polar_u3_host(&mut r);
    let xi: Vec<ColorMatrix<f64>> = (0..n).map(|_| random_matrix(&mut r)).collect();
    let dir: Vec<ColorMatrix<f64>> = (0..n).map(|_| random_matrix(&mut r)).collect();
    let h = 1e-5;
    let project = |m: Vec<ColorMatrix<f64>>| -> Vec<ColorMatrix<f64>> {
        let a: MatrixField = Field::from_vec(m);
        let mut w: MatrixField = Field::from_vec(vec![ColorMatrix::zero(); n]);
        on_gpu!(n, {
            w = polar_u3(a);
        })
        .unwrap();
        w.to_vec().unwrap()
    };
    let shifted = |s: f64| {
        v.iter()
            .zip(&dir)
            .map(|(a, d)| *a + *d * s)
            .collect::<Vec<_>>()
    };
    let (plus, minus) = (project(shifted(h)), project(shifted(-h)));
    let (vf, gf): (MatrixField, MatrixField) =
        (Field::from_vec(v.clone()), Field::from_vec(xi.clone()));
    let mut out: MatrixField = Field::from_vec(vec![ColorMatrix::zero(); n]);
    on_gpu!(n, {
        out = polar_u3_pullback(vf, gf);
    })
    .unwrap();
    let g = out.to_vec().unwrap();
    for k in 0..n {
        let numeric = (re_dot(&xi[k], &plus[k]) - re_dot(&xi[k], &minus[k])) / (2.0 * h);
        let exact = re_dot(&g[k], &dir[k]);
        assert!(
            (numeric - exact).abs() <= 1e-7 * (1.0 + exact.abs()),
            "matrix {k}: pullback {exact}, finite difference {numeric}"
        );
    }
}

/// A random unitary matrix (the polar factor of a random one, on the host).
fn polar_u3_host(r: &mut rand::rngs::SmallRng) -> ColorMatrix<f64> {
    let a: MatrixField = Field::from_vec(vec![random_matrix(r)]);
    let mut w: MatrixField = Field::from_vec(vec![ColorMatrix::zero()]);
    ongpu::with_backend(ongpu::Backend::Cpu, || {
        on_gpu!(1, {
            w = polar_u3(a);
        })
    })
    .unwrap();
    w.to_vec().unwrap()[0]
}

/// The pullback of one level of smearing against central differences of
/// `Σ Re tr(Ξ† smear(U))` along a random complex direction.
fn smearing_pullback_matches_finite_differences() {
    let lat = Lattice::new([4, 4, 4, 6]).unwrap();
    let u = GaugeField::random(lat, 72).unwrap();
    let mut r = rand::rngs::SmallRng::seed_from_u64(73);
    let host = |r: &mut rand::rngs::SmallRng| -> Vec<[ColorMatrix<f64>; 4]> {
        (0..lat.volume())
            .map(|_| std::array::from_fn(|_| random_matrix(r)))
            .collect()
    };
    let xi_host = host(&mut r);
    let dir_host = host(&mut r);
    let xi: LinksOf<Lattice> = Field::from_vec(xi_host.clone());
    let dir: LinksOf<Lattice> = Field::from_vec(dir_host.clone());
    let level_one_lepage = PathCoefficients {
        lepage: -0.05,
        ..LEVEL_ONE
    };
    for (name, c) in [
        ("level one", LEVEL_ONE),
        ("level two", LEVEL_TWO),
        ("fat7 + Lepage", level_one_lepage),
    ] {
        let h = 1e-5;
        let at = |s: f64| -> f64 {
            let links = u.links();
            let mut moved: LinksOf<Lattice> = lat.zeros().unwrap();
            on_gpu!(lat, {
                for mu in 0..4 {
                    moved[mu] = links[mu] + dir[mu] * s;
                }
            })
            .unwrap();
            links_dot(&xi_host, &smear(lat, &moved, c).unwrap().to_vec().unwrap())
        };
        let numeric = (at(h) - at(-h)) / (2.0 * h);
        let mut g: LinksOf<Lattice> = lat.zeros().unwrap();
        smear_pullback(lat, u.links(), c, &xi, &mut g).unwrap();
        let exact = links_dot(&g.to_vec().unwrap(), &dir_host);
        assert!(
            (numeric - exact).abs() <= 1e-8 * exact.abs(),
            "{name}: pullback {exact}, finite difference {numeric}"
        );
    }
}

/// The whole HISQ force of a rational action against a central difference of the action.
fn hisq_force_is_the_derivative_of_the_action() {
    let lat = Lattice::new([4, 4, 4, 6]).unwrap();
    let u = GaugeField::random(lat, 74).unwrap();
    let (mass, epsilon, boundary) = (0.3, -0.1, TimeBoundary::Antiperiodic);
    let shifts = [0.05, 0.6];
    let alphas = [0.4, 1.3];
    let phi: Fermion = Field::from_vec(even_part(&lat, &random_vector(&lat, 75)));
    let action = |u: &GaugeField| -> f64 {
        let op = Hisq::new(u, mass, epsilon, boundary).unwrap();
        let mut x: Fermions<2> = lat.zeros().unwrap();
        let report = MultiShiftCg::<2>::new(1e-13, 5000)
            .solve(&op, shifts, &phi, &mut x)
            .unwrap();
        assert!(
            report.relative_residuals.iter().all(|&r| r < 1e-12),
            "{report:?}"
        );
        let (x, p) = (x.to_vec().unwrap(), phi.to_vec().unwrap());
        (0..lat.volume())
            .filter(|&s| lat.parity(s) == 0)
            .map(|s| {
                (0..2)
                    .map(|k| alphas[k] * p[s].dot(x[s][k]).re)
                    .sum::<f64>()
            })
            .sum()
    };
    // The force from zero momenta.
    let s = smeared(&u).unwrap();
    let links = HisqLinks::from_smeared(lat, &s, epsilon, boundary).unwrap();
    let op = Hisq::from_links(lat, links, mass, epsilon);
    let mut x: Fermions<2> = lat.zeros().unwrap();
    MultiShiftCg::<2>::new(1e-13, 5000)
        .solve(&op, shifts, &phi, &mut x)
        .unwrap();
    let mut g = LinkGradients::zeros(lat).unwrap();
    accumulate_shifted_gradients(&op, alphas, &x, &mut g).unwrap();
    let g_u = pull_back_to_thin_links(lat, u.links(), &s, epsilon, boundary, g).unwrap();
    let mut force: LinksOf<Lattice> = lat.zeros().unwrap();
    accumulate_momenta(lat, u.links(), &g_u, 1.0, &mut force).unwrap();
    // Along a random su(3) direction on every link, Richardson-extrapolated central
    // differences (the plain one's O(ω²) error is about 1e-5 here).
    let exact = md::check_force_is_the_derivative(&u, &force, action, 76, 1e-6);
    assert!(
        exact.abs() > 1e-3,
        "a vanishing derivative tests nothing: {exact}"
    );
}

on_both_backends!(
    polar_pullback_matches_finite_differences,
    smearing_pullback_matches_finite_differences,
    hisq_force_is_the_derivative_of_the_action,
);
