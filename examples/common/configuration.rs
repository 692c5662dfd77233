//! The gauge field of the spectroscopy examples: read from a NERSC file, or thermalised by
//! the quenched heatbath from a hot start, with a progress bar.

use indicatif::{ProgressBar, ProgressStyle};
use ongpu::prelude::*;
use ongpu::qcd::gauge::GaugeField;
use ongpu::qcd::quenched::QuenchedUpdate;

/// Where the configuration comes from.
pub struct Source<'a> {
    /// A NERSC file to read (the rest is then unused).
    pub load: Option<&'a str>,
    /// The lattice's extents.
    pub dims: [usize; 4],
    /// The gauge coupling β.
    pub beta: f64,
    /// Heatbath sweeps, each with four overrelaxation steps.
    pub sweeps: usize,
    /// The seed of the hot start and of the updates.
    pub seed: u64,
}

/// The gauge field: read from `load` (checksum and plaquette verified), or thermalised
/// from a hot start by `sweeps` heatbath sweeps at `beta`.
pub fn configuration(s: &Source) -> Result<GaugeField, Box<dyn std::error::Error>> {
    if let Some(path) = s.load {
        let (u, header) = GaugeField::read_nersc(path)?;
        println!(
            "loaded {path}: {}, plaquette {:.6} (checksum and plaquette verified)",
            u.lattice(),
            header.plaquette
        );
        return Ok(u);
    }
    let lat = Lattice::new(s.dims)?;
    let mut u = GaugeField::hot(lat, s.seed)?;
    let mut update = QuenchedUpdate::resume(lat, s.seed, 1);
    let bar = ProgressBar::new(s.sweeps as u64);
    bar.set_style(ProgressStyle::with_template(
        "{bar:40} {pos}/{len} heatbath sweeps, eta {eta}",
    )?);
    for _ in 0..s.sweeps {
        update.sweep(&mut u, s.beta, 4)?;
        bar.inc(1);
    }
    bar.finish_and_clear();
    println!(
        "quenched {lat} at β = {}: {} sweeps from a hot start (seed {})",
        s.beta, s.sweeps, s.seed
    );
    Ok(u)
}
