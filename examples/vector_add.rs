//! The classic first CUDA program, `c = a + b` on 2^24 floats, written with ongpu: every
//! element is checked, and the time is compared with the copy bandwidth of the same device
//! (or host) measured in the same run: on the GPU both `cuMemcpyDtoD` (the earlier ceiling)
//! and a tuned 16-byte copy kernel (best of several grid sizes), the faster being the ceiling.
//!
//! `cargo run --release --example vector_add [-- --n 16777216 --reps 30]`

mod common;

use common::arg;
use ongpu::prelude::*;
use ongpu::Backend;
use rand::{Rng, SeedableRng};

fn main() -> ongpu::Result<()> {
    let n = arg("--n", 1 << 24);
    let reps = arg("--reps", 30).max(1);
    let backend = ongpu::backend()?;
    let mut rng = rand::rngs::SmallRng::seed_from_u64(42);
    let av: Vec<f32> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
    let bv: Vec<f32> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
    let a: Field<f32> = Field::from_vec(av.clone());
    let b: Field<f32> = Field::from_vec(bv.clone());
    let mut c: Field<f32> = Field::filled(n, f32::NAN);

    on_gpu!(n, 256, {
        c = a + b;
    })?;
    let got = c.to_vec()?;
    let wrong = (0..n)
        .filter(|&i| got[i].to_bits() != (av[i] + bv[i]).to_bits())
        .count();
    if wrong > 0 {
        eprintln!("vector_add: {wrong} of {n} elements are wrong");
        std::process::exit(1);
    }

    let bytes = 12.0 * n as f64; // read a and b, write c
    let (ours, ceilings) = match backend {
        Backend::Cuda => gpu_times(n, reps, &a, &b, &mut c)?,
        Backend::Cpu => cpu_times(n, reps, &a, &b, &mut c)?,
    };
    let device = device_name();
    println!("vector_add: c = a + b on {n} f32 sites, backend {backend:?} ({device}); all {n} elements checked");
    println!(
        "  on_gpu!        {:>9.3} ms  {:>8.1} GB/s",
        ours * 1e3,
        bytes / ours / 1e9
    );
    for (what, t) in &ceilings {
        println!(
            "  {what:<14} {:>9.3} ms  {:>8.1} GB/s (same bytes); on_gpu! at {:.1}% of it",
            t * 1e3,
            bytes / t / 1e9,
            100.0 * t / ours
        );
    }
    let ceiling = ceilings
        .iter()
        .map(|&(_, t)| t)
        .fold(f64::INFINITY, f64::min);
    println!(
        "  ratio on_gpu!/copy: {:.1}% (the fastest copy above)",
        100.0 * ceiling / ours
    );
    Ok(())
}

#[cfg(feature = "cuda")]
fn device_name() -> String {
    ongpu::cuda::device()
        .map(|d| d.info().name.clone())
        .unwrap_or_else(|_| "host CPU".into())
}

#[cfg(not(feature = "cuda"))]
fn device_name() -> String {
    "host CPU".into()
}

/// The copies a timing is compared with, by name, in seconds.
type Ceilings = Vec<(&'static str, f64)>;

/// Median seconds per call of `on_gpu!` and of the device copies moving the same number of
/// bytes, each timed with CUDA events over batches of back-to-back launches (`common::time`).
#[cfg(feature = "cuda")]
fn gpu_times(
    n: usize,
    reps: usize,
    a: &Field<f32>,
    b: &Field<f32>,
    c: &mut Field<f32>,
) -> ongpu::Result<(f64, Ceilings)> {
    let ours = common::time(Backend::Cuda, reps, || {
        on_gpu!(n, 256, {
            c = a + b;
        })
    })?;
    // A copy of 6 bytes per site reads and writes 12, like the kernel.
    let copy = common::ceiling::Ceilings::new()?.copy_seconds(reps, 6 * n)?;
    Ok((
        ours,
        vec![("cuMemcpyDtoD", copy.memcpy), ("copy kernel", copy.kernel)],
    ))
}

#[cfg(not(feature = "cuda"))]
fn gpu_times(
    _: usize,
    _: usize,
    _: &Field<f32>,
    _: &Field<f32>,
    _: &mut Field<f32>,
) -> ongpu::Result<(f64, Ceilings)> {
    unreachable!("no CUDA backend in this build")
}

/// Median seconds per call on CPU threads, and of a parallel host copy of the same bytes.
fn cpu_times(
    n: usize,
    reps: usize,
    a: &Field<f32>,
    b: &Field<f32>,
    c: &mut Field<f32>,
) -> ongpu::Result<(f64, Ceilings)> {
    use rayon::prelude::*;
    let ours = common::time(Backend::Cpu, reps, || {
        on_gpu!(n, {
            c = a + b;
        })
    })?;
    let src = vec![1.0f32; 3 * n / 2];
    let mut dst = vec![0.0f32; 3 * n / 2];
    let copy = common::time(Backend::Cpu, reps, || {
        dst.par_chunks_mut(1 << 16)
            .zip(src.par_chunks(1 << 16))
            .for_each(|(d, s)| d.copy_from_slice(s));
        Ok(())
    })?;
    std::hint::black_box(&dst);
    Ok((ours, vec![("host copy", copy)]))
}
