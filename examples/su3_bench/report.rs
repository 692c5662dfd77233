//! What the benchmark prints: a table per side (GB/s, GFLOP/s, ratios), CSV rows, and an SVG
//! plot of GB/s against sites for each variant.

use plotters::prelude::*;

/// Floating-point operations per site of `x += y * z` (9 entries × 3 complex multiply-adds
/// of 8 flops), for f32 and f64 alike.
pub const FLOPS_PER_SITE: f64 = 216.0;

/// Where a measurement ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// On the CUDA device.
    Gpu,
    /// On rayon threads.
    Cpu,
}

/// What was timed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    /// `on_gpu!(n, tpb, { x += y * z; })`.
    Ours,
    /// The hand-written kernel of `reference.cu`.
    Hand,
    /// The hand-written AoS kernel that stages a block's sites through shared memory.
    HandStaged,
    /// A copy that reads and writes 2 elements a site, timed as counted (`cuMemcpyDtoD`, or
    /// the host's parallel copy): the earlier ceiling.
    Copy,
    /// The ceiling: on the GPU the faster of `cuMemcpyDtoD` and the tuned copy kernel; on
    /// the host a copy that really moves 4 elements a site (with the read of each stored
    /// line that write-allocate caches make, 4/3 of an element read and written a site).
    Ceiling,
}

impl Kernel {
    fn name(self, side: Side) -> &'static str {
        match (self, side) {
            (Kernel::Ours, _) => "on_gpu",
            (Kernel::Hand, _) => "hand_written",
            (Kernel::HandStaged, _) => "hand_staged",
            (Kernel::Copy, Side::Gpu) => "device_copy",
            (Kernel::Copy, Side::Cpu) => "host_copy",
            (Kernel::Ceiling, Side::Gpu) => "copy_ceiling",
            (Kernel::Ceiling, Side::Cpu) => "host_copy_write_allocate",
        }
    }
}

/// One timed case.
#[derive(Debug, Clone)]
pub struct Measurement {
    pub side: Side,
    pub real: &'static str,
    pub layout: String,
    pub n: usize,
    /// Bytes of one element (72 for f32, 144 for f64).
    pub element_bytes: usize,
    pub kernel: Kernel,
    /// Median seconds per call.
    pub seconds: f64,
    /// ‖out − ref‖ / ‖ref‖ of the checked result.
    pub rel_err: Option<f64>,
}

impl Measurement {
    /// GB/s counting 4 elements a site (read x, y, z; write x) for every kernel.
    pub fn gb_per_s(&self) -> f64 {
        4.0 * self.element_bytes as f64 * self.n as f64 / self.seconds / 1e9
    }

    /// GFLOP/s at 216 flops a site.
    pub fn gflop_per_s(&self) -> f64 {
        FLOPS_PER_SITE * self.n as f64 / self.seconds / 1e9
    }
}

fn find<'a>(ms: &'a [Measurement], like: &Measurement, kernel: Kernel) -> Option<&'a Measurement> {
    ms.iter().find(|m| {
        m.side == like.side
            && m.real == like.real
            && m.layout == like.layout
            && m.n == like.n
            && m.kernel == kernel
    })
}

fn log2(n: usize) -> String {
    if n.is_power_of_two() {
        format!("2^{}", n.trailing_zeros())
    } else {
        n.to_string()
    }
}

/// The table of one side.
pub fn table(ms: &[Measurement], side: Side) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let ours: Vec<&Measurement> = ms
        .iter()
        .filter(|m| m.side == side && m.kernel == Kernel::Ours)
        .collect();
    if ours.is_empty() {
        return s;
    }
    match side {
        Side::Gpu => {
            let _ = writeln!(
                s,
                "| T | layout | sites | on_gpu! GB/s | GFLOP/s | hand-written GB/s | ceiling GB/s | ours/hand | ours/ceiling | ours/cuMemcpyDtoD | error ours | error hand |"
            );
            let _ = writeln!(
                s,
                "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
            );
        }
        Side::Cpu => {
            let _ = writeln!(
                s,
                "| T | layout | sites | on_gpu! GB/s | GFLOP/s | hand-vectorised GB/s | ceiling GB/s | ours/hand | ours/ceiling | ours/copy as counted | error |"
            );
            let _ = writeln!(s, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        }
    }
    let err = |m: Option<&Measurement>| {
        m.and_then(|m| m.rel_err)
            .map_or("-".to_string(), |e| format!("{e:.1e}"))
    };
    let gbs =
        |m: Option<&Measurement>| m.map_or("-".to_string(), |m| format!("{:.0}", m.gb_per_s()));
    let pct = |a: &Measurement, b: Option<&Measurement>| {
        b.map_or("-".to_string(), |b| {
            format!("{:.1}%", 100.0 * b.seconds / a.seconds)
        })
    };
    for m in ours {
        // The faster hand-written kernel (in AoS the staged one, where it ran).
        let hand = [Kernel::Hand, Kernel::HandStaged]
            .into_iter()
            .filter_map(|k| find(ms, m, k))
            .min_by(|a, b| a.seconds.total_cmp(&b.seconds));
        let copy = find(ms, m, Kernel::Copy);
        let ceiling = find(ms, m, Kernel::Ceiling);
        let head = format!(
            "| {} | {} | {} | {:.0} | {:.0} |",
            m.real,
            m.layout,
            log2(m.n),
            m.gb_per_s(),
            m.gflop_per_s()
        );
        let _ = match side {
            Side::Gpu => writeln!(
                s,
                "{head} {} | {} | {} | {} | {} | {} | {} |",
                gbs(hand),
                gbs(ceiling),
                pct(m, hand),
                pct(m, ceiling),
                pct(m, copy),
                err(Some(m)),
                err(hand)
            ),
            Side::Cpu => writeln!(
                s,
                "{head} {} | {} | {} | {} | {} | {} |",
                gbs(hand),
                gbs(ceiling),
                pct(m, hand),
                pct(m, ceiling),
                pct(m, copy),
                err(Some(m))
            ),
        };
    }
    s
}

/// CSV, one row per measurement.
pub fn csv(ms: &[Measurement]) -> String {
    let mut s = String::from(
        "side,real,layout,log2_sites,sites,kernel,seconds,gb_per_s,gflop_per_s,rel_err\n",
    );
    for m in ms {
        s.push_str(&format!(
            "{},{},{},{},{},{},{:.6e},{:.1},{:.1},{}\n",
            match m.side {
                Side::Gpu => "gpu",
                Side::Cpu => "cpu",
            },
            m.real,
            m.layout,
            m.n.ilog2(),
            m.n,
            m.kernel.name(m.side),
            m.seconds,
            m.gb_per_s(),
            m.gflop_per_s(),
            m.rel_err.map_or(String::new(), |e| format!("{e:.3e}"))
        ));
    }
    s
}

/// Writes an SVG of GB/s against sites: one panel per side, one line per variant (solid:
/// on_gpu!, dashed: hand-written, grey: the copy ceiling).
pub fn svg(ms: &[Measurement], path: &str, title: &str) -> Result<(), Box<dyn std::error::Error>> {
    let sides: Vec<Side> = [Side::Gpu, Side::Cpu]
        .into_iter()
        .filter(|s| ms.iter().any(|m| m.side == *s))
        .collect();
    if sides.is_empty() {
        return Err("nothing was measured".into());
    }
    let root = SVGBackend::new(path, (1000, 560 * sides.len() as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    let panels = root.split_evenly((sides.len(), 1));
    for (panel, side) in panels.iter().zip(&sides) {
        let mine: Vec<&Measurement> = ms.iter().filter(|m| m.side == *side).collect();
        let lo = mine.iter().map(|m| m.n.ilog2()).min().unwrap_or(0) as f64;
        let hi = mine.iter().map(|m| m.n.ilog2()).max().unwrap_or(1) as f64;
        let top = mine.iter().map(|m| m.gb_per_s()).fold(1.0, f64::max) * 1.1;
        let name = match side {
            Side::Gpu => "GPU",
            Side::Cpu => "CPU",
        };
        let mut chart = ChartBuilder::on(panel)
            .caption(format!("{title}: {name}"), ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d((lo - 0.2)..(hi + 0.2), 0.0..top)?;
        chart
            .configure_mesh()
            .x_desc("sites")
            .y_desc("GB/s (4 elements per site)")
            .x_label_formatter(&|x| format!("2^{}", x.round() as i64))
            .draw()?;
        // One colour per (precision, layout).
        let mut variants: Vec<(&str, &str)> = Vec::new();
        for m in &mine {
            if !variants.contains(&(m.real, m.layout.as_str())) {
                variants.push((m.real, m.layout.as_str()));
            }
        }
        for (k, (real, layout)) in variants.iter().enumerate() {
            let color = Palette99::pick(k).to_rgba();
            for kernel in [
                Kernel::Ours,
                Kernel::Hand,
                Kernel::HandStaged,
                Kernel::Copy,
                Kernel::Ceiling,
            ] {
                let mut points: Vec<(f64, f64)> = mine
                    .iter()
                    .filter(|m| m.real == *real && m.layout == *layout && m.kernel == kernel)
                    .map(|m| (m.n.ilog2() as f64, m.gb_per_s()))
                    .collect();
                points.sort_by(|a, b| a.0.total_cmp(&b.0));
                if points.is_empty() {
                    continue;
                }
                let label = format!("{real} {layout} {}", kernel.name(*side));
                match kernel {
                    Kernel::Ours => chart
                        .draw_series(LineSeries::new(points, color.stroke_width(2)))?
                        .label(label)
                        .legend(move |(x, y)| {
                            PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                        }),
                    Kernel::Hand | Kernel::HandStaged => chart
                        .draw_series(DashedLineSeries::new(points, 6, 4, color.stroke_width(1)))?
                        .label(label)
                        .legend(move |(x, y)| {
                            PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(1))
                        }),
                    Kernel::Copy | Kernel::Ceiling => {
                        let grey = if kernel == Kernel::Copy {
                            RGBColor(190, 190, 190)
                        } else {
                            RGBColor(110, 110, 110)
                        };
                        chart
                            .draw_series(LineSeries::new(points, grey.stroke_width(1)))?
                            .label(label)
                            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], grey))
                    }
                };
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
    }
    root.present()?;
    Ok(())
}
