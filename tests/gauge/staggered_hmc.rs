//! HMC with four flavours of dynamical staggered quarks (`ongpu::qcd::hmc::StaggeredQuarks`),
//! checked by exact properties: the pseudofermion action of a heatbath draw averages the
//! number of its complex components; the quarks' force is the derivative of their action
//! (a central difference along a random direction); the molecular dynamics is reversible
//! to 1e-12 and the leapfrog's `ΔH` falls as `ε²`; heavy quarks decouple, the trajectory
//! approaching the quenched one as `1/m²`; Creutz's `⟨exp(−ΔH)⟩ = 1` over a run. On the
//! CPU backend, and on the GPU with `--include-ignored`.

#[cfg(feature = "cuda")]
use crate::support;
use crate::support::md;

use md::{configuration, copy, copy_momenta, momenta};
use ongpu::prelude::*;
use ongpu::qcd::gauge::{GaugeField, LinksOf};
use ongpu::qcd::hmc::{Action, Hmc, Integrator, MdParams, StaggeredQuarks};

const BETA: f64 = 5.5;

/// Quarks whose action is solved to 1e-12 and force to `force_tol`.
fn quarks(lat: Lattice, mass: f64, force_tol: f64) -> StaggeredQuarks {
    StaggeredQuarks::new(lat, mass, 1e-12, force_tol, 2000).unwrap()
}

fn action(lat: Lattice, mass: f64, force_tol: f64) -> Action {
    Action::wilson(BETA)
        .unwrap()
        .with_quarks(quarks(lat, mass, force_tol))
}

/// `φ ~ exp(−φ† A⁻¹ φ)` makes `S_f` a sum of `3V/2` unit exponentials: mean and variance
/// `3V/2` (384 on 4⁴), whatever the links and the mass.
fn heatbath_action_counts_the_components() {
    let lat = Lattice::new([4; 4]).unwrap();
    let u = configuration(lat, BETA, 1);
    let n = (3 * lat.volume() / 2) as f64;
    for (k, mass) in [0.2, 1.0, 3.0].into_iter().enumerate() {
        let mut q = quarks(lat, mass, 1e-12);
        let s = q.heatbath(&u, Philox::new(10 + k as u64)).unwrap();
        assert!(
            (s - n).abs() <= 4.0 * n.sqrt(),
            "m = {mass}: S_f = {s}, expected {n} ± {}",
            n.sqrt()
        );
        let again = q.action(&u).unwrap();
        assert!((again - s).abs() <= 1e-9 * s, "{again} after {s}");
        assert!(q.take_counts().solves == 2 && q.take_counts().solves == 0);
    }
}

/// The quarks' force is `−∂S_f`, for a fixed pseudofermion, at a light and a heavy mass.
fn quark_force_is_the_derivative() {
    let lat = Lattice::new([4, 4, 4, 6]).unwrap();
    let u = configuration(lat, BETA, 2);
    for mass in [0.1, 1.0] {
        let mut q = quarks(lat, mass, 1e-12);
        q.heatbath(&u, Philox::new(3)).unwrap();
        let mut f: LinksOf<Lattice> = Field::zeros(lat.volume());
        q.force(&u, 1.0, &mut f).unwrap();
        md::check_force_is_the_derivative(&u, &f, |w| q.action(w).unwrap(), 4, 1e-6);
    }
}

/// Forward, flip the momenta, back, flip again: links and momenta return to 1e-12 with
/// the quarks' force, for both integrators (to rounding whatever the force's tolerance:
/// every solve starts from zero, so the force is a function of the links).
fn reversibility_with_quarks() {
    let lat = Lattice::new([4; 4]).unwrap();
    for integrator in [Integrator::Leapfrog, Integrator::omelyan()] {
        let mut u = configuration(lat, BETA, 5);
        let mut p = momenta(lat, 6);
        let mut a = action(lat, 0.5, 1e-8);
        a.refresh(&u, Philox::new(7)).unwrap();
        let md = MdParams {
            length: 1.0,
            steps: 8,
            integrator,
        };
        md::check_reversible(&mut u, &mut p, &format!("{integrator:?}"), |u, p| {
            a.molecular_dynamics(u, p, &md).unwrap()
        });
    }
}

/// `|ΔH|` of leapfrog trajectories of length 0.5 in each of `steps` steps from the same
/// links and momenta, with the pseudofermion drawn from the generator of `seed`.
fn leapfrog_delta_h(
    a: &mut Action,
    u: &GaugeField,
    p: &LinksOf<Lattice>,
    seed: u64,
    steps: &[usize],
) -> Vec<f64> {
    let lat = u.lattice();
    let s0 = a.refresh(u, Philox::new(seed)).unwrap();
    let h0 = ongpu::qcd::hmc::kinetic_energy(lat, p).unwrap() + s0;
    steps
        .iter()
        .map(|&steps| {
            let (mut w, mut q) = (copy(u), copy_momenta(p));
            let md = MdParams {
                length: 0.5,
                steps,
                integrator: Integrator::Leapfrog,
            };
            a.molecular_dynamics(&mut w, &mut q, &md).unwrap();
            (a.hamiltonian(&w, &q).unwrap() - h0).abs()
        })
        .collect()
}

/// The leapfrog's ΔH with quarks falls as ε²: halving the step divides it by 4 within 10%,
/// twice.
fn delta_h_scales_as_eps_squared_with_quarks() {
    let lat = Lattice::new([4; 4]).unwrap();
    let u = configuration(lat, BETA, 8);
    let p = momenta(lat, 9);
    let mut a = action(lat, 1.0, 1e-10);
    let dh = leapfrog_delta_h(&mut a, &u, &p, 10, &[10, 20, 40]);
    md::check_ratios(&dh, 3.6..=4.4, "|ΔH|");
}

/// Two time scales (the gauge force in inner steps): the molecular dynamics stays
/// reversible to 1e-12, and its leapfrog's ΔH still falls as ε² of the outer step; zero
/// inner steps is an error.
fn two_time_scales() {
    let lat = Lattice::new([4; 4]).unwrap();
    let mut u = configuration(lat, BETA, 16);
    let mut p = momenta(lat, 17);
    let mut a = action(lat, 0.5, 1e-8).with_gauge_substeps(3).unwrap();
    assert_eq!(a.gauge_substeps(), 3);
    a.refresh(&u, Philox::new(18)).unwrap();
    let md = MdParams {
        length: 1.0,
        steps: 4,
        integrator: Integrator::omelyan(),
    };
    md::check_reversible(&mut u, &mut p, "two time scales", |u, p| {
        a.molecular_dynamics(u, p, &md).unwrap()
    });
    let mut a = action(lat, 1.0, 1e-10).with_gauge_substeps(2).unwrap();
    let dh = leapfrog_delta_h(&mut a, &u, &p, 19, &[20, 40, 80]);
    md::check_ratios(&dh, 3.6..=4.4, "|ΔH| on two time scales");
    assert!(Action::<Lattice>::wilson(BETA)
        .unwrap()
        .with_gauge_substeps(0)
        .is_err());
}

/// Heavy quarks decouple: from the same links and momenta, a trajectory with quarks of mass
/// `m` ends a distance `∝ 1/m²` from the quenched one (the quarks' force is `O(1/m²)`), so
/// doubling `m` divides it by 4 (within 12%: the next order is `O(1/m⁴)`).
fn heavy_quarks_decouple() {
    let lat = Lattice::new([4; 4]).unwrap();
    let u = configuration(lat, BETA, 11);
    let p = momenta(lat, 12);
    let md = MdParams {
        length: 0.5,
        steps: 5,
        integrator: Integrator::omelyan(),
    };
    let gaps = md::heavy_quark_gaps(&u, &p, &md, BETA, &[4.0, 8.0, 16.0], 13, |mass| {
        action(lat, mass, 1e-12)
    });
    md::check_ratios(&gaps, 3.5..=4.5, "gaps");
}

/// Over a run with quarks, ⟨exp(−ΔH)⟩ = 1 within 3σ, most trajectories are accepted, the
/// solves are counted, and a rejected one leaves the links as they were; a mass that is not
/// positive is an error.
fn creutz_equality_with_quarks() {
    let lat = Lattice::new([4; 4]).unwrap();
    let mut u = configuration(lat, BETA, 14);
    let mut hmc = Hmc::with_action(lat, action(lat, 1.0, 1e-8), 15);
    let md = MdParams {
        length: 1.0,
        steps: 5,
        integrator: Integrator::omelyan(),
    };
    md::check_chain(&mut hmc, &mut u, &md, 12, 8, |t| {
        // heatbath + 11 forces + final action
        assert_eq!(t.solves.solves, 13);
        assert!(t.solves.iterations > 13);
    });
    for bad in [0.0, -1.0, f64::NAN] {
        assert!(StaggeredQuarks::new(lat, bad, 1e-10, 1e-10, 10).is_err());
    }
    let other = Lattice::new([4, 4, 4, 6]).unwrap();
    let mut q = quarks(other, 0.5, 1e-8);
    assert!(q
        .heatbath(&GaugeField::unit(lat).unwrap(), Philox::new(1))
        .is_err());
}

on_both_backends!(
    heatbath_action_counts_the_components,
    quark_force_is_the_derivative,
    reversibility_with_quarks,
    delta_h_scales_as_eps_squared_with_quarks,
    two_time_scales,
    heavy_quarks_decouple,
    creutz_equality_with_quarks
);

/// The kernels compile with the real NVRTC for Hopper and Ampere, without warnings and
/// without local memory.
#[cfg(feature = "cuda")]
#[test]
fn kernels_compile_with_nvrtc() {
    if !support::require_nvrtc() {
        return;
    }
    let kernels = support::cpu_kernel_sources(heatbath_action_counts_the_components);
    support::check_kernels_stay_in_registers(&kernels);
}
