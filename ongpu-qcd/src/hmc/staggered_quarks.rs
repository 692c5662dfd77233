//! Four flavours of dynamical staggered quarks (`N_f = 4`, unrooted): one pseudofermion
//! `φ` on the even sites with the action `S_f = φ† A⁻¹ φ`, `A = m² − D_eo D_oe`, so that
//! `∫ dφ exp(−S_f) ∝ det A = det(D + m)`, the determinant of four tastes, exactly, with
//! no rational approximation.
//!
//! - Heatbath: `φ = (M† χ)_e = m χ_e − D_eo χ_o` for a Gaussian `χ` on all sites
//!   (`⟨χ χ†⟩ = 1`) has the covariance `m² + D_eo D_eo† = A`, the distribution `exp(−S_f)`.
//! - Force: with `X = A⁻¹ φ` (even) and `Y = D_oe X` (odd),
//!   `δS_f = X† (δD_eo D_oe + D_eo δD_oe) X = X† δD_eo Y − Y† δD_oe X`. A link
//!   `Ũ_mu(x) = η_mu(x) U_mu(x)/2` enters `D` at `(x, x+mû)` and, as `−Ũ†`, at `(x+mû, x)`,
//!   so the force on the momenta, `−Σ_a Tᵃ ∂_a S_f`, is
//!   `ε(x) P(Ũ_mu(x) W(x+mû) W(x)†)` with `W = X` on even and `Y` on odd sites,
//!   `ε = +1` on even and `−1` on odd sites, and `P` the traceless anti-Hermitian part.
//!
//! The quarks are antiperiodic in time unless told otherwise
//! ([`StaggeredQuarks::with_boundary`]); the sign sits in the operator's folded links, so
//! the force above, written with those links, carries it too.
//!
//! Every solve starts from zero (the solver contract), so the molecular dynamics is
//! reversible to the solver's tolerance.

use super::gaussian::gaussian_vectors;
use super::quarks::Quarks;
use crate::boundary::TimeBoundary;
use crate::gauge::algebra::{outer_product, traceless_antihermitian};
use crate::gauge::{GaugeField, LinksOf};
use crate::solver::{LinearSolver, Solution, SolverError};
use crate::staggered::{Cg, FermionOf, Staggered};
use ongpu::prelude::*;

/// The first draw number of the pseudofermion's Gaussian at a site: the momenta use draws
/// 0 to 31 of the same stream.
const FIRST_DRAW: u32 = 32;

/// A boxed solver for the staggered normal system.
pub type StaggeredSolver<S> = Box<dyn LinearSolver<Staggered<S>>>;

/// What the solves of the quarks did since the counters were last taken.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SolveCounts {
    /// Solves.
    pub solves: usize,
    /// CG iterations over those solves.
    pub iterations: usize,
    /// Seconds in the solves.
    pub seconds: f64,
    /// Seconds in the forces outside their solves: the outer products and the chain rule
    /// through the smearing, as [`HisqQuarks`](super::HisqQuarks) measures them (the
    /// staggered quarks' force, two passes, does not wait to measure them: zero).
    pub force_seconds: f64,
}

impl SolveCounts {
    fn add(&mut self, s: &Solution) {
        self.record(s.iterations, s.seconds);
    }

    /// One more solve of `iterations` iterations in `seconds`.
    pub(crate) fn record(&mut self, iterations: usize, seconds: f64) {
        self.solves += 1;
        self.iterations += iterations;
        self.seconds += seconds;
    }
}

impl std::ops::AddAssign for SolveCounts {
    fn add_assign(&mut self, other: SolveCounts) {
        self.solves += other.solves;
        self.iterations += other.iterations;
        self.seconds += other.seconds;
        self.force_seconds += other.force_seconds;
    }
}

/// `N_f = 4` staggered quarks of one mass: the pseudofermion, its solvers and work fields.
///
/// The action's solves (at the start and end of a trajectory, which the Metropolis step
/// reads) and the force's (every step) have solvers of their own, so that the force can
/// be solved less precisely, or in mixed precision ([`MixedCg`](crate::staggered::MixedCg)),
/// without biasing the chain.
pub struct StaggeredQuarks<S: Space = Lattice> {
    lat: S,
    mass: f64,
    boundary: TimeBoundary,
    action_solver: StaggeredSolver<S>,
    force_solver: StaggeredSolver<S>,
    phi: FermionOf<S>,
    x: FermionOf<S>,
    y: FermionOf<S>,
    counts: SolveCounts,
}

impl<S: Space + 'static> StaggeredQuarks<S> {
    /// Antiperiodic quarks of mass `mass` (> 0) on `lat`, both solves by [`Cg`]: the action's to
    /// `action_tol`, the force's to `force_tol`, each in at most `max_iter` iterations.
    pub fn new(
        lat: S,
        mass: f64,
        action_tol: f64,
        force_tol: f64,
        max_iter: usize,
    ) -> ongpu::Result<Self> {
        StaggeredQuarks::with_solvers(
            lat,
            mass,
            Box::new(Cg::new(lat, action_tol, max_iter)),
            Box::new(Cg::new(lat, force_tol, max_iter)),
        )
    }
}

impl<S: Space> StaggeredQuarks<S> {
    /// Antiperiodic quarks of mass `mass` (> 0) on `lat` with the given solvers for the
    /// action and the force.
    pub fn with_solvers(
        lat: S,
        mass: f64,
        action_solver: StaggeredSolver<S>,
        force_solver: StaggeredSolver<S>,
    ) -> ongpu::Result<Self> {
        if !(mass > 0.0 && mass.is_finite()) {
            return Err(ongpu::Error::InvalidArgument(format!(
                "the quark mass must be positive and finite, not {mass}"
            )));
        }
        Ok(StaggeredQuarks {
            lat,
            mass,
            boundary: TimeBoundary::Antiperiodic,
            action_solver,
            force_solver,
            phi: lat.zeros()?,
            x: lat.zeros()?,
            y: lat.zeros()?,
            counts: SolveCounts::default(),
        })
    }

    /// The quarks with the time boundary `boundary` instead of antiperiodic.
    pub fn with_boundary(self, boundary: TimeBoundary) -> Self {
        StaggeredQuarks { boundary, ..self }
    }

    /// The quark mass.
    pub fn mass(&self) -> f64 {
        self.mass
    }

    /// The quarks' boundary condition in time.
    pub fn boundary(&self) -> TimeBoundary {
        self.boundary
    }

    /// The staggered operator of `u` for these quarks.
    fn operator(&self, u: &GaugeField<S>) -> ongpu::Result<Staggered<S>> {
        Staggered::with_boundary(u, self.mass, self.boundary)
    }

    /// The pseudofermion `φ` (on the even sites).
    pub fn pseudofermion(&self) -> &FermionOf<S> {
        &self.phi
    }

    /// The solves since the last call, and the counters set back to zero.
    pub fn take_counts(&mut self) -> SolveCounts {
        std::mem::take(&mut self.counts)
    }

    /// Draws `φ = m χ_e − D_eo χ_o` from the Gaussian `χ` of the generator `rng`, keyed by
    /// whole-lattice site (draws 32 to 37: a momentum refresh on the same stream uses 0 to
    /// 31), and returns its action `S_f = φ† A⁻¹ φ` (one solve).
    pub fn heatbath(&mut self, u: &GaugeField<S>, rng: Philox) -> Result<f64, SolverError> {
        self.heatbath_from(u, rng, FIRST_DRAW)
    }

    /// [`StaggeredQuarks::heatbath`] with the draws `first_draw` to `first_draw + 5`.
    fn heatbath_from(
        &mut self,
        u: &GaugeField<S>,
        rng: Philox,
        first_draw: u32,
    ) -> Result<f64, SolverError> {
        let lat = self.lat;
        u.check_lattice(lat, "the quarks")?;
        gaussian_vectors(lat, lat.all(), rng, first_draw, &mut self.y)?;
        let op = self.operator(u)?;
        op.d_eo(&self.y, &mut self.phi)?;
        let (phi, chi, m) = (&mut self.phi, &self.y, self.mass);
        on_gpu!(lat.even(), {
            phi = chi * m - phi;
        })?;
        self.action(u)
    }

    /// `S_f = φ† A⁻¹ φ` on the links of `u` (one solve by the action's solver).
    pub fn action(&mut self, u: &GaugeField<S>) -> Result<f64, SolverError> {
        let op = self.operator(u)?;
        let solution = self.action_solver.solve(&op, &self.phi, &mut self.x)?;
        self.counts.add(&solution);
        let (phi, x) = (&self.phi, &self.x);
        Ok(on_gpu!(sum: self.lat.even(), { phi.dot(x).re })?)
    }

    /// `p += c F_f`, `F_f = −∂S_f` the quarks' force on the links of `u` (one solve by the
    /// force's solver, one `D_oe`, two passes over the links).
    pub fn force(
        &mut self,
        u: &GaugeField<S>,
        c: f64,
        p: &mut LinksOf<S>,
    ) -> Result<(), SolverError> {
        let lat = self.lat;
        let op = self.operator(u)?;
        let solution = self.force_solver.solve(&op, &self.phi, &mut self.x)?;
        self.counts.add(&solution);
        op.d_oe(&self.x, &mut self.y)?;
        let (links, x, y) = (op.links(), &self.x, &self.y);
        on_gpu!(lat.even(), {
            for mu in 0..4 {
                p[mu] += traceless_antihermitian(outer_product(links[mu] * y.shift(mu, 1), x)) * c;
            }
        })?;
        let minus_c = -c;
        on_gpu!(lat.odd(), {
            for mu in 0..4 {
                p[mu] +=
                    traceless_antihermitian(outer_product(links[mu] * x.shift(mu, 1), y)) * minus_c;
            }
        })?;
        Ok(())
    }
}

impl<S: Space> Quarks<S> for StaggeredQuarks<S> {
    fn refresh(
        &mut self,
        u: &GaugeField<S>,
        rng: Philox,
        first_draw: u32,
    ) -> Result<f64, SolverError> {
        self.heatbath_from(u, rng, first_draw)
    }

    fn draws_per_site(&self) -> u32 {
        6
    }

    fn action(&mut self, u: &GaugeField<S>) -> Result<f64, SolverError> {
        StaggeredQuarks::action(self, u)
    }

    fn force(&mut self, u: &GaugeField<S>, c: f64, p: &mut LinksOf<S>) -> Result<(), SolverError> {
        StaggeredQuarks::force(self, u, c, p)
    }

    fn take_counts(&mut self) -> SolveCounts {
        StaggeredQuarks::take_counts(self)
    }
}
