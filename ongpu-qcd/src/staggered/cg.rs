//! The staggered CG: the generic [`solver::Cg`](crate::solver::Cg) on [`Staggered`](super::Staggered)'s
//! normal operator `A = m² − D_eo D_oe` on the even sites, whose iteration is three passes
//! and one host wait:
//!
//! 1. [`hop`] over `lat.odd()`: `t = D_oe r`;
//! 2. [`apply_and_reduce`] over `lat.even()`: `w = m² r − D_eo t = A r`, returning
//!    `γ = |r|²` and `δ = ⟨r, w⟩` (the one reduction);
//! 3. [`update`] over `lat.even()`: `p = r + β p`, `s = w + β s`, `x += α p`, `r −= α s`.
//!
//! Each pass is needed: pass 2 shifts `t`, which pass 1 writes (a call cannot shift a field
//! it writes); pass 3 needs α and β, which come from pass 2's sums over all sites; and the
//! next pass 1 shifts `r`, which pass 3 writes. Passes 3 and 1 are queued without waiting.
//!
//! [`hop`]: super::passes::hop
//! [`apply_and_reduce`]: super::passes::apply_and_reduce
//! [`update`]: super::passes::update

use super::passes::{APPLY_AND_REDUCE_FLOPS, HOP_FLOPS, NORM_FLOPS, RESIDUAL_FLOPS, UPDATE_FLOPS};
use super::FermionOf;
use crate::solver::CgPasses;
use ongpu::prelude::*;

/// Conjugate gradients for the normal operator of [`Staggered`](super::Staggered) on any [`Space`]: the
/// generic [`solver::Cg`](crate::solver::Cg) over staggered fermions.
pub type Cg<S = Lattice> = crate::solver::Cg<S, FermionOf<S>>;

/// CG with α and β on the device ([`solver::DeviceCg`](crate::solver::DeviceCg)) for the
/// normal operator of [`Staggered`](super::Staggered) on any [`Space`]: the passes of
/// [`Cg`], queued a block of iterations at a time without host waits.
pub type DeviceCg<S = Lattice> = crate::solver::DeviceCg<S, FermionOf<S>>;

/// How many times a staggered solve ran each pass (for its flop count and the time shares):
/// [`CgPasses`] in the staggered operator's passes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PassCounts {
    /// [`hop`](super::passes::hop) over the odd sites (`t = D_oe r`).
    pub hop: usize,
    /// [`apply_and_reduce`](super::passes::apply_and_reduce) (`w = A r` and the sums).
    pub apply_and_reduce: usize,
    /// [`update`](super::passes::update) (the vector updates).
    pub update: usize,
    /// [`residual`](super::passes::residual) (`r = b − A x`, `|r|²`).
    pub residual: usize,
    /// `|b|²`.
    pub norm: usize,
    /// Set-up passes without flops (copies, zeroing).
    pub setup: usize,
}

/// Each application of [`Staggered`](super::Staggered)'s normal operator is a hop and an `apply_and_reduce`.
impl From<CgPasses> for PassCounts {
    fn from(p: CgPasses) -> Self {
        PassCounts {
            hop: p.applications,
            apply_and_reduce: p.applications,
            update: p.updates,
            residual: p.residuals,
            norm: p.norms,
            setup: p.setup,
        }
    }
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
