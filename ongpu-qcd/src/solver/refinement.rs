//! The outer loop of the mixed-precision solvers, written once: reliable updates with a
//! restart per update (Clark, Babich, Barros, Brower, Rebbi, Comput. Phys. Commun. 181
//! (2010) 1517). The solution `x` and the true residual `r = b − A x` stay in f64; each round
//! hands `r / |r|` (unit length, so that its entries stay far from the low precision's range
//! limits however small `|r|` has become) to low-precision iterations for a correction `e`
//! with `A e = r / |r|`, which stop when their residual has fallen by `δ` (or below what the
//! tolerance asks, with a margin for their drift); then `x += |r| e` and `r = b − A x` in
//! f64 start the next round. Three rounds in a row that do not halve the true residual end
//! the solve as stagnated.

use super::{residual2, start_solve, Solution, SolverError, VectorAlgebra};
use std::time::Instant;

/// Rounds in a row that do not halve the true residual before a solve is declared
/// stagnated.
const STALLED_UPDATES: usize = 3;

/// The low-precision half of a mixed-precision solver: its copy of the operator, its
/// vectors and its iterations.
pub(crate) trait LowPrecision<V> {
    /// From `e = 0`, the iterations on `A e = scale · r` (rounded to the low precision)
    /// until their relative residual is at most `stop` or `allowed` iterations are spent;
    /// the iterations made, or the inner solver's error (`NotConverged` when the
    /// iterations are spent, `Breakdown` when the scaled residual reached the low
    /// precision's resolution).
    fn iterate(
        &mut self,
        r: &V,
        scale: f64,
        stop: f64,
        allowed: usize,
    ) -> Result<usize, SolverError>;

    /// `x += scale · e` in f64.
    fn add_correction(&self, scale: f64, x: &mut V) -> ongpu::Result<()>;
}

/// What a mixed-precision solve asks: `|b − A x| ≤ tolerance · |b|` within
/// `max_iterations` low-precision iterations in all, a reliable update whenever they have
/// reduced their residual by `delta`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Refinement {
    pub tolerance: f64,
    pub max_iterations: usize,
    pub delta: f64,
}

impl Refinement {
    /// An error unless `δ` lies in `(0, 1)` (checked before a solve builds anything).
    pub fn check(&self) -> Result<(), SolverError> {
        if self.delta > 0.0 && self.delta < 1.0 {
            Ok(())
        } else {
            Err(SolverError::Ongpu(ongpu::Error::InvalidArgument(format!(
                "δ = {} for the reliable updates: it must lie in (0, 1)",
                self.delta
            ))))
        }
    }
}

/// Solves `op x = b` from `x = 0` by rounds of `low`'s iterations (module documentation).
pub(crate) fn refine<O: VectorAlgebra>(
    op: &O,
    b: &O::Vector,
    x: &mut O::Vector,
    asked: &Refinement,
    low: &mut impl LowPrecision<O::Vector>,
) -> Result<Solution, SolverError> {
    let start = Instant::now();
    let (mut r, mut tmp, mut ax) = (op.vector()?, op.vector()?, op.vector()?);
    // x = 0, r = b.
    let b2 = start_solve(op, b, x, &mut r)?;
    let target2 = asked.tolerance * asked.tolerance * b2;
    let (mut r2, mut iterations, mut updates, mut stalled) = (b2, 0, 0, 0);
    while r2 > target2 {
        let norm = r2.sqrt();
        // Stop at δ, or where the f64 residual would meet the tolerance (with a margin for
        // the drift of the low-precision recursion).
        let stop = asked.delta.max(0.5 * (target2 / r2).sqrt());
        let allowed = asked.max_iterations - iterations;
        let made = match low.iterate(&r, 1.0 / norm, stop, allowed) {
            Ok(made) => made,
            // The iterations allowed are spent: x takes what they reached.
            Err(SolverError::NotConverged { iterations: i, .. }) => {
                iterations += i;
                low.add_correction(norm, x)?;
                let r2 = residual2(op, b, x, &mut tmp, &mut ax, &mut r)?;
                return Err(SolverError::NotConverged {
                    iterations,
                    relative_residual: (r2 / b2).sqrt(),
                });
            }
            // A low-precision breakdown (the scaled residual reached its resolution): the
            // update below takes what the iterations reached, and the stagnation check
            // decides.
            Err(SolverError::Breakdown { iterations: i, .. }) => i,
            Err(e) => return Err(e),
        };
        iterations += made;
        // The reliable update: x += |r| e and r = b − A x, in f64.
        low.add_correction(norm, x)?;
        let r2_new = residual2(op, b, x, &mut tmp, &mut ax, &mut r)?;
        updates += 1;
        stalled = if r2_new > 0.25 * r2 { stalled + 1 } else { 0 };
        r2 = r2_new;
        if r2 > target2 && (stalled == STALLED_UPDATES || !r2.is_finite()) {
            return Err(SolverError::Stagnated {
                iterations,
                relative_residual: (r2 / b2).sqrt(),
            });
        }
    }
    Ok(Solution {
        iterations,
        restarts: 0,
        reliable_updates: updates,
        relative_residual: if b2 == 0.0 { 0.0 } else { (r2 / b2).sqrt() },
        seconds: start.elapsed().as_secs_f64(),
    })
}
