//! Scale setting of the quenched Wilson action: the static potential and the Sommer scale
//! `r₀` from Wilson loops with APE-smeared spatial links, and the flow scales `t₀` and `w₀`
//! of the ensemble mean, each with jackknife errors, beside the interpolations of Francis
//! et al. (`ongpu::qcd::scale::reference`).
//!
//! ```text
//! cargo run --release --example potential -- [--size 16 | --dims X,Y,Z,T] [--beta 6.0]
//!     [--configs 40] [--therm 300] [--sep 10] [--or 4] [--seed 1] [--rmax R] [--tmax T]
//!     [--ape 0.5] [--ape-steps N] [--flow-configs N] [--eps 0.02] [--bins 20] [--t T]
//!     [--max-error 0.01]
//! ```
//!
//! Configurations come from the library's heatbath and overrelaxation (a Haar start,
//! `--therm` sweeps, then `--sep` between configurations). On each it measures `W(r, t)` for
//! `r ≤ --rmax`, `t ≤ --tmax + 1`, and (on the first `--flow-configs`) the flow to 1.6 times
//! the reference `t₀`. `V(r)` is `ln W(r, t)/W(r, t + 1)`; `r₀` is printed for every `t`, and
//! the result is taken at the largest `t` whose jackknife error is at most `--max-error`
//! (1%) of `r₀`, or at `--t`: `r₀(t)` rises with `t` as the excited states decay, so the
//! latest `t` the statistics resolve has the least of their pull. The defaults scale with
//! the reference `r₀/a` at `β`: APE steps `0.9 (r₀/a)²` at α = 0.5 (a smearing radius in
//! proportion to `r₀`), `r` up to `1.6 r₀/a`, `t` up to `r₀/a`, each within half the lattice.
//! Exit status 1 if `r₀/a` or `t₀/a²` is farther from the reference than 2σ and 1.5%.

#[path = "../common/mod.rs"]
mod common;

use indicatif::{ProgressBar, ProgressStyle};
use ongpu::prelude::*;
use ongpu::qcd::flow::{FlowPoint, WilsonFlow};
use ongpu::qcd::gauge::GaugeField;
use ongpu::qcd::quenched::QuenchedUpdate;
use ongpu::qcd::scale::{flow_scales, force, potential, reference, sommer_r0, WilsonLoops};
use ongpu::qcd::smearing::Smearing;
use ongpu::qcd::stats::{jackknife_of, Estimate};
use std::time::Instant;

type AnyResult<T> = Result<T, Box<dyn std::error::Error>>;

struct Options {
    dims: [usize; 4],
    beta: f64,
    configs: usize,
    therm: usize,
    sep: usize,
    or_steps: usize,
    seed: u64,
    r_max: usize,
    t_max: usize,
    ape_alpha: f64,
    ape_steps: usize,
    flow_configs: usize,
    eps: f64,
    bins: usize,
    t: Option<usize>,
    max_error: f64,
}

impl Options {
    fn parse() -> AnyResult<Options> {
        let dims = common::dims_arg(16)?;
        let beta = common::arg_f64("--beta", 6.0)?;
        let r0 = reference::r0_over_a(beta);
        let half_space = dims[..3].iter().copied().min().unwrap_or(0) / 2;
        let configs = common::arg("--configs", 40).max(2);
        let o = Options {
            dims,
            beta,
            configs,
            therm: common::arg("--therm", 300),
            sep: common::arg("--sep", 10).max(1),
            or_steps: common::arg("--or", 4),
            seed: common::arg("--seed", 1) as u64,
            r_max: common::arg("--rmax", ((1.6 * r0).ceil() as usize).min(half_space)),
            t_max: common::arg("--tmax", (r0.round() as usize).clamp(3, dims[3] / 2 - 1)),
            ape_alpha: common::arg_f64("--ape", 0.5)?,
            ape_steps: common::arg("--ape-steps", ((0.9 * r0 * r0).round() as usize).max(5)),
            flow_configs: common::arg("--flow-configs", configs).min(configs),
            eps: common::arg_f64("--eps", 0.02)?,
            bins: common::arg("--bins", 20).max(2),
            t: common::value("--t").map(|_| common::arg("--t", 0)),
            max_error: common::arg_f64("--max-error", 0.01)?,
        };
        if o.t_max + 1 > dims[3] / 2 {
            return Err(format!(
                "--tmax {}: V(r) at t needs W(r, t + 1), at most half of T",
                o.t_max
            )
            .into());
        }
        Ok(o)
    }
}

/// One configuration's measurements.
struct Sample {
    loops: WilsonLoops,
    flow: Option<Vec<FlowPoint>>,
}

fn measure(u: &GaugeField, o: &Options, flow_it: bool, t_end: f64) -> AnyResult<Sample> {
    let lat = u.lattice();
    let mut smeared = u.try_clone()?;
    Smearing::ape(lat, o.ape_alpha)?
        .spatial()
        .apply(&mut smeared, o.ape_steps)?;
    let loops = ongpu::qcd::scale::wilson_loops(u, &smeared, o.r_max, o.t_max + 1)?;
    drop(smeared);
    let flow = if flow_it {
        let mut v = u.try_clone()?;
        let mut flow = WilsonFlow::new(lat, o.eps)?;
        let mut history = vec![flow.measure(&v)?];
        while flow.time() + 0.5 * o.eps < t_end {
            flow.step(&mut v)?;
            history.push(flow.measure(&v)?);
        }
        Some(history)
    } else {
        None
    };
    Ok(Sample { loops, flow })
}

/// Where `got` stands against `want`: the difference in per cent and in errors, and whether
/// it is within 2σ or 1.5%.
fn compare(what: &str, got: Estimate, want: f64) -> bool {
    let percent = 100.0 * (got.value - want) / want;
    let sigmas = (got.value - want) / got.error;
    let ok = sigmas.abs() <= 2.0 || percent.abs() <= 1.5;
    println!(
        "{what}: {got:.4}   reference {want:.4}   difference {percent:+.2}% = {sigmas:+.1}σ   {}",
        if ok {
            "agrees (within 2σ or 1.5%)"
        } else {
            "DISAGREES"
        }
    );
    ok
}

fn main() -> AnyResult<()> {
    let o = Options::parse()?;
    let backend = ongpu::backend()?;
    common::warn_if_checked(backend);
    let lat = Lattice::new(o.dims)?;
    let r0_ref = reference::r0_over_a(o.beta);
    let t0_ref = reference::sqrt_t0_over_a(o.beta).powi(2);
    println!(
        "static potential and scales: β = {}, {lat}, {} configurations ({} thermalisation \
         sweeps, {} between, {} overrelaxation each, seed {}), APE α = {} × {} spatial steps, \
         W(r ≤ {}, t ≤ {}), flow ε = {} on {} configurations to t = {:.2}; device: {}",
        o.beta,
        o.configs,
        o.therm,
        o.sep,
        o.or_steps,
        o.seed,
        o.ape_alpha,
        o.ape_steps,
        o.r_max,
        o.t_max + 1,
        o.eps,
        o.flow_configs,
        1.6 * t0_ref,
        common::device_name(backend)
    );
    let start = Instant::now();
    let mut u = GaugeField::hot(lat, o.seed)?;
    let mut update = QuenchedUpdate::resume(lat, o.seed, 1);
    let bar = ProgressBar::new((o.therm + o.configs * o.sep) as u64);
    bar.set_style(ProgressStyle::with_template(
        "{bar:40} {pos}/{len} sweeps {msg} eta {eta}",
    )?);
    for _ in 0..o.therm {
        update.sweep(&mut u, o.beta, o.or_steps)?;
        bar.inc(1);
    }
    let mut samples = Vec::with_capacity(o.configs);
    let mut plaquettes = Vec::with_capacity(o.configs);
    for k in 0..o.configs {
        for _ in 0..o.sep {
            update.sweep(&mut u, o.beta, o.or_steps)?;
            bar.inc(1);
        }
        plaquettes.push(u.plaquette()?);
        samples.push(measure(&u, &o, k < o.flow_configs, 1.6 * t0_ref)?);
        bar.set_message(format!("({} configurations measured)", k + 1));
    }
    bar.finish_and_clear();
    let seconds = start.elapsed().as_secs_f64();
    let bins = o.bins.min(o.configs);
    let mean_plaquette = plaquettes.iter().sum::<f64>() / plaquettes.len() as f64;
    println!("mean plaquette {mean_plaquette:.6}; {seconds:.1} s in all");

    // V(r) and r0 at every t, from the mean loops with jackknife errors.
    let loop_samples: Vec<Vec<f64>> = samples.iter().map(|s| s.loops.values().to_vec()).collect();
    let loops_of = |m: &[f64]| WilsonLoops::from_values(o.r_max, o.t_max + 1, m.to_vec());
    let r0_at = |t: usize| {
        jackknife_of(&loop_samples, bins, |m| {
            sommer_r0(&potential(&loops_of(m)?, t))
        })
    };
    println!("r0/a by the t of V(r) = ln W(r,t)/W(r,t+1):");
    let per_t: Vec<Option<Estimate>> = (1..=o.t_max).map(r0_at).collect();
    for (t, e) in (1..).zip(&per_t) {
        match e {
            Some(e) => println!("  t = {t}: {e:.4}"),
            None => println!("  t = {t}: r² F never reaches 1.65 within r ≤ {}", o.r_max),
        }
    }
    // r0(t) rises with t while excited states pull V(r) up at short distances more than at
    // long ones, and its error grows with t: take the largest t at which the statistical
    // error is still at most --max-error (1%) of r0, so the excited states' pull is cut as
    // far as the statistics allow (or --t).
    let t_used = o.t.unwrap_or_else(|| {
        (1..=o.t_max)
            .filter(|&t| per_t[t - 1].is_some_and(|e| e.error <= o.max_error * e.value))
            .max()
            .unwrap_or(1)
    });
    if t_used == 0 || t_used > o.t_max {
        return Err(format!("--t {t_used}: want 1..={}", o.t_max).into());
    }
    let mean_loops = loops_of(&mean(&loop_samples)).ok_or("loops of the mean")?;
    let v = potential(&mean_loops, t_used);
    println!("at t = {t_used}:   r   V(r)      r_I    r_I² F(r_I)");
    let f = force(&v);
    for r in 1..=o.r_max {
        let v_err = jackknife_of(&loop_samples, bins, |m| {
            potential(&loops_of(m)?, t_used).get(r - 1).copied()
        });
        let v_text = v_err.map_or("—".into(), |e| format!("{e:.5}"));
        match r {
            1 => println!("  {r:>3}   {v_text}"),
            _ => {
                let (ri, y) = f[r - 2];
                println!("  {r:>3}   {v_text}   {ri:.3}  {y:.4}");
            }
        }
    }
    let mut ok = true;
    match per_t[t_used - 1] {
        Some(r0) => ok &= compare(&format!("r0/a (t = {t_used})"), r0, r0_ref),
        None => {
            println!("r0/a: not reached within r ≤ {}: raise --rmax", o.r_max);
            ok = false;
        }
    }

    // The flow scales of the ensemble mean.
    let histories: Vec<Vec<FlowPoint>> = samples.into_iter().filter_map(|s| s.flow).collect();
    if !histories.is_empty() {
        let scales = flow_scales(&histories, bins.min(histories.len()))?;
        match scales.t0 {
            Some(t0) => ok &= compare("t0/a²", t0, t0_ref),
            None => {
                println!("t0/a²: ⟨t² E⟩ does not reach 0.3 within the flow");
                ok = false;
            }
        }
        match scales.w0 {
            Some(w0) => println!(
                "w0/a: {w0:.4}{}",
                scales.t0.map_or(String::new(), |t0| format!(
                    "   (w0/√t0 = {:.4})",
                    w0.value / t0.value.sqrt()
                ))
            ),
            None => println!("w0/a: not reached within the flow"),
        }
    }
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}

/// The mean of each entry over the samples.
fn mean(samples: &[Vec<f64>]) -> Vec<f64> {
    let mut m = vec![0.0; samples.first().map_or(0, Vec::len)];
    for s in samples {
        for (a, x) in m.iter_mut().zip(s) {
            *a += x;
        }
    }
    m.iter_mut().for_each(|a| *a /= samples.len() as f64);
    m
}
