//! A Monte Carlo chain of HMC or RHMC trajectories as the examples run it: thermalisation,
//! then measured trajectories behind a progress bar, and the summary of its Metropolis steps.

use indicatif::{ProgressBar, ProgressStyle};
use ongpu::qcd::gauge::GaugeField;
use ongpu::qcd::hmc::{Hmc, MdParams, SolveCounts};
use std::time::Instant;

/// What the measured trajectories of a chain gave.
#[derive(Default)]
pub struct Record {
    /// The plaquette after every trajectory, thermalisation included.
    pub history: Vec<super::history::Point>,
    /// The plaquettes of the measured trajectories.
    pub plaquettes: Vec<f64>,
    /// `exp(−ΔH)` of the measured trajectories.
    pub weights: Vec<f64>,
    /// Measured trajectories accepted.
    pub accepted: usize,
    /// The quarks' solves in the measured trajectories.
    pub solves: SolveCounts,
    /// Seconds of the measured trajectories.
    pub seconds: f64,
}

/// `therm` and then `traj` trajectories of `hmc` from `u`, with a progress bar where
/// `show` (the root process).
pub fn run<S: ongpu::Space>(
    hmc: &mut Hmc<S>,
    u: &mut GaugeField<S>,
    md: &MdParams,
    therm: usize,
    traj: usize,
    show: bool,
) -> Result<Record, Box<dyn std::error::Error>> {
    let total = therm + traj;
    let bar = if show {
        ProgressBar::new(total as u64)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(ProgressStyle::with_template(
        "{bar:40} {pos}/{len} trajectories, {msg}",
    )?);
    let mut r = Record::default();
    for k in 0..total {
        let t0 = Instant::now();
        let t = hmc.trajectory(u, md)?;
        let thermalising = k < therm;
        if !thermalising {
            r.seconds += t0.elapsed().as_secs_f64();
            r.plaquettes.push(t.plaquette);
            r.weights.push((-t.delta_h).exp());
            r.accepted += t.accepted as usize;
            r.solves += t.solves;
        }
        r.history.push(super::history::Point {
            sweep: k + 1,
            thermalising,
            plaquette: t.plaquette,
        });
        let cg = if t.solves.iterations > 0 {
            format!(", {} CG iterations", t.solves.iterations)
        } else {
            String::new()
        };
        bar.set_message(format!(
            "plaquette {:.6}, ΔH {:+.4}{cg}",
            t.plaquette, t.delta_h
        ));
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(r)
}

/// The acceptance and Creutz's `⟨exp(−ΔH)⟩` (1 for an exact algorithm) with its error and
/// distance from 1, from the weights `exp(−ΔH)` of the measured trajectories.
pub fn acceptance_line(weights: &[f64], accepted: usize) -> String {
    let n = weights.len() as f64;
    let mean = weights.iter().sum::<f64>() / n;
    let err =
        (weights.iter().map(|w| (w - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt() / n.sqrt();
    format!(
        "acceptance {:.1}% ({accepted} of {}); <exp(-ΔH)> = {mean:.4} ± {err:.4} ({:.1}σ from 1)",
        100.0 * accepted as f64 / n,
        weights.len(),
        (mean - 1.0).abs() / err
    )
}
