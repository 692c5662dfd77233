//! Hybrid Monte Carlo for the Wilson gauge action `S = β Σ_p (1 − Re tr U_p / 3)`, alone
//! or with dynamical quarks: four flavours of staggered quarks ([`StaggeredQuarks`]), or
//! rooted HISQ quarks through rational approximations, which makes it RHMC (2+1 or 2+1+1
//! flavours, [`HisqQuarks`]); the [`Action`] says which (Duane, Kennedy, Pendleton, Roweth,
//! Phys. Lett. B 195 (1987) 216; Clark and Kennedy, Phys. Rev. Lett. 98 (2007) 051601):
//! Gaussian momenta
//! `P ∈ su(3)` on every link, a reversible molecular-dynamics trajectory of
//! `H = −Σ tr P² + S` ([`Integrator`]), and a Metropolis step on `ΔH`, all in f64 with
//! deterministic sums.
//!
//! The force is `F = −∂S = −(β/6) P(U A)` (`A` the staples, `P` the traceless
//! anti-Hermitian part, generators normalised to `tr(TᵃTᵇ) = −½δᵃᵇ`), computed by
//! [`accumulate_force`] as the gradient flow's is. The momenta and the Metropolis draw
//! come from the counter-based generator, keyed by trajectory and whole-lattice site, so a
//! chain is the same on any space and either backend to rounding of the sums.

mod action;
mod gaussian;
mod hisq_quarks;
mod integrator;
mod momenta;
mod quarks;
mod staggered_quarks;

pub use action::Action;
pub use hisq_quarks::{HisqFlavour, HisqQuarks};
pub use integrator::{Integrator, OMELYAN_LAMBDA};
pub use momenta::{kinetic_energy, refresh, su3_from_coordinates};
pub use quarks::Quarks;
pub use staggered_quarks::{SolveCounts, StaggeredQuarks, StaggeredSolver};

use crate::gauge::force::accumulate_force;
use crate::gauge::{GaugeField, LinksOf};
use crate::solver::SolverError;
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
    /// The quarks' solves in the trajectory (none without quarks).
    pub solves: SolveCounts,
}

/// The state of an HMC chain: the [`Action`] it samples, the generator and the
/// trajectories drawn from it, and the momenta and saved links (allocated at the first
/// trajectory).
///
/// ```
/// # mod ongpu { pub use ::ongpu_runtime::*; pub mod qcd { pub use ::ongpu_qcd::*; } }
/// use ongpu::qcd::gauge::GaugeField;
/// use ongpu::qcd::hmc::{Hmc, Integrator, MdParams};
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let lat = ongpu::Lattice::new([4, 4, 4, 4])?;
/// let mut u = GaugeField::unit(lat)?;
/// let mut hmc = Hmc::new(lat, 5.5, 1)?;
/// let md = MdParams { length: 1.0, steps: 10, integrator: Integrator::omelyan() };
/// let t = hmc.trajectory(&mut u, &md)?;
/// assert!(t.delta_h.is_finite());
/// # Ok(())
/// # }
/// ```
///
/// With four flavours of dynamical staggered quarks:
///
/// ```
/// # mod ongpu { pub use ::ongpu_runtime::*; pub mod qcd { pub use ::ongpu_qcd::*; } }
/// use ongpu::qcd::gauge::GaugeField;
/// use ongpu::qcd::hmc::{Action, Hmc, Integrator, MdParams, StaggeredQuarks};
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let lat = ongpu::Lattice::new([4, 4, 4, 4])?;
/// let mut u = GaugeField::unit(lat)?;
/// // mass 0.5; the action's solves to 1e-10, the force's to 1e-7
/// let quarks = StaggeredQuarks::new(lat, 0.5, 1e-10, 1e-7, 1000)?;
/// let action = Action::wilson(5.5)?.with_quarks(quarks);
/// let mut hmc = Hmc::with_action(lat, action, 1);
/// let md = MdParams { length: 1.0, steps: 10, integrator: Integrator::omelyan() };
/// let t = hmc.trajectory(&mut u, &md)?;
/// assert!(t.delta_h.is_finite() && t.solves.solves > 0);
/// # Ok(())
/// # }
/// ```
pub struct Hmc<S: Space = Lattice> {
    lat: S,
    action: Action<S>,
    rng: Philox,
    trajectories: u32,
    momenta: Option<LinksOf<S>>,
    saved: Option<LinksOf<S>>,
}

impl<S: Space> Hmc<S> {
    /// A chain of the Wilson gauge action on `lat` at coupling `beta` (≥ 0) from the
    /// generator of `seed`.
    pub fn new(lat: S, beta: f64, seed: u64) -> ongpu::Result<Self> {
        Ok(Hmc::with_action(lat, Action::wilson(beta)?, seed))
    }

    /// A chain of `action` on `lat` from the generator of `seed`.
    pub fn with_action(lat: S, action: Action<S>, seed: u64) -> Self {
        Hmc {
            lat,
            action,
            rng: Philox::new(seed),
            trajectories: 0,
            momenta: None,
            saved: None,
        }
    }

    /// Trajectories run so far.
    pub fn trajectories(&self) -> u32 {
        self.trajectories
    }

    /// The action the chain samples.
    pub fn action(&self) -> &Action<S> {
        &self.action
    }

    /// One trajectory of `u` and its Metropolis step. The momenta and the pseudofermions
    /// (if any) are drawn from stream `2k` of the generator, the Metropolis draw from
    /// stream `2k + 1`, for the `k`-th trajectory.
    pub fn trajectory(
        &mut self,
        u: &mut GaugeField<S>,
        md: &MdParams,
    ) -> Result<Trajectory, SolverError> {
        let lat = self.lat;
        u.check_lattice(lat, "the HMC chain")?;
        if !(md.length > 0.0 && md.length.is_finite()) || md.steps == 0 {
            return Err(ongpu::Error::InvalidArgument(format!(
                "a trajectory needs a positive length and at least one step, not {} in {}",
                md.length, md.steps
            ))
            .into());
        }
        let p = match &mut self.momenta {
            Some(p) => p,
            empty => empty.insert(lat.zeros()?),
        };
        let saved = match &mut self.saved {
            Some(s) => s,
            empty => empty.insert(lat.zeros()?),
        };
        let stream = self.rng.stream(2 * self.trajectories);
        refresh(lat, stream, p)?;
        let h0 = kinetic_energy(lat, p)? + self.action.refresh(u, stream)?;
        let links = u.links();
        on_gpu!(lat, {
            saved = links;
        })?;
        self.action.molecular_dynamics(u, p, md)?;
        let delta_h = self.action.hamiltonian(u, p)? - h0;
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
            solves: self.action.take_counts(),
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

/// The molecular dynamics of one trajectory of the Wilson gauge action at `beta` (no
/// quarks): `u` and `p` moved by `md`.
pub fn molecular_dynamics<S: Space>(
    beta: f64,
    u: &mut GaugeField<S>,
    p: &mut LinksOf<S>,
    md: &MdParams,
) -> ongpu::Result<()> {
    Action::wilson(beta)?
        .molecular_dynamics(u, p, md)
        .map_err(|e| match e {
            SolverError::Ongpu(e) => e,
            other => unreachable!("the gauge action solves nothing: {other}"),
        })
}
