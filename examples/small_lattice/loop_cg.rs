//! CG as in `graph_cg.rs`, with the loop itself on the device: the iterations are recorded
//! once into the body of a CUDA WHILE node (`GraphLoop`), and a test kernel after each
//! stops the loop when `|r|²` has reached the target, or at the iteration limit. One graph
//! launch solves; the host waits once, to read the iteration count. The iterations are
//! those of the graph solver's iteration (`graph_cg::iteration`), so none is run past
//! convergence.

use crate::device_passes::{apply_and_reduce_into, Scalars};
use crate::graph_cg::{iteration, GraphSolution};
use crate::operator::{apply_and_reduce, copy_even, hop, norm2_even, residual, zero_even};
use crate::operator::{Fermion, Links};
use crate::solver::{CgError, MAX_RESTARTS};
use ongpu::prelude::*;

/// The fields an iteration works on: the loop's state, which both its test (on `|r|²` in
/// `scalars.sums`) and its body (an iteration) take.
struct Work<'a> {
    lat: Lattice,
    mass2: f64,
    u: &'a Links,
    x: &'a mut Fermion,
    r: &'a mut Fermion,
    p: &'a mut Fermion,
    s: &'a mut Fermion,
    w: &'a mut Fermion,
    t: &'a mut Fermion,
    scalars: &'a mut Scalars,
}

impl Work<'_> {
    /// One iteration of `graph_cg`.
    fn iterate(&mut self) -> ongpu::Result<()> {
        let (lat, mass2, u) = (self.lat, self.mass2, self.u);
        iteration(
            lat,
            mass2,
            u,
            self.x,
            self.r,
            self.p,
            self.s,
            self.w,
            self.t,
            self.scalars,
        )
    }
}

/// The solver's fields, scalars and loop, kept between solves so that a repeated solve
/// replays the loop recorded by the first.
pub struct LoopCg {
    lat: Lattice,
    mass2: f64,
    tol: f64,
    max_iter: u32,
    r: Fermion,
    p: Fermion,
    s: Fermion,
    w: Fermion,
    t: Fermion,
    scalars: Scalars,
    solve: GraphLoop,
}

impl LoopCg {
    /// A solver like `Solver::new`, its loop on the device.
    pub fn new(lat: Lattice, mass: f64, tol: f64, max_iter: usize) -> ongpu::Result<LoopCg> {
        let v = lat.volume();
        Ok(LoopCg {
            lat,
            mass2: mass * mass,
            tol,
            max_iter: u32::try_from(max_iter).unwrap_or(u32::MAX),
            r: Fermion::zeros(v),
            p: Fermion::zeros(v),
            s: Fermion::zeros(v),
            w: Fermion::zeros(v),
            t: Fermion::zeros(v),
            scalars: Scalars::new()?,
            solve: GraphLoop::new(),
        })
    }

    /// Kernels in one iteration of the recorded loop, besides its test (0 before the first
    /// solve, or on CPU threads).
    pub fn loop_kernels(&self) -> usize {
        self.solve.kernels()
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
        let (mut iterations, mut restarts) = (0u32, 0);
        loop {
            self.scalars.restart()?;
            hop(lat.odd(), u, &self.r, &mut self.t)?;
            let (mass2, s) = (self.mass2, &mut *self);
            apply_and_reduce_into(lat, u, &s.t, &s.r, mass2, &mut s.w, &mut s.scalars.sums)?;
            iterations += self.run_loop(u, x, target, self.max_iter.saturating_sub(iterations))?;
            // The true residual, into r, with the eager passes (one wait).
            hop(lat.odd(), u, x, &mut self.t)?;
            apply_and_reduce(lat, u, &self.t, x, self.mass2, &mut self.w)?;
            let r_norm2 = residual(lat, b, &self.w, &mut self.r)?;
            let relative_residual = (r_norm2 / b_norm2).sqrt();
            if r_norm2 <= target {
                return Ok(GraphSolution {
                    iterations: iterations as usize,
                    relative_residual,
                });
            }
            if restarts == MAX_RESTARTS || iterations >= self.max_iter {
                return Err(CgError::NotConverged {
                    iterations: iterations as usize,
                    relative_residual,
                });
            }
            restarts += 1;
        }
    }

    /// Iterates on the device while `|r|² > target`, at most `max` times; returns the
    /// iterations made (the one wait of a solve).
    pub fn run_loop(
        &mut self,
        u: &Links,
        x: &mut Fermion,
        target: f64,
        max: u32,
    ) -> ongpu::Result<u32> {
        let LoopCg {
            lat,
            mass2,
            r,
            p,
            s,
            w,
            t,
            scalars,
            solve,
            ..
        } = self;
        let mut work = Work {
            lat: *lat,
            mass2: *mass2,
            u,
            x,
            r,
            p,
            s,
            w,
            t,
            scalars,
        };
        solve.run_while(
            &mut work,
            |work| LoopTest::above(&work.scalars.sums, target),
            max,
            Work::iterate,
        )?;
        solve.iterations()
    }
}
