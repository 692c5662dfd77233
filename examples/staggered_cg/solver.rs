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
//! starts again from that residual (at most [`MAX_RESTARTS`] times).

use crate::operator::{
    apply_and_reduce, copy_even, hop, norm2_even, residual, update, zero_even, Fermion, Links,
    APPLY_AND_REDUCE_FLOPS, HOP_FLOPS, NORM_FLOPS, RESIDUAL_FLOPS, UPDATE_FLOPS,
};
use ongpu::prelude::*;

/// How often CG may start again from the true residual before it gives up.
pub const MAX_RESTARTS: usize = 5;

/// Why a solve returned no solution.
#[derive(Debug)]
pub enum CgError {
    /// A call failed.
    Ongpu(ongpu::Error),
    /// The residual did not reach the tolerance within the allowed iterations (or restarts).
    NotConverged {
        /// Iterations done.
        iterations: usize,
        /// `|r| / |b|` when it stopped.
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

impl std::fmt::Display for CgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CgError::Ongpu(e) => write!(f, "{e}"),
            CgError::NotConverged {
                iterations,
                relative_residual,
            } => write!(
                f,
                "CG did not converge: |r|/|b| = {relative_residual:.3e} after {iterations} \
                 iterations (raise --max-iter or the tolerance)"
            ),
            CgError::Breakdown {
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

impl std::error::Error for CgError {}

impl From<ongpu::Error> for CgError {
    fn from(e: ongpu::Error) -> Self {
        CgError::Ongpu(e)
    }
}

/// How many times a solve ran each pass (for its flop count and the time shares).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PassCounts {
    /// [`hop`] over the odd sites (`t = D_oe r`).
    pub hop: usize,
    /// [`apply_and_reduce`] (`w = A r` and the sums).
    pub apply_and_reduce: usize,
    /// [`update`] (the vector updates).
    pub update: usize,
    /// [`residual`] (`r = b − A x`, `|r|²`).
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

/// What a successful solve reports.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Solution {
    /// CG iterations (vector updates), over all restarts.
    pub iterations: usize,
    /// How often CG started again from the true residual.
    pub restarts: usize,
    /// The true `|b − A x| / |b|`, computed with the solver's own passes.
    pub relative_residual: f64,
    /// The passes it ran.
    pub passes: PassCounts,
}

/// The solver: the operator's parameters and its work fields, allocated once so that
/// repeated solves allocate nothing.
pub struct Solver {
    lat: Lattice,
    mass2: f64,
    tol: f64,
    max_iter: usize,
    r: Fermion,
    p: Fermion,
    s: Fermion,
    w: Fermion,
    t: Fermion,
}

impl Solver {
    /// A solver for `(m² − D_eo D_oe) x = b` on `lat` to `|b − A x| ≤ tol |b|` in at most
    /// `max_iter` iterations.
    pub fn new(lat: Lattice, mass: f64, tol: f64, max_iter: usize) -> Solver {
        let v = lat.volume();
        Solver {
            lat,
            mass2: mass * mass,
            tol,
            max_iter,
            r: Fermion::zeros(v),
            p: Fermion::zeros(v),
            s: Fermion::zeros(v),
            w: Fermion::zeros(v),
            t: Fermion::zeros(v),
        }
    }

    /// Solves for `x` (its even sites; the odd ones are left as they are) from the source
    /// `b` (its even sites), starting from `x = 0`, with the links `u` of
    /// [`device_links`](crate::gauge::device_links).
    pub fn solve(&mut self, u: &Links, b: &Fermion, x: &mut Fermion) -> Result<Solution, CgError> {
        let lat = self.lat;
        let mut passes = PassCounts::default();
        let b_norm2 = norm2_even(lat, b)?;
        zero_even(lat, x)?;
        passes.norm += 1;
        passes.setup += 1;
        if b_norm2 == 0.0 {
            return Ok(Solution {
                iterations: 0,
                restarts: 0,
                relative_residual: 0.0,
                passes,
            });
        }
        let target = self.tol * self.tol * b_norm2;
        copy_even(lat, b, &mut self.r)?;
        zero_even(lat, &mut self.p)?;
        zero_even(lat, &mut self.s)?;
        passes.setup += 3;
        let (mut iterations, mut restarts) = (0, 0);
        loop {
            self.iterate(u, x, target, b_norm2, &mut iterations, &mut passes)?;
            // The true residual, into r: t = D_oe x, w = A x, r = b − w.
            hop(lat.odd(), u, x, &mut self.t)?;
            apply_and_reduce(lat, u, &self.t, x, self.mass2, &mut self.w)?;
            let r_norm2 = residual(lat, b, &self.w, &mut self.r)?;
            passes.hop += 1;
            passes.apply_and_reduce += 1;
            passes.residual += 1;
            let relative_residual = (r_norm2 / b_norm2).sqrt();
            if r_norm2 <= target {
                return Ok(Solution {
                    iterations,
                    restarts,
                    relative_residual,
                    passes,
                });
            }
            if restarts == MAX_RESTARTS || iterations >= self.max_iter {
                return Err(CgError::NotConverged {
                    iterations,
                    relative_residual,
                });
            }
            restarts += 1;
        }
    }

    /// CG from the residual in `r` until `|r|² ≤ target` by the recursion.
    fn iterate(
        &mut self,
        u: &Links,
        x: &mut Fermion,
        target: f64,
        b_norm2: f64,
        iterations: &mut usize,
        passes: &mut PassCounts,
    ) -> Result<(), CgError> {
        let lat = self.lat;
        let apply = |s: &mut Solver, passes: &mut PassCounts| -> Result<_, CgError> {
            hop(lat.odd(), u, &s.r, &mut s.t)?;
            let sums = apply_and_reduce(lat, u, &s.t, &s.r, s.mass2, &mut s.w)?;
            passes.hop += 1;
            passes.apply_and_reduce += 1;
            Ok(sums)
        };
        let sums = apply(self, passes)?;
        let (mut gamma, mut delta) = (sums.r_norm2, sums.r_dot_ar);
        let (mut alpha_old, mut beta) = (None::<f64>, 0.0);
        while gamma > target {
            if *iterations >= self.max_iter {
                return Err(CgError::NotConverged {
                    iterations: *iterations,
                    relative_residual: (gamma / b_norm2).sqrt(),
                });
            }
            let p_dot_ap = match alpha_old {
                None => delta,
                Some(a) => delta - beta * gamma / a,
            };
            if !(p_dot_ap > 0.0 && p_dot_ap.is_finite()) {
                return Err(CgError::Breakdown {
                    iterations: *iterations,
                    p_dot_ap,
                });
            }
            let alpha = gamma / p_dot_ap;
            let s = &mut *self;
            update(lat, alpha, beta, &s.w, &mut s.p, &mut s.s, x, &mut s.r)?;
            passes.update += 1;
            *iterations += 1;
            let sums = apply(self, passes)?;
            beta = sums.r_norm2 / gamma;
            (gamma, delta) = (sums.r_norm2, sums.r_dot_ar);
            alpha_old = Some(alpha);
        }
        Ok(())
    }
}
