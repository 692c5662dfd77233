//! Hybrid Monte Carlo for the Wilson gauge action `S = β Σ_p (1 − Re tr U_p / 3)`
//! (Duane, Kennedy, Pendleton, Roweth, Phys. Lett. B 195 (1987) 216): Gaussian momenta
//! `P ∈ su(3)` on every link, a reversible molecular-dynamics trajectory of
//! `H = −Σ tr P² + S` ([`Integrator`]), and a Metropolis step on `ΔH`, all in f64 with
//! deterministic sums.
//!
//! The force is `F = −∂S = −(β/6) P(U A)` (`A` the staples, `P` the traceless
//! anti-Hermitian part, generators normalised to `tr(TᵃTᵇ) = −½δᵃᵇ`), computed by
//! [`accumulate_force`] as the gradient flow's is. The momenta and the Metropolis draw
//! come from the counter-based generator, keyed by trajectory and whole-lattice site, so a
//! chain is the same on any space and either backend to rounding of the sums.

mod integrator;
mod momenta;

pub use integrator::{Integrator, OMELYAN_LAMBDA};
pub use momenta::{kinetic_energy, refresh, su3_from_coordinates};

use crate::gauge::force::{accumulate_force, exp_times};
use crate::gauge::{GaugeField, LinksOf};
use ongpu::prelude::*;

/// A trajectory's length, step count and scheme.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MdParams {
    /// The trajectory length τ.
    pub length: f64,
    /// Steps per trajectory (the step is `length / steps`).
    pub steps: usize,
    /// The scheme.
    pub integrator: Integrator,
}

/// What one trajectory did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Trajectory {
    /// `H(end) − H(start)`.
    pub delta_h: f64,
    /// Whether the Metropolis step kept the new links.
    pub accepted: bool,
    /// The mean plaquette after the Metropolis step.
    pub plaquette: f64,
}

/// The state of an HMC chain: β, the generator and the trajectories drawn from it, and the
/// momenta and saved links (allocated at the first trajectory).
///
/// ```
/// # mod ongpu { pub use ::ongpu_runtime::*; pub mod qcd { pub use ::ongpu_qcd::*; } }
/// use ongpu::qcd::gauge::GaugeField;
/// use ongpu::qcd::hmc::{Hmc, Integrator, MdParams};
/// # fn main() -> ongpu::Result<()> {
/// let lat = ongpu::Lattice::new([4, 4, 4, 4])?;
/// let mut u = GaugeField::unit(lat)?;
/// let mut hmc = Hmc::new(lat, 5.5, 1)?;
/// let md = MdParams { length: 1.0, steps: 10, integrator: Integrator::omelyan() };
/// let t = hmc.trajectory(&mut u, &md)?;
/// assert!(t.delta_h.is_finite());
/// # Ok(())
/// # }
/// ```
pub struct Hmc<S: Space = Lattice> {
    lat: S,
    beta: f64,
    rng: Philox,
    trajectories: u32,
    momenta: Option<LinksOf<S>>,
    saved: Option<LinksOf<S>>,
}

impl<S: Space> Hmc<S> {
    /// A chain on `lat` at coupling `beta` (≥ 0) from the generator of `seed`.
    pub fn new(lat: S, beta: f64, seed: u64) -> ongpu::Result<Self> {
        if !(beta >= 0.0 && beta.is_finite()) {
            return Err(ongpu::Error::InvalidArgument(format!(
                "β must be finite and not negative, not {beta}"
            )));
        }
        Ok(Hmc {
            lat,
            beta,
            rng: Philox::new(seed),
            trajectories: 0,
            momenta: None,
            saved: None,
        })
    }

    /// Trajectories run so far.
    pub fn trajectories(&self) -> u32 {
        self.trajectories
    }

    /// One trajectory of `u` and its Metropolis step.
    pub fn trajectory(
        &mut self,
        u: &mut GaugeField<S>,
        md: &MdParams,
    ) -> ongpu::Result<Trajectory> {
        let lat = self.lat;
        u.check_lattice(lat, "the HMC chain")?;
        if !(md.length > 0.0 && md.length.is_finite()) || md.steps == 0 {
            return Err(ongpu::Error::InvalidArgument(format!(
                "a trajectory needs a positive length and at least one step, not {} in {}",
                md.length, md.steps
            )));
        }
        let p = match &mut self.momenta {
            Some(p) => p,
            empty => empty.insert(lat.zeros()?),
        };
        let saved = match &mut self.saved {
            Some(s) => s,
            empty => empty.insert(lat.zeros()?),
        };
        refresh(lat, self.rng.stream(2 * self.trajectories), p)?;
        let h0 = hamiltonian(self.beta, u, p)?;
        let links = u.links();
        on_gpu!(lat, {
            saved = links;
        })?;
        molecular_dynamics(self.beta, u, p, md)?;
        let delta_h = hamiltonian(self.beta, u, p)? - h0;
        let draw = self.rng.stream(2 * self.trajectories + 1).uniform_f64(0, 0);
        let accepted = draw < (-delta_h).exp();
        if !accepted {
            let links = u.links_mut();
            let kept = &*saved;
            on_gpu!(lat, {
                links = kept;
            })?;
        }
        self.trajectories += 1;
        Ok(Trajectory {
            delta_h,
            accepted,
            plaquette: u.plaquette()?,
        })
    }
}

/// `S = β Σ_p (1 − Re tr U_p / 3) = 6 β V (1 − plaquette)`.
pub fn gauge_action<S: Space>(beta: f64, u: &GaugeField<S>) -> ongpu::Result<f64> {
    let volume = u.lattice().whole().volume() as f64;
    Ok(6.0 * beta * volume * (1.0 - u.plaquette()?))
}

/// `H = −Σ tr P² + S`.
pub fn hamiltonian<S: Space>(beta: f64, u: &GaugeField<S>, p: &LinksOf<S>) -> ongpu::Result<f64> {
    Ok(kinetic_energy(u.lattice(), p)? + gauge_action(beta, u)?)
}

/// `P += c F(U)`, `F = −(β/6) P(U A)`.
pub fn gauge_force<S: Space>(
    beta: f64,
    u: &GaugeField<S>,
    c: f64,
    p: &mut LinksOf<S>,
) -> ongpu::Result<()> {
    accumulate_force(u.lattice(), u.links(), c * beta / 3.0, 1.0, p)
}

/// The molecular dynamics of one trajectory: `u` and `p` moved by `md`.
pub fn molecular_dynamics<S: Space>(
    beta: f64,
    u: &mut GaugeField<S>,
    p: &mut LinksOf<S>,
    md: &MdParams,
) -> ongpu::Result<()> {
    let lat = u.lattice();
    let eps = md.length / md.steps as f64;
    // Both moves need both fields, one of each mutably: they take turns through a cell.
    let state = std::cell::RefCell::new((u, p));
    md.integrator.integrate(
        eps,
        md.steps,
        |c| {
            let (u, p) = &mut *state.borrow_mut();
            gauge_force(beta, u, c, p)
        },
        |c| {
            let (u, p) = &mut *state.borrow_mut();
            exp_times(lat, p, c, u.links_mut())
        },
    )
}
