//! Device functions that take arrays: a kernel's array parameters and 1-D `shared!` arrays
//! as `&[T]` / `&mut [T]` (a writable array passed where a `&[T]` is taken, a slice passed
//! on to another device function, `.len()` and `load4` on a slice), and local arrays by
//! reference, `&[T; N]` / `&mut [T; N]`.

use crate::programs::{rng, Kind, Output};
use ongpu::prelude::*;
use rand::Rng;

/// Threads per block of `device_arrays`.
pub const THREADS: usize = 64;

/// The grid-stride sum of `a[i] * b[i]` over i = start, start + stride, ...
#[ongpu::device]
fn strided_dot(a: &[f32], b: &[f32], start: usize, stride: usize) -> f32 {
    let mut s = 0.0f32;
    let mut i = start;
    while i < a.len() {
        s += a[i] * b[i];
        i += stride;
    }
    s
}

/// The sum of a local array's entries, in order.
#[ongpu::device]
fn sum4(v: &[f32; 4]) -> f32 {
    v[0] + v[1] + v[2] + v[3]
}

/// Doubles a local array in place.
#[ongpu::device]
fn double_each(v: &mut [f32; 4]) {
    for k in 0..4 {
        v[k] *= 2.0;
    }
}

/// The sum of the first four elements, read as one vector.
#[ongpu::device]
fn first_quad_sum(a: &[f32]) -> f32 {
    let q = a.load4(0);
    sum4(&q)
}

/// Element `i`.
#[ongpu::device]
fn get(x: &[f32], i: usize) -> f32 {
    x[i]
}

/// Sets element `i`.
#[ongpu::device]
fn put(out: &mut [f32], i: usize, v: f32) {
    out[i] = v;
}

/// `put`, through a slice passed on.
#[ongpu::device]
fn forward(out: &mut [f32], i: usize, v: f32) {
    put(out, i, v);
}

/// Thread g writes out[4g..4g+4]: its grid-stride dot product (staged in shared memory),
/// the sum of its doubled quad of `a`, the sum of `a`'s first quad, and its first output
/// plus its right neighbour's dot product (read from shared memory after the barrier).
#[ongpu::kernel]
pub fn device_arrays(a: &[f32], b: &[f32], out: &mut [f32]) {
    let cache = shared!([f32; THREADS]);
    let t = thread_idx().x as usize;
    let stride = (grid_dim().x * block_dim().x) as usize;
    let g = block_idx().x as usize * block_dim().x as usize + t;
    put(cache, t, strided_dot(a, b, g, stride));
    sync_threads();
    let mut q = [a[4 * g], a[4 * g + 1], a[4 * g + 2], a[4 * g + 3]];
    double_each(&mut q);
    let o = 4 * g;
    forward(out, o, get(cache, t));
    put(out, o + 1, sum4(&q));
    put(out, o + 2, first_quad_sum(a));
    put(out, o + 3, get(out, o) + cache[(t + 1) % THREADS]);
}

/// `device_arrays` against a host reference (same summation order), outputs poisoned.
pub fn device_arrays_program() -> Vec<Output> {
    let mut r = rng(91);
    let (blocks, n) = (3usize, 1000usize);
    let av: Vec<f32> = (0..n).map(|_| r.random_range(-1.0..1.0)).collect();
    let bv: Vec<f32> = (0..n).map(|_| r.random_range(-1.0..1.0)).collect();
    let a: Field<f32, AoS> = Field::from_vec(av.clone());
    let b: Field<f32, AoS> = Field::from_vec(bv.clone());
    let threads = blocks * THREADS;
    let mut out: Field<f32, AoS> = Field::filled(4 * threads, f32::NAN);
    let shape = LaunchShape::linear(blocks as u32, THREADS as u32);
    device_arrays::launch(shape, &a, &b, &mut out).unwrap();

    let dot = |g: usize| {
        let mut s = 0.0f32;
        for i in (g..n).step_by(threads) {
            s += av[i] * bv[i];
        }
        s
    };
    let quad = |k: usize| av[k] + av[k + 1] + av[k + 2] + av[k + 3];
    let mut want = Vec::with_capacity(4 * threads);
    for g in 0..threads {
        let neighbour = g - g % THREADS + (g + 1) % THREADS;
        let doubled = [0, 1, 2, 3].map(|e| 2.0 * av[4 * g + e]);
        want.extend(
            [
                dot(g),
                doubled[0] + doubled[1] + doubled[2] + doubled[3],
                quad(0),
                dot(g) + dot(neighbour),
            ]
            .map(f64::from),
        );
    }
    // Within rounding: the GPU may fuse the dot product's multiply-adds.
    vec![Output {
        name: "device functions with arrays",
        got: out.to_vec().unwrap().iter().map(|&x| x as f64).collect(),
        want,
        kind: Kind::Rel(1e-5),
    }]
}
