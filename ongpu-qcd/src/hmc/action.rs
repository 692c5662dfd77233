//! The action a chain samples: the Wilson gauge action, and the quarks if there are any.

use super::staggered_quarks::{SolveCounts, StaggeredQuarks};
use super::{gauge_action, gauge_force, kinetic_energy, MdParams};
use crate::gauge::force::exp_times;
use crate::gauge::{GaugeField, LinksOf};
use crate::solver::SolverError;
use ongpu::prelude::*;

/// `S = S_g + S_f`: the Wilson gauge action at β and, optionally, `N_f = 4` staggered
/// quarks with their pseudofermion.
///
/// With quarks, the molecular dynamics can run on two time scales (Sexton and Weingarten,
/// Nucl. Phys. B 380 (1992) 665): each link move of the outer integrator, which applies the
/// quarks' force (a solve each), is itself `gauge_substeps` steps of the same scheme with
/// the cheap gauge force alone ([`Action::with_gauge_substeps`]); the composition stays
/// reversible and area-preserving.
pub struct Action<S: Space = Lattice> {
    beta: f64,
    quarks: Option<StaggeredQuarks<S>>,
    gauge_substeps: usize,
}

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
            quarks: None,
            gauge_substeps: 1,
        })
    }

    /// The same action with `quarks` (replacing any it had).
    #[must_use]
    pub fn with_quarks(self, quarks: StaggeredQuarks<S>) -> Self {
        Action {
            quarks: Some(quarks),
            ..self
        }
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

    /// The quarks, if any.
    pub fn quarks(&self) -> Option<&StaggeredQuarks<S>> {
        self.quarks.as_ref()
    }

    /// The quarks, if any, to change.
    pub fn quarks_mut(&mut self) -> Option<&mut StaggeredQuarks<S>> {
        self.quarks.as_mut()
    }

    /// Draws new pseudofermions (if there are quarks) from `rng` and returns the action
    /// on `u` with them.
    pub fn refresh(&mut self, u: &GaugeField<S>, rng: Philox) -> Result<f64, SolverError> {
        let fermions = match &mut self.quarks {
            Some(q) => q.heatbath(u, rng)?,
            None => 0.0,
        };
        Ok(gauge_action(self.beta, u)? + fermions)
    }

    /// `S` on the links of `u` (one solve with quarks).
    pub fn value(&mut self, u: &GaugeField<S>) -> Result<f64, SolverError> {
        let fermions = match &mut self.quarks {
            Some(q) => q.action(u)?,
            None => 0.0,
        };
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
        if let Some(q) = &mut self.quarks {
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
        let nested = inner > 1 && self.quarks.is_some();
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
                if let Some(q) = quarks.as_mut() {
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
        self.quarks
            .as_mut()
            .map(StaggeredQuarks::take_counts)
            .unwrap_or_default()
    }
}
