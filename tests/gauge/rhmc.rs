//! RHMC with rooted HISQ quarks (`ongpu::qcd::hmc::HisqQuarks`), checked by exact
//! properties as the `N_f = 4` staggered HMC is:
//!
//! - a heatbath draw's action is `χ†χ` up to the approximations' error, so it averages the
//!   `3V/2` complex components of `χ`;
//! - the force of the rational action, through both smearing levels and the U(3)
//!   projection, is the derivative of the action (central difference, 1e-6);
//! - the molecular dynamics is reversible to 1e-12 and the leapfrog's `ΔH` falls as `ε²`;
//! - heavy quarks decouple, the trajectory approaching the quenched one as `1/m²`;
//! - a 2+1 chain keeps Creutz's `⟨exp(−ΔH)⟩ = 1`;
//! - a spectral range that the operator leaves is an error at the heatbath.
//!
//! On the CPU backend, and on the GPU with `--include-ignored`.

use crate::support::md;

use md::{configuration, copy, copy_momenta, momenta};
use ongpu::prelude::*;
use ongpu::qcd::gauge::LinksOf;
use ongpu::qcd::hmc::{Action, HisqFlavour, HisqQuarks, Hmc, Integrator, MdParams, Quarks};

const BETA: f64 = 5.5;
/// The degree of the rational approximations in these tests.
const DEGREE: usize = 8;

/// The flavour fields `fields`, their spectral ranges up to the largest m² + 8 (the HISQ
/// `−D²` stays below about 6), the action solved to 1e-12 and the force to `force_tol`.
fn quarks(lat: Lattice, fields: &[HisqFlavour], force_tol: f64) -> HisqQuarks<DEGREE> {
    let top = fields.iter().map(|f| f.mass * f.mass).fold(0.0, f64::max) + 8.0;
    HisqQuarks::new(lat, fields, top, 1e-12, force_tol, 5000).unwrap()
}

/// 2+1 flavours: light and strange fields.
fn two_plus_one(light: f64, strange: f64) -> [HisqFlavour; 2] {
    [HisqFlavour::new(2, light), HisqFlavour::new(1, strange)]
}

/// φ = r_h(A) χ makes S_f = χ† r_h r_a r_h χ = χ†χ (1 + O(error)) per field: with two
/// fields, mean and variance 3V.
fn heatbath_action_counts_the_components() {
    let lat = Lattice::new([4; 4]).unwrap();
    let u = configuration(lat, BETA, 21);
    let n = (3 * lat.volume()) as f64;
    let mut q = quarks(lat, &two_plus_one(0.2, 0.5), 1e-12);
    for k in 0..2 {
        let e = q.action_approximation(k).error();
        assert!(e > 0.0 && e < 1e-3, "field {k}: error {e}");
    }
    let s = q.refresh(&u, Philox::new(30), 32).unwrap();
    assert!(
        (s - n).abs() <= 4.0 * n.sqrt(),
        "S_f = {s}, expected {n} ± {}",
        n.sqrt()
    );
    let again = q.action(&u).unwrap();
    assert!((again - s).abs() <= 1e-9 * s, "{again} after {s}");
    // Each field: the heatbath's solve and the action's, then the action's again.
    let counts = q.take_counts();
    assert!(
        counts.solves == 6 && q.take_counts().solves == 0,
        "{counts:?}"
    );
}

/// The force of the rational action is `−∂S_f` for a fixed pseudofermion.
fn rational_force_is_the_derivative() {
    let lat = Lattice::new([4, 4, 4, 6]).unwrap();
    let u = configuration(lat, BETA, 22);
    // Two fields with different Naik corrections share one pullback through the smearing.
    let fields = [
        HisqFlavour::new(2, 0.3),
        HisqFlavour::new(1, 0.6).with_epsilon(-0.1),
    ];
    let mut q = quarks(lat, &fields, 1e-13);
    q.refresh(&u, Philox::new(23), 32).unwrap();
    let mut f: LinksOf<Lattice> = Field::zeros(lat.volume());
    q.force(&u, 1.0, &mut f).unwrap();
    md::check_force_is_the_derivative(&u, &f, |w| q.action(w).unwrap(), 24, 1e-6);
}

fn action_2_plus_1(lat: Lattice, light: f64, strange: f64, force_tol: f64) -> Action {
    Action::wilson(BETA)
        .unwrap()
        .with_quarks(quarks(lat, &two_plus_one(light, strange), force_tol))
}

/// Forward, flip, back, flip: the links and momenta return to 1e-12 with 2+1 flavours.
fn reversibility_with_rooted_quarks() {
    let lat = Lattice::new([4; 4]).unwrap();
    let mut u = configuration(lat, BETA, 25);
    let mut p = momenta(lat, 26);
    let mut a = action_2_plus_1(lat, 0.4, 0.8, 1e-9);
    a.refresh(&u, Philox::new(27)).unwrap();
    let md = MdParams {
        length: 1.0,
        steps: 4,
        integrator: Integrator::omelyan(),
    };
    md::check_reversible(&mut u, &mut p, "RHMC", |u, p| {
        a.molecular_dynamics(u, p, &md).unwrap()
    });
}

/// The leapfrog's ΔH with a rooted field falls as ε²: halving the step divides it by 4
/// within 10% (at 8 and 16 steps of a trajectory of length 0.25: 4, 8, 16, 32 steps give
/// ratios 3.05, 3.78, 3.95 here, so 8 is the fewest that meets the bound).
fn delta_h_scales_as_eps_squared() {
    let lat = Lattice::new([4; 4]).unwrap();
    let u = configuration(lat, BETA, 28);
    let p = momenta(lat, 29);
    let mut a =
        Action::wilson(BETA)
            .unwrap()
            .with_quarks(quarks(lat, &[HisqFlavour::new(1, 1.0)], 1e-11));
    let s0 = a.refresh(&u, Philox::new(30)).unwrap();
    let h0 = ongpu::qcd::hmc::kinetic_energy(lat, &p).unwrap() + s0;
    let dh: Vec<f64> = [8, 16]
        .iter()
        .map(|&steps| {
            let (mut w, mut q) = (copy(&u), copy_momenta(&p));
            let md = MdParams {
                length: 0.25,
                steps,
                integrator: Integrator::Leapfrog,
            };
            a.molecular_dynamics(&mut w, &mut q, &md).unwrap();
            (a.hamiltonian(&w, &q).unwrap() - h0).abs()
        })
        .collect();
    md::check_ratios(&dh, 3.6..=4.4, "|ΔH|");
}

/// Heavy quarks decouple: the trajectory with one heavy flavour ends `∝ 1/m²` from the
/// quenched one.
fn heavy_quarks_decouple() {
    let lat = Lattice::new([4; 4]).unwrap();
    let u = configuration(lat, BETA, 31);
    let p = momenta(lat, 32);
    let md = MdParams {
        length: 0.5,
        steps: 5,
        integrator: Integrator::omelyan(),
    };
    let gaps = md::heavy_quark_gaps(&u, &p, &md, BETA, &[8.0, 16.0], 33, |mass| {
        Action::wilson(BETA)
            .unwrap()
            .with_quarks(quarks(lat, &[HisqFlavour::new(1, mass)], 1e-12))
    });
    md::check_ratios(&gaps, 3.5..=4.5, "gaps");
}

/// A 2+1 chain: ⟨exp(−ΔH)⟩ = 1 within 3σ, most trajectories accepted; a spectral range the
/// operator leaves, and a bad flavour count, are errors.
fn creutz_equality_2_plus_1() {
    let lat = Lattice::new([4; 4]).unwrap();
    let mut u = configuration(lat, BETA, 34);
    let action = action_2_plus_1(lat, 0.5, 0.9, 1e-9)
        .with_gauge_substeps(2)
        .unwrap();
    let mut hmc = Hmc::with_action(lat, action, 35);
    let md = MdParams {
        length: 1.0,
        steps: 3,
        integrator: Integrator::omelyan(),
    };
    md::check_chain(&mut hmc, &mut u, &md, 6, 4, |t| {
        // Per flavour field: heatbath (2 solves) + 7 forces + final action.
        assert_eq!(t.solves.solves, 2 * 10);
    });
    let bad = |fields: &[HisqFlavour], top: f64| {
        HisqQuarks::<DEGREE>::new(lat, fields, top, 1e-10, 1e-10, 100)
    };
    let mut narrow = bad(&[HisqFlavour::new(1, 0.5)], 0.5).unwrap();
    let e = narrow.refresh(&u, Philox::new(36), 32).unwrap_err();
    assert!(e.to_string().contains("leaves the range"), "{e}");
    assert!(bad(&[HisqFlavour::new(5, 0.5)], 8.0).is_err());
    assert!(bad(&[HisqFlavour::new(1, -0.5)], 8.0).is_err());
    assert!(bad(&[], 8.0).is_err());
}

on_both_backends!(
    heatbath_action_counts_the_components,
    rational_force_is_the_derivative,
    reversibility_with_rooted_quarks,
    delta_h_scales_as_eps_squared,
    heavy_quarks_decouple,
    creutz_equality_2_plus_1,
);
