//! The Wilson and Wilson-clover Dslash of `ongpu::qcd::wilson` against a hand-written CUDA
//! kernel of the same operator and layout (`reference.cu`), f32 and f64, AoSoA<32> (the
//! library's layout), on L^4 lattices; and the even-odd clover BiCGStab against its operator.
//!
//! The kernels compute `H ψ` on the even sites (`hop`, 1320 flops per site) and `A⁻¹ H ψ`
//! (`hop_clover`, + 504 flops). Bytes per site with no reuse: 8 links, 8 neighbour spinors
//! and one spinor written (360 reals), + 72 reals of clover blocks: 1440 / 1728 B in f32,
//! 2880 / 3456 B in f64. Each kernel is checked element by element against the host
//! operator (f64) before it is timed (CUDA events, warm-up, median of `--reps` batches); the
//! ceiling is the best device copy of the model's bytes. On the CPU backend
//! (`ONGPU_BACKEND=cpu`) the library's kernels run beside the host's parallel copy of the
//! model's bytes and, for `hop`, a hand-vectorised Rust kernel (`cpu_hand.rs`).
//!
//! ```text
//! cargo run --release --example wilson_bench -- [--sizes 32,40] [--real f32,f64] [--reps 10]
//!     [--solver L] [--solver-sweeps N] [--solver-kappa K] [--solver-delta D] [--no-dslash]
//!     [--rhs 1,4,8,12,16]
//! ```
//! `--rhs` (none by default) also times the Dslash on N right-hand sides in one call
//! against N one-spinor calls (`many_rhs.rs`).
//! `--solver L` (default 32, 0 for none) also times the even-odd clover BiCGStab at L^4 in
//! f64 against its operator `M̂` alone, on a quenched β = 6.0 configuration after
//! `--solver-sweeps` (default 40) heatbath sweeps, at `--solver-kappa` (default 0.1330),
//! and the mixed-precision BiCGStab's time to the same residual (reliable updates at
//! `--solver-delta`, default 0.1).

mod check;
#[path = "../common/mod.rs"]
mod common;
mod cpu_hand;
#[cfg(feature = "cuda")]
mod gpu;
mod many_rhs;
mod solver;

use ongpu::prelude::*;
#[cfg(feature = "cuda")]
use ongpu::Backend;

/// The benchmark's errors: ongpu's, a solver's, wrong results.
pub type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

/// One timed kernel.
pub struct Row {
    /// `L` of the L^4 lattice.
    pub l: usize,
    /// `f32` or `f64`.
    pub real: &'static str,
    /// `wilson` or `clover`.
    pub operator: &'static str,
    /// `on_gpu`, `on_cpu`, `hand_written`, `device_copy` or `host_copy`.
    pub kernel: &'static str,
    /// Seconds per call.
    pub seconds: f64,
    /// Flops and model bytes of the call.
    pub flops: f64,
    /// Bytes of the no-reuse model.
    pub bytes: f64,
    /// Largest error against the host, relative to the largest entry (none for the copy).
    pub error: Option<f64>,
}

fn main() -> std::process::ExitCode {
    common::exit_code(run())
}

fn run() -> BenchResult<()> {
    let sizes = common::arg_list("--sizes", &[32, 40]);
    let reals: Vec<String> = common::value("--real")
        .unwrap_or_else(|| "f32,f64".into())
        .split(',')
        .map(str::to_string)
        .collect();
    let reps = common::arg("--reps", 10);
    let solver_l = common::arg("--solver", 32);
    let backend = ongpu::backend()?;
    common::warn_if_checked(backend);
    println!(
        "Wilson and Wilson-clover Dslash on the even sites, AoSoA<32>, on {}",
        common::device_name(backend)
    );
    if !common::switch("--no-dslash") {
        let mut rows = Vec::new();
        for &l in &sizes {
            let problem = check::Problem::new(l, 11)?;
            for real in &reals {
                rows.extend(match (backend, real.as_str()) {
                    #[cfg(feature = "cuda")]
                    (Backend::Cuda, "f32") => gpu::run::<f32>(&problem, reps)?,
                    #[cfg(feature = "cuda")]
                    (Backend::Cuda, "f64") => gpu::run::<f64>(&problem, reps)?,
                    (_, "f32") => check::cpu_run::<f32>(&problem, reps)?,
                    (_, "f64") => check::cpu_run::<f64>(&problem, reps)?,
                    (_, other) => {
                        return Err(format!("--real takes f32 and f64, got {other}").into())
                    }
                });
            }
        }
        print(&rows);
    }
    let counts = common::arg_list("--rhs", &[]);
    if !counts.is_empty() {
        println!("many right-hand sides in one call, on the even sites:");
        many_rhs::run(backend, &sizes, &counts, &reals, reps)?;
    }
    if solver_l > 0 {
        let sweeps = common::arg("--solver-sweeps", 40);
        let kappa = common::value("--solver-kappa").map_or(Ok(0.1330), |k| k.parse())?;
        let delta = common::value("--solver-delta").map_or(Ok(0.1), |d| d.parse())?;
        solver::run(solver_l, reps, sweeps, kappa, delta)?;
    }
    Ok(())
}

/// The table: time, GFLOP/s, GB/s of the model, and ours against the hand-written kernel
/// and the copy.
fn print(rows: &[Row]) {
    println!(
        "{:>4} {:>4} {:>7} {:>13} {:>10} {:>8} {:>8} {:>9} {:>9} {:>9}",
        "L", "real", "op", "kernel", "µs", "GFLOP/s", "GB/s", "max err", "vs hand", "vs copy"
    );
    let find = |r: &Row, kernel: &str| {
        rows.iter()
            .find(|o| {
                o.l == r.l && o.real == r.real && o.operator == r.operator && o.kernel == kernel
            })
            .map(|o| o.seconds)
    };
    for r in rows {
        let ratio = |k: &str| match find(r, k) {
            Some(t) if !r.kernel.ends_with("_copy") => format!("{:.1}%", 100.0 * t / r.seconds),
            _ => "-".to_string(),
        };
        println!(
            "{:>4} {:>4} {:>7} {:>13} {:>10.1} {:>8.0} {:>8.0} {:>9} {:>9} {:>9}",
            r.l,
            r.real,
            r.operator,
            r.kernel,
            r.seconds * 1e6,
            r.flops / r.seconds / 1e9,
            r.bytes / r.seconds / 1e9,
            r.error.map_or("-".to_string(), |e| format!("{e:.1e}")),
            ratio("hand_written"),
            // The device's copy on the GPU, the host's on the CPU backend.
            if r.kernel == "on_cpu" || r.kernel == "hand_written" && find(r, "host_copy").is_some()
            {
                ratio("host_copy")
            } else {
                ratio("device_copy")
            },
        );
    }
}
