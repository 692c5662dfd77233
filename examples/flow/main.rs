//! The Wilson flow of quenched SU(3) configurations: the energy density `E(t)`, `t² E(t)`,
//! the scales `t₀` (`t² E = 0.3`) and `w₀`, and the topological charge `Q(t)`, with
//! Lüscher's third-order Runge–Kutta integrator (`ongpu::qcd::flow`).
//!
//! ```text
//! cargo run --release --example flow -- [--size 16 | --dims X,Y,Z,T] [--beta 6.0]
//!     [--configs 8] [--therm 200] [--sep 20] [--or 4] [--seed 1] [--eps 0.01]
//!     [--tmax T] [--load FILE,FILE,...] [--csv FILE]
//! ```
//!
//! Without `--load` it makes its own configurations with the library's heatbath and
//! overrelaxation (`--therm` sweeps from a hot start, then `--sep` between configurations);
//! `--load` flows NERSC files instead (those `quenched --save` writes). Each configuration is
//! flowed until `t² E` has passed 0.45, or to `--tmax` (by default `L²/32` for the shortest
//! extent L: the smoothing radius `√(8t)` at half of it); the program prints `t₀/a²` and
//! `w₀/a` per configuration, then both solved on the ensemble mean `⟨t² E⟩` over the flow
//! times every configuration reached (the definition; with jackknife errors), the Polyakov
//! loop of each configuration (before the flow) and the history of the topological charge
//! `Q` at the end of the flow with its autocorrelation time and `⟨Q²⟩/V`, and the flow's
//! speed (steps per second, measurements excluded). At β = 5.96 it
//! prints the published `t₀/a²` beside its own (docs/physics.md gives the source).

#[path = "../common/mod.rs"]
mod common;

use indicatif::{ProgressBar, ProgressStyle};
use ongpu::prelude::*;
use ongpu::qcd::flow::{t0, w0_squared, FlowPoint, WilsonFlow};
use ongpu::qcd::gauge::GaugeField;
use ongpu::qcd::quenched::QuenchedUpdate;
use ongpu::qcd::scale::flow_scales;
use ongpu::qcd::stats::{jackknife, summarise};
use std::io::Write;
use std::time::Instant;

type AnyResult<T> = Result<T, Box<dyn std::error::Error>>;

/// A published quenched `t₀/a²` of the Wilson action: 2.7854(62) at β = 5.96 (M. Lüscher,
/// JHEP 08 (2010) 071; docs/physics.md says how it was read).
const PUBLISHED_T0: (f64, f64, f64) = (5.96, 2.7854, 0.0062);

/// `t² E` past which a configuration's flow stops (beyond 0.3, so that `w₀`, where the
/// derivative reaches 0.3, is reached too).
const STOP_T2E: f64 = 0.45;

struct Options {
    dims: [usize; 4],
    beta: f64,
    configs: usize,
    therm: usize,
    sep: usize,
    or_steps: usize,
    seed: u64,
    eps: f64,
    tmax: f64,
    load: Vec<String>,
    csv: Option<String>,
}

impl Options {
    fn parse() -> AnyResult<Options> {
        let dims = common::dims_arg(16)?;
        let o = Options {
            dims,
            beta: common::arg_f64("--beta", 6.0)?,
            configs: common::arg("--configs", 8).max(1),
            therm: common::arg("--therm", 200),
            sep: common::arg("--sep", 20).max(1),
            or_steps: common::arg("--or", 4),
            seed: common::arg("--seed", 1) as u64,
            eps: common::arg_f64("--eps", 0.01)?,
            // The smoothing radius √(8t) up to half the shortest extent.
            tmax: common::arg_f64(
                "--tmax",
                (*dims.iter().min().unwrap_or(&0) as f64).powi(2) / 32.0,
            )?,
            load: common::value("--load")
                .map(|v| v.split(',').map(str::to_string).collect())
                .unwrap_or_default(),
            csv: common::value("--csv"),
        };
        if !(o.eps > 0.0 && o.eps.is_finite()) {
            return Err(format!("--eps {}: want a positive step", o.eps).into());
        }
        Ok(o)
    }
}

/// Flows `u` until `t² E` passes [`STOP_T2E`] (or `tmax`); returns the history and the
/// seconds spent in steps.
fn flow(u: &mut GaugeField, o: &Options) -> AnyResult<(Vec<FlowPoint>, f64, usize)> {
    let mut flow = WilsonFlow::new(u.lattice(), o.eps)?;
    let mut history = vec![flow.measure(u)?];
    let (mut seconds, mut steps) = (0.0, 0);
    while history.last().is_some_and(|p| p.t2e < STOP_T2E) && flow.time() + o.eps <= o.tmax {
        let start = Instant::now();
        flow.step(u)?;
        ongpu::synchronize()?;
        seconds += start.elapsed().as_secs_f64();
        steps += 1;
        history.push(flow.measure(u)?);
    }
    Ok((history, seconds, steps))
}

fn main() -> AnyResult<()> {
    let o = Options::parse()?;
    let backend = ongpu::backend()?;
    common::warn_if_checked(backend);
    let mut csv = match &o.csv {
        Some(path) => {
            let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
            writeln!(f, "config,t,E,t2E,Q,plaquette")?;
            Some(f)
        }
        None => None,
    };
    let lat = Lattice::new(o.dims)?;
    let configs = if o.load.is_empty() {
        o.configs
    } else {
        o.load.len()
    };
    println!(
        "Wilson flow, RK3 with ε = {}: {} configuration(s) on {}, {}; device: {}",
        o.eps,
        configs,
        if o.load.is_empty() {
            lat.to_string()
        } else {
            "the loaded lattices".into()
        },
        if o.load.is_empty() {
            format!(
                "β = {}, {} thermalisation sweeps, {} between configurations ({} overrelaxation each), seed {}",
                o.beta, o.therm, o.sep, o.or_steps, o.seed
            )
        } else {
            format!("files {}", o.load.join(", "))
        },
        common::device_name(backend)
    );
    let bar = ProgressBar::new(configs as u64);
    bar.set_style(ProgressStyle::with_template(
        "{bar:40} {pos}/{len} configurations {msg}",
    )?);
    let mut chain: Option<(GaugeField, QuenchedUpdate)> = None;
    let (mut t0s, mut w0s, mut charges) = (vec![], vec![], vec![]);
    let (mut histories, mut polyakov) = (vec![], vec![]);
    let (mut step_seconds, mut steps, mut volume) = (0.0, 0, 0);
    for c in 0..configs {
        let mut u = if let Some(path) = o.load.get(c) {
            GaugeField::read_nersc(path)?.0
        } else {
            let (u, update) = match &mut chain {
                Some(state) => state,
                empty => {
                    let mut u = GaugeField::hot(lat, o.seed)?;
                    let mut update = QuenchedUpdate::resume(lat, o.seed, 1);
                    for _ in 0..o.therm {
                        update.sweep(&mut u, o.beta, o.or_steps)?;
                    }
                    empty.insert((u, update))
                }
            };
            if c > 0 {
                for _ in 0..o.sep {
                    update.sweep(u, o.beta, o.or_steps)?;
                }
            }
            u.try_clone()?
        };
        volume = u.lattice().volume();
        if c == 0 {
            // One step of a unit field first: it compiles the step's kernels, which the
            // timing should not include.
            WilsonFlow::new(u.lattice(), o.eps)?.step(&mut GaugeField::unit(u.lattice())?)?;
        }
        let loop_before = u.polyakov_loop()?;
        let (history, seconds, n) = flow(&mut u, &o)?;
        step_seconds += seconds;
        steps += n;
        if let Some(f) = &mut csv {
            for p in &history {
                writeln!(
                    f,
                    "{c},{},{},{},{},{}",
                    p.t, p.energy, p.t2e, p.charge, p.plaquette
                )?;
            }
        }
        let last = history[history.len() - 1];
        let (t0c, w0c) = (t0(&history), w0_squared(&history).map(f64::sqrt));
        bar.suspend(|| {
            println!(
                "config {c}: plaquette {:.6} → {:.6} at t = {:.2}; t0/a² = {}, w0/a = {}, Q = {:+.3}, Polyakov loop {:+.4}{:+.4}i",
                history[0].plaquette,
                last.plaquette,
                last.t,
                t0c.map_or("not reached".into(), |t| format!("{t:.4}")),
                w0c.map_or("not reached".into(), |w| format!("{w:.4}")),
                last.charge,
                loop_before.re,
                loop_before.im
            )
        });
        polyakov.push(loop_before);
        histories.push(history.clone());
        t0s.extend(t0c);
        w0s.extend(w0c);
        charges.push(last.charge);
        bar.inc(1);
    }
    bar.finish_and_clear();
    if let Some(mut f) = csv {
        f.flush()?;
    }
    report("t0/a² (per configuration)", &t0s);
    report("w0/a (per configuration)", &w0s);
    // The definition: solved on the ensemble mean, over the flow times all reached.
    let common = histories.iter().map(Vec::len).min().unwrap_or(0);
    histories.iter_mut().for_each(|h| h.truncate(common));
    let scales = flow_scales(&histories, histories.len())?;
    let show = |e: Option<ongpu::qcd::stats::Estimate>| {
        e.map_or("not reached by the mean".to_string(), |e| format!("{e:.4}"))
    };
    println!(
        "ensemble mean ⟨t² E⟩ over {} configurations: t0/a² = {}, w0/a = {}",
        histories.len(),
        show(scales.t0),
        show(scales.w0)
    );
    let (published_beta, p, pe) = PUBLISHED_T0;
    // Only generated configurations at the published β compare with the published value.
    if o.load.is_empty() && o.beta == published_beta && t0s.len() > 1 {
        let (mean, err) = jackknife(&t0s, t0s.len());
        println!(
            "published t0/a² at β = {published_beta}: {p} ± {pe} (Lüscher 2010); ours − \
             published = {:+.4} ({:.1} combined σ)",
            mean - p,
            (mean - p).abs() / (err * err + pe * pe).sqrt()
        );
    }
    println!(
        "Q at the end of the flow, in the order of the chain: {}",
        charges
            .iter()
            .map(|q| format!("{q:+.3}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    if charges.len() > 1 {
        let q2: Vec<f64> = charges.iter().map(|q| q * q).collect();
        let q = summarise(&charges);
        let s = summarise(&q2);
        println!(
            "⟨Q⟩ = {:+.3} ± {:.3} (τ_int {:.1} configurations), ⟨Q²⟩ = {:.3} ± {:.3}, \
             ⟨Q²⟩/V = {:.3e} a⁻⁴",
            q.mean,
            q.error,
            q.tau_int,
            s.mean,
            s.error,
            s.mean / volume as f64
        );
        let mean_loop = polyakov.iter().sum::<Complex<f64>>() / polyakov.len() as f64;
        let abs_loop: Vec<f64> = polyakov.iter().map(|p| p.norm()).collect();
        println!(
            "Polyakov loop (before the flow): mean {:+.4}{:+.4}i, ⟨|P|⟩ = {:.4} (confined: ⟨P⟩ → 0, |P| ~ 1/√V_3)",
            mean_loop.re,
            mean_loop.im,
            abs_loop.iter().sum::<f64>() / abs_loop.len() as f64
        );
    }
    if steps > 0 {
        println!(
            "flow speed: {:.1} steps/s on {} sites ({:.3} ms per step, measurements excluded)",
            steps as f64 / step_seconds,
            volume,
            step_seconds / steps as f64 * 1e3
        );
    }
    Ok(())
}

/// The mean and jackknife error of one scale over the configurations.
fn report(name: &str, values: &[f64]) {
    match values.len() {
        0 => println!("{name}: not reached on any configuration (flow longer: --tmax)"),
        1 => println!("{name} = {:.4} (one configuration)", values[0]),
        n => {
            let (mean, err) = jackknife(values, n);
            println!("{name} = {mean:.4} ± {err:.4} over {n} configurations");
        }
    }
}
