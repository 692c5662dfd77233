//! Hybrid Monte Carlo for SU(3) with the Wilson action (`ongpu::qcd::hmc`), quenched or with
//! four flavours of dynamical staggered quarks (`--mass`): Gaussian momenta and
//! pseudofermions, leapfrog or Omelyan molecular dynamics, a Metropolis step on ΔH. It
//! prints the acceptance, Creutz's `⟨exp(−ΔH)⟩` (1 for an exact algorithm), the mean
//! plaquette with its jackknife error and autocorrelation time, the speed in trajectories
//! per second with the shares of the force and the link updates (and with quarks the CG
//! iterations and the solves' share), and writes the plaquette history as CSV and SVG.
//! Quenched at β = 6.0 it prints the published heatbath plaquette beside its own.
//!
//! ```text
//! cargo run --release --example hmc -- [--size 8 | --dims X,Y,Z,T] [--beta 6.0]
//!     [--traj 200] [--therm 100] [--length 1.0] [--steps 10] [--integrator omelyan|leapfrog]
//!     [--start hot|cold] [--seed 1] [--csv FILE] [--svg FILE] [--save FILE]
//!     [--mass M [--action-tol 1e-10] [--force-tol 1e-7] [--force-solver cg|mixed|loop|device]
//!     [--gauge-substeps 1] [--boundary antiperiodic|periodic]] [--ranks X,Y,Z,T | --devices N]
//! ```
//!
//! `--ranks X,Y,Z,T` (with `--features mpi`, under `mpirun -np X·Y·Z·T`) cuts the lattice
//! over the MPI ranks on that process grid, `--devices N` splits it over the first N GPUs
//! of the process; the trajectories are the same program (`ongpu::qcd::hmc` is written over
//! `ongpu::Space`), rank 0 prints. The device-loop force solver needs one lattice on one
//! device.

#[path = "../common/mod.rs"]
mod common;

use ongpu::prelude::*;
use ongpu::qcd::boundary::TimeBoundary;
use ongpu::qcd::gauge::force::{accumulate_force, exp_times};
use ongpu::qcd::gauge::{GaugeField, LinksOf};
use ongpu::qcd::hmc::{Action, Hmc, Integrator, MdParams, StaggeredQuarks, StaggeredSolver};
use ongpu::qcd::staggered::{Cg, DeviceCg, LoopCg, MixedCg};
use ongpu::qcd::stats;
use std::time::Instant;

type AnyResult<T> = Result<T, Box<dyn std::error::Error>>;

/// The heatbath plaquette at β = 6.0 on large lattices: 0.593678(24) (Boyd et al.,
/// Nucl. Phys. B 469 (1996) 419, hep-lat/9602007; docs/physics.md).
const PUBLISHED_PLAQUETTE_BETA_6: (f64, f64) = (0.593678, 0.000024);

struct Options {
    dims: [usize; 4],
    beta: f64,
    traj: usize,
    therm: usize,
    md: MdParams,
    hot: bool,
    seed: u64,
    csv: Option<String>,
    svg: Option<String>,
    save: Option<String>,
    quarks: Option<QuarkOptions>,
    /// The MPI process grid (`--ranks`), if any.
    ranks: Option<[usize; 4]>,
    /// The GPUs of this process to split the lattice over (`--devices`), if any.
    devices: Option<usize>,
}

/// The dynamical quarks' mass and solvers.
struct QuarkOptions {
    mass: f64,
    /// The quarks' time boundary (`--boundary`, antiperiodic unless told).
    boundary: TimeBoundary,
    action_tol: f64,
    force_tol: f64,
    solver: ForceSolver,
    gauge_substeps: usize,
}

/// The solver of the quarks' force.
#[derive(Clone, Copy, PartialEq)]
enum ForceSolver {
    /// `Cg` in f64.
    Cg,
    /// `MixedCg` with f32 inner iterations.
    Mixed,
    /// `LoopCg`: the iterations in a device-side loop, no host wait per iteration.
    Loop,
    /// `DeviceCg` (for the action's solves too): α and β on the devices, iterations queued
    /// in blocks; over ranks the sums are added on the GPUs.
    Device,
}

impl Options {
    fn parse() -> AnyResult<Options> {
        let dims = common::dims_arg(8)?;
        let integrator = match common::value("--integrator").as_deref() {
            None | Some("omelyan") => Integrator::omelyan(),
            Some("leapfrog") => Integrator::Leapfrog,
            Some(other) => {
                return Err(format!("--integrator {other}: want omelyan or leapfrog").into())
            }
        };
        let hot = match common::value("--start").as_deref() {
            None | Some("hot") => true,
            Some("cold") => false,
            Some(other) => return Err(format!("--start {other}: want hot or cold").into()),
        };
        Ok(Options {
            dims,
            beta: common::arg_f64("--beta", 6.0)?,
            traj: common::arg("--traj", 200).max(2),
            therm: common::arg("--therm", 100),
            md: MdParams {
                length: common::arg_f64("--length", 1.0)?,
                steps: common::arg("--steps", 10),
                integrator,
            },
            hot,
            seed: common::arg("--seed", 1) as u64,
            ranks: common::value("--ranks")
                .map(|v| common::parse_dims(&v))
                .transpose()?,
            devices: common::value("--devices").map(|_| common::arg("--devices", 1)),
            csv: common::value("--csv"),
            svg: common::value("--svg"),
            save: common::value("--save"),
            quarks: match common::value("--mass") {
                None => None,
                Some(_) => Some(QuarkOptions {
                    mass: common::arg_f64("--mass", 0.0)?,
                    boundary: match common::value("--boundary") {
                        None => TimeBoundary::Antiperiodic,
                        Some(b) => b.parse().map_err(|e| format!("--boundary: {e}"))?,
                    },
                    action_tol: common::arg_f64("--action-tol", 1e-10)?,
                    force_tol: common::arg_f64("--force-tol", 1e-7)?,
                    gauge_substeps: common::arg("--gauge-substeps", 1),
                    solver: match common::value("--force-solver").as_deref() {
                        None | Some("cg") => ForceSolver::Cg,
                        Some("mixed") => ForceSolver::Mixed,
                        Some("loop") => ForceSolver::Loop,
                        Some("device") => ForceSolver::Device,
                        Some(other) => {
                            return Err(format!(
                                "--force-solver {other}: want cg, mixed, loop or device"
                            )
                            .into())
                        }
                    },
                }),
            },
        })
    }
}

fn main() -> AnyResult<()> {
    let o = Options::parse()?;
    let lat = Lattice::new(o.dims)?;
    match (o.ranks, o.devices) {
        // The World first: it picks each rank's GPU before the first GPU call.
        (Some(grid), _) => over_ranks(lat, grid, &o),
        (None, Some(n)) => {
            let split = lat.split_over(&Devices::first(n)?)?;
            run(split, &o, &|batch| batch, n > 1)
        }
        (None, None) => run(lat, &o, &|batch| batch, false),
    }
}

/// The run on `lat` cut over the MPI ranks on process grid `grid`.
#[cfg(feature = "mpi")]
fn over_ranks(lat: Lattice, grid: [usize; 4], o: &Options) -> AnyResult<()> {
    let world = ongpu::mpi::World::init()?;
    world.abort_on_panic();
    let lat = lat.over_ranks(&world, grid)?;
    let agree =
        |batch: usize| world.gather(&[batch as u64]).into_iter().max().unwrap_or(1) as usize;
    run(lat, o, &agree, false)
}

#[cfg(not(feature = "mpi"))]
fn over_ranks(_: Lattice, _: [usize; 4], _: &Options) -> AnyResult<()> {
    Err(
        "--ranks needs the mpi feature: cargo run --release --features mpi --example hmc -- \
         --ranks X,Y,Z,T (under mpirun)"
            .into(),
    )
}

/// The device-loop CG, on a whole lattice only.
fn loop_solver<S: Space>(lat: S, tol: f64, max_iter: usize) -> AnyResult<StaggeredSolver<S>> {
    let Some(&whole) = (&lat as &dyn std::any::Any).downcast_ref::<Lattice>() else {
        return Err(
            "--force-solver loop runs on one lattice on one device (not with \
                    --ranks or --devices)"
                .into(),
        );
    };
    let solver: Box<dyn std::any::Any> =
        Box::new(Box::new(LoopCg::new(whole, tol, max_iter)?) as StaggeredSolver<Lattice>);
    Ok(*solver
        .downcast::<StaggeredSolver<S>>()
        .expect("S is Lattice"))
}

/// The simulation on the space `lat` (the root process prints and writes); calls are timed
/// with batch sizes `agree`d by every rank, with the host clock when they `span` GPUs.
fn run<S: Space>(lat: S, o: &Options, agree: &dyn Fn(usize) -> usize, span: bool) -> AnyResult<()> {
    let backend = ongpu::backend()?;
    let root = lat.is_root();
    if root {
        common::warn_if_checked(backend);
    }
    let mut u = if o.hot {
        GaugeField::hot(lat, o.seed ^ 0x5eed)?
    } else {
        GaugeField::unit(lat)?
    };
    let mut action = Action::wilson(o.beta)?;
    let mut theory = "quenched".to_string();
    if let Some(q) = &o.quarks {
        const MAX_ITER: usize = 20_000;
        let force: StaggeredSolver<S> = match q.solver {
            ForceSolver::Cg => Box::new(Cg::new(lat, q.force_tol, MAX_ITER)),
            ForceSolver::Mixed => Box::new(MixedCg::<S, f32>::new(lat, q.force_tol, MAX_ITER)),
            ForceSolver::Loop => loop_solver(lat, q.force_tol, MAX_ITER)?,
            ForceSolver::Device => Box::new(DeviceCg::new(lat, q.force_tol, MAX_ITER)),
        };
        let action_solver: StaggeredSolver<S> = match q.solver {
            ForceSolver::Device => Box::new(DeviceCg::new(lat, q.action_tol, MAX_ITER)),
            _ => Box::new(Cg::new(lat, q.action_tol, MAX_ITER)),
        };
        action = action.with_gauge_substeps(q.gauge_substeps)?;
        action = action.with_quarks(
            StaggeredQuarks::with_solvers(lat, q.mass, action_solver, force)?
                .with_boundary(q.boundary),
        );
        theory = format!(
            "N_f = 4 staggered, m = {}, {} in time (action solves to {:e}, force solves to {:e} by {}; {} \
             gauge step(s) per link move)",
            q.mass,
            q.boundary,
            q.action_tol,
            q.force_tol,
            match q.solver {
                ForceSolver::Cg => "f64 CG",
                ForceSolver::Mixed => "mixed f32/f64 CG",
                ForceSolver::Loop => "f64 CG in a device loop",
                ForceSolver::Device => "f64 CG with device scalars (the action's too)",
            },
            q.gauge_substeps
        );
    }
    let mut hmc = Hmc::with_action(lat, action, o.seed);
    let say = |line: String| {
        if root {
            println!("{line}");
        }
    };
    say(format!(
        "HMC, {theory}, Wilson gauge action: {lat}, β = {}, {} start, τ = {} in {} {:?} \
         steps, {} thermalisation + {} measured trajectories, seed {}; device: {}",
        o.beta,
        if o.hot { "hot" } else { "cold" },
        o.md.length,
        o.md.steps,
        o.md.integrator,
        o.therm,
        o.traj,
        o.seed,
        common::device_name(backend)
    ));
    let start = Instant::now();
    let record = common::chain::run(&mut hmc, &mut u, &o.md, o.therm, o.traj, root)?;
    let common::chain::Record {
        history,
        plaquettes,
        weights,
        accepted,
        solves,
        seconds: measured_seconds,
    } = record;
    let s = stats::summarise(&plaquettes);
    let n = weights.len() as f64;
    say(common::chain::acceptance_line(&weights, accepted));
    say(format!(
        "plaquette = {:.6} ± {:.6} (τ_int {:.1} trajectories, bins of {})",
        s.mean, s.error, s.tau_int, s.bin
    ));
    if o.beta == 6.0 && o.quarks.is_none() {
        let (p, pe) = PUBLISHED_PLAQUETTE_BETA_6;
        say(format!(
            "published heatbath plaquette at β = 6.0: {p} ± {pe} (Boyd et al. 1996); ours − published = {:+.6} ({:.1} combined σ)",
            s.mean - p,
            (s.mean - p).abs() / (s.error * s.error + pe * pe).sqrt()
        ));
    }
    let per_traj = measured_seconds / n;
    let timing = common::Timing {
        backend,
        agree,
        span,
    };
    let (force, link) = shares(&timing, lat, &u, o)?;
    // Gauge forces and link updates a trajectory: with two time scales, every link move of
    // the outer integrator is a whole inner integration of `substeps` steps.
    let fps = o.md.integrator.forces_per_step();
    let (outer_forces, outer_links) = (o.md.steps * fps + 1, o.md.steps * fps);
    let substeps = hmc.action().gauge_substeps();
    let (forces, links) = if substeps > 1 && o.quarks.is_some() {
        (
            outer_links * (substeps * fps + 1),
            outer_links * substeps * fps,
        )
    } else {
        (outer_forces, outer_links)
    };
    say(format!(
        "speed: {:.2} trajectories/s ({:.2} ms each, {:.1} s in all); per trajectory {} forces \
         ({:.1}% of the time, {:.1} us each) and {} link updates ({:.1}%, {:.1} us each)",
        1.0 / per_traj,
        per_traj * 1e3,
        start.elapsed().as_secs_f64(),
        forces,
        100.0 * forces as f64 * force / per_traj,
        force * 1e6,
        links,
        100.0 * links as f64 * link / per_traj,
        link * 1e6
    ));
    if solves.solves > 0 {
        say(format!(
            "quarks: {:.1} solves and {:.0} CG iterations per trajectory ({:.0} per solve), \
             the solves {:.1}% of the time",
            solves.solves as f64 / n,
            solves.iterations as f64 / n,
            solves.iterations as f64 / solves.solves as f64,
            100.0 * solves.seconds / measured_seconds
        ));
    }
    let title = format!("HMC, {theory}, {lat}, β = {}", o.beta);
    if let (true, Some(path)) = (root, &o.csv) {
        common::history::csv(&history, "trajectory", path)?;
    }
    if let (true, Some(path)) = (root, &o.svg) {
        common::history::svg(&history, "trajectory", &title, s.mean, s.error, path)?;
    }
    if let Some(path) = &o.save {
        let ensemble = ongpu::qcd::nersc::Ensemble {
            label: match &o.quarks {
                None => format!("quenched HMC beta {}", o.beta),
                Some(q) => format!("Nf=4 staggered HMC beta {} mass {}", o.beta, q.mass),
            },
            sequence_number: hmc.trajectories() as u64,
            ..Default::default()
        };
        u.write_nersc(path, Default::default(), &ensemble)?;
        say(format!("saved the last configuration to {path}"));
    }
    Ok(())
}

/// Seconds of one force pass set (four directions) and one link update, each timed alone
/// (CUDA events on the GPU, the host clock over several).
fn shares<S: Space>(
    timing: &common::Timing,
    lat: S,
    u: &GaugeField<S>,
    o: &Options,
) -> AnyResult<(f64, f64)> {
    let mut p: LinksOf<S> = lat.zeros()?;
    let mut w = GaugeField::from_links(lat, lat.field_from_vec(u.to_host()?)?)?;
    let force = timing.time(lat, 10, &mut || {
        accumulate_force(lat, u.links(), 0.0, 1.0, &mut p)
    })?;
    let link = timing.time(lat, 10, &mut || {
        exp_times(lat, &p, 1e-3 / o.beta, w.links_mut())
    })?;
    Ok((force, link))
}
