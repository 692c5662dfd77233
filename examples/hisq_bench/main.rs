//! The HISQ Dslash of `ongpu::qcd::hisq` against a hand-written CUDA kernel of the same
//! operator and layout (`reference.cu`), f32 and f64, on L^4 lattices; and the multi-shift
//! CG (8 shifts) against its operator.
//!
//! The links are those of a smooth random gauge field smeared by the library (fat and Naik
//! links, phases folded in), rounded to the precision run. The kernels compute `D ψ` on the
//! even sites (1146 flops per site, the count MILC and QUDA use). Bytes per site with no
//! reuse: 16 links, 16 neighbour vectors and one vector written (1254 reals: 5016 B in f32,
//! 10032 B in f64). Each kernel is checked at every even site against the hop computed on
//! the host in f64 from the same rounded inputs before it is timed (CUDA events, warm-up,
//! median of `--reps` batches); the ceiling is the best device copy of the model's bytes.
//!
//! ```text
//! cargo run --release --example hisq_bench -- [--size 32] [--real f32,f64] [--reps 10]
//!     [--solve L] [--iterations 200]
//! ```
//! `--solve L` (default 32, 0 for none) times the multi-shift CG with 8 shifts in f64 on
//! L^4 against the operator `A = m² − D_eo D_oe` alone: the Dslash's GFLOP/s of its two hops
//! timed on their own, and the same count over the solve's applications per second of the
//! solve (which adds the linear algebra of 8 shifts and two host waits per iteration).

#[path = "../common/mod.rs"]
mod common;
mod data;
#[cfg(feature = "cuda")]
mod gpu;
mod solve;

use data::{Prec, Problem};
use ongpu::prelude::*;
use ongpu::Backend;

/// The benchmark's errors: ongpu's, a solver's, wrong results.
pub type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

/// One timed kernel: name, seconds per call, largest error (none for the copy).
pub struct Row {
    /// `on_gpu`, `hand_written`, `device_copy`, `on_cpu`.
    pub kernel: &'static str,
    /// Seconds per call.
    pub seconds: f64,
    /// Largest error against the host, relative to the largest entry.
    pub error: Option<f64>,
}

fn main() -> std::process::ExitCode {
    common::exit_code(run())
}

fn run() -> BenchResult<()> {
    let l = common::arg("--size", 32);
    let reals: Vec<String> = common::value("--real")
        .unwrap_or_else(|| "f32,f64".into())
        .split(',')
        .map(str::to_string)
        .collect();
    let reps = common::arg("--reps", 10);
    let backend = ongpu::backend()?;
    common::warn_if_checked(backend);
    println!(
        "HISQ Dslash on the even sites of {l}^4, AoSoA<32>, on {}",
        common::device_name(backend)
    );
    let p = Problem::new(l, 5)?;
    println!(
        "{:>4} {:>13} {:>10} {:>9} {:>8} {:>9} {:>9} {:>9}",
        "real", "kernel", "µs", "GFLOP/s", "GB/s", "max err", "vs hand", "vs copy"
    );
    for real in &reals {
        let rows = match (backend, real.as_str()) {
            #[cfg(feature = "cuda")]
            (Backend::Cuda, "f32") => gpu::run::<f32>(&p, reps)?,
            #[cfg(feature = "cuda")]
            (Backend::Cuda, "f64") => gpu::run::<f64>(&p, reps)?,
            (_, "f32") => cpu_run::<f32>(&p, reps)?,
            (_, "f64") => cpu_run::<f64>(&p, reps)?,
            (_, other) => return Err(format!("--real takes f32 and f64, got {other}").into()),
        };
        print(real, &p, &rows);
    }
    let solve_l = common::arg("--solve", 32);
    if solve_l > 0 {
        solve::run(solve_l, common::arg("--iterations", 200), reps)?;
    }
    Ok(())
}

/// The library's kernel on the CPU backend: checked, then timed.
fn cpu_run<T: Prec>(p: &Problem, reps: usize) -> BenchResult<Vec<Row>>
where
    ColorVector<T>: ongpu::Element,
    ColorMatrix<T>: ongpu::Element,
    [ColorMatrix<T>; 4]: ongpu::Element,
{
    let (fat, naik, psi) = (p.fat::<T>(), p.naik::<T>(), p.psi::<T>());
    let mut chi = p.poisoned::<T>();
    let ours = |chi: &mut _| ongpu::qcd::hisq::hop(p.lat.even(), &fat, &naik, &psi, chi);
    ours(&mut chi)?;
    let err = p.check("on_cpu", &chi)?;
    let t = common::time(Backend::Cpu, reps, || ours(&mut chi))?;
    Ok(vec![Row {
        kernel: "on_cpu",
        seconds: t,
        error: Some(err),
    }])
}

/// The rows of one precision: time, GFLOP/s, GB/s of the model, ratios.
fn print(real: &str, p: &Problem, rows: &[Row]) {
    let size = if real == "f32" { 4.0 } else { 8.0 };
    let sites = (p.lat.volume() / 2) as f64;
    let find = |k: &str| rows.iter().find(|r| r.kernel == k).map(|r| r.seconds);
    for r in rows {
        let ratio =
            |k: &str| find(k).map_or("-".into(), |t| format!("{:.1}%", 100.0 * t / r.seconds));
        println!(
            "{:>4} {:>13} {:>10.1} {:>9.0} {:>8.0} {:>9} {:>9} {:>9}",
            real,
            r.kernel,
            r.seconds * 1e6,
            sites * ongpu::qcd::hisq::HOP_FLOPS / r.seconds * 1e-9,
            sites * data::MODEL_REALS * size / r.seconds * 1e-9,
            r.error.map_or("-".into(), |e| format!("{e:.1e}")),
            ratio("hand_written"),
            ratio("device_copy"),
        );
    }
}
