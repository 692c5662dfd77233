//! The measurements: whole solves timed with the host clock between synchronisations, and
//! each pass (and the Dslash alone) timed on its own in batches of back-to-back calls
//! (CUDA events on the GPU, the host clock on the CPU; see `examples/common`).

use crate::common;
use ongpu::prelude::*;
use ongpu::qcd::gauge::LinksOf;
use ongpu::qcd::solver::{LinearSolver, Solution, SolverError};
use ongpu::qcd::staggered::passes::{apply_and_reduce, dslash_eo_oe, hop, update};
use ongpu::qcd::staggered::{FermionOf, Staggered};

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
/// two synchronisations of the space's devices; returns the last solution and the seconds
/// of each timed solve.
pub fn time_solves<S: Space>(
    solver: &mut dyn LinearSolver<Staggered<S>>,
    op: &Staggered<S>,
    b: &FermionOf<S>,
    x: &mut FermionOf<S>,
    repeat: usize,
) -> Result<(Solution, Vec<f64>), SolverError> {
    let lat = op.lattice();
    common::time_runs_synced(repeat, &|| lat.synchronize(), || solver.solve(op, b, x))
}

/// Times each pass on its own on fields like the solver's (the source as `r`; α and β keep
/// the updated fields bounded), `reps` batches each of `agree(n)` calls (every rank of a
/// lattice cut over ranks makes the same calls). A pass that shifts a field the timed
/// calls do not write (the hop of `r`) exchanges no halos here, as halos move only after a
/// write: the solve's time holds the exchanges.
pub fn time_passes<S: Space>(
    timing: &common::Timing,
    lat: S,
    mass: f64,
    u: &LinksOf<S>,
    b: &FermionOf<S>,
    reps: usize,
) -> ongpu::Result<PassSeconds> {
    let mut r: FermionOf<S> = lat.field_from_vec(b.values()?)?;
    let (mut t, mut w): (FermionOf<S>, FermionOf<S>) = (lat.zeros()?, lat.zeros()?);
    let (mut p, mut s, mut x): (FermionOf<S>, FermionOf<S>, FermionOf<S>) =
        (lat.zeros()?, lat.zeros()?, lat.zeros()?);
    let time = |f: &mut dyn FnMut() -> ongpu::Result<()>| timing.time(lat, reps, f);
    let hop_s = time(&mut || hop(lat.odd(), u, &r, &mut t))?;
    let apply_s = time(&mut || apply_and_reduce(lat, u, &t, &r, mass * mass, &mut w).map(|_| ()))?;
    let update_s = time(&mut || update(lat, 1e-6, 0.5, &w, &mut p, &mut s, &mut x, &mut r))?;
    let dslash_s = time(&mut || dslash_eo_oe(lat, u, b, &mut t, &mut w))?;
    Ok(PassSeconds {
        hop: hop_s,
        apply_and_reduce: apply_s,
        update: update_s,
        dslash: dslash_s,
    })
}
