//! What the molecular-dynamics tests share: configurations, momenta, distances between link
//! fields, and the check of a force against a finite difference of its action.
#![allow(dead_code)] // each test file uses its own part

use ongpu::prelude::*;
use ongpu::qcd::gauge::su3::random_matrix;
use ongpu::qcd::gauge::{GaugeField, HostLinks, LinksOf};
use ongpu::qcd::hmc::refresh;
use ongpu::qcd::quenched::QuenchedUpdate;
use rand::SeedableRng;

/// A thermalised-looking configuration: a hot start and a few heatbath sweeps at β.
pub fn configuration(lat: Lattice, beta: f64, seed: u64) -> GaugeField {
    let mut u = GaugeField::hot(lat, seed).unwrap();
    let mut update = QuenchedUpdate::resume(lat, seed, 1);
    for _ in 0..5 {
        update.sweep(&mut u, beta, 1).unwrap();
    }
    u
}

pub fn copy(u: &GaugeField) -> GaugeField {
    u.try_clone().unwrap()
}

pub fn max_entry(m: &ColorMatrix<f64>) -> f64 {
    m.m.iter().flatten().map(|z| z.norm()).fold(0.0, f64::max)
}

/// The largest entry of the difference of two link fields.
pub fn distance(a: &HostLinks, b: &HostLinks) -> f64 {
    a.iter()
        .zip(b)
        .flat_map(|(x, y)| (0..4).map(move |mu| max_entry(&(x[mu] - y[mu]))))
        .fold(0.0, f64::max)
}

pub fn momenta(lat: Lattice, seed: u64) -> LinksOf<Lattice> {
    let mut p: LinksOf<Lattice> = Field::zeros(lat.volume());
    refresh(lat, Philox::new(seed), &mut p).unwrap();
    p
}

pub fn copy_momenta(p: &LinksOf<Lattice>) -> LinksOf<Lattice> {
    Field::from_vec(p.to_vec().unwrap())
}

pub fn flip(lat: Lattice, p: &mut LinksOf<Lattice>) {
    on_gpu!(lat, {
        for mu in 0..4 {
            p[mu] *= -1.0;
        }
    })
    .unwrap();
}

/// `exp(s X) U` for the su(3) field `X`.
pub fn moved(u: &GaugeField, x: &LinksOf<Lattice>, s: f64) -> GaugeField {
    let lat = u.lattice();
    let mut w = copy(u);
    let links = w.links_mut();
    on_gpu!(lat, {
        for mu in 0..4 {
            links[mu] = ongpu::qcd::gauge::algebra::exp_su3(x[mu] * s) * links[mu];
        }
    })
    .unwrap();
    w
}

/// `d/ds S(e^{sX} U)` at `s = 0` is `Σ 2 Re tr(X F)` for the force `F = −∂S`: checked
/// against central differences of `action` (Richardson-extrapolated) along a random su(3) direction `X`, to
/// `rel` of the derivative; returns that derivative as the force predicts it.
pub fn check_force_is_the_derivative(
    u: &GaugeField,
    force: &LinksOf<Lattice>,
    mut action: impl FnMut(&GaugeField) -> f64,
    seed: u64,
    rel: f64,
) -> f64 {
    let lat = u.lattice();
    let mut r = rand::rngs::SmallRng::seed_from_u64(seed);
    let xs: HostLinks = (0..lat.volume())
        .map(|_| {
            std::array::from_fn(|_| {
                let m = random_matrix(&mut r);
                let a = (m - m.adj()) * 0.5;
                a - ColorMatrix::identity() * (a.trace() * (1.0 / 3.0))
            })
        })
        .collect();
    let x: LinksOf<Lattice> = Field::from_vec(xs);
    let f = force;
    let predicted: f64 = on_gpu!(sum: lat, {
        let mut s = 0.0;
        for mu in 0..4 {
            s += 2.0 * (x[mu] * f[mu]).trace().re;
        }
        s
    })
    .unwrap();
    // Central differences at h and h/2, Richardson-extrapolated: O(h⁴), where the plain
    // difference's O(h²) reaches 1e-5 for smeared actions.
    let h = 1e-4;
    let mut central = |h: f64| (action(&moved(u, &x, h)) - action(&moved(u, &x, -h))) / (2.0 * h);
    let difference = (4.0 * central(h / 2.0) - central(h)) / 3.0;
    assert!(
        (difference - predicted).abs() <= rel * predicted.abs(),
        "finite difference {difference}, force {predicted}"
    );
    predicted
}

/// Forward by `md`, flip the momenta, back, flip again: the links and momenta return to
/// 1e-12 (after the forward leg has moved the links by more than 0.1).
pub fn check_reversible(
    u: &mut GaugeField,
    p: &mut LinksOf<Lattice>,
    what: &str,
    mut md: impl FnMut(&mut GaugeField, &mut LinksOf<Lattice>),
) {
    let lat = u.lattice();
    let (u0, p0) = (u.to_host().unwrap(), p.to_vec().unwrap());
    md(u, p);
    assert!(
        distance(&u.to_host().unwrap(), &u0) > 0.1,
        "{what}: the trajectory moved"
    );
    flip(lat, p);
    md(u, p);
    flip(lat, p);
    let du = distance(&u.to_host().unwrap(), &u0);
    let dp = distance(&p.to_vec().unwrap(), &p0);
    assert!(
        du <= 1e-12 && dp <= 1e-12,
        "{what}: links {du:e}, momenta {dp:e}"
    );
}

/// Each value over the next lies in `range` (a quantity falling by a known factor as a
/// step halves).
pub fn check_ratios(values: &[f64], range: std::ops::RangeInclusive<f64>, what: &str) {
    for w in values.windows(2) {
        let ratio = w[0] / w[1];
        assert!(range.contains(&ratio), "{what} {values:?}: ratio {ratio}");
    }
}

/// `n` trajectories of `hmc` (each handed to `each`): a rejected one leaves the links as
/// they were, at least `min_accepted` are accepted, and Creutz's `⟨exp(−ΔH)⟩ = 1` holds
/// within 3σ.
pub fn check_chain(
    hmc: &mut ongpu::qcd::hmc::Hmc,
    u: &mut GaugeField,
    md: &ongpu::qcd::hmc::MdParams,
    n: usize,
    min_accepted: usize,
    mut each: impl FnMut(&ongpu::qcd::hmc::Trajectory),
) {
    let (mut weights, mut accepted) = (vec![], 0);
    for _ in 0..n {
        let before = u.to_host().unwrap();
        let t = hmc.trajectory(u, md).unwrap();
        each(&t);
        if t.accepted {
            accepted += 1;
        } else {
            assert_eq!(
                u.to_host().unwrap(),
                before,
                "a rejected trajectory restores the links"
            );
        }
        weights.push((-t.delta_h).exp());
    }
    let n = weights.len() as f64;
    let mean = weights.iter().sum::<f64>() / n;
    let sd = (weights.iter().map(|w| (w - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    let err = sd / n.sqrt();
    assert!(
        (mean - 1.0).abs() <= 3.0 * err,
        "<exp(-ΔH)> = {mean} ± {err}"
    );
    assert!(accepted >= min_accepted, "{accepted} of {n} accepted");
}

/// From the same links and momenta, how far a trajectory with the quarks of each mass of
/// `masses` (`action(m)`, its pseudofermions drawn from the generator of `seed`) ends from
/// the quenched one at `beta`: heavy quarks decouple as `1/m²`.
pub fn heavy_quark_gaps(
    u: &GaugeField,
    p: &LinksOf<Lattice>,
    md: &ongpu::qcd::hmc::MdParams,
    beta: f64,
    masses: &[f64],
    seed: u64,
    action: impl Fn(f64) -> ongpu::qcd::hmc::Action,
) -> Vec<f64> {
    let (mut quenched, mut q) = (copy(u), copy_momenta(p));
    ongpu::qcd::hmc::molecular_dynamics(beta, &mut quenched, &mut q, md).unwrap();
    let quenched = quenched.to_host().unwrap();
    masses
        .iter()
        .map(|&mass| {
            let (mut w, mut q) = (copy(u), copy_momenta(p));
            let mut a = action(mass);
            a.refresh(&w, Philox::new(seed)).unwrap();
            a.molecular_dynamics(&mut w, &mut q, md).unwrap();
            distance(&w.to_host().unwrap(), &quenched)
        })
        .collect()
}
