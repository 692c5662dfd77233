//! The kernels of the `dot_lock` example (the tests compile and check them too): the dot
//! product of two `f32` vectors, reduced in shared memory per block by one device function
//! that both kernels call, the block sums then combined into one value. Launch with
//! [`THREADS`] threads per block (a power of two).

use ongpu::Real;

/// Threads per block (the size of the per-block reduction tree).
pub const THREADS: usize = 256;

/// The block's sum of `a[i] * b[i]`, which every thread of the block calls (it has
/// barriers): thread `t` (of `threads`, a power of two) sums its products, grid-stride from
/// index `first`, and the block halves its partial sums in `cache` (a shared array of at
/// least `threads` elements) until one is left. Every thread returns that sum.
#[ongpu::device]
pub fn block_dot<T: Real>(
    a: &[T],
    b: &[T],
    cache: &mut [T],
    t: usize,
    threads: usize,
    first: usize,
    stride: usize,
) -> T {
    let mut partial = 0.0;
    let mut i = first;
    while i < a.len() {
        partial += a[i] * b[i];
        i += stride;
    }
    cache[t] = partial;
    sync_threads();
    let mut half = threads / 2;
    while half != 0 {
        if t < half {
            cache[t] += cache[t + half];
        }
        sync_threads();
        half /= 2;
    }
    cache[0]
}

/// Each block reduces its part of the product with [`block_dot`], and thread 0 adds the
/// block's sum to `sum[0]` under a spin lock built from `atomic_cas` (take: swap 0 for 1)
/// and `atomic_exch` (release). The fences make the update of `sum` visible to the next
/// holder of the lock on the GPU.
#[ongpu::kernel]
pub fn dot_lock(a: &[f32], b: &[f32], sum: &mut [f32], lock: &mut [i32]) {
    let cache = shared!([f32; THREADS]);
    let t = thread_idx().x as usize;
    let threads = block_dim().x as usize;
    let first = block_idx().x as usize * threads + t;
    let stride = grid_dim().x as usize * threads;
    let block_sum = block_dot(a, b, cache, t, threads, first, stride);
    if t == 0 {
        while atomic_cas(&mut lock[0], 0, 1) != 0 {}
        thread_fence();
        sum[0] += block_sum;
        thread_fence();
        atomic_exch(&mut lock[0], 0);
    }
}

/// The same reduction, with the block sums combined by one `atomic_add` each.
#[ongpu::kernel]
pub fn dot_atomic(a: &[f32], b: &[f32], sum: &mut [f32]) {
    let cache = shared!([f32; THREADS]);
    let t = thread_idx().x as usize;
    let threads = block_dim().x as usize;
    let first = block_idx().x as usize * threads + t;
    let stride = grid_dim().x as usize * threads;
    let block_sum = block_dot(a, b, cache, t, threads, first, stride);
    if t == 0 {
        atomic_add(&mut sum[0], block_sum);
    }
}

/// The dot product in f64, and the sum of |a_i b_i| (which bounds its rounding error).
pub fn reference(a: &[f32], b: &[f32]) -> (f64, f64) {
    a.iter().zip(b).fold((0.0, 0.0), |(s, abs), (&x, &y)| {
        let p = x as f64 * y as f64;
        (s + p, abs + p.abs())
    })
}
