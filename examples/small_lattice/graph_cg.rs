//! CG as in `solver.rs`, with α and β computed on the device and `block` iterations
//! recorded once as a graph and replayed: the host waits once per block, to read `|r|²`
//! and decide whether to go on. A block may run past convergence by up to `block − 1`
//! iterations, which only lowers the residual further.

use crate::device_passes::{apply_and_reduce_into, coefficients, update_from, Scalars};
use crate::operator::{apply_and_reduce, copy_even, hop, norm2_even, residual, zero_even};
use crate::operator::{Fermion, Links};
use crate::solver::{CgError, MAX_RESTARTS};
use ongpu::prelude::*;

/// What a solve reports.
#[derive(Debug, Clone, Copy)]
pub struct GraphSolution {
    /// CG iterations, over all restarts (a multiple of the block per start).
    pub iterations: usize,
    /// The true `|b − A x| / |b|`, from the operator's passes.
    pub relative_residual: f64,
}

/// The solver's fields, scalars and graph, kept between solves so that a repeated solve
/// replays the graph recorded by the first.
pub struct GraphCg {
    lat: Lattice,
    mass2: f64,
    tol: f64,
    max_iter: usize,
    /// Iterations per graph.
    pub block: usize,
    r: Fermion,
    p: Fermion,
    s: Fermion,
    w: Fermion,
    t: Fermion,
    scalars: Scalars,
    graph: Graph,
}

impl GraphCg {
    /// A solver like `Solver::new`, replaying `block` iterations at a time.
    pub fn new(
        lat: Lattice,
        mass: f64,
        tol: f64,
        max_iter: usize,
        block: usize,
    ) -> ongpu::Result<GraphCg> {
        let v = lat.volume();
        Ok(GraphCg {
            lat,
            mass2: mass * mass,
            tol,
            max_iter,
            block: block.max(1),
            r: Fermion::zeros(v),
            p: Fermion::zeros(v),
            s: Fermion::zeros(v),
            w: Fermion::zeros(v),
            t: Fermion::zeros(v),
            scalars: Scalars::new()?,
            graph: Graph::new(),
        })
    }

    /// Kernels in the recorded graph (0 before the first solve, or on CPU threads).
    pub fn graph_kernels(&self) -> usize {
        self.graph.kernels()
    }

    /// Solves `A x = b` on the even sites from `x = 0`, as `Solver::solve` does.
    pub fn solve(
        &mut self,
        u: &Links,
        b: &Fermion,
        x: &mut Fermion,
    ) -> Result<GraphSolution, CgError> {
        let lat = self.lat;
        let b_norm2 = norm2_even(lat, b)?;
        zero_even(lat, x)?;
        if b_norm2 == 0.0 {
            return Ok(GraphSolution {
                iterations: 0,
                relative_residual: 0.0,
            });
        }
        let target = self.tol * self.tol * b_norm2;
        copy_even(lat, b, &mut self.r)?;
        zero_even(lat, &mut self.p)?;
        zero_even(lat, &mut self.s)?;
        let (mut iterations, mut restarts) = (0, 0);
        loop {
            self.scalars.restart()?;
            hop(lat.odd(), u, &self.r, &mut self.t)?;
            let (mass2, s) = (self.mass2, &mut *self);
            apply_and_reduce_into(lat, u, &s.t, &s.r, mass2, &mut s.w, &mut s.scalars.sums)?;
            while self.scalars.sums.get()?.re > target {
                if iterations >= self.max_iter {
                    return Err(CgError::NotConverged {
                        iterations,
                        relative_residual: (self.scalars.sums.get()?.re / b_norm2).sqrt(),
                    });
                }
                self.replay(u, x)?;
                iterations += self.block;
            }
            // The true residual, into r, with the eager passes (one wait).
            hop(lat.odd(), u, x, &mut self.t)?;
            apply_and_reduce(lat, u, &self.t, x, self.mass2, &mut self.w)?;
            let r_norm2 = residual(lat, b, &self.w, &mut self.r)?;
            let relative_residual = (r_norm2 / b_norm2).sqrt();
            if r_norm2 <= target {
                return Ok(GraphSolution {
                    iterations,
                    relative_residual,
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

    /// Runs `block` iterations as one graph launch (recorded on the first call).
    pub fn replay(&mut self, u: &Links, x: &mut Fermion) -> ongpu::Result<()> {
        let GraphCg {
            lat,
            mass2,
            block,
            r,
            p,
            s,
            w,
            t,
            scalars,
            graph,
            ..
        } = self;
        let (lat, mass2) = (*lat, *mass2);
        graph.run(|| {
            for _ in 0..*block {
                iteration(lat, mass2, u, x, r, p, s, w, t, scalars)?;
            }
            Ok(())
        })
    }
}

/// One iteration, four kernels: α and β from the sums, the updates, `t = D_oe r`, and
/// `w = A r` with the next sums.
#[allow(clippy::too_many_arguments)]
pub fn iteration(
    lat: Lattice,
    mass2: f64,
    u: &Links,
    x: &mut Fermion,
    r: &mut Fermion,
    p: &mut Fermion,
    s: &mut Fermion,
    w: &mut Fermion,
    t: &mut Fermion,
    scalars: &mut Scalars,
) -> ongpu::Result<()> {
    coefficients(scalars)?;
    update_from(lat, &scalars.alpha, &scalars.beta, w, p, s, x, r)?;
    hop(lat.odd(), u, r, t)?;
    apply_and_reduce_into(lat, u, t, r, mass2, w, &mut scalars.sums)
}

/// Kernels of one [`iteration`].
pub const KERNELS_PER_ITERATION: usize = 4;
