//! The interface of linear solvers: an operator says what vectors it acts on and applies
//! itself to them, a solver solves `A x = b` for it and reports a [`Solution`], or says why
//! it could not in a [`SolverError`]. Every solver of this crate is called the same way, so
//! programs can choose one at run time ([`staggered::cg_solver`](crate::staggered::cg_solver)).
//!
//! Each solver is one algorithm written once over the operators that give what it needs
//! ([`Cg`] over a [`CgOperator`], [`BiCgStab`] over a [`BiCgStabOperator`], [`Cgnr`] over a [`CgnrOperator`]), so a new operator gets the solvers by implementing
//! those traits: the operator's own fused passes and the linear algebra of its vectors, as
//! Grid's `LinearOperatorBase` (`Op`, `HermOpAndNorm`) and QUDA's `DiracMatrix` do.

pub(crate) mod bicgstab;
pub(crate) mod cg;
mod cgnr;
pub(crate) mod device_cg;
pub(crate) mod refinement;

pub use bicgstab::{BiCgStab, BiCgStabOperator};
pub use cg::{Cg, CgOperator, CgPasses, MAX_RESTARTS};
pub use cgnr::{Cgnr, CgnrOperator};
pub use device_cg::{DeviceCg, DeviceCgOperator};

use ongpu::prelude::*;

/// An operator a solver can invert.
pub trait LinearOperator {
    /// Where its vectors live.
    type Space: Space;
    /// The vectors it acts on.
    type Vector;

    /// Where its vectors live (a lattice, a split one, one cut over ranks).
    fn space(&self) -> Self::Space;

    /// A vector of zeros (a solver's work vector).
    fn vector(&self) -> ongpu::Result<Self::Vector>;

    /// `out = A x` on the sites the operator acts on (for an even-odd operator, the even
    /// ones); `scratch` is overwritten (the operator's intermediate, such as `D_oe x`).
    fn apply(
        &self,
        x: &Self::Vector,
        scratch: &mut Self::Vector,
        out: &mut Self::Vector,
    ) -> ongpu::Result<()>;
}

/// The linear algebra every solver needs of an operator's vectors, on the sites it acts on
/// (for an even-odd operator, the even ones), each one pass. The solvers' own fused passes
/// extend it ([`CgOperator`], [`BiCgStabOperator`]).
pub trait VectorAlgebra: LinearOperator {
    /// `|v|²`.
    fn norm2(&self, v: &Self::Vector) -> ongpu::Result<f64>;

    /// `dst = src`.
    fn copy(&self, src: &Self::Vector, dst: &mut Self::Vector) -> ongpu::Result<()>;

    /// `v = 0`.
    fn zero(&self, v: &mut Self::Vector) -> ongpu::Result<()>;

    /// `r = b − ax`, returning `|r|²` (with `ax = A x`: the true residual).
    fn residual(
        &self,
        b: &Self::Vector,
        ax: &Self::Vector,
        r: &mut Self::Vector,
    ) -> ongpu::Result<f64>;

    /// An [`ongpu::Error`] unless `v` is a vector of this operator (`what` names it).
    fn check_vector(&self, v: &Self::Vector, what: &str) -> ongpu::Result<()>;
}

/// A solver of `A x = b` for the operators `Op`.
pub trait LinearSolver<Op: LinearOperator> {
    /// Solves `op x = b` from `x = 0`, to the solver's tolerance on the true residual.
    fn solve(
        &mut self,
        op: &Op,
        b: &Op::Vector,
        x: &mut Op::Vector,
    ) -> Result<Solution, SolverError>;

    /// A short name for reports ("CG", "graph CG", …).
    fn name(&self) -> &'static str;
}

/// What a successful solve reports.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Solution {
    /// Iterations (applications of the operator in the recursion), over all restarts.
    pub iterations: usize,
    /// How often the solver started again from the true residual.
    pub restarts: usize,
    /// How often a mixed-precision solver recomputed the true residual in high precision
    /// and replaced the iterated one with it (0 for the others).
    pub reliable_updates: usize,
    /// The true `|b − A x| / |b|`, recomputed from `x` at the end of the solve.
    pub relative_residual: f64,
    /// Wall-clock seconds of the solve (the host waits for the device at its end).
    pub seconds: f64,
}

/// Why a solve returned no solution.
#[derive(Debug)]
pub enum SolverError {
    /// A call failed.
    Ongpu(ongpu::Error),
    /// The residual did not reach the tolerance within the allowed iterations (or restarts).
    NotConverged {
        /// Iterations done.
        iterations: usize,
        /// `|r| / |b|` when it stopped.
        relative_residual: f64,
    },
    /// A mixed-precision solver's true residual stopped falling: the low precision of its
    /// inner iterations cannot resolve the system (too ill-conditioned for it).
    Stagnated {
        /// Iterations done.
        iterations: usize,
        /// The true `|b − A x| / |b|` of its last reliable update.
        relative_residual: f64,
    },
    /// `⟨p, A p⟩` came out non-positive or not finite: A is not positive definite, or the
    /// inputs hold NaN.
    Breakdown {
        /// Iterations done.
        iterations: usize,
        /// The offending `⟨p, A p⟩`.
        p_dot_ap: f64,
    },
}

impl std::fmt::Display for SolverError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SolverError::Ongpu(e) => write!(f, "{e}"),
            SolverError::NotConverged {
                iterations,
                relative_residual,
            } => write!(
                f,
                "the solver did not converge: |r|/|b| = {relative_residual:.3e} after \
                 {iterations} iterations (allow more iterations or a larger tolerance)"
            ),
            SolverError::Stagnated {
                iterations,
                relative_residual,
            } => write!(
                f,
                "the mixed-precision solver stagnated at |b − A x|/|b| = {relative_residual:.3e} \
                 after {iterations} iterations: its inner precision is too low for this \
                 system (use a wider one, such as f32)"
            ),
            SolverError::Breakdown {
                iterations,
                p_dot_ap,
            } => write!(
                f,
                "CG broke down at iteration {iterations}: <p, A p> = {p_dot_ap:e} (the operator \
                 is not positive definite, or the input holds NaN)"
            ),
        }
    }
}

impl std::error::Error for SolverError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SolverError::Ongpu(e) => Some(e),
            _ => None,
        }
    }
}

impl From<ongpu::Error> for SolverError {
    fn from(e: ongpu::Error) -> Self {
        SolverError::Ongpu(e)
    }
}

/// An [`ongpu::Error`] unless the operator `op` is on `lat`, the space the solver was made
/// for, and the source `b` and solution `x` are vectors of it.
pub(crate) fn check_vectors<O: VectorAlgebra>(
    lat: Option<O::Space>,
    op: &O,
    b: &O::Vector,
    x: &O::Vector,
) -> ongpu::Result<()> {
    if let Some(lat) = lat {
        let op_lat = op.space();
        if op_lat != lat {
            return Err(ongpu::Error::InvalidArgument(format!(
                "the solver was made for the {lat}, the operator is on the {op_lat}"
            )));
        }
    }
    op.check_vector(b, "source")?;
    op.check_vector(x, "solution")
}

/// The start of a solve of `A x = b`: `x = 0` and `r = b`; returns `|b|²`.
pub(crate) fn start_solve<O: VectorAlgebra>(
    op: &O,
    b: &O::Vector,
    x: &mut O::Vector,
    r: &mut O::Vector,
) -> ongpu::Result<f64> {
    op.zero(x)?;
    op.copy(b, r)?;
    op.norm2(b)
}

/// `r = b − A x`, returning `|r|²` (`scratch` and `ax` overwritten).
pub(crate) fn residual2<O: VectorAlgebra>(
    op: &O,
    b: &O::Vector,
    x: &O::Vector,
    scratch: &mut O::Vector,
    ax: &mut O::Vector,
    r: &mut O::Vector,
) -> ongpu::Result<f64> {
    op.apply(x, scratch, ax)?;
    op.residual(b, ax, r)
}

/// The true `|b − A x| / |b|` recomputed from `x` (`b2 = |b|²`; 0 for `b = 0`), through
/// `scratch`, `ax` and `r` as [`residual2`].
pub(crate) fn relative_residual<O: VectorAlgebra>(
    op: &O,
    b: &O::Vector,
    x: &O::Vector,
    b2: f64,
    scratch: &mut O::Vector,
    ax: &mut O::Vector,
    r: &mut O::Vector,
) -> ongpu::Result<f64> {
    if b2 == 0.0 {
        return Ok(0.0);
    }
    Ok((residual2(op, b, x, scratch, ax, r)? / b2).sqrt())
}
