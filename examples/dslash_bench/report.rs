//! What the benchmark prints: one row per kernel with GB/s (no-reuse model), GFLOP/s and the
//! ratios to the hand-written kernel and the copy; CSV; an SVG of GB/s against the extent.

use crate::data::{Prec, Problem};
use crate::{BenchResult, FLOPS_PER_SITE};
use ongpu::Layout;
use plotters::prelude::*;

/// One measurement.
#[derive(Debug, Clone)]
pub struct Row {
    pub side: &'static str,
    pub kernel: &'static str,
    pub real: &'static str,
    pub layout: String,
    pub l: usize,
    pub seconds: f64,
    /// Bytes of the no-reuse model.
    pub bytes: usize,
    pub even_sites: usize,
    pub max_err: Option<f64>,
}

impl Row {
    /// A row of `kernel` on `p`. A copy moves the model's bytes (half read, half written).
    pub fn new<T: Prec, L: Layout>(
        side: &'static str,
        kernel: &'static str,
        p: &Problem,
        seconds: f64,
        max_err: Option<f64>,
    ) -> Row {
        Row {
            side,
            kernel,
            real: T::NAME,
            layout: L::name(),
            l: p.l,
            seconds,
            bytes: p.model_bytes::<T>(),
            even_sites: p.lat.volume() / 2,
            max_err,
        }
    }

    fn gbs(&self) -> f64 {
        self.bytes as f64 / self.seconds / 1e9
    }

    fn gflops(&self) -> f64 {
        self.even_sites as f64 * FLOPS_PER_SITE / self.seconds / 1e9
    }

    fn same_case(&self, o: &Row) -> bool {
        self.side == o.side && self.real == o.real && self.layout == o.layout && self.l == o.l
    }
}

fn seconds_of(rows: &[Row], r: &Row, kernel: &str) -> Option<f64> {
    rows.iter()
        .find(|o| o.kernel == kernel && o.same_case(r))
        .map(|o| o.seconds)
}

/// The table.
pub fn print(rows: &[Row]) {
    println!(
        "{:<4} {:<4} {:<11} {:>3} {:<13} {:>10} {:>9} {:>9} {:>8} {:>8} {:>9}",
        "side",
        "real",
        "layout",
        "L",
        "kernel",
        "time_us",
        "GB/s",
        "GFLOP/s",
        "vs_hand",
        "vs_copy",
        "max_err"
    );
    for r in rows {
        let ratio = |k| {
            seconds_of(rows, r, k).map_or("-".to_string(), |t| {
                format!("{:.1}%", 100.0 * t / r.seconds)
            })
        };
        println!(
            "{:<4} {:<4} {:<11} {:>3} {:<13} {:>10.1} {:>9.0} {:>9.0} {:>8} {:>8} {:>9}",
            r.side,
            r.real,
            r.layout,
            r.l,
            r.kernel,
            r.seconds * 1e6,
            r.gbs(),
            r.gflops(),
            ratio("hand_written"),
            ratio(if r.side == "gpu" {
                "device_copy"
            } else {
                "host_copy"
            }),
            r.max_err.map_or("-".to_string(), |e| format!("{e:.1e}")),
        );
    }
}

/// CSV of every row.
pub fn csv(rows: &[Row]) -> String {
    let mut s = String::from("side,real,layout,L,kernel,seconds,gb_per_s,gflop_per_s,max_err\n");
    for r in rows {
        s.push_str(&format!(
            "{},{},{},{},{},{:.9},{:.1},{:.1},{}\n",
            r.side,
            r.real,
            r.layout,
            r.l,
            r.kernel,
            r.seconds,
            r.gbs(),
            r.gflops(),
            r.max_err.map_or(String::new(), |e| format!("{e:.3e}"))
        ));
    }
    s
}

/// GB/s against L, one line per (real, layout, kernel), one panel per side.
pub fn svg(rows: &[Row], path: &str) -> BenchResult<()> {
    let sides: Vec<&str> = ["gpu", "cpu"]
        .into_iter()
        .filter(|s| rows.iter().any(|r| r.side == *s))
        .collect();
    let root = SVGBackend::new(path, (1000, 520 * sides.len() as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    for (panel, side) in root.split_evenly((sides.len(), 1)).iter().zip(&sides) {
        let mine: Vec<&Row> = rows.iter().filter(|r| r.side == *side).collect();
        let lmax = mine.iter().map(|r| r.l).max().unwrap_or(1) as f64;
        let lmin = mine.iter().map(|r| r.l).min().unwrap_or(1) as f64;
        let gmax = mine.iter().map(|r| r.gbs()).fold(0.0, f64::max) * 1.1;
        let mut chart = ChartBuilder::on(panel)
            .caption(
                format!("staggered Dslash, {side}: GB/s (no-reuse model) against L (L^4)"),
                ("sans-serif", 18),
            )
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(60)
            .build_cartesian_2d(lmin - 2.0..lmax + 2.0, 0.0..gmax.max(1.0))?;
        chart.configure_mesh().x_desc("L").y_desc("GB/s").draw()?;
        let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
        for r in &mine {
            let name = format!("{} {} {}", r.real, r.layout, r.kernel);
            match series.iter_mut().find(|(n, _)| *n == name) {
                Some((_, pts)) => pts.push((r.l as f64, r.gbs())),
                None => series.push((name, vec![(r.l as f64, r.gbs())])),
            }
        }
        for (k, (name, pts)) in series.into_iter().enumerate() {
            let color = Palette99::pick(k).to_rgba();
            chart
                .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))?
                .label(name)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color));
            chart.draw_series(pts.into_iter().map(|p| Circle::new(p, 3, color.filled())))?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .position(SeriesLabelPosition::LowerRight)
            .draw()?;
    }
    root.present()?;
    Ok(())
}
