//! What every CG variant shares: its work fields, the set-up of a solve, and the outer loop
//! that checks the true residual `b − A x` when the recursion says it has converged and, if
//! rounding has let the recursion drift below it, starts again from that residual (at most
//! [`MAX_RESTARTS`] times). The variants differ only in how they iterate from `r`.

use super::passes::{apply_and_reduce, copy_even, hop, norm2_even, residual, zero_even};
use super::FermionOf;
use super::Staggered;
use crate::gauge::LinksOf;
use crate::solver::{check_vectors, Solution, SolverError};
use ongpu::prelude::*;
use std::time::Instant;

/// How often CG may start again from the true residual before it gives up.
pub const MAX_RESTARTS: usize = 5;

/// The work fields of a solve, allocated once per solver so that repeated solves allocate
/// nothing: the residual `r`, the direction `p`, `s = A p`, `w = A r` and `t = D_oe r`.
pub(crate) struct Work<S: Space = Lattice> {
    pub r: FermionOf<S>,
    pub p: FermionOf<S>,
    pub s: FermionOf<S>,
    pub w: FermionOf<S>,
    pub t: FermionOf<S>,
}

impl<S: Space> Work<S> {
    pub fn new(lat: S) -> ongpu::Result<Work<S>> {
        Ok(Work {
            r: lat.zeros()?,
            p: lat.zeros()?,
            s: lat.zeros()?,
            w: lat.zeros()?,
            t: lat.zeros()?,
        })
    }
}

/// The problem of one solve, as the variants' iterations see it.
pub(crate) struct Problem<'a, S: Space = Lattice> {
    pub lat: S,
    pub u: &'a LinksOf<S>,
    pub mass2: f64,
    /// `tol² |b|²`: the recursion stops when `|r|²` is at or below it.
    pub target: f64,
    pub b_norm2: f64,
    pub max_iter: usize,
}

/// Which passes the frame itself ran (the eager solver counts them for its flops).
#[derive(Default)]
pub(crate) struct FramePasses {
    pub norm: usize,
    pub setup: usize,
    pub true_residual: usize,
}

/// What a solver asks of a solve: its lattice, tolerance and iteration limit.
pub(crate) struct Limits<S: Space = Lattice> {
    pub lat: S,
    pub tol: f64,
    pub max_iter: usize,
}

/// Solves `op x = b` from `x = 0` to `|b − A x|² ≤ tol² |b|²` (the operator and vectors
/// checked first, the solve timed): `iterate` runs the recursion from the residual in
/// `work.r` (adding to the iteration count) until `|r|²` meets the target by the recursion.
pub(crate) fn solve_with_restarts<S: Space>(
    limits: &Limits<S>,
    op: &Staggered<S>,
    b: &FermionOf<S>,
    x: &mut FermionOf<S>,
    work: &mut Work<S>,
    counts: &mut FramePasses,
    iterate: impl FnMut(
        &Problem<S>,
        &mut Work<S>,
        &mut FermionOf<S>,
        &mut usize,
    ) -> Result<(), SolverError>,
) -> Result<Solution, SolverError> {
    check_vectors::<S, _>(limits.lat, op.lattice(), b, x)?;
    let start = Instant::now();
    let mass2 = op.mass() * op.mass();
    let (iterations, restarts, relative_residual) =
        outer_loop(limits, op.links(), mass2, b, x, work, counts, iterate)?;
    Ok(Solution {
        iterations,
        restarts,
        reliable_updates: 0,
        relative_residual,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// The set-up and the restarts of [`solve_with_restarts`]; returns the iterations, restarts
/// and true relative residual.
#[allow(clippy::too_many_arguments)]
fn outer_loop<S: Space>(
    limits: &Limits<S>,
    u: &LinksOf<S>,
    mass2: f64,
    b: &FermionOf<S>,
    x: &mut FermionOf<S>,
    work: &mut Work<S>,
    counts: &mut FramePasses,
    mut iterate: impl FnMut(
        &Problem<S>,
        &mut Work<S>,
        &mut FermionOf<S>,
        &mut usize,
    ) -> Result<(), SolverError>,
) -> Result<(usize, usize, f64), SolverError> {
    let Limits { lat, tol, max_iter } = *limits;
    let b_norm2 = norm2_even(lat, b)?;
    zero_even(lat, x)?;
    counts.norm += 1;
    counts.setup += 1;
    if b_norm2 == 0.0 {
        return Ok((0, 0, 0.0));
    }
    let problem = Problem {
        lat,
        u,
        mass2,
        target: tol * tol * b_norm2,
        b_norm2,
        max_iter,
    };
    copy_even(lat, b, &mut work.r)?;
    zero_even(lat, &mut work.p)?;
    zero_even(lat, &mut work.s)?;
    counts.setup += 3;
    let (mut iterations, mut restarts) = (0, 0);
    loop {
        iterate(&problem, work, x, &mut iterations)?;
        // The true residual, into r: t = D_oe x, w = A x, r = b − w.
        hop(lat.odd(), u, x, &mut work.t)?;
        apply_and_reduce(lat, u, &work.t, x, mass2, &mut work.w)?;
        let r_norm2 = residual(lat, b, &work.w, &mut work.r)?;
        counts.true_residual += 1;
        let relative_residual = (r_norm2 / b_norm2).sqrt();
        if r_norm2 <= problem.target {
            return Ok((iterations, restarts, relative_residual));
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
