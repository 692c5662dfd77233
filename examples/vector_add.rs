//! The classic first CUDA program, `c = a + b` on 2^24 floats, written with ongpu: every
//! element is checked, and the time is compared with the copy bandwidth of the same device
//! (or host) measured in the same run.
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
    let (ours, ceiling, what) = match backend {
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
    println!(
        "  {what:<14} {:>9.3} ms  {:>8.1} GB/s (same bytes)",
        ceiling * 1e3,
        bytes / ceiling / 1e9
    );
    println!("  ratio on_gpu!/copy: {:.1}%", 100.0 * ceiling / ours);
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

/// Median seconds per call of `on_gpu!` and of a device-to-device copy moving the same number
/// of bytes, each timed with CUDA events over batches of back-to-back launches (`common::time`).
#[cfg(feature = "cuda")]
fn gpu_times(
    n: usize,
    reps: usize,
    a: &Field<f32>,
    b: &Field<f32>,
    c: &mut Field<f32>,
) -> ongpu::Result<(f64, f64, &'static str)> {
    use ongpu::cuda::{device, DeviceBuffer};
    let ours = common::time(Backend::Cuda, reps, || {
        on_gpu!(n, 256, {
            c = a + b;
        })
    })?;
    // A copy of 6 bytes per site reads and writes 12, like the kernel.
    let dev = device()?;
    let src = DeviceBuffer::alloc(dev, 6 * n, "copy source")?;
    let mut dst = DeviceBuffer::alloc(dev, 6 * n, "copy destination")?;
    let copy = common::time(Backend::Cuda, reps, || dst.copy_from(&src))?;
    Ok((ours, copy, "device copy"))
}

#[cfg(not(feature = "cuda"))]
fn gpu_times(
    _: usize,
    _: usize,
    _: &Field<f32>,
    _: &Field<f32>,
    _: &mut Field<f32>,
) -> ongpu::Result<(f64, f64, &'static str)> {
    unreachable!("no CUDA backend in this build")
}

/// Median seconds per call on CPU threads, and of a parallel host copy of the same bytes.
fn cpu_times(
    n: usize,
    reps: usize,
    a: &Field<f32>,
    b: &Field<f32>,
    c: &mut Field<f32>,
) -> ongpu::Result<(f64, f64, &'static str)> {
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
    Ok((ours, copy, "host copy"))
}
