//! Helpers shared by the examples: command-line flags, and medians of timings taken the way
//! BENCHMARKS.md describes (warm-up first; GPU times from CUDA events around batches of
//! back-to-back launches, so that host launch cost is not counted).

#![allow(dead_code)]

use std::time::Instant;

/// The value after `--name` on the command line.
pub fn flag(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|k| args.get(k + 1))
        .cloned()
}

/// The number after `--name`, or `default`.
pub fn number(name: &str, default: usize) -> usize {
    flag(name)
        .map(|v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name} takes a number, got {v}"))
        })
        .unwrap_or(default)
}

/// True if `--name` is on the command line.
pub fn switch(name: &str) -> bool {
    std::env::args().any(|a| a == name)
}

/// The median of `v` (which must not be empty).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Median host seconds per call of `f`, after `warmup` unmeasured calls.
pub fn host_seconds(
    reps: usize,
    warmup: usize,
    f: &mut dyn FnMut() -> ongpu::Result<()>,
) -> ongpu::Result<f64> {
    for _ in 0..warmup {
        f()?;
    }
    let mut t = Vec::with_capacity(reps);
    for _ in 0..reps.max(1) {
        let s = Instant::now();
        f()?;
        t.push(s.elapsed().as_secs_f64());
    }
    Ok(median(t))
}

/// Median device seconds per call of `f`: CUDA events around `batch` back-to-back calls,
/// `reps` times, after 3 unmeasured calls.
#[cfg(feature = "cuda")]
pub fn device_seconds(
    reps: usize,
    batch: usize,
    f: &mut dyn FnMut() -> ongpu::Result<()>,
) -> ongpu::Result<f64> {
    for _ in 0..3 {
        f()?;
    }
    let mut t = Vec::with_capacity(reps);
    for _ in 0..reps.max(1) {
        let (_, ms) = ongpu::cuda::time_device(|| {
            for _ in 0..batch {
                f()?;
            }
            Ok(())
        })?;
        t.push(ms as f64 / 1e3 / batch as f64);
    }
    Ok(median(t))
}
