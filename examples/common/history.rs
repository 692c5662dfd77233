//! The plaquette history on disk: a CSV table and an SVG plot (of a Markov chain's sweeps,
//! or of HMC trajectories: `unit` names the step).

use plotters::prelude::*;
use std::io::Write;

/// One measurement: after which step, in which phase, the plaquette.
pub struct Point {
    /// Sweep (or trajectory) number, from 1.
    pub sweep: usize,
    /// True while thermalising.
    pub thermalising: bool,
    /// The mean plaquette after the sweep.
    pub plaquette: f64,
}

/// `UNIT,phase,plaquette` lines.
pub fn csv(points: &[Point], unit: &str, path: &str) -> std::io::Result<()> {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    writeln!(f, "{unit},phase,plaquette")?;
    for p in points {
        let phase = if p.thermalising { "therm" } else { "measure" };
        writeln!(f, "{},{phase},{:.12}", p.sweep, p.plaquette)?;
    }
    f.flush()
}

/// The history as a line, thermalisation in grey, with the final mean as a band.
pub fn svg(
    points: &[Point],
    unit: &str,
    title: &str,
    mean: f64,
    error: f64,
    path: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::new(path, (1000, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let last = points.last().map_or(1, |p| p.sweep) as f64;
    let measured = points.iter().filter(|p| !p.thermalising);
    let (lo, hi) = measured.fold((f64::MAX, f64::MIN), |(lo, hi), p| {
        (lo.min(p.plaquette), hi.max(p.plaquette))
    });
    let (lo, hi) = if lo <= hi { (lo, hi) } else { (0.0, 1.0) };
    let pad = (hi - lo).max(1e-4) * 0.5;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..last, lo - pad..hi + pad)?;
    chart
        .configure_mesh()
        .x_desc(unit)
        .y_desc("plaquette")
        .draw()?;
    let line = |therm: bool| {
        points
            .iter()
            .filter(move |p| p.thermalising == therm)
            .map(|p| (p.sweep as f64, p.plaquette))
    };
    chart.draw_series(LineSeries::new(line(true), BLACK.mix(0.3)))?;
    chart
        .draw_series(LineSeries::new(line(false), BLUE))?
        .label("measured")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], BLUE));
    for y in [mean - error, mean + error] {
        chart.draw_series(LineSeries::new(vec![(0.0, y), (last, y)], RED))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}
