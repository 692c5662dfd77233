//! Hybrid Monte Carlo for the Wilson gauge action (`ongpu::qcd::hmc`), checked by exact
//! properties: the momenta are su(3) with `K = ½ Σ p²`; the force is the derivative of the
//! action (a central difference along a random direction); the molecular dynamics is
//! reversible to 1e-12; the leapfrog's `ΔH` falls as `ε²`; Creutz's `⟨exp(−ΔH)⟩ = 1` holds
//! over a run. On the CPU backend, and on the GPU with `--include-ignored`.

#[cfg(feature = "cuda")]
use crate::support;
use crate::support::md;

use md::{copy, max_entry, momenta};
use ongpu::prelude::*;
use ongpu::qcd::gauge::{GaugeField, LinksOf};
use ongpu::qcd::hmc::{
    gauge_action, gauge_force, hamiltonian, molecular_dynamics, Hmc, Integrator, MdParams,
};

const BETA: f64 = 5.5;

fn configuration(lat: Lattice, seed: u64) -> GaugeField {
    md::configuration(lat, BETA, seed)
}

/// The momenta are traceless and anti-Hermitian, and `K = −Σ tr P²` averages ½ per
/// coordinate (8 per link: 4 ± a few percent on 1024 links).
fn momenta_are_gaussian_su3() {
    let lat = Lattice::new([4; 4]).unwrap();
    let p = momenta(lat, 1);
    let host = p.to_vec().unwrap();
    let mut k = 0.0;
    for links in &host {
        for m in links {
            assert!(max_entry(&(*m + m.adj())) <= 1e-15);
            assert!(m.trace().norm() <= 1e-15);
            k -= (*m * *m).trace().re;
        }
    }
    let per_link = k / (4 * lat.volume()) as f64;
    assert!((per_link - 4.0).abs() < 0.3, "K per link {per_link}");
    let device = ongpu::qcd::hmc::kinetic_energy(lat, &p).unwrap();
    assert!((device - k).abs() <= 1e-10 * k);
}

/// d/ds S(e^{sX} U) at s = 0 is Σ 2 Re tr(X F) (the force F = −∂S), against a central
/// difference along a random su(3) direction X.
fn force_is_the_derivative() {
    let lat = Lattice::new([4, 4, 4, 6]).unwrap();
    let u = configuration(lat, 2);
    let mut f: LinksOf<Lattice> = Field::zeros(lat.volume());
    gauge_force(BETA, &u, 1.0, &mut f).unwrap();
    md::check_force_is_the_derivative(&u, &f, |w| gauge_action(BETA, w).unwrap(), 3, 1e-6);
}

/// Forward, flip the momenta, back, flip again: the links and momenta return to 1e-12,
/// for both integrators.
fn reversibility() {
    let lat = Lattice::new([4; 4]).unwrap();
    for integrator in [Integrator::Leapfrog, Integrator::omelyan()] {
        let mut u = configuration(lat, 4);
        let mut p = momenta(lat, 5);
        let md = MdParams {
            length: 1.0,
            steps: 8,
            integrator,
        };
        md::check_reversible(&mut u, &mut p, &format!("{integrator:?}"), |u, p| {
            molecular_dynamics(BETA, u, p, &md).unwrap()
        });
    }
}

/// The leapfrog's ΔH at a fixed trajectory falls as ε²: halving the step divides it by 4
/// within 10%, twice; Omelyan's is smaller at the same step.
fn delta_h_scales_as_eps_squared() {
    let lat = Lattice::new([4; 4]).unwrap();
    let u = configuration(lat, 6);
    let p = momenta(lat, 7);
    let delta_h = |steps: usize, integrator: Integrator| {
        let mut w = copy(&u);
        let mut q: LinksOf<Lattice> = Field::from_vec(p.to_vec().unwrap());
        let h0 = hamiltonian(BETA, &w, &q).unwrap();
        let md = MdParams {
            length: 1.0,
            steps,
            integrator,
        };
        molecular_dynamics(BETA, &mut w, &mut q, &md).unwrap();
        hamiltonian(BETA, &w, &q).unwrap() - h0
    };
    let dh: Vec<f64> = [20, 40, 80]
        .iter()
        .map(|&n| delta_h(n, Integrator::Leapfrog).abs())
        .collect();
    md::check_ratios(&dh, 3.6..=4.4, "|ΔH|");
    let omelyan = delta_h(20, Integrator::omelyan()).abs();
    assert!(omelyan < dh[0], "Omelyan {omelyan}, leapfrog {}", dh[0]);
}

/// Over a run, ⟨exp(−ΔH)⟩ = 1 within 3σ (Creutz's equality), most trajectories are
/// accepted, and a rejected one leaves the links as they were.
fn creutz_equality() {
    let lat = Lattice::new([4; 4]).unwrap();
    let mut u = configuration(lat, 8);
    let mut hmc = Hmc::new(lat, BETA, 9).unwrap();
    let md = MdParams {
        length: 1.0,
        steps: 6,
        integrator: Integrator::omelyan(),
    };
    md::check_chain(&mut hmc, &mut u, &md, 30, 20, |_| {});
    assert_eq!(hmc.trajectories(), 30);
    assert!(Hmc::new(lat, -1.0, 1).is_err());
    let zero = MdParams { steps: 0, ..md };
    assert!(hmc.trajectory(&mut u, &zero).is_err());
}

on_both_backends!(
    momenta_are_gaussian_su3,
    force_is_the_derivative,
    reversibility,
    delta_h_scales_as_eps_squared,
    creutz_equality
);

/// The kernels compile with the real NVRTC for Hopper and Ampere, without warnings and
/// without local memory.
#[cfg(feature = "cuda")]
#[test]
fn kernels_compile_with_nvrtc() {
    if !support::require_nvrtc() {
        return;
    }
    let kernels = support::cpu_kernel_sources(|| {
        momenta_are_gaussian_su3();
        reversibility();
    });
    support::check_kernels_stay_in_registers(&kernels);
}
