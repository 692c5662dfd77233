//! The dot product of the atomics lecture: a shared-memory reduction per block, the block
//! sums combined under a spin lock made of `atomic_cas`/`atomic_exch` (the lecture's `Lock`),
//! and the same with one `atomic_add` per block. Both results are checked against an f64
//! reference, within the rounding bound of their summation order, and timed (CUDA events,
//! median of batches). The inputs are in [0, 1), so that the bound is relative (Σ|a b| =
//! a·b) and far below what a lost block sum would change.
//!
//! `cargo run --release --example dot_lock [-- --n 67108864 --reps 10 --blocks-per-sm 8]`

#[path = "../common/mod.rs"]
mod common;
use ongpu_classic::dot as kernels;

use common::{arg, time};
use ongpu::prelude::*;
use ongpu::Backend;
use rand::{Rng, SeedableRng};

type Res<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn main() -> Res<()> {
    let backend = ongpu::backend()?;
    let n = arg(
        "--n",
        if backend == Backend::Cuda {
            1 << 26
        } else {
            1 << 22
        },
    );
    let reps = arg("--reps", 10);
    common::warn_if_checked(backend);
    let mut r = rand::rngs::SmallRng::seed_from_u64(99);
    let av: Vec<f32> = (0..n).map(|_| r.random_range(0.0..1.0)).collect();
    let bv: Vec<f32> = (0..n).map(|_| r.random_range(0.0..1.0)).collect();
    let (want, abs) = kernels::reference(&av, &bv);
    let a: Field<f32, AoS> = Field::from_vec(av);
    let b: Field<f32, AoS> = Field::from_vec(bv);

    let threads = kernels::THREADS;
    let blocks = match common::sm_count(backend) {
        Some(sms) => sms * arg("--blocks-per-sm", 8),
        None => 4 * rayon::current_num_threads(),
    };
    let shape = LaunchShape::linear(blocks as u32, threads as u32);
    // Each product passes through at most this many roundings: its thread's running sum,
    // the tree, and the sequence of block sums.
    let depth = n.div_ceil(blocks * threads) + threads.ilog2() as usize + blocks + 2;
    let bound = depth as f64 * f64::powi(2.0, -24) * abs;

    let mut sum: Field<f32, AoS> = Field::zeros(1);
    let mut lock: Field<i32, AoS> = Field::zeros(1);
    kernels::dot_lock::launch(shape, &a, &b, &mut sum, &mut lock)?;
    let locked = sum.get(0)? as f64;
    if (locked - want).abs() > bound || lock.get(0)? != 0 {
        return Err(format!(
            "lock: got {locked}, want {want} ± {bound:.3e}; lock left at {}",
            lock.get(0)?
        )
        .into());
    }
    let t_lock = time(backend, reps, || {
        kernels::dot_lock::launch(shape, &a, &b, &mut sum, &mut lock)
    })?;

    let mut sum2: Field<f32, AoS> = Field::zeros(1);
    kernels::dot_atomic::launch(shape, &a, &b, &mut sum2)?;
    let atomic = sum2.get(0)? as f64;
    if (atomic - want).abs() > bound {
        return Err(format!("atomic: got {atomic}, want {want} ± {bound:.3e}").into());
    }
    let t_atomic = time(backend, reps, || {
        kernels::dot_atomic::launch(shape, &a, &b, &mut sum2)
    })?;

    let bytes = 8.0 * n as f64;
    println!(
        "dot_lock: a·b of {n} f32, {blocks} blocks of {threads}, backend {backend:?} ({})",
        common::device_name(backend)
    );
    println!(
        "  f64 reference {want:.3}; both results within {bound:.3e} of it (the rounding bound, {:.1e} relative)",
        bound / want
    );
    println!(
        "  {:<22} {:>10} {:>9} {:>14}",
        "combining block sums", "ms", "GB/s", "result"
    );
    for (name, s, v) in [
        ("spin lock (CAS/exch)", t_lock, locked),
        ("atomic_add", t_atomic, atomic),
    ] {
        println!(
            "  {name:<22} {:>10.3} {:>9.1} {v:>14.3}",
            s * 1e3,
            bytes / s / 1e9
        );
    }
    Ok(())
}
