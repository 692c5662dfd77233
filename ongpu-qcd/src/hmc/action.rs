//! The action a chain samples: the Wilson gauge action, and the quarks if there are any.

use super::quarks::Quarks;
use super::staggered_quarks::SolveCounts;
use super::{gauge_action, gauge_force, kinetic_energy, MdParams};
use crate::gauge::force::exp_times;
use crate::gauge::{GaugeField, LinksOf};
use crate::solver::SolverError;
use ongpu::prelude::*;

/// `S = S_g + Σ S_f`: the Wilson gauge action at β and any number of dynamical quarks,
/// each with its pseudofermion: `N_f = 4` staggered quarks
/// ([`StaggeredQuarks`](super::StaggeredQuarks)), rooted HISQ quarks for RHMC
/// ([`HisqQuarks`](super::HisqQuarks): 2+1 or 2+1+1 flavours as two or three of them), or
/// any other [`Quarks`].
///
/// With quarks, the molecular dynamics can run on two time scales (Sexton and Weingarten,
/// Nucl. Phys. B 380 (1992) 665): each link move of the outer integrator, which applies the
/// quarks' force (a solve each), is itself `gauge_substeps` steps of the same scheme with
/// the cheap gauge force alone ([`Action::with_gauge_substeps`]); the composition stays
/// reversible and area-preserving.
pub struct Action<S: Space = Lattice> {
    beta: f64,
    quarks: Vec<Box<dyn Quarks<S>>>,
    gauge_substeps: usize,
}

/// The first random draw at a site that the pseudofermions use (the momenta use 0 to 31);
/// each quark field takes the next [`Quarks::draws_per_site`].
const FIRST_QUARK_DRAW: u32 = 32;

impl<S: Space> Action<S> {
    /// The Wilson gauge action at coupling `beta` (≥ 0), no quarks (quenched).
    pub fn wilson(beta: f64) -> ongpu::Result<Self> {
        if !(beta >= 0.0 && beta.is_finite()) {
            return Err(ongpu::Error::InvalidArgument(format!(
                "β must be finite and not negative, not {beta}"
            )));
        }
        Ok(Action {
            beta,
            quarks: Vec::new(),
            gauge_substeps: 1,
        })
    }

    /// The same action with `quarks` added to any it had (a light and a strange field for
    /// 2+1 flavours).
    #[must_use]
    pub fn with_quarks(mut self, quarks: impl Quarks<S> + 'static) -> Self {
        self.quarks.push(Box::new(quarks));
        self
    }

    /// The same action with the gauge force integrated in `n` (≥ 1) inner steps per link
    /// move of the quarks' integrator (1, the default, is one time scale; without quarks it
    /// has no effect).
    pub fn with_gauge_substeps(self, n: usize) -> ongpu::Result<Self> {
        if n == 0 {
            return Err(ongpu::Error::InvalidArgument(
                "the gauge force needs at least one inner step per link move".to_string(),
            ));
        }
        Ok(Action {
            gauge_substeps: n,
            ..self
        })
    }

    /// Inner gauge steps per link move of the quarks' integrator.
    pub fn gauge_substeps(&self) -> usize {
        self.gauge_substeps
    }

    /// The coupling β.
    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// The quark fields, in the order they were added.
    pub fn quarks(&self) -> &[Box<dyn Quarks<S>>] {
        &self.quarks
    }

    /// The quark fields, to change.
    pub fn quarks_mut(&mut self) -> &mut [Box<dyn Quarks<S>>] {
        &mut self.quarks
    }

    /// Draws new pseudofermions (if there are quarks) from `rng`, each field from draws of
    /// its own, and returns the action on `u` with them.
    pub fn refresh(&mut self, u: &GaugeField<S>, rng: Philox) -> Result<f64, SolverError> {
        let mut fermions = 0.0;
        let mut draw = FIRST_QUARK_DRAW;
        for q in &mut self.quarks {
            fermions += q.refresh(u, rng, draw)?;
            draw += q.draws_per_site();
        }
        Ok(gauge_action(self.beta, u)? + fermions)
    }

    /// `S` on the links of `u` (one solve per quark field).
    pub fn value(&mut self, u: &GaugeField<S>) -> Result<f64, SolverError> {
        let mut fermions = 0.0;
        for q in &mut self.quarks {
            fermions += q.action(u)?;
        }
        Ok(gauge_action(self.beta, u)? + fermions)
    }

    /// `H = −Σ tr P² + S`.
    pub fn hamiltonian(&mut self, u: &GaugeField<S>, p: &LinksOf<S>) -> Result<f64, SolverError> {
        Ok(kinetic_energy(u.lattice(), p)? + self.value(u)?)
    }

    /// `p += c F`, `F = −∂S` (the gauge force, and the quarks' with one solve).
    pub fn force(
        &mut self,
        u: &GaugeField<S>,
        c: f64,
        p: &mut LinksOf<S>,
    ) -> Result<(), SolverError> {
        gauge_force(self.beta, u, c, p)?;
        for q in &mut self.quarks {
            q.force(u, c, p)?;
        }
        Ok(())
    }

    /// The molecular dynamics of one trajectory: `u` and `p` moved by `md` (on two time
    /// scales with quarks and more than one gauge substep).
    pub fn molecular_dynamics(
        &mut self,
        u: &mut GaugeField<S>,
        p: &mut LinksOf<S>,
        md: &MdParams,
    ) -> Result<(), SolverError> {
        let lat = u.lattice();
        let eps = md.length / md.steps as f64;
        let (beta, inner) = (self.beta, self.gauge_substeps);
        let nested = inner > 1 && !self.quarks.is_empty();
        // Both moves need both fields, one of each mutably: they take turns through a cell.
        let state = std::cell::RefCell::new((u, p));
        let gauge = |c: f64| -> Result<(), SolverError> {
            let (u, p) = &mut *state.borrow_mut();
            Ok(gauge_force(beta, u, c, p)?)
        };
        let links = |c: f64| -> Result<(), SolverError> {
            let (u, p) = &mut *state.borrow_mut();
            Ok(exp_times(lat, p, c, u.links_mut())?)
        };
        let quarks = &mut self.quarks;
        md.integrator.integrate(
            eps,
            md.steps,
            |c| {
                if !nested {
                    gauge(c)?;
                }
                for q in quarks.iter_mut() {
                    let (u, p) = &mut *state.borrow_mut();
                    q.force(u, c, p)?;
                }
                Ok(())
            },
            |c| {
                if nested {
                    md.integrator
                        .integrate(c / inner as f64, inner, gauge, links)
                } else {
                    links(c)
                }
            },
        )
    }

    /// The quarks' solves since the last call (zero without quarks), and the counters set
    /// back to zero.
    pub fn take_counts(&mut self) -> SolveCounts {
        let mut total = SolveCounts::default();
        for q in &mut self.quarks {
            total += q.take_counts();
        }
        total
    }
}
