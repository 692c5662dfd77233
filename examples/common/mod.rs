//! Helpers shared by the examples: command-line flags, and timing: on the GPU with
//! CUDA events around batches of back-to-back launches (after a warm-up launch, which also
//! compiles the kernel), the median of several batches; on the CPU with host clocks.

#![allow(dead_code)]

#[cfg(feature = "cuda")]
pub mod ceiling;
#[cfg(feature = "qcd")]
pub mod chain;
#[cfg(feature = "qcd")]
pub mod configuration;
pub mod history;
pub mod plot;
pub mod prec;

use ongpu::Backend;
use std::time::Instant;

/// The value of `--name N`, or `default`.
pub fn arg(name: &str, default: usize) -> usize {
    value(name)
        .map(|v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name} takes a number, got {v}"))
        })
        .unwrap_or(default)
}

/// The value of `--name X` as a real, or `default`; an error naming the flag if it is not one.
pub fn arg_f64(name: &str, default: f64) -> Result<f64, String> {
    match value(name) {
        Some(v) => v.parse().map_err(|e| format!("{name} {v}: {e}")),
        None => Ok(default),
    }
}

/// The lattice extents of `--dims X,Y,Z,T`, else `--size L` for L^4 (`default_size` without
/// either).
pub fn dims_arg(default_size: usize) -> Result<[usize; 4], String> {
    match value("--dims") {
        Some(d) => parse_dims(&d),
        None => Ok([arg("--size", default_size); 4]),
    }
}

/// The values of `--name A,B,C`, or `default`.
pub fn arg_list(name: &str, default: &[usize]) -> Vec<usize> {
    value(name)
        .map(|v| {
            v.split(',')
                .map(|x| {
                    x.trim().parse().unwrap_or_else(|_| {
                        panic!("{name} takes numbers separated by commas, got {v}")
                    })
                })
                .collect()
        })
        .unwrap_or_else(|| default.to_vec())
}

/// The value after `--name`, if the flag is given.
pub fn value(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).map(|k| {
        args.get(k + 1)
            .cloned()
            .unwrap_or_else(|| panic!("{name} needs a value"))
    })
}

/// True if `--name` is on the command line.
pub fn switch(name: &str) -> bool {
    std::env::args().any(|a| a == name)
}

/// The median of `v` (not empty).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// What the examples run on, for their headers.
pub fn device_name(backend: Backend) -> String {
    match backend {
        #[cfg(feature = "cuda")]
        Backend::Cuda => ongpu::cuda::device()
            .map(|d| d.info().name.clone())
            .unwrap_or_else(|_| "unknown GPU".into()),
        _ => format!(
            "host CPU, {} threads",
            std::thread::available_parallelism().map_or(1, |n| n.get())
        ),
    }
}

/// Streaming multiprocessors of the GPU (grids are sized in waves of them); `None` on the CPU.
pub fn sm_count(backend: Backend) -> Option<usize> {
    match backend {
        #[cfg(feature = "cuda")]
        Backend::Cuda => ongpu::cuda::device()
            .ok()
            .map(|d| d.info().sm_count as usize),
        _ => None,
    }
}

/// Says so when bounds checks make the GPU timings meaningless.
pub fn warn_if_checked(backend: Backend) {
    if backend == Backend::Cuda && ongpu::bounds_checks().unwrap_or(false) {
        eprintln!(
            "note: GPU bounds checks are on (a debug build, or ONGPU_CHECK_BOUNDS=1): each launch \
             waits for its report, so these times are not the kernels' (build with --release)"
        );
    }
}

/// Seconds per call of `f`: after one warm-up call, the median of `reps` timings, each of a
/// batch of back-to-back calls long enough (about 20 ms) for the timer's resolution.
pub fn time(
    backend: Backend,
    reps: usize,
    mut f: impl FnMut() -> ongpu::Result<()>,
) -> ongpu::Result<f64> {
    time_agreed(backend, reps, &|batch| batch, &mut f)
}

/// [`time`] with the batch size passed through `agree` (the largest over the ranks of an
/// MPI run, so that every rank makes the same calls: each exchanges halos with others).
pub fn time_agreed(
    backend: Backend,
    reps: usize,
    agree: &dyn Fn(usize) -> usize,
    f: &mut dyn FnMut() -> ongpu::Result<()>,
) -> ongpu::Result<f64> {
    time_batches(reps, agree, &mut |f| timed(backend, f), f)
}

/// [`time`] for calls that span several devices (a lattice split over GPUs, whose events
/// would time one of them): the host clock between two `sync`s of them all.
pub fn time_spanning(
    reps: usize,
    sync: &dyn Fn() -> ongpu::Result<()>,
    f: &mut dyn FnMut() -> ongpu::Result<()>,
) -> ongpu::Result<f64> {
    let mut clock = |f: &mut dyn FnMut() -> ongpu::Result<()>| {
        sync()?;
        let start = Instant::now();
        f()?;
        sync()?;
        Ok(start.elapsed().as_secs_f64())
    };
    time_batches(reps, &|batch| batch, &mut clock, f)
}

/// How a program times calls on its space: CUDA events on one GPU (batch sizes agreed by
/// every rank of an MPI run, which make the same calls), or the host clock between
/// synchronisations of every GPU when the calls `span` several (a split lattice).
pub struct Timing<'a> {
    pub backend: Backend,
    /// The batch size every rank of an MPI run uses (the identity in one process).
    pub agree: &'a dyn Fn(usize) -> usize,
    pub span: bool,
}

impl Timing<'_> {
    /// Seconds per call of `f` over `lat` (see [`time`]).
    pub fn time<S: ongpu::Space>(
        &self,
        lat: S,
        reps: usize,
        f: &mut dyn FnMut() -> ongpu::Result<()>,
    ) -> ongpu::Result<f64> {
        if self.span {
            time_spanning(reps, &|| lat.synchronize(), f)
        } else {
            time_agreed(self.backend, reps, self.agree, f)
        }
    }
}

/// Calls to time.
type Calls<'a> = &'a mut dyn FnMut() -> ongpu::Result<()>;

/// The median seconds per call of `f` over `reps` batches timed by `clock`, after a warm-up
/// call; batches of `agree(n)` calls, `n` making about 20 ms.
fn time_batches(
    reps: usize,
    agree: &dyn Fn(usize) -> usize,
    clock: &mut dyn FnMut(Calls) -> ongpu::Result<f64>,
    f: Calls,
) -> ongpu::Result<f64> {
    f()?;
    let mut batch_seconds = |batch: usize, f: &mut dyn FnMut() -> ongpu::Result<()>| {
        clock(&mut || {
            for _ in 0..batch {
                f()?;
            }
            Ok(())
        })
    };
    let once = batch_seconds(1, f)?;
    let batch = agree(((0.02 / once.max(1e-7)).ceil() as usize).clamp(1, 1000));
    let mut t = Vec::with_capacity(reps);
    for _ in 0..reps.max(1) {
        t.push(batch_seconds(batch, f)? / batch as f64);
    }
    Ok(median(t))
}

/// Seconds that `f` takes: device time between CUDA events on the GPU, host time on the CPU.
fn timed(backend: Backend, f: &mut dyn FnMut() -> ongpu::Result<()>) -> ongpu::Result<f64> {
    match backend {
        #[cfg(feature = "cuda")]
        Backend::Cuda => ongpu::cuda::time_device(f).map(|((), ms)| ms as f64 / 1e3),
        _ => {
            let start = Instant::now();
            f()?;
            Ok(start.elapsed().as_secs_f64())
        }
    }
}

/// `X,Y,Z,T` as four lattice extents (the `--dims` flag).
pub fn parse_dims(v: &str) -> Result<[usize; 4], String> {
    let parts: Vec<usize> = v
        .split(',')
        .map(|x| x.trim().parse())
        .collect::<Result<_, _>>()
        .map_err(|e| format!("--dims {v}: {e}"))?;
    parts
        .try_into()
        .map_err(|_| format!("--dims {v}: want four extents X,Y,Z,T"))
}

/// Runs `f` once to warm up (kernels compile on first use), then `repeat` times, each
/// between two synchronisations; returns the last result and the seconds of each timed run.
pub fn time_runs<R, E: From<ongpu::Error>>(
    repeat: usize,
    f: impl FnMut() -> Result<R, E>,
) -> Result<(R, Vec<f64>), E> {
    time_runs_synced(repeat, &ongpu::synchronize, f)
}

/// [`time_runs`] with the synchronisation of the devices the runs use (`Space::synchronize`
/// of a lattice split over several GPUs).
pub fn time_runs_synced<R, E: From<ongpu::Error>>(
    repeat: usize,
    sync: &dyn Fn() -> ongpu::Result<()>,
    mut f: impl FnMut() -> Result<R, E>,
) -> Result<(R, Vec<f64>), E> {
    let mut result = f()?;
    let mut seconds = Vec::with_capacity(repeat);
    for _ in 0..repeat.max(1) {
        sync()?;
        let start = Instant::now();
        result = f()?;
        sync()?;
        seconds.push(start.elapsed().as_secs_f64());
    }
    Ok((result, seconds))
}

/// The exit code of a program's `run`: success, or its error printed to stderr.
pub fn exit_code(result: Result<(), Box<dyn std::error::Error>>) -> std::process::ExitCode {
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Seconds of a parallel host copy that reads and writes `bytes` in all (`bytes / 2` each
/// way) on the rayon threads: the CPU backend's ceiling for a call that moves `bytes`
/// (median of `reps` copies after one warm-up).
pub fn host_copy_seconds(bytes: usize, reps: usize) -> f64 {
    let half = (bytes / 2).max(1);
    let src = vec![1u8; half];
    let mut dst = vec![0u8; half];
    let mut copy = || {
        parallel_copy(&src, &mut dst);
        std::hint::black_box(&dst);
    };
    copy();
    median(
        (0..reps.max(1))
            .map(|_| {
                let t = Instant::now();
                copy();
                t.elapsed().as_secs_f64()
            })
            .collect(),
    )
}

/// A parallel copy of `src` into `dst` on the rayon threads (the CPU ceiling).
pub fn parallel_copy(src: &[u8], dst: &mut [u8]) {
    use rayon::prelude::*;
    dst.par_chunks_mut(1 << 20)
        .zip(src.par_chunks(1 << 20))
        .for_each(|(d, s)| d.copy_from_slice(s));
}
