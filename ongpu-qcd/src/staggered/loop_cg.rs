//! CG as in [`GraphCg`](super::GraphCg), with the loop itself on the device: the iterations
//! are recorded once into the body of a CUDA WHILE node ([`GraphLoop`]), and a test kernel
//! after each stops the loop when `|r|²` has reached the target, or at the iteration limit.
//! One graph launch solves; the host waits once, to read the iteration count. The iterations
//! are those of the graph solver, so none is run past convergence.

use super::device_passes::Scalars;
use super::{Fermion, Staggered};
use crate::solver::cg::{solve_with_restarts, CgPasses, Limits, Work};
use crate::solver::device_cg::{iteration, start};
use crate::solver::{check_vectors, LinearSolver, Solution, SolverError, VectorAlgebra};

use ongpu::prelude::*;

/// The loop's state, which both its test (on `|r|²` in `scalars.sums`) and its body (an
/// iteration) take.
struct LoopState<'a> {
    op: &'a Staggered,
    x: &'a mut Fermion,
    work: &'a mut Work<Fermion>,
    scalars: &'a mut Scalars,
}

impl LoopState<'_> {
    fn iterate(&mut self) -> ongpu::Result<()> {
        iteration(self.op, self.work, self.scalars, self.x)
    }
}

/// The solver's fields, scalars and loop, kept between solves so that a repeated solve
/// replays the loop recorded by the first.
pub struct LoopCg {
    limits: Limits,
    work: Work<Fermion>,
    /// The solution the loop updates: the solver's own, copied to the caller's after each
    /// solve, so that a replay finds the address it recorded whichever field is passed.
    x: Fermion,
    scalars: Scalars,
    solve: GraphLoop,
}

impl LoopCg {
    /// A solver like [`Cg::new`](super::Cg::new), its loop on the device.
    pub fn new(lat: Lattice, tol: f64, max_iter: usize) -> ongpu::Result<LoopCg> {
        Ok(LoopCg {
            limits: Limits { lat, tol, max_iter },
            work: Work::new(|| lat.zeros())?,
            x: lat.zeros()?,
            scalars: Scalars::new()?,
            solve: GraphLoop::new(),
        })
    }

    /// Kernels in one iteration of the recorded loop, besides its test (0 before the first
    /// solve, or on CPU threads).
    pub fn loop_kernels(&self) -> usize {
        self.solve.kernels()
    }
}

/// Iterates on the device while `|r|² > target`, at most `max` times; returns the
/// iterations made (the one wait of a solve).
fn run_loop(
    solve: &mut GraphLoop,
    mut state: LoopState,
    target: f64,
    max: usize,
) -> ongpu::Result<usize> {
    let max = u32::try_from(max).unwrap_or(u32::MAX);
    solve.run_while(
        &mut state,
        |s| LoopTest::above(&s.scalars.sums, target),
        max,
        LoopState::iterate,
    )?;
    Ok(solve.iterations()? as usize)
}

impl LinearSolver<Staggered> for LoopCg {
    fn solve(
        &mut self,
        op: &Staggered,
        b: &Fermion,
        x: &mut Fermion,
    ) -> Result<Solution, SolverError> {
        let LoopCg {
            limits,
            work,
            x: own,
            scalars,
            solve,
        } = self;
        let mut counts = CgPasses::default();
        check_vectors(Some(limits.lat), op, b, x)?;
        let solved = solve_with_restarts(
            limits,
            op,
            b,
            own,
            work,
            &mut counts,
            |p, work, x, iterations| {
                start(p.op, work, scalars)?;
                let state = LoopState {
                    op: p.op,
                    x,
                    work,
                    scalars,
                };
                let left = p.max_iter.saturating_sub(*iterations);
                *iterations += run_loop(solve, state, p.target, left)?;
                // (A breakdown stops the updates but not the loop, whose test reads only
                // `|r|²`: it runs out its iterations, then is reported as a breakdown.)
                scalars.breakdown(*iterations)?;
                Ok(())
            },
        );
        // The last iterate is the caller's, converged or not.
        op.copy(own, x)?;
        solved
    }

    fn name(&self) -> &'static str {
        "device-loop CG"
    }
}
