//! The three timings of one lattice: whole solves of each solver (host clock between
//! synchronisations, per iteration), each pass of a graph iteration alone (CUDA events
//! around batches of back-to-back calls, `examples/common`), and graph replays.

use crate::common;
use ongpu::prelude::*;
use ongpu::qcd::gauge::Links;
use ongpu::qcd::staggered::passes::hop;
use ongpu::qcd::staggered::{apply_and_reduce_into, coefficients, update_from, Scalars};
use ongpu::qcd::staggered::{Fermion, GraphCg, Staggered, KERNELS_PER_ITERATION};
use ongpu::Backend;
use std::time::Instant;

/// Median seconds of `repeat` runs of `solve` (after one to warm up), each between two
/// synchronisations, and the last run's result.
pub fn time_solves<R, E: From<ongpu::Error>>(
    repeat: usize,
    solve: impl FnMut() -> Result<R, E>,
) -> Result<(R, f64), E> {
    let (result, seconds) = common::time_runs(repeat, solve)?;
    Ok((result, common::median(seconds)))
}

/// Seconds of each kernel of a graph iteration, timed alone.
#[derive(Debug, Clone, Copy)]
pub struct KernelSeconds {
    /// α and β from the sums (one site).
    pub coefficients: f64,
    /// The vector updates.
    pub update: f64,
    /// `t = D_oe r`.
    pub hop: f64,
    /// `w = A r` and the sums, into a device scalar.
    pub apply_and_reduce: f64,
}

impl KernelSeconds {
    /// Their sum: one iteration with no time between kernels.
    pub fn total(&self) -> f64 {
        self.coefficients + self.update + self.hop + self.apply_and_reduce
    }
}

/// Times each kernel of an iteration alone, `reps` batches each, on fields like the
/// solver's (the source as `r`; α and β kept small so the updates stay bounded).
pub fn time_kernels(
    backend: Backend,
    lat: Lattice,
    mass: f64,
    u: &Links,
    b: &Fermion,
    reps: usize,
) -> ongpu::Result<KernelSeconds> {
    let v = lat.volume();
    let mut r = Fermion::from_vec(b.to_vec()?);
    let (mut t, mut w) = (Fermion::zeros(v), Fermion::zeros(v));
    let (mut p, mut s, mut x) = (Fermion::zeros(v), Fermion::zeros(v), Fermion::zeros(v));
    let mut scalars = Scalars::new()?;
    scalars.alpha.set(1e-6)?;
    scalars.beta.set(0.5)?;
    let hop_s = common::time(backend, reps, || hop(lat.odd(), u, &r, &mut t))?;
    let apply_s = common::time(backend, reps, || {
        apply_and_reduce_into(lat, u, &t, &r, mass * mass, &mut w, &mut scalars.sums)
    })?;
    let update_s = common::time(backend, reps, || {
        let (alpha, beta) = (&scalars.alpha, &scalars.beta);
        update_from(lat, alpha, beta, &w, &mut p, &mut s, &mut x, &mut r)
    })?;
    let coef_s = common::time(backend, reps, || coefficients(&mut scalars))?;
    Ok(KernelSeconds {
        coefficients: coef_s,
        update: update_s,
        hop: hop_s,
        apply_and_reduce: apply_s,
    })
}

/// Seconds per kernel node of a replay of `cg`'s graph (its replay pass and launch,
/// back to back), after a solve has recorded it. Continues the solve's iterations in the
/// solver's own solution.
pub fn time_replay_per_kernel(
    backend: Backend,
    cg: &mut GraphCg,
    op: &Staggered,
    reps: usize,
) -> ongpu::Result<f64> {
    let per_replay = common::time(backend, reps, || cg.replay(op))?;
    Ok(per_replay / (cg.block() * KERNELS_PER_ITERATION) as f64)
}

/// What a kernel node costs: one-site calls that each add 1 to a one-element field (so each
/// waits for the one before), per call when made eagerly and per node when `nodes` of them
/// are replayed as one graph (both back to back, CUDA events), and the host time of a
/// replay (its checking pass and the graph launch) per node.
#[derive(Debug, Clone, Copy)]
pub struct NodeCost {
    /// Nodes per graph.
    pub nodes: usize,
    /// Seconds per call, eager.
    pub eager: f64,
    /// Seconds per node, replayed.
    pub graph: f64,
    /// Host seconds per node of `Graph::run` when replaying, without waiting.
    pub replay_host: f64,
}

/// Measures [`NodeCost`] and checks that every call and node ran once: the field ends
/// holding the number of additions made.
pub fn time_node_cost(backend: Backend, nodes: usize, reps: usize) -> ongpu::Result<NodeCost> {
    fn add_one(x: &mut Field<f64>) -> ongpu::Result<()> {
        on_gpu!(1, {
            x += 1.0;
        })
    }
    let nodes = nodes.max(1);
    let mut x: Field<f64> = Field::zeros(1);
    let mut adds = 0usize;
    let eager = common::time(backend, reps, || {
        adds += 1;
        add_one(&mut x)
    })?;
    let mut graph = Graph::new();
    let mut replay = |x: &mut Field<f64>, adds: &mut usize| {
        *adds += nodes;
        graph.run(|| (0..nodes).try_for_each(|_| add_one(x)))
    };
    let graph_s = common::time(backend, reps, || replay(&mut x, &mut adds))? / nodes as f64;
    ongpu::synchronize()?;
    let start = Instant::now();
    for _ in 0..reps.max(1) {
        replay(&mut x, &mut adds)?;
    }
    let replay_host = start.elapsed().as_secs_f64() / (reps.max(1) * nodes) as f64;
    let total = x.to_vec()?[0];
    if total != adds as f64 {
        return Err(ongpu::Error::Graph(format!(
            "node timing: the field holds {total} after {adds} additions"
        )));
    }
    Ok(NodeCost {
        nodes,
        eager,
        graph: graph_s,
        replay_host,
    })
}
