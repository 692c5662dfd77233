//! RHMC with 2+1 (or 2+1+1) flavours of rooted HISQ quarks (`ongpu::qcd::hmc::HisqQuarks`)
//! and the Wilson gauge action: rational approximations by the Remez algorithm, multi-shift
//! solves, the HISQ force through both smearing levels, Omelyan molecular dynamics on two
//! time scales (the gauge force on the finer), a Metropolis step.
//!
//! It prints the approximations (degree, range, error bound), a progress bar, the
//! acceptance, Creutz's `⟨exp(−ΔH)⟩` (1 for an exact algorithm), the mean plaquette with its
//! jackknife error, and where a trajectory's time goes: the multi-shift solves, the force's
//! chain rule through the smearing, and the rest (gauge force, link updates, heatbath);
//! it writes the plaquette history as CSV and SVG and the last configuration as NERSC or
//! ILDG.
//!
//! ```text
//! cargo run --release --example rhmc -- [--size 8 | --dims X,Y,Z,T] [--beta 5.8]
//!     [--light 0.1] [--strange 0.3] [--charm M [--charm-epsilon E]] [--top 8]
//!     [--degree 8|12|16] [--traj 20] [--therm 5] [--length 1.0] [--steps 6]
//!     [--gauge-substeps 4] [--action-tol 1e-10] [--force-tol 1e-8]
//!     [--start cold|hot|quenched [--sweeps 200] | --load FILE.nersc]
//!     [--seed 1] [--csv FILE] [--svg FILE] [--save FILE.nersc | --save-ildg FILE.ildg]
//! ```
//!
//! `--start quenched` thermalises the start with `--sweeps` quenched heatbath sweeps at the
//! same β (a rough field, whose light solves take many iterations, as in production);
//! `--load` reads a NERSC configuration instead.
//!
//! `--top` is the top of the spectral range of `m² − D_eo D_oe` that the approximations
//! cover (from `m²`); every heatbath checks it by the power method and stops with an error
//! if the operator leaves it.

#[path = "../common/mod.rs"]
mod common;

use common::configuration::{configuration, Source};
use ongpu::prelude::*;
use ongpu::qcd::boundary::TimeBoundary;
use ongpu::qcd::gauge::GaugeField;
use ongpu::qcd::hisq::Hisq;
use ongpu::qcd::hmc::{Action, HisqFlavour, HisqQuarks, Hmc, Integrator, MdParams};
use ongpu::qcd::nersc::Precision;
use ongpu::qcd::staggered::largest_eigenvalue;
use ongpu::qcd::stats;
use std::time::Instant;

type AnyResult<T> = Result<T, Box<dyn std::error::Error>>;

struct Options {
    dims: [usize; 4],
    beta: f64,
    flavours: Vec<HisqFlavour>,
    top: f64,
    degree: usize,
    traj: usize,
    therm: usize,
    md: MdParams,
    gauge_substeps: usize,
    action_tol: f64,
    force_tol: f64,
    start: Start,
    seed: u64,
    csv: Option<String>,
    svg: Option<String>,
    save: Option<String>,
    save_ildg: Option<String>,
}

impl Options {
    fn parse() -> AnyResult<Options> {
        let mut flavours = vec![
            HisqFlavour::new(2, common::arg_f64("--light", 0.1)?),
            HisqFlavour::new(1, common::arg_f64("--strange", 0.3)?),
        ];
        if common::value("--charm").is_some() {
            flavours.push(
                HisqFlavour::new(1, common::arg_f64("--charm", 0.0)?)
                    .with_epsilon(common::arg_f64("--charm-epsilon", 0.0)?),
            );
        }
        // Cold by default: a hot start's forces are too large for any step to be accepted.
        let start = match (common::value("--load"), common::value("--start").as_deref()) {
            (Some(path), None) => Start::Load(path),
            (Some(_), Some(_)) => return Err("--load and --start exclude each other".into()),
            (None, Some("hot")) => Start::Hot,
            (None, None | Some("cold")) => Start::Cold,
            (None, Some("quenched")) => Start::Quenched(common::arg("--sweeps", 200)),
            (None, Some(other)) => {
                return Err(format!("--start {other}: want cold, hot or quenched").into())
            }
        };
        Ok(Options {
            dims: common::dims_arg(8)?,
            beta: common::arg_f64("--beta", 5.8)?,
            flavours,
            top: common::arg_f64("--top", 8.0)?,
            degree: common::arg("--degree", 12),
            traj: common::arg("--traj", 20).max(2),
            therm: common::arg("--therm", 5),
            md: MdParams {
                length: common::arg_f64("--length", 1.0)?,
                steps: common::arg("--steps", 6),
                integrator: Integrator::omelyan(),
            },
            gauge_substeps: common::arg("--gauge-substeps", 4),
            action_tol: common::arg_f64("--action-tol", 1e-10)?,
            force_tol: common::arg_f64("--force-tol", 1e-8)?,
            start,
            seed: common::arg("--seed", 1) as u64,
            csv: common::value("--csv"),
            svg: common::value("--svg"),
            save: common::value("--save"),
            save_ildg: common::value("--save-ildg"),
        })
    }
}

/// Where the chain starts.
enum Start {
    Cold,
    Hot,
    /// Quenched heatbath sweeps (four overrelaxation steps each) from a hot start.
    Quenched(usize),
    /// A NERSC file.
    Load(String),
}

impl Start {
    fn field(&self, o: &Options) -> AnyResult<GaugeField> {
        Ok(match self {
            Start::Cold => GaugeField::unit(Lattice::new(o.dims)?)?,
            Start::Hot => GaugeField::hot(Lattice::new(o.dims)?, o.seed ^ 0x5eed)?,
            Start::Quenched(sweeps) => configuration(&Source {
                load: None,
                dims: o.dims,
                beta: o.beta,
                sweeps: *sweeps,
                seed: o.seed ^ 0x5eed,
            })?,
            Start::Load(path) => configuration(&Source {
                load: Some(path),
                dims: o.dims,
                beta: o.beta,
                sweeps: 0,
                seed: o.seed,
            })?,
        })
    }

    fn describe(&self) -> String {
        match self {
            Start::Cold => "cold start".into(),
            Start::Hot => "hot start".into(),
            Start::Quenched(sweeps) => format!("start after {sweeps} quenched sweeps"),
            Start::Load(path) => format!("start from {path}"),
        }
    }
}

fn main() -> std::process::ExitCode {
    common::exit_code(run_degree())
}

/// The run with rational approximations of the degree asked for (a type parameter of the
/// quarks: the multi-shift solver keeps the `N` solutions in one field).
fn run_degree() -> AnyResult<()> {
    let o = Options::parse()?;
    match o.degree {
        8 => run::<8>(&o),
        12 => run::<12>(&o),
        16 => run::<16>(&o),
        other => Err(format!("--degree {other}: want 8, 12 or 16").into()),
    }
}

fn run<const N: usize>(o: &Options) -> AnyResult<()>
where
    [ColorVector<f64>; N]: ongpu::Element,
{
    let backend = ongpu::backend()?;
    common::warn_if_checked(backend);
    let mut u = o.start.field(o)?;
    let lat = u.lattice();
    let started = Instant::now();
    let quarks = HisqQuarks::<N>::new(lat, &o.flavours, o.top, o.action_tol, o.force_tol, 20_000)?;
    let remez_seconds = started.elapsed().as_secs_f64();
    let content: Vec<String> = o
        .flavours
        .iter()
        .map(|f| {
            if f.epsilon != 0.0 {
                format!("{} × m = {} (ε = {})", f.flavours, f.mass, f.epsilon)
            } else {
                format!("{} × m = {}", f.flavours, f.mass)
            }
        })
        .collect();
    println!(
        "RHMC, HISQ quarks {} and the Wilson gauge action: {lat}, β = {}, {}, τ = {} in {} \
         Omelyan steps ({} gauge steps each), {} thermalisation + {} measured trajectories, \
         seed {}; device: {}",
        content.join(" + "),
        o.beta,
        o.start.describe(),
        o.md.length,
        o.md.steps,
        o.gauge_substeps,
        o.therm,
        o.traj,
        o.seed,
        common::device_name(backend)
    );
    for k in 0..o.flavours.len() {
        let (a, h) = (
            quarks.action_approximation(k),
            quarks.heatbath_approximation(k),
        );
        let (lo, hi) = a.range();
        println!(
            "  field {k}: x^({}) and x^({}) of degree {N} on [{lo:.3e}, {hi}]: relative errors \
             {:.1e} and {:.1e}",
            a.exponent(),
            h.exponent(),
            a.error(),
            h.error()
        );
    }
    // The top of the spectrum on the start, for choosing --top (each heatbath checks it).
    let light = &o.flavours[0];
    let op = Hisq::new(&u, light.mass, light.epsilon, TimeBoundary::Antiperiodic)?;
    let top = largest_eigenvalue(&op, 40)?;
    println!(
        "  (Remez: {remez_seconds:.1} s; the start's largest eigenvalue of m² − D_eo D_oe: \
         {top:.3} for m = {}, --top {})",
        light.mass, o.top
    );
    let action = Action::wilson(o.beta)?
        .with_gauge_substeps(o.gauge_substeps)?
        .with_quarks(quarks);
    let mut hmc = Hmc::with_action(lat, action, o.seed);
    let record = common::chain::run(&mut hmc, &mut u, &o.md, o.therm, o.traj, true)?;
    let common::chain::Record {
        history,
        plaquettes,
        weights,
        accepted,
        solves: counts,
        seconds: measured_seconds,
    } = record;
    let n = weights.len() as f64;
    let s = stats::summarise(&plaquettes);
    println!("{}", common::chain::acceptance_line(&weights, accepted));
    println!(
        "plaquette = {:.6} ± {:.6} (τ_int {:.1} trajectories)",
        s.mean, s.error, s.tau_int
    );
    let per = |x: f64| x / n;
    let rest = measured_seconds - counts.seconds - counts.force_seconds;
    println!(
        "per trajectory: {:.2} s; multi-shift solves {:.1}% ({:.0} solves, {:.0} CG iterations), \
         HISQ force outside its solves {:.1}%, the rest (gauge force, links, heatbath) {:.1}%",
        per(measured_seconds),
        100.0 * counts.seconds / measured_seconds,
        per(counts.solves as f64),
        per(counts.iterations as f64),
        100.0 * counts.force_seconds / measured_seconds,
        100.0 * rest / measured_seconds
    );
    let title = format!("RHMC, HISQ {}, {lat}, β = {}", content.join(" + "), o.beta);
    if let Some(path) = &o.csv {
        common::history::csv(&history, "trajectory", path)?;
    }
    if let Some(path) = &o.svg {
        common::history::svg(&history, "trajectory", &title, s.mean, s.error, path)?;
    }
    if let Some(path) = &o.save {
        let ensemble = ongpu::qcd::nersc::Ensemble {
            label: format!("HISQ RHMC {} beta {}", content.join(" + "), o.beta),
            sequence_number: hmc.trajectories() as u64,
            ..Default::default()
        };
        u.write_nersc(path, Default::default(), &ensemble)?;
        println!("saved the last configuration to {path} (NERSC)");
    }
    if let Some(path) = &o.save_ildg {
        u.write_ildg(path, Precision::Double)?;
        println!("saved the last configuration to {path} (ILDG)");
    }
    Ok(())
}
