//! An even-odd preconditioned staggered CG solver written with `on_gpu!`: it solves
//! `(m² − D_eo D_oe) x_e = b_e` on the even sites in f64, for the staggered operator
//! `D ψ(x) = ½ Σ_mu η_mu(x) [U_mu(x) ψ(x+mû) − U_mu(x−mû)† ψ(x−mû)]` on a periodic lattice
//! with SU(3) links, in three passes over memory per iteration (`solver.rs`).
//!
//! The operator and the solver are `ongpu::qcd::staggered`'s; after the solve the program
//! checks the true residual `|b − A x| / |b| ≤ tol` with the independent host
//! implementation of the operator (`ongpu_reference::staggered`, beside the tests) and fails if it is not met. It reports
//! the iterations, the time per iteration, the GFLOP/s of the solve and, measured in the
//! same run, of the Dslash alone (`D_oe` then `D_eo`), their ratio, and each pass's share.
//!
//! ```text
//! cargo run --release --example staggered_cg -- [--size L | --dims X,Y,Z,T] [--mass 0.1]
//!     [--tol 1e-10] [--max-iter 10000] [--repeat 5] [--reps 10] [--smooth] [--seed 1]
//!     [--ranks X,Y,Z,T | --devices N] [--mixed f32|f16|bf16] [--rhs N] [--device-scalars]
//! ```
//!
//! `--mixed P` solves again with mixed-precision CG (`staggered::MixedCg`: f64 solution and
//! reliable updates, inner iterations with vectors and two-row links stored in P), checks
//! it the same way and prints its time to solution next to the f64 CG's.
//!
//! `--device-scalars` solves again with the CG whose α and β stay on the devices
//! (`staggered::DeviceCg`: iterations queued in blocks, the host looking at `|r|²` between
//! them; over ranks the sums are added on the GPUs), checks it the same way and prints its
//! time to solution next to the CG's.
//!
//! `--rhs N` solves N systems at once (`staggered::MultiCg`, every operator application
//! shared) against N single solves one after another, and checks that both give the same
//! bits (`many_rhs.rs`).
//!
//! `--ranks X,Y,Z,T` (with `--features mpi`, under `mpirun -np X·Y·Z·T`) cuts the lattice
//! over the MPI ranks on that process grid; the program is otherwise the same (it is
//! written over `ongpu::Space`), its dot products are exact sums (the same bits for any
//! rank count), and rank 0 prints.
//!
//! `--devices N` splits the lattice over the first N GPUs of this process (`Devices::first`,
//! slabs along the slowest direction that allows them); solves and passes are timed with the
//! host clock between synchronisations of every GPU.
//!
//! `docs/physics.md` (section "Staggered CG") has the operator, the passes and the counts.

#[path = "../common/mod.rs"]
mod common;

mod bench;
mod many_rhs;
mod options;
mod report;

use ongpu::prelude::*;
use ongpu::qcd::gauge::GaugeField;
use ongpu::qcd::solver::{LinearSolver, Solution};
use ongpu::qcd::staggered::{self, Cg, DeviceCg, FermionOf, HostVector, MixedCg, Staggered};
use ongpu::Backend;
use ongpu_reference::staggered::HostStaggered;
use options::{GaugeKind, Options, Sloppy, SMOOTH_SPREAD};
use std::process::ExitCode;

/// The example's errors: ongpu's, the solver's, the command line's, a failed check.
pub type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

fn run() -> BenchResult<()> {
    let opts = Options::parse()?;
    let lat = Lattice::new(opts.dims)?;
    if let Some(n) = opts.rhs {
        if opts.ranks.is_some() || opts.devices.is_some() {
            return Err("--rhs runs on one lattice: without --ranks and --devices".into());
        }
        return many_rhs::run(lat, n, &opts);
    }
    match (opts.ranks, opts.devices) {
        // The World first: it picks each rank's GPU before the first GPU call.
        (Some(grid), _) => over_ranks(lat, grid, &opts),
        (None, Some(n)) => {
            let backend = ongpu::backend()?;
            common::warn_if_checked(backend);
            let split = lat.split_over(&Devices::first(n)?)?;
            solve_on(split, &opts, backend, &|batch| batch, n > 1)
        }
        (None, None) => {
            let backend = ongpu::backend()?;
            common::warn_if_checked(backend);
            solve_on(lat, &opts, backend, &|batch| batch, false)
        }
    }
}

/// The run on `lat` cut over the MPI ranks on process grid `grid`.
#[cfg(feature = "mpi")]
fn over_ranks(lat: Lattice, grid: [usize; 4], opts: &Options) -> BenchResult<()> {
    let world = ongpu::mpi::World::init()?;
    world.abort_on_panic();
    let backend = ongpu::backend()?;
    let lat = lat.over_ranks(&world, grid)?;
    // A collective on the GPU: every rank asks.
    let transport = world.halo_transport()?;
    if world.rank() == 0 {
        common::warn_if_checked(backend);
        println!("halos between the ranks: {transport}");
    }
    // Every rank times the same number of calls per batch (each call exchanges halos).
    let agree =
        |batch: usize| world.gather(&[batch as u64]).into_iter().max().unwrap_or(1) as usize;
    solve_on(lat, opts, backend, &agree, false)
}

#[cfg(not(feature = "mpi"))]
fn over_ranks(_: Lattice, _: [usize; 4], _: &Options) -> BenchResult<()> {
    Err(
        "--ranks needs the mpi feature: cargo run --release --features mpi --example \
         staggered_cg -- --ranks X,Y,Z,T (under mpirun)"
            .into(),
    )
}

/// Solves on the space `lat`, checks the true residual with the host operator, times the
/// passes (batches of `agree(n)` calls; with the host clock when the calls `span` several
/// GPUs), and prints the report on the root process.
fn solve_on<S: Space>(
    lat: S,
    opts: &Options,
    backend: Backend,
    agree: &dyn Fn(usize) -> usize,
    span: bool,
) -> BenchResult<()> {
    let whole = lat.whole();
    let gauge = match opts.gauge {
        GaugeKind::Random => GaugeField::random(lat, opts.seed)?,
        GaugeKind::Smooth => GaugeField::smooth(lat, SMOOTH_SPREAD, opts.seed)?,
    };
    let b_host = staggered::even_part(&whole, &staggered::random_vector(&whole, opts.seed + 1));
    let op = Staggered::new(&gauge, opts.mass)?;
    let b: FermionOf<S> = lat.field_from_vec(b_host.clone())?;
    let mut x: FermionOf<S> = lat.zeros()?;
    let mut solver = Cg::new(lat, opts.tol, opts.max_iter);
    let (solution, solve_seconds) = bench::time_solves(&mut solver, &op, &b, &mut x, opts.repeat)?;
    let host_op = HostStaggered::new(whole, gauge.to_host()?, opts.mass);
    let host_residual = check_on_host(&host_op, &b_host, &x, opts.tol, &solution)?;
    let timing = common::Timing {
        backend,
        agree,
        span,
    };
    let passes = bench::time_passes(&timing, lat, opts.mass, op.links(), &b, opts.reps)?;
    if lat.is_root() {
        report::print(&report::Measured {
            opts,
            lat: whole,
            space: lat.to_string(),
            device: common::device_name(backend),
            solution,
            passes_run: solver.passes().into(),
            solve_seconds: solve_seconds.clone(),
            host_residual,
            passes,
        });
    }
    if opts.device_scalars {
        let mut device = DeviceCg::new(lat, opts.tol, opts.max_iter);
        let (d, seconds) = bench::time_solves(&mut device, &op, &b, &mut x, opts.repeat)?;
        let host = check_on_host(&host_op, &b_host, &x, opts.tol, &d)?;
        if lat.is_root() {
            report::print_device_scalars(
                &d,
                device.looks(),
                host,
                &seconds,
                &solution,
                &solve_seconds,
            );
        }
    }
    if let Some(sloppy) = opts.mixed {
        let mut mixed: Box<dyn LinearSolver<Staggered<S>>> = match sloppy {
            Sloppy::F32 => Box::new(MixedCg::<S, f32>::new(lat, opts.tol, opts.max_iter)),
            Sloppy::F16 => Box::new(MixedCg::<S, f16>::new(lat, opts.tol, opts.max_iter)),
            Sloppy::Bf16 => Box::new(MixedCg::<S, bf16>::new(lat, opts.tol, opts.max_iter)),
        };
        let (m, seconds) = bench::time_solves(mixed.as_mut(), &op, &b, &mut x, opts.repeat)?;
        let host = check_on_host(&host_op, &b_host, &x, opts.tol, &m)?;
        if lat.is_root() {
            report::print_mixed(sloppy, &m, host, &seconds, &solution, &solve_seconds);
        }
    }
    Ok(())
}

/// The true `|b − A x| / |b|` of the host operator, or an error if it is above `tol`.
fn check_on_host<F: SpaceField<ColorVector<f64>, ongpu::qcd::SiteLayout>>(
    host_op: &HostStaggered,
    b_host: &HostVector,
    x: &F,
    tol: f64,
    solution: &Solution,
) -> BenchResult<f64> {
    let host_residual = host_op.relative_residual(b_host, &x.values()?);
    if host_residual.is_nan() || host_residual > tol {
        return Err(format!(
            "the true residual |b − A x|/|b| = {host_residual:.3e} of the host operator is \
             above the tolerance {tol:e} (the solver reported {:.3e})",
            solution.relative_residual
        )
        .into());
    }
    Ok(host_residual)
}

fn main() -> ExitCode {
    common::exit_code(run())
}
