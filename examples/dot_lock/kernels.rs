//! The kernels of the `dot_lock` example (the tests compile and check them too): the dot
//! product of two `f32` vectors, reduced in shared memory per block, the block sums then
//! combined into one value. Launch with [`THREADS`] threads per block (a power of two).

/// Threads per block (the size of the per-block reduction tree).
pub const THREADS: usize = 256;

/// Each thread sums its products (grid-stride), the block halves its partial sums in shared
/// memory until one is left, and thread 0 adds it to `sum[0]` under a spin lock built from
/// `atomic_cas` (take: swap 0 for 1) and `atomic_exch` (release). The fences make the
/// update of `sum` visible to the next holder of the lock on the GPU.
#[ongpu::kernel]
pub fn dot_lock(a: &[f32], b: &[f32], sum: &mut [f32], lock: &mut [i32]) {
    let cache = shared!([f32; THREADS]);
    let t = thread_idx().x as usize;
    let stride = (grid_dim().x * block_dim().x) as usize;
    let mut i = block_idx().x as usize * block_dim().x as usize + t;
    let mut partial = 0.0f32;
    while i < a.len() {
        partial += a[i] * b[i];
        i += stride;
    }
    cache[t] = partial;
    sync_threads();
    let mut half = block_dim().x as usize / 2;
    while half != 0 {
        if t < half {
            cache[t] += cache[t + half];
        }
        sync_threads();
        half /= 2;
    }
    if t == 0 {
        while atomic_cas(&mut lock[0], 0, 1) != 0 {}
        thread_fence();
        sum[0] += cache[0];
        thread_fence();
        atomic_exch(&mut lock[0], 0);
    }
}

/// The same reduction, with the block sums combined by one `atomic_add` each.
#[ongpu::kernel]
pub fn dot_atomic(a: &[f32], b: &[f32], sum: &mut [f32]) {
    let cache = shared!([f32; THREADS]);
    let t = thread_idx().x as usize;
    let stride = (grid_dim().x * block_dim().x) as usize;
    let mut i = block_idx().x as usize * block_dim().x as usize + t;
    let mut partial = 0.0f32;
    while i < a.len() {
        partial += a[i] * b[i];
        i += stride;
    }
    cache[t] = partial;
    sync_threads();
    let mut half = block_dim().x as usize / 2;
    while half != 0 {
        if t < half {
            cache[t] += cache[t + half];
        }
        sync_threads();
        half /= 2;
    }
    if t == 0 {
        atomic_add(&mut sum[0], cache[0]);
    }
}

/// The dot product in f64, and the sum of |a_i b_i| (which bounds its rounding error).
pub fn reference(a: &[f32], b: &[f32]) -> (f64, f64) {
    a.iter().zip(b).fold((0.0, 0.0), |(s, abs), (&x, &y)| {
        let p = x as f64 * y as f64;
        (s + p, abs + p.abs())
    })
}
