//! A quantity per time slice as an SVG plot (the effective masses and ratios of the
//! spectroscopy examples).

use plotters::prelude::*;

/// `values[t]` as points joined by a line, the axis named `y_desc` (NaN values, such as
/// times where a correlator admits no mass, left out).
pub fn svg(
    values: &[f64],
    title: &str,
    y_desc: &str,
    path: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    let points: Vec<(f64, f64)> = values
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
        .build_cartesian_2d(
            -0.5..values.len() as f64 - 0.5,
            (lo - pad).max(0.0)..hi + pad,
        )?;
    chart.configure_mesh().x_desc("t").y_desc(y_desc).draw()?;
    chart.draw_series(LineSeries::new(points.iter().copied(), BLUE))?;
    chart.draw_series(points.iter().map(|&p| Circle::new(p, 4, BLUE.filled())))?;
    root.present()?;
    Ok(())
}
