//! Device functions with `sync_threads()`: a shared-memory tree reduction that every thread
//! of a block calls (twice in one kernel, reusing its shared array, so a missing barrier
//! between the calls would show), and a function that has no barrier of its own but calls
//! one that has. On the CPU the kernel's threads run in phases through the functions'
//! barriers; on the GPU they are `__syncthreads()` in `__device__` functions.

use crate::programs::{rng, Kind, Output};
use ongpu::prelude::*;
use rand::Rng;

/// Threads per block of the kernel (a power of two).
pub const THREADS: usize = 64;

/// The sum of `v` over the block's threads: thread `t` of `threads` puts `v` in `cache`,
/// and the block halves the partial sums until one is left. Every thread returns it.
#[ongpu::device]
pub fn block_sum<T: Real>(cache: &mut [T], t: usize, threads: usize, v: T) -> T {
    cache[t] = v;
    sync_threads();
    let mut half = threads / 2;
    while half != 0 {
        if t < half {
            cache[t] += cache[t + half];
        }
        sync_threads();
        half /= 2;
    }
    let total = cache[0];
    // Every thread has read the sum before `cache` is used again.
    sync_threads();
    total
}

/// The block's mean of `v` (`count`: the number of threads): no barrier of its own, those
/// of `block_sum`.
#[ongpu::device]
pub fn block_mean<T: Real>(cache: &mut [T], t: usize, threads: usize, count: T, v: T) -> T {
    block_sum(cache, t, threads, v) / count
}

/// Thread g writes out[3g..3g+3]: its block's sum of `x`, sum of squares, and mean of the
/// deviations from the sum (three reductions through one shared array).
#[ongpu::kernel]
pub fn block_stats(x: &[f64], out: &mut [f64]) {
    let cache = shared!([f64; THREADS]);
    let t = thread_idx().x as usize;
    let threads = block_dim().x as usize;
    let g = block_idx().x as usize * threads + t;
    let v = x[g];
    let s = block_sum(cache, t, threads, v);
    let squares = block_sum(cache, t, threads, v * v);
    let mean = block_mean(cache, t, threads, threads as f64, v - s);
    out[3 * g] = s;
    out[3 * g + 1] = squares;
    out[3 * g + 2] = mean;
}

/// Only threads 0..4 call `block_sum`: its barrier is not reached by the others.
#[ongpu::kernel]
pub fn device_barrier_in_branch(out: &mut [f64]) {
    let cache = shared!([f64; 8]);
    let t = thread_idx().x as usize;
    if t < 4 {
        out[t] = block_sum(cache, t, 4, 1.0);
    }
}

/// The halving tree of `block_sum`, on the host.
fn tree_sum(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    let mut half = v.len() / 2;
    while half != 0 {
        for t in 0..half {
            v[t] += v[t + half];
        }
        half /= 2;
    }
    v[0]
}

/// `block_stats` on random inputs (outputs poisoned) against the same trees on the host.
pub fn device_barriers() -> Vec<Output> {
    let mut r = rng(23);
    let blocks = 3;
    let n = blocks * THREADS;
    let xv: Vec<f64> = (0..n).map(|_| r.random_range(-1.0..1.0)).collect();
    let x: Field<f64, AoS> = Field::from_vec(xv.clone());
    let mut out: Field<f64, AoS> = Field::filled(3 * n, f64::NAN);
    let shape = LaunchShape::linear(blocks as u32, THREADS as u32);
    block_stats::launch(shape, &x, &mut out).unwrap();
    let mut want = Vec::with_capacity(3 * n);
    for block in xv.chunks(THREADS) {
        let s = tree_sum(block);
        let squares = tree_sum(&block.iter().map(|v| v * v).collect::<Vec<_>>());
        let deviations: Vec<f64> = block.iter().map(|v| v - s).collect();
        let mean = tree_sum(&deviations) / THREADS as f64;
        for _ in block {
            want.extend([s, squares, mean]);
        }
    }
    vec![Output {
        name: "device functions with barriers",
        got: out.to_vec().unwrap(),
        want,
        kind: Kind::Exact,
    }]
}
