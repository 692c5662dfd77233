//! What the molecular dynamics needs of dynamical quarks, whatever their action: a
//! pseudofermion heatbath, the action, and the force. [`StaggeredQuarks`] (`N_f = 4`, exact)
//! and [`HisqQuarks`] (rooted, through rational approximations) implement it, and an
//! [`Action`](super::Action) holds any number of them (light, strange, charm).
//!
//! [`StaggeredQuarks`]: super::StaggeredQuarks
//! [`HisqQuarks`]: super::HisqQuarks

use super::staggered_quarks::SolveCounts;
use crate::gauge::{GaugeField, LinksOf};
use crate::solver::SolverError;
use ongpu::prelude::*;

/// Dynamical quarks in an HMC or RHMC chain.
pub trait Quarks<S: Space> {
    /// Draws new pseudofermions from `rng`, using the draws `first_draw` to
    /// `first_draw + draws_per_site() − 1` at each whole-lattice site, and returns their
    /// action on `u`.
    fn refresh(
        &mut self,
        u: &GaugeField<S>,
        rng: Philox,
        first_draw: u32,
    ) -> Result<f64, SolverError>;

    /// Random draws per site that [`Quarks::refresh`] uses.
    fn draws_per_site(&self) -> u32;

    /// The pseudofermion action on the links of `u`.
    fn action(&mut self, u: &GaugeField<S>) -> Result<f64, SolverError>;

    /// `p += c F`, `F = −∂S` the force of the pseudofermion action on the links of `u`.
    fn force(&mut self, u: &GaugeField<S>, c: f64, p: &mut LinksOf<S>) -> Result<(), SolverError>;

    /// The solves since the last call, and the counters set back to zero.
    fn take_counts(&mut self) -> SolveCounts;
}
