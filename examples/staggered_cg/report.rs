//! What the example prints: the solve (iterations, residuals, time per iteration,
//! GFLOP/s), the Dslash alone measured in the same run and the ratio of the two rates, and
//! per pass its time, GB/s (no-reuse model), GFLOP/s and share of the solve's time.

use crate::bench::PassSeconds;
use crate::common;
use crate::options::{GaugeKind, Options, Sloppy};
use ongpu::prelude::*;
use ongpu::qcd::solver::Solution;
use ongpu::qcd::staggered::passes::{
    APPLY_AND_REDUCE_BYTES, APPLY_AND_REDUCE_FLOPS, HOP_BYTES, HOP_FLOPS, UPDATE_BYTES,
    UPDATE_FLOPS,
};
use ongpu::qcd::staggered::PassCounts;

/// Everything one run measured.
pub struct Measured<'a> {
    /// The command line.
    pub opts: &'a Options,
    /// The lattice.
    pub lat: Lattice,
    /// Where the fields live (the lattice, or one rank's part of it cut over ranks).
    pub space: String,
    /// What it ran on.
    pub device: String,
    /// The last timed solve.
    pub solution: Solution,
    /// The passes it ran.
    pub passes_run: PassCounts,
    /// Seconds of each timed solve.
    pub solve_seconds: Vec<f64>,
    /// `|b − A x| / |b|` of the host operator.
    pub host_residual: f64,
    /// The passes timed on their own.
    pub passes: PassSeconds,
}

/// Prints the report.
pub fn print(m: &Measured) {
    let o = m.opts;
    let half = (m.lat.volume() / 2) as f64;
    let d = m.lat.extents();
    let s = &m.solution;
    println!(
        "staggered CG, even-odd (m² − D_eo D_oe) x_e = b_e, f64, {}x{}x{}x{} ({} even sites), \
         mass {}, tol {:e}, {} links",
        d[0],
        d[1],
        d[2],
        d[3],
        half,
        o.mass,
        o.tol,
        match o.gauge {
            GaugeKind::Random => "random SU(3)",
            GaugeKind::Smooth => "smooth SU(3)",
        }
    );
    println!("device: {}; space: {}", m.device, m.space);
    println!(
        "solve: {} iterations, {} restarts; |b − A x|/|b| = {:.2e} (solver), {:.2e} (host check)",
        s.iterations, s.restarts, s.relative_residual, m.host_residual
    );
    let t = common::median(m.solve_seconds.clone());
    let t_min = m
        .solve_seconds
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min);
    let flops = m.passes_run.flops(&m.lat);
    let cg_gflops = flops / t / 1e9;
    println!(
        "solve time: {:.3} ms (median of {}, min {:.3} ms), {:.1} us per iteration, {:.1} GFLOP/s \
         ({:.3e} flops counted)",
        t * 1e3,
        m.solve_seconds.len(),
        t_min * 1e3,
        t / s.iterations.max(1) as f64 * 1e6,
        cg_gflops,
        flops
    );
    let dslash_gflops = 2.0 * HOP_FLOPS * half / m.passes.dslash / 1e9;
    println!(
        "Dslash alone (D_oe then D_eo, no linear algebra): {:.1} us, {:.1} GFLOP/s, {:.0} GB/s",
        m.passes.dslash * 1e6,
        dslash_gflops,
        2.0 * HOP_BYTES * half / m.passes.dslash / 1e9
    );
    println!(
        "CG GFLOP/s / Dslash GFLOP/s: {:.1}% (target at 32^4 f64 on an H200: >= 85%)",
        100.0 * cg_gflops / dslash_gflops
    );
    println!(
        "{:<32} {:>6} {:>10} {:>8} {:>8} {:>8}",
        "pass (timed alone)", "runs", "us/run", "GB/s", "GFLOP/s", "share"
    );
    let rows = [
        (
            "hop: t = D_oe r (odd)",
            m.passes_run.hop,
            m.passes.hop,
            HOP_BYTES,
            HOP_FLOPS,
        ),
        (
            "w = A r, |r|², <r,w> (even)",
            m.passes_run.apply_and_reduce,
            m.passes.apply_and_reduce,
            APPLY_AND_REDUCE_BYTES,
            APPLY_AND_REDUCE_FLOPS,
        ),
        (
            "update p s x r (even)",
            m.passes_run.update,
            m.passes.update,
            UPDATE_BYTES,
            UPDATE_FLOPS,
        ),
    ];
    let mut accounted = 0.0;
    for (name, runs, sec, bytes, fl) in rows {
        accounted += runs as f64 * sec;
        println!(
            "{:<32} {:>6} {:>10.1} {:>8.0} {:>8.1} {:>7.1}%",
            name,
            runs,
            sec * 1e6,
            bytes * half / sec / 1e9,
            fl * half / sec / 1e9,
            100.0 * runs as f64 * sec / t
        );
    }
    println!(
        "{:<32} {:>6} {:>10} {:>8} {:>8} {:>7.1}%",
        "rest (set-up, residual, waits)",
        m.passes_run.residual + m.passes_run.norm + m.passes_run.setup,
        "-",
        "-",
        "-",
        100.0 * (t - accounted) / t
    );
}

/// The mixed-precision solve's line: iterations, reliable updates, the host check, and its
/// time to solution against the f64 CG's (medians of the same number of solves).
pub fn print_mixed(
    sloppy: Sloppy,
    m: &Solution,
    host_residual: f64,
    seconds: &[f64],
    f64_solution: &Solution,
    f64_seconds: &[f64],
) {
    let (t, t64) = (
        common::median(seconds.to_vec()),
        common::median(f64_seconds.to_vec()),
    );
    println!(
        "mixed-precision CG, inner {}: {} iterations ({} in f64), {} reliable updates, {} \
         restarts; |b − A x|/|b| = {:.2e} (solver), {:.2e} (host check)",
        match sloppy {
            Sloppy::F32 => "f32 vectors, 12-real f32 links",
            Sloppy::F16 => "f16 vectors, 12-real f16 links",
            Sloppy::Bf16 => "bf16 vectors, 12-real bf16 links",
        },
        m.iterations,
        f64_solution.iterations,
        m.reliable_updates,
        m.restarts,
        m.relative_residual,
        host_residual
    );
    println!(
        "time to solution: mixed {:.3} ms, f64 {:.3} ms (medians of {}): {:.2}x faster",
        t * 1e3,
        t64 * 1e3,
        seconds.len(),
        t64 / t
    );
}

/// The CG with device scalars beside the CG's (iterations, host looks, time to solution).
pub fn print_device_scalars(
    d: &Solution,
    looks: usize,
    host_residual: f64,
    seconds: &[f64],
    cg_solution: &Solution,
    cg_seconds: &[f64],
) {
    let (t, t_cg) = (
        common::median(seconds.to_vec()),
        common::median(cg_seconds.to_vec()),
    );
    println!(
        "CG with device scalars: {} iterations ({} by the CG), {} looks at |r|², {} restarts; \
         |b − A x|/|b| = {:.2e} (solver), {:.2e} (host check)",
        d.iterations, cg_solution.iterations, looks, d.restarts, d.relative_residual, host_residual
    );
    println!(
        "time to solution: device scalars {:.3} ms, CG {:.3} ms (medians of {}): {:.2}x \
         faster ({:.1} us per iteration)",
        t * 1e3,
        t_cg * 1e3,
        seconds.len(),
        t_cg / t,
        t * 1e6 / d.iterations.max(1) as f64
    );
}
