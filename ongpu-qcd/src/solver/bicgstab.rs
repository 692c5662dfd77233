//! BiCGStab (van der Vorst, SIAM J. Sci. Stat. Comput. 13 (1992) 631), written once for
//! every operator and precision that gives what it needs ([`BiCgStabOperator`]): the
//! operator's application fused with the inner product that follows it, and the complex
//! linear algebra of its vectors, each one pass. The iteration stops on the recursive
//! residual; a solver recomputes the true residual `|b − A x| / |b|` at the end
//! ([`BiCgStab`]), or takes the iterations as the inner solver of a mixed-precision one.

use super::{
    check_vectors, relative_residual, start_solve, LinearOperator, LinearSolver, Solution,
    SolverError, VectorAlgebra,
};
use ongpu::prelude::*;
use std::time::Instant;

/// What BiCGStab needs of an operator besides its [`VectorAlgebra`]. Scalars are
/// computed in f64 on the host; an operator in a lower precision rounds them for its passes.
pub trait BiCgStabOperator: VectorAlgebra {
    /// `out = A x`, returning `⟨with, A x⟩` from its last pass.
    fn apply_and_dot(
        &self,
        x: &Self::Vector,
        scratch: &mut Self::Vector,
        out: &mut Self::Vector,
        with: &Self::Vector,
    ) -> ongpu::Result<Complex<f64>>;

    /// `⟨a, b⟩`.
    fn dot(&self, a: &Self::Vector, b: &Self::Vector) -> ongpu::Result<Complex<f64>>;

    /// The new direction `p = r + β (p − ω v)`.
    fn direction(
        &self,
        beta: Complex<f64>,
        omega: Complex<f64>,
        r: &Self::Vector,
        v: &Self::Vector,
        p: &mut Self::Vector,
    ) -> ongpu::Result<()>;

    /// `s = r − α v`.
    fn subtract(
        &self,
        alpha: Complex<f64>,
        r: &Self::Vector,
        v: &Self::Vector,
        s: &mut Self::Vector,
    ) -> ongpu::Result<()>;

    /// The end of an iteration in one pass: `x += α p + ω s`, `r = s − ω t`; returns `|r|²`.
    #[allow(clippy::too_many_arguments)]
    fn bicgstab_update(
        &self,
        alpha: Complex<f64>,
        omega: Complex<f64>,
        p: &Self::Vector,
        s: &Self::Vector,
        t: &Self::Vector,
        x: &mut Self::Vector,
        r: &mut Self::Vector,
    ) -> ongpu::Result<f64>;
}

/// The work vectors of BiCGStab iterations: `r̂`, `p`, `v`, `s`, `t` and the operator's
/// scratch.
pub(crate) struct Work<V> {
    r_hat: V,
    p: V,
    v: V,
    s: V,
    t: V,
    pub(crate) scratch: V,
}

impl<V> Work<V> {
    /// Six vectors of `op`.
    pub(crate) fn new<O: LinearOperator<Vector = V>>(op: &O) -> ongpu::Result<Self> {
        Ok(Work {
            r_hat: op.vector()?,
            p: op.vector()?,
            v: op.vector()?,
            s: op.vector()?,
            t: op.vector()?,
            scratch: op.vector()?,
        })
    }
}

/// Where the iterations of [`iterate`] start and stop.
pub(crate) struct Run<F> {
    /// `|r|²` of the starting residual.
    pub r2: f64,
    /// `|b|²`, for the relative residual of an error.
    pub b2: f64,
    /// True when the recursive `|r|²` is small enough.
    pub done: F,
    /// Iterations allowed.
    pub max_iterations: usize,
}

/// BiCGStab iterations from `x` with residual `r`, updating both, until `run.done(|r|²)`
/// on the recursive residual or `run.max_iterations` (an error reporting `|r|²/b2`); returns
/// the iterations made and the last `|r|²`.
pub(crate) fn iterate<O: BiCgStabOperator>(
    op: &O,
    x: &mut O::Vector,
    r: &mut O::Vector,
    w: &mut Work<O::Vector>,
    run: Run<impl Fn(f64) -> bool>,
) -> Result<(usize, f64), SolverError> {
    let Run {
        mut r2,
        b2,
        done,
        max_iterations,
    } = run;
    let Work {
        r_hat,
        p,
        v,
        s,
        t,
        scratch,
    } = w;
    op.copy(r, r_hat)?;
    op.zero(p)?;
    op.zero(v)?;
    let one = Complex::new(1.0, 0.0);
    let (mut rho, mut alpha, mut omega) = (one, one, one);
    let mut iterations = 0;
    while !done(r2) {
        if iterations == max_iterations {
            return Err(SolverError::NotConverged {
                iterations,
                relative_residual: (r2 / b2).sqrt(),
            });
        }
        let rho_new = op.dot(r_hat, r)?;
        let beta = (rho_new / rho) * (alpha / omega);
        rho = rho_new;
        op.direction(beta, omega, r, v, p)?;
        // v = A p with ⟨r̂, v⟩ from its last pass.
        let rv = op.apply_and_dot(p, scratch, v, r_hat)?;
        alpha = rho / rv;
        op.subtract(alpha, r, v, s)?;
        // t = A s with ⟨s, t⟩ from its last pass.
        let ts = op.apply_and_dot(s, scratch, t, s)?.conj();
        let tt = op.norm2(t)?;
        omega = ts / tt;
        if !(rho.norm().is_finite() && rv.norm() > 0.0 && tt > 0.0 && omega.norm() > 0.0) {
            return Err(SolverError::Breakdown {
                iterations,
                p_dot_ap: rv.norm(),
            });
        }
        r2 = op.bicgstab_update(alpha, omega, p, s, t, x, r)?;
        iterations += 1;
    }
    Ok((iterations, r2))
}

/// BiCGStab for any [`BiCgStabOperator`]: solves `A x = b` from `x = 0` to `|r| ≤
/// tolerance · |b|` on the recursive residual within `max_iterations`, and reports the true
/// residual recomputed at the end.
pub struct BiCgStab {
    tolerance: f64,
    max_iterations: usize,
}

impl BiCgStab {
    /// A solver to relative residual `tolerance` in at most `max_iterations` iterations.
    pub fn new(tolerance: f64, max_iterations: usize) -> Self {
        BiCgStab {
            tolerance,
            max_iterations,
        }
    }
}

impl<O: BiCgStabOperator> LinearSolver<O> for BiCgStab {
    fn solve(&mut self, op: &O, b: &O::Vector, x: &mut O::Vector) -> Result<Solution, SolverError> {
        check_vectors(None, op, b, x)?;
        let start = Instant::now();
        let mut r = op.vector()?;
        let mut w = Work::new(op)?;
        // x = 0, r = r̂ = b.
        let b2 = start_solve(op, b, x, &mut r)?;
        let tol2 = self.tolerance * self.tolerance * b2;
        let run = Run {
            r2: b2,
            b2,
            done: |r2| r2 <= tol2,
            max_iterations: self.max_iterations,
        };
        let (iterations, _) = iterate(op, x, &mut r, &mut w, run)?;
        let relative_residual = relative_residual(op, b, x, b2, &mut w.scratch, &mut w.t, &mut r)?;
        Ok(Solution {
            iterations,
            restarts: 0,
            reliable_updates: 0,
            relative_residual,
            seconds: start.elapsed().as_secs_f64(),
        })
    }

    fn name(&self) -> &'static str {
        "BiCGStab"
    }
}
