//! The effective mass as an SVG plot.

use plotters::prelude::*;

/// `m_eff(t)` as points joined by a line (NaN values, where the correlator admits no mass,
/// left out).
pub fn svg(meff: &[f64], title: &str, path: &str) -> Result<(), Box<dyn std::error::Error>> {
    let points: Vec<(f64, f64)> = meff
        .iter()
        .enumerate()
        .filter(|(_, m)| m.is_finite())
        .map(|(t, &m)| (t as f64, m))
        .collect();
    let (lo, hi) = points
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), &(_, m)| {
            (lo.min(m), hi.max(m))
        });
    let (lo, hi) = if lo <= hi { (lo, hi) } else { (0.0, 1.0) };
    let pad = (hi - lo).max(1e-3) * 0.1;
    let root = SVGBackend::new(path, (800, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(60)
        .build_cartesian_2d(-0.5..meff.len() as f64 - 0.5, (lo - pad).max(0.0)..hi + pad)?;
    chart
        .configure_mesh()
        .x_desc("t")
        .y_desc("a m_eff(t)")
        .draw()?;
    chart.draw_series(LineSeries::new(points.iter().copied(), BLUE))?;
    chart.draw_series(points.iter().map(|&p| Circle::new(p, 4, BLUE.filled())))?;
    root.present()?;
    Ok(())
}
