//! CGNR: conjugate gradients on the normal equations `A† A x = A† b`, written once for every
//! operator that can apply its adjoint ([`CgnrOperator`]). Slower than BiCGStab (it squares
//! the condition number) but it never breaks down, which makes it the reference the faster
//! solvers are checked against. It tracks the residual of the original system,
//! `s = b − A x`, and stops on `|s| ≤ tolerance · |b|`; the true residual is recomputed at
//! the end.

use super::{
    check_vectors, relative_residual, start_solve, LinearSolver, Solution, SolverError,
    VectorAlgebra,
};
use std::time::Instant;

/// What CGNR needs of an operator besides its [`VectorAlgebra`]: its adjoint, and the
/// iteration's two vector passes.
pub trait CgnrOperator: VectorAlgebra {
    /// `out = A† x` (`scratch` and `scratch2` overwritten).
    fn apply_dagger(
        &self,
        x: &Self::Vector,
        scratch: &mut Self::Vector,
        scratch2: &mut Self::Vector,
        out: &mut Self::Vector,
    ) -> ongpu::Result<()>;

    /// `x += α p`, `s −= α q` in one pass.
    fn cgnr_step(
        &self,
        alpha: f64,
        p: &Self::Vector,
        q: &Self::Vector,
        x: &mut Self::Vector,
        s: &mut Self::Vector,
    ) -> ongpu::Result<()>;

    /// The new direction `p = r + β p`.
    fn cgnr_direction(
        &self,
        beta: f64,
        r: &Self::Vector,
        p: &mut Self::Vector,
    ) -> ongpu::Result<()>;
}

/// CGNR for any [`CgnrOperator`]: solves `A x = b` to `|b − A x| ≤ tolerance · |b|` within
/// `max_iterations`.
pub struct Cgnr {
    tolerance: f64,
    max_iterations: usize,
}

impl Cgnr {
    /// A solver to relative residual `tolerance` in at most `max_iterations` iterations.
    pub fn new(tolerance: f64, max_iterations: usize) -> Self {
        Cgnr {
            tolerance,
            max_iterations,
        }
    }
}

impl<O: CgnrOperator> LinearSolver<O> for Cgnr {
    fn solve(&mut self, op: &O, b: &O::Vector, x: &mut O::Vector) -> Result<Solution, SolverError> {
        check_vectors(None, op, b, x)?;
        let start = Instant::now();
        let (tolerance, max_iterations) = (self.tolerance, self.max_iterations);
        let vector = || -> ongpu::Result<O::Vector> { op.vector() };
        let (mut s, mut r, mut p, mut q, mut g5, mut tmp) = (
            vector()?,
            vector()?,
            vector()?,
            vector()?,
            vector()?,
            vector()?,
        );
        // x = 0, s = b, r = p = A† b.
        let b2 = start_solve(op, b, x, &mut s)?;
        op.apply_dagger(b, &mut g5, &mut tmp, &mut r)?;
        op.copy(&r, &mut p)?;
        let mut s2 = b2;
        let mut r2 = op.norm2(&r)?;
        let mut iterations = 0;
        while s2 > tolerance * tolerance * b2 {
            if iterations == max_iterations {
                return Err(SolverError::NotConverged {
                    iterations,
                    relative_residual: (s2 / b2).sqrt(),
                });
            }
            op.apply(&p, &mut tmp, &mut q)?;
            let q2 = op.norm2(&q)?;
            if !(q2 > 0.0 && q2.is_finite()) {
                return Err(SolverError::Breakdown {
                    iterations,
                    p_dot_ap: q2,
                });
            }
            let alpha = r2 / q2;
            op.cgnr_step(alpha, &p, &q, x, &mut s)?;
            s2 = op.norm2(&s)?;
            // r = A† s (the normal residual), p = r + β p.
            op.apply_dagger(&s, &mut g5, &mut tmp, &mut r)?;
            let r2_new = op.norm2(&r)?;
            let beta = r2_new / r2;
            r2 = r2_new;
            op.cgnr_direction(beta, &r, &mut p)?;
            iterations += 1;
        }
        let relative_residual = relative_residual(op, b, x, b2, &mut tmp, &mut q, &mut s)?;
        Ok(Solution {
            iterations,
            restarts: 0,
            reliable_updates: 0,
            relative_residual,
            seconds: start.elapsed().as_secs_f64(),
        })
    }

    fn name(&self) -> &'static str {
        "CGNR"
    }
}
