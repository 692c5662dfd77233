//! Rooted HISQ quarks for RHMC: each [`HisqFlavour`] is `n_f` flavours of one mass as one
//! pseudofermion `φ` on the even sites with the action `S_f = φ† A^{−n_f/4} φ`
//! (`A = m² − D_eo D_oe`; four tastes per staggered field, so the fourth root of the
//! determinant per flavour), through rational approximations of degree `N` (Clark and
//! Kennedy, Phys. Rev. Lett. 98 (2007) 051601):
//!
//! - heatbath: `φ = r_h(A) χ` with `r_h(x) ≈ x^{n_f/8}` and a Gaussian `χ` on the even sites
//!   (`⟨χχ†⟩ = 1`), so that `φ† r_a(A) φ ≈ χ†χ`;
//! - action: `r_a(x) ≈ x^{−n_f/4}`, `S_f = α₀ |φ|² + Σₖ αₖ φ† (A + βₖ)⁻¹ φ`, one
//!   multi-shift solve;
//! - force: the same solve, the gradient of each field's operator links, and the chain rule
//!   ([`crate::hisq::force`]), the two levels of smearing pulled back once for all fields
//!   (2+1 or 2+1+1 flavours cost one pullback, as in MILC).
//!
//! The links are smeared once per gauge field and shared by the fields. Each field's
//! approximations hold on `[m², top]`: `A ≥ m²` exactly, and every heatbath estimates the
//! largest eigenvalue of `A` by the power method and returns an `Error` if it (its part
//! above `m²` with a 5% margin) exceeds `top`.

use super::gaussian::gaussian_vectors;
use super::quarks::Quarks;
use super::staggered_quarks::SolveCounts;
use crate::boundary::TimeBoundary;
use crate::gauge::{GaugeField, LinksOf};
use crate::hisq::force::{
    accumulate_momenta, accumulate_shifted_gradients, LinkGradients, SmearedGradients,
};
use crate::hisq::links::{smeared, Smeared};
use crate::hisq::{Hisq, HisqLinks};
use crate::rational::{Exponent, RationalApproximation};
use crate::solver::SolverError;
use crate::staggered::{largest_eigenvalue, FermionOf, FermionsOf, MultiShiftCg};
use ongpu::prelude::*;
use ongpu::Element;
use std::sync::Arc;
use std::time::Instant;

/// Power iterations of the spectral check at each heatbath.
const POWER_ITERATIONS: usize = 40;
/// The margin on the power method's estimate of the top of `−D_eo D_oe` (from below).
const SPECTRAL_MARGIN: f64 = 1.05;
/// Random draws per site of one field's heatbath.
const DRAWS_PER_FIELD: u32 = 6;

/// `flavours` flavours of one mass and Naik correction: one rooted pseudofermion field.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HisqFlavour {
    /// Flavours in the field (1 to 4): 2 for degenerate light quarks, 1 for the strange.
    pub flavours: u32,
    /// The quark mass.
    pub mass: f64,
    /// The Naik correction `ε` (0 but for charm).
    pub epsilon: f64,
}

impl HisqFlavour {
    /// `flavours` flavours of mass `mass`, `ε = 0`.
    pub fn new(flavours: u32, mass: f64) -> Self {
        HisqFlavour {
            flavours,
            mass,
            epsilon: 0.0,
        }
    }

    /// The same with Naik correction `epsilon`.
    pub fn with_epsilon(self, epsilon: f64) -> Self {
        HisqFlavour { epsilon, ..self }
    }
}

/// One field: its flavour content, approximations and pseudofermion.
struct FlavourField<S: Space> {
    flavour: HisqFlavour,
    action: Arc<RationalApproximation>,
    heatbath: Arc<RationalApproximation>,
    phi: FermionOf<S>,
}

/// Rooted HISQ quarks, one pseudofermion per [`HisqFlavour`], rational approximations of
/// degree `N`, sharing the smeared links and the force's pullback.
pub struct HisqQuarks<const N: usize, S: Space = Lattice> {
    lat: S,
    boundary: TimeBoundary,
    fields: Vec<FlavourField<S>>,
    action_solver: MultiShiftCg<N>,
    force_solver: MultiShiftCg<N>,
    chi: FermionOf<S>,
    x: FermionsOf<S, N>,
    counts: SolveCounts,
}

impl<const N: usize, S: Space> HisqQuarks<N, S>
where
    [ColorVector<f64>; N]: Element,
{
    /// The fields of `flavours` (each mass positive, 1 to 4 flavours per field),
    /// antiperiodic in time, with approximations on `[m², top]`; the action's solves to
    /// relative residual `action_tol`, the force's to `force_tol`, each within `max_iter`
    /// iterations.
    pub fn new(
        lat: S,
        flavours: &[HisqFlavour],
        top: f64,
        action_tol: f64,
        force_tol: f64,
        max_iter: usize,
    ) -> ongpu::Result<Self> {
        if flavours.is_empty() {
            return Err(ongpu::Error::InvalidArgument(
                "HISQ quarks need at least one flavour field".to_string(),
            ));
        }
        let mut fields = Vec::with_capacity(flavours.len());
        for &flavour in flavours {
            let HisqFlavour {
                flavours: n_f,
                mass,
                epsilon,
            } = flavour;
            if !(1..=4).contains(&n_f) {
                return Err(ongpu::Error::InvalidArgument(format!(
                    "a rooted staggered field carries 1 to 4 flavours, not {n_f}"
                )));
            }
            if !(mass > 0.0 && mass.is_finite() && epsilon.is_finite()) {
                return Err(ongpu::Error::InvalidArgument(format!(
                    "the quark mass must be positive and finite and ε finite, not m = {mass}, \
                     ε = {epsilon}"
                )));
            }
            let (lo, f) = (mass * mass, n_f as i32);
            fields.push(FlavourField {
                flavour,
                action: RationalApproximation::new(Exponent::new(-f, 4)?, N, lo, top)?,
                heatbath: RationalApproximation::new(Exponent::new(f, 8)?, N, lo, top)?,
                phi: lat.zeros()?,
            });
        }
        Ok(HisqQuarks {
            lat,
            boundary: TimeBoundary::Antiperiodic,
            fields,
            action_solver: MultiShiftCg::new(action_tol, max_iter),
            force_solver: MultiShiftCg::new(force_tol, max_iter),
            chi: lat.zeros()?,
            x: lat.zeros()?,
            counts: SolveCounts::default(),
        })
    }

    /// The quarks with the time boundary `boundary` instead of antiperiodic.
    pub fn with_boundary(self, boundary: TimeBoundary) -> Self {
        HisqQuarks { boundary, ..self }
    }

    /// The flavour content of each field.
    pub fn flavours(&self) -> Vec<HisqFlavour> {
        self.fields.iter().map(|f| f.flavour).collect()
    }

    /// `r_a(x) ≈ x^{−n_f/4}`, the action's approximation of field `k` (with its error
    /// bound).
    pub fn action_approximation(&self, k: usize) -> &RationalApproximation {
        &self.fields[k].action
    }

    /// `r_h(x) ≈ x^{n_f/8}`, the heatbath's approximation of field `k`.
    pub fn heatbath_approximation(&self, k: usize) -> &RationalApproximation {
        &self.fields[k].heatbath
    }

    /// The pseudofermion of field `k` (even sites).
    pub fn pseudofermion(&self, k: usize) -> &FermionOf<S> {
        &self.fields[k].phi
    }

    /// The operator of field `k` on the smeared links `s`.
    fn operator(&self, s: &Smeared<S>, k: usize) -> ongpu::Result<Hisq<S>> {
        let f = self.fields[k].flavour;
        let links = HisqLinks::from_smeared(self.lat, s, f.epsilon, self.boundary)?;
        Ok(Hisq::from_links(self.lat, links, f.mass, f.epsilon))
    }

    /// An `Error` unless the power method's largest eigenvalue of field `k`'s `A` (its part
    /// above `m²` with a 5% margin) lies in its approximations' range; returns the estimate.
    fn check_spectrum(&self, op: &Hisq<S>, k: usize) -> Result<f64, SolverError> {
        let top = largest_eigenvalue(op, POWER_ITERATIONS)?;
        let m2 = self.fields[k].flavour.mass.powi(2);
        self.fields[k]
            .action
            .check_spectrum(m2, m2 + (top - m2) * SPECTRAL_MARGIN)?;
        Ok(top)
    }

    /// `x_k = (A + βₖ)⁻¹ b` for the shifts of `r` (one multi-shift solve), counted.
    fn solve_shifts(
        &mut self,
        op: &Hisq<S>,
        r: &RationalApproximation,
        source: Source,
        for_force: bool,
    ) -> Result<(), SolverError> {
        let shifts: [f64; N] = std::array::from_fn(|k| r.terms()[k].1);
        let b = match source {
            Source::Chi => &self.chi,
            Source::Phi(k) => &self.fields[k].phi,
        };
        let solver = if for_force {
            &mut self.force_solver
        } else {
            &mut self.action_solver
        };
        let solution = solver.solve(op, shifts, b, &mut self.x)?;
        self.counts.record(solution.iterations, solution.seconds);
        Ok(())
    }

    /// Field `k`'s action with its operator built already.
    fn field_action(&mut self, op: &Hisq<S>, k: usize) -> Result<f64, SolverError> {
        let r = self.fields[k].action.clone();
        self.solve_shifts(op, &r, Source::Phi(k), false)?;
        let alphas: [f64; N] = std::array::from_fn(|j| r.terms()[j].0);
        let a0 = r.constant();
        let n = N;
        let (phi, x) = (&self.fields[k].phi, &self.x);
        Ok(on_gpu!(sum: self.lat.even(), {
            let mut s = a0 * phi.norm2();
            for j in 0..n {
                s += alphas[j] * phi.dot(x[j]).re;
            }
            s
        })?)
    }
}

/// The source of a multi-shift solve.
#[derive(Clone, Copy)]
enum Source {
    /// The heatbath's Gaussian.
    Chi,
    /// Field `k`'s pseudofermion.
    Phi(usize),
}

impl<const N: usize, S: Space> Quarks<S> for HisqQuarks<N, S>
where
    [ColorVector<f64>; N]: Element,
{
    fn refresh(
        &mut self,
        u: &GaugeField<S>,
        rng: Philox,
        first_draw: u32,
    ) -> Result<f64, SolverError> {
        let lat = self.lat;
        u.check_lattice(lat, "the quarks")?;
        let s = smeared(u)?;
        let mut total = 0.0;
        for k in 0..self.fields.len() {
            let op = self.operator(&s, k)?;
            self.check_spectrum(&op, k)?;
            let d = first_draw + DRAWS_PER_FIELD * k as u32;
            gaussian_vectors(lat, lat.even(), rng, d, &mut self.chi)?;
            // φ = r_h(A) χ.
            let r = self.fields[k].heatbath.clone();
            self.solve_shifts(&op, &r, Source::Chi, false)?;
            let alphas: [f64; N] = std::array::from_fn(|j| r.terms()[j].0);
            let a0 = r.constant();
            let n = N;
            let (phi, chi, x) = (&mut self.fields[k].phi, &self.chi, &self.x);
            on_gpu!(lat.even(), {
                let mut acc = a0 * chi;
                for j in 0..n {
                    acc += alphas[j] * x[j];
                }
                phi = acc;
            })?;
            total += self.field_action(&op, k)?;
        }
        Ok(total)
    }

    fn draws_per_site(&self) -> u32 {
        DRAWS_PER_FIELD * self.fields.len() as u32
    }

    fn action(&mut self, u: &GaugeField<S>) -> Result<f64, SolverError> {
        let s = smeared(u)?;
        let mut total = 0.0;
        for k in 0..self.fields.len() {
            let op = self.operator(&s, k)?;
            total += self.field_action(&op, k)?;
        }
        Ok(total)
    }

    fn force(&mut self, u: &GaugeField<S>, c: f64, p: &mut LinksOf<S>) -> Result<(), SolverError> {
        let start = Instant::now();
        let mut solving = 0.0;
        let lat = self.lat;
        let s = smeared(u)?;
        let mut sums = SmearedGradients::zeros(lat)?;
        for k in 0..self.fields.len() {
            let op = self.operator(&s, k)?;
            let r = self.fields[k].action.clone();
            let before = self.counts.seconds;
            self.solve_shifts(&op, &r, Source::Phi(k), true)?;
            solving += self.counts.seconds - before;
            let alphas: [f64; N] = std::array::from_fn(|j| r.terms()[j].0);
            let mut g = LinkGradients::zeros(lat)?;
            accumulate_shifted_gradients(&op, alphas, &self.x, &mut g)?;
            let f = self.fields[k].flavour;
            sums.add_operator_gradients(lat, &s, f.epsilon, self.boundary, g)?;
        }
        let g_u = sums.pull_back(lat, u.links(), &s)?;
        accumulate_momenta(lat, u.links(), &g_u, c, p)?;
        ongpu::synchronize()?;
        self.counts.force_seconds += start.elapsed().as_secs_f64() - solving;
        Ok(())
    }

    fn take_counts(&mut self) -> SolveCounts {
        std::mem::take(&mut self.counts)
    }
}
