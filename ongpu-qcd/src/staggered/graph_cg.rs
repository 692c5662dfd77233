//! CG as in [`Cg`](super::Cg), with α and β computed on the device and `block` iterations
//! recorded once as a graph and replayed: the host waits once per block, to read `|r|²` and
//! decide whether to go on. A block may run past convergence by up to `block − 1`
//! iterations, which only lowers the residual further.

use super::device_passes::Scalars;
use super::{Fermion, Staggered};
use crate::solver::cg::{solve_with_restarts, CgPasses, Limits, Work};
use crate::solver::device_cg::{iteration, start};
use crate::solver::{check_vectors, LinearSolver, Solution, SolverError, VectorAlgebra};

use ongpu::prelude::*;

/// Kernels of one iteration of [`GraphCg`] and [`LoopCg`](super::LoopCg).
pub const KERNELS_PER_ITERATION: usize = 4;

/// The solver's fields, scalars and graph, kept between solves so that a repeated solve
/// replays the graph recorded by the first.
pub struct GraphCg {
    limits: Limits,
    block: usize,
    work: Work<Fermion>,
    /// The solution the graph updates: the solver's own, copied to the caller's after each
    /// solve, so that a replay finds the address it recorded whichever field is passed.
    x: Fermion,
    scalars: Scalars,
    graph: Graph,
}

impl GraphCg {
    /// A solver like [`Cg::new`](super::Cg::new), replaying `block` iterations at a time.
    pub fn new(lat: Lattice, tol: f64, max_iter: usize, block: usize) -> ongpu::Result<GraphCg> {
        Ok(GraphCg {
            limits: Limits { lat, tol, max_iter },
            block: block.max(1),
            work: Work::new(|| lat.zeros())?,
            x: lat.zeros()?,
            scalars: Scalars::new()?,
            graph: Graph::new(),
        })
    }

    /// Iterations per replay.
    pub fn block(&self) -> usize {
        self.block
    }

    /// Kernels in the recorded graph (0 before the first solve, or on CPU threads).
    pub fn graph_kernels(&self) -> usize {
        self.graph.kernels()
    }

    /// Runs `block` iterations of `op` from the current state (the last solve's, in the
    /// solver's own solution) as one graph launch (recorded on the first call): what a solve
    /// replays, exposed to time a replay alone.
    pub fn replay(&mut self, op: &Staggered) -> ongpu::Result<()> {
        replay(
            &mut self.graph,
            self.block,
            op,
            &mut self.x,
            &mut self.work,
            &mut self.scalars,
        )
    }
}

/// `block` iterations ([`iteration`], [`KERNELS_PER_ITERATION`] kernels each) as one graph
/// launch.
fn replay(
    graph: &mut Graph,
    block: usize,
    op: &Staggered,
    x: &mut Fermion,
    work: &mut Work<Fermion>,
    scalars: &mut Scalars,
) -> ongpu::Result<()> {
    graph.run(|| {
        for _ in 0..block {
            iteration(op, work, scalars, x)?;
        }
        Ok(())
    })
}

impl LinearSolver<Staggered> for GraphCg {
    fn solve(
        &mut self,
        op: &Staggered,
        b: &Fermion,
        x: &mut Fermion,
    ) -> Result<Solution, SolverError> {
        let GraphCg {
            limits,
            block,
            work,
            x: own,
            scalars,
            graph,
        } = self;
        let block = *block;
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
                loop {
                    let gamma = scalars.sums.get()?.re;
                    if gamma <= p.target {
                        return Ok(());
                    }
                    // A breakdown on the way to the target. (A block runs on past the
                    // target, where `⟨p, A p⟩` may come out zero, at r = 0: that stops
                    // the updates, and the solve has converged.)
                    scalars.breakdown(*iterations)?;
                    if *iterations >= p.max_iter {
                        return Err(SolverError::NotConverged {
                            iterations: *iterations,
                            relative_residual: (gamma / p.b_norm2).sqrt(),
                        });
                    }
                    replay(graph, block, p.op, x, work, scalars)?;
                    *iterations += block;
                }
            },
        );
        // The last iterate is the caller's, converged or not.
        op.copy(own, x)?;
        solved
    }

    fn name(&self) -> &'static str {
        "graph CG"
    }
}
