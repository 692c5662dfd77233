//! Conjugate gradients, written once for every Hermitian positive-definite operator, in the
//! Chronopoulos–Gear arrangement: each iteration applies `A` to the residual once and needs
//! the two inner products `|r|²` and `⟨r, A r⟩` of that same pass, so an iteration is the
//! operator's passes (the last of which also sums) and one update pass, with ONE wait for
//! the host:
//!
//! 1. [`CgOperator::apply_and_norm`]: `w = A r`, returning `γ = |r|²` and `δ = ⟨r, w⟩`;
//! 2. [`CgOperator::cg_update`]: `p = r + β p`, `s = w + β s`, `x += α p`, `r −= α s` with
//!    `β = γ/γ_old`, `α = γ / (δ − β γ / α_old)`.
//!
//! When `|r|` of the recursion meets the tolerance, the solver computes the true residual
//! `b − A x`; if rounding has let the recursion drift below it, CG starts again from that
//! residual (at most [`MAX_RESTARTS`] times). That outer loop ([`solve_with_restarts`]) is
//! shared by the ways of running the iterations: [`Cg`] here (α and β on the host), and the
//! staggered graph and device-loop solvers (α and β in device scalars), which differ only in
//! how they run the same recursion.

use super::{check_vectors, LinearSolver, Solution, SolverError, VectorAlgebra};
use ongpu::prelude::*;
use std::time::Instant;

/// How often CG may start again from the true residual before it gives up.
pub const MAX_RESTARTS: usize = 5;

/// What conjugate gradients needs of a Hermitian positive-definite operator besides
/// its [`VectorAlgebra`]: its application fused with the two sums of an iteration, and the
/// iteration's vector updates in one pass.
pub trait CgOperator: VectorAlgebra {
    /// `out = A x` as [`apply`](super::LinearOperator::apply), returning `|x|²` and `Re⟨x, A x⟩`
    /// from its last pass (Grid's `HermOpAndNorm`).
    fn apply_and_norm(
        &self,
        x: &Self::Vector,
        scratch: &mut Self::Vector,
        out: &mut Self::Vector,
    ) -> ongpu::Result<(f64, f64)>;

    /// The vector updates of one iteration in one pass: `p = r + β p`, `s = w + β s`
    /// (so `s = A p`), `x += α p`, `r −= α s`.
    #[allow(clippy::too_many_arguments)]
    fn cg_update(
        &self,
        alpha: f64,
        beta: f64,
        w: &Self::Vector,
        p: &mut Self::Vector,
        s: &mut Self::Vector,
        x: &mut Self::Vector,
        r: &mut Self::Vector,
    ) -> ongpu::Result<()>;
}

/// How many passes of each kind a CG solve ran (for its flop count and time shares).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CgPasses {
    /// Applications of the operator with their sums ([`CgOperator::apply_and_norm`]).
    pub applications: usize,
    /// Vector updates ([`CgOperator::cg_update`]).
    pub updates: usize,
    /// True residuals `b − A x` (each after an application).
    pub residuals: usize,
    /// `|b|²`.
    pub norms: usize,
    /// Set-up passes without flops (copies, zeroing).
    pub setup: usize,
}

/// The work vectors of a solve, allocated once per solver so that repeated solves allocate
/// nothing: the residual `r`, the direction `p`, `s = A p`, `w = A r` and the operator's
/// scratch `t`.
pub(crate) struct Work<V> {
    pub r: V,
    pub p: V,
    pub s: V,
    pub w: V,
    pub t: V,
}

impl<V> Work<V> {
    /// Five vectors from `vector`.
    pub fn new(mut vector: impl FnMut() -> ongpu::Result<V>) -> ongpu::Result<Work<V>> {
        Ok(Work {
            r: vector()?,
            p: vector()?,
            s: vector()?,
            w: vector()?,
            t: vector()?,
        })
    }
}

/// The problem of one solve, as the iterations see it.
pub(crate) struct Problem<'a, O> {
    pub op: &'a O,
    /// `tol² |b|²`: the recursion stops when `|r|²` is at or below it.
    pub target: f64,
    pub b_norm2: f64,
    pub max_iter: usize,
}

/// What a solver asks of a solve: its space, tolerance and iteration limit.
pub(crate) struct Limits<S: Space = Lattice> {
    pub lat: S,
    pub tol: f64,
    pub max_iter: usize,
}

/// Solves `op x = b` from `x = 0` to `|b − A x|² ≤ tol² |b|²` (the operator and vectors
/// checked first, the solve timed): `iterate` runs the recursion from the residual in
/// `work.r` (adding to the iteration count) until `|r|²` meets the target by the recursion;
/// after it, the true residual decides whether to start again. The passes this frame runs
/// are added to `counts`.
pub(crate) fn solve_with_restarts<O: CgOperator>(
    limits: &Limits<O::Space>,
    op: &O,
    b: &O::Vector,
    x: &mut O::Vector,
    work: &mut Work<O::Vector>,
    counts: &mut CgPasses,
    mut iterate: impl FnMut(
        &Problem<O>,
        &mut Work<O::Vector>,
        &mut O::Vector,
        &mut usize,
    ) -> Result<(), SolverError>,
) -> Result<Solution, SolverError> {
    let Limits { lat, tol, max_iter } = *limits;
    check_vectors(Some(lat), op, b, x)?;
    let start = Instant::now();
    let b_norm2 = op.norm2(b)?;
    op.zero(x)?;
    counts.norms += 1;
    counts.setup += 1;
    let done = |iterations, restarts, relative_residual| Solution {
        iterations,
        restarts,
        reliable_updates: 0,
        relative_residual,
        seconds: start.elapsed().as_secs_f64(),
    };
    if b_norm2 == 0.0 {
        return Ok(done(0, 0, 0.0));
    }
    let problem = Problem {
        op,
        target: tol * tol * b_norm2,
        b_norm2,
        max_iter,
    };
    op.copy(b, &mut work.r)?;
    op.zero(&mut work.p)?;
    op.zero(&mut work.s)?;
    counts.setup += 3;
    let (mut iterations, mut restarts) = (0, 0);
    loop {
        iterate(&problem, work, x, &mut iterations)?;
        // The true residual, into r: w = A x, r = b − w.
        op.apply_and_norm(x, &mut work.t, &mut work.w)?;
        let r_norm2 = op.residual(b, &work.w, &mut work.r)?;
        counts.applications += 1;
        counts.residuals += 1;
        let relative_residual = (r_norm2 / b_norm2).sqrt();
        if r_norm2 <= problem.target {
            return Ok(done(iterations, restarts, relative_residual));
        }
        if restarts == MAX_RESTARTS || iterations >= max_iter {
            return Err(SolverError::NotConverged {
                iterations,
                relative_residual,
            });
        }
        restarts += 1;
    }
}

/// Conjugate gradients for any [`CgOperator`] on any [`Space`] (a lattice, a split one, one
/// cut over MPI ranks), the host reading α and β once per iteration. Its work vectors are
/// allocated at the first solve, so later solves allocate nothing.
pub struct Cg<S: Space, V> {
    limits: Limits<S>,
    passes: CgPasses,
    work: Option<Work<V>>,
}

impl<S: Space, V> Cg<S, V> {
    /// A solver for `A x = b` on `lat` to `|b − A x| ≤ tol |b|` in at most `max_iter`
    /// iterations.
    pub fn new(lat: S, tol: f64, max_iter: usize) -> Self {
        Cg {
            limits: Limits { lat, tol, max_iter },
            passes: CgPasses::default(),
            work: None,
        }
    }

    /// The passes the last solve ran (for its flop count and the time shares).
    pub fn passes(&self) -> CgPasses {
        self.passes
    }
}

/// CG from the residual in `work.r` until `|r|² ≤ target` by the recursion.
fn iterate<O: CgOperator>(
    p: &Problem<O>,
    work: &mut Work<O::Vector>,
    x: &mut O::Vector,
    iterations: &mut usize,
    passes: &mut CgPasses,
) -> Result<(), SolverError> {
    let op = p.op;
    let apply = |w: &mut Work<O::Vector>, passes: &mut CgPasses| {
        passes.applications += 1;
        op.apply_and_norm(&w.r, &mut w.t, &mut w.w)
    };
    let (mut gamma, mut delta) = apply(work, passes)?;
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
        op.cg_update(alpha, beta, &w.w, &mut w.p, &mut w.s, x, &mut w.r)?;
        passes.updates += 1;
        *iterations += 1;
        let (r_norm2, r_dot_ar) = apply(work, passes)?;
        beta = r_norm2 / gamma;
        (gamma, delta) = (r_norm2, r_dot_ar);
        alpha_old = Some(alpha);
    }
    Ok(())
}

impl<O: CgOperator> LinearSolver<O> for Cg<O::Space, O::Vector> {
    fn solve(&mut self, op: &O, b: &O::Vector, x: &mut O::Vector) -> Result<Solution, SolverError> {
        let mut passes = CgPasses::default();
        let work = match &mut self.work {
            Some(w) => w,
            empty => empty.insert(Work::new(|| op.vector())?),
        };
        let mut in_iterations = CgPasses::default();
        let result =
            solve_with_restarts(&self.limits, op, b, x, work, &mut passes, |p, w, x, n| {
                iterate(p, w, x, n, &mut in_iterations)
            });
        passes.applications += in_iterations.applications;
        passes.updates += in_iterations.updates;
        self.passes = passes;
        result
    }

    fn name(&self) -> &'static str {
        "CG"
    }
}
