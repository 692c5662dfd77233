//! The measurements: whole solves timed with the host clock between synchronisations, and
//! each pass (and the Dslash alone) timed on its own in batches of back-to-back calls
//! (CUDA events on the GPU, the host clock on the CPU; see `examples/common`).

use crate::common;
use ongpu::prelude::*;
use ongpu::qcd::gauge::Links;
use ongpu::qcd::solver::{LinearSolver, Solution, SolverError};
use ongpu::qcd::staggered::passes::{apply_and_reduce, dslash_eo_oe, hop, update};
use ongpu::qcd::staggered::{Cg, Fermion, Staggered};
use ongpu::Backend;

/// Seconds per call of each pass, and of `D_oe` then `D_eo` alone.
#[derive(Debug, Clone, Copy)]
pub struct PassSeconds {
    /// [`hop`] over the odd sites.
    pub hop: f64,
    /// [`apply_and_reduce`], its result on the host.
    pub apply_and_reduce: f64,
    /// [`update`].
    pub update: f64,
    /// [`dslash_eo_oe`]: the two hops of `D_eo D_oe` without linear algebra.
    pub dslash: f64,
}

/// Solves once to warm up (kernels compile on first use), then `repeat` times, each between
/// two synchronisations; returns the last solution and the seconds of each timed solve.
pub fn time_solves(
    solver: &mut Cg,
    op: &Staggered,
    b: &Fermion,
    x: &mut Fermion,
    repeat: usize,
) -> Result<(Solution, Vec<f64>), SolverError> {
    common::time_runs(repeat, || solver.solve(op, b, x))
}

/// Times each pass on its own on fields like the solver's (the source as `r`; α and β keep
/// the updated fields bounded), `reps` batches each.
pub fn time_passes(
    backend: Backend,
    lat: Lattice,
    mass: f64,
    u: &Links,
    b: &Fermion,
    reps: usize,
) -> ongpu::Result<PassSeconds> {
    let v = lat.volume();
    let r0 = b.to_vec()?;
    let mut r = Fermion::from_vec(r0);
    let (mut t, mut w) = (Fermion::zeros(v), Fermion::zeros(v));
    let (mut p, mut s, mut x) = (Fermion::zeros(v), Fermion::zeros(v), Fermion::zeros(v));
    let hop_s = common::time(backend, reps, || hop(lat.odd(), u, &r, &mut t))?;
    let apply_s = common::time(backend, reps, || {
        apply_and_reduce(lat, u, &t, &r, mass * mass, &mut w).map(|_| ())
    })?;
    let update_s = common::time(backend, reps, || {
        update(lat, 1e-6, 0.5, &w, &mut p, &mut s, &mut x, &mut r)
    })?;
    let dslash_s = common::time(backend, reps, || dslash_eo_oe(lat, u, b, &mut t, &mut w))?;
    Ok(PassSeconds {
        hop: hop_s,
        apply_and_reduce: apply_s,
        update: update_s,
        dslash: dslash_s,
    })
}
