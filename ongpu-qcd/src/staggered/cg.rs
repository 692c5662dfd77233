//! Conjugate gradients for `A x = b` on the even sites, `A = m² − D_eo D_oe` (Hermitian,
//! positive definite because `D` is anti-Hermitian), in the Chronopoulos–Gear arrangement:
//! each iteration applies `A` to the residual once and needs the two inner products
//! `|r|²` and `⟨r, A r⟩` of that same pass, so an iteration is three passes and ONE wait for
//! the host:
//!
//! 1. [`hop`] over `lat.odd()`: `t = D_oe r`;
//! 2. [`apply_and_reduce`] over `lat.even()`: `w = m² r − D_eo t = A r`, returning
//!    `γ = |r|²` and `δ = ⟨r, w⟩` (the one reduction);
//! 3. [`update`] over `lat.even()`: `p = r + β p`, `s = w + β s`, `x += α p`, `r −= α s`
//!    with `β = γ/γ_old`, `α = γ / (δ − β γ / α_old)`.
//!
//! Each pass is needed: pass 2 shifts `t`, which pass 1 writes (a call cannot shift a field
//! it writes); pass 3 needs α and β, which come from pass 2's sums over all sites; and the
//! next pass 1 shifts `r`, which pass 3 writes. Passes 3 and 1 are queued without waiting.
//!
//! When `|r|` of the recursion meets the tolerance, the solver computes the true residual
//! `b − A x` with the same passes; if rounding has let the recursion drift below it, CG
//! starts again from that residual (at most [`MAX_RESTARTS`](super::MAX_RESTARTS) times).

use super::frame::{solve_with_restarts, FramePasses, Limits, Problem, Work};
use super::passes::{
    apply_and_reduce, hop, update, APPLY_AND_REDUCE_FLOPS, HOP_FLOPS, NORM_FLOPS, RESIDUAL_FLOPS,
    UPDATE_FLOPS,
};
use super::{FermionOf, Staggered};
use crate::solver::{LinearSolver, Solution, SolverError};
use ongpu::prelude::*;

/// How many times a solve ran each pass (for its flop count and the time shares).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PassCounts {
    /// [`hop`] over the odd sites (`t = D_oe r`).
    pub hop: usize,
    /// [`apply_and_reduce`] (`w = A r` and the sums).
    pub apply_and_reduce: usize,
    /// [`update`] (the vector updates).
    pub update: usize,
    /// [`residual`](super::passes::residual) (`r = b − A x`, `|r|²`).
    pub residual: usize,
    /// `|b|²`.
    pub norm: usize,
    /// Set-up passes without flops (copies, zeroing).
    pub setup: usize,
}

impl PassCounts {
    /// Flops of these passes on `lat` (each pass runs on the `V/2` sites of one parity).
    pub fn flops(&self, lat: &Lattice) -> f64 {
        let half = (lat.volume() / 2) as f64;
        half * (self.hop as f64 * HOP_FLOPS
            + self.apply_and_reduce as f64 * APPLY_AND_REDUCE_FLOPS
            + self.update as f64 * UPDATE_FLOPS
            + self.residual as f64 * RESIDUAL_FLOPS
            + self.norm as f64 * NORM_FLOPS)
    }
}

/// Conjugate gradients for the normal operator of [`Staggered`], the host reading α and β
/// once per iteration, on any [`Space`] (a lattice, a split one, one cut over MPI ranks).
/// Its work fields are allocated at the first solve, so later solves allocate nothing.
pub struct Cg<S: Space = Lattice> {
    limits: Limits<S>,
    passes: PassCounts,
    work: Option<Work<S>>,
}

impl<S: Space> Cg<S> {
    /// A solver for `(m² − D_eo D_oe) x = b` on `lat` to `|b − A x| ≤ tol |b|` in at most
    /// `max_iter` iterations.
    pub fn new(lat: S, tol: f64, max_iter: usize) -> Cg<S> {
        Cg {
            limits: Limits { lat, tol, max_iter },
            passes: PassCounts::default(),
            work: None,
        }
    }

    /// The passes the last solve ran (for its flop count and the time shares).
    pub fn passes(&self) -> PassCounts {
        self.passes
    }
}

/// CG from the residual in `work.r` until `|r|² ≤ target` by the recursion.
fn iterate<S: Space>(
    p: &Problem<S>,
    work: &mut Work<S>,
    x: &mut FermionOf<S>,
    iterations: &mut usize,
    passes: &mut PassCounts,
) -> Result<(), SolverError> {
    let (lat, u) = (p.lat, p.u);
    let apply = |w: &mut Work<S>, passes: &mut PassCounts| -> Result<_, SolverError> {
        hop(lat.odd(), u, &w.r, &mut w.t)?;
        let sums = apply_and_reduce(lat, u, &w.t, &w.r, p.mass2, &mut w.w)?;
        passes.hop += 1;
        passes.apply_and_reduce += 1;
        Ok(sums)
    };
    let sums = apply(work, passes)?;
    let (mut gamma, mut delta) = (sums.r_norm2, sums.r_dot_ar);
    let (mut alpha_old, mut beta) = (None::<f64>, 0.0);
    while gamma > p.target {
        if *iterations >= p.max_iter {
            return Err(SolverError::NotConverged {
                iterations: *iterations,
                relative_residual: (gamma / p.b_norm2).sqrt(),
            });
        }
        let p_dot_ap = match alpha_old {
            None => delta,
            Some(a) => delta - beta * gamma / a,
        };
        if !(p_dot_ap > 0.0 && p_dot_ap.is_finite()) {
            return Err(SolverError::Breakdown {
                iterations: *iterations,
                p_dot_ap,
            });
        }
        let alpha = gamma / p_dot_ap;
        let w = &mut *work;
        update(lat, alpha, beta, &w.w, &mut w.p, &mut w.s, x, &mut w.r)?;
        passes.update += 1;
        *iterations += 1;
        let sums = apply(work, passes)?;
        beta = sums.r_norm2 / gamma;
        (gamma, delta) = (sums.r_norm2, sums.r_dot_ar);
        alpha_old = Some(alpha);
    }
    Ok(())
}

impl<S: Space> LinearSolver<Staggered<S>> for Cg<S> {
    fn solve(
        &mut self,
        op: &Staggered<S>,
        b: &FermionOf<S>,
        x: &mut FermionOf<S>,
    ) -> Result<Solution, SolverError> {
        let mut passes = PassCounts::default();
        let mut frame = FramePasses::default();
        let work = match &mut self.work {
            Some(w) => w,
            empty => empty.insert(Work::new(self.limits.lat)?),
        };
        let result = solve_with_restarts(
            &self.limits,
            op,
            b,
            x,
            work,
            &mut frame,
            |p, work, x, iterations| iterate(p, work, x, iterations, &mut passes),
        );
        passes.norm += frame.norm;
        passes.setup += frame.setup;
        passes.hop += frame.true_residual;
        passes.apply_and_reduce += frame.true_residual;
        passes.residual += frame.true_residual;
        self.passes = passes;
        result
    }

    fn name(&self) -> &'static str {
        "CG"
    }
}
