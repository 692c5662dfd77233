//! Local arrays in kernels and device functions: a register tile of multiply-adds (the core
//! of a blocked matrix product, which must stay in registers: see `kernels_nvrtc`), array
//! literals, copies, and arrays in device functions.

use crate::programs::{rng, Kind, Output};
use ongpu::prelude::*;
use rand::Rng;

/// Rows of a thread's tile.
pub const TM: usize = 8;
/// Columns of a thread's tile.
pub const TN: usize = 8;
/// Outer products each thread accumulates.
pub const ROUNDS: usize = 4;

/// Thread t accumulates `ROUNDS` outer products of `TM` values of `a` and `TN` of `b` into a
/// TM×TN tile, then writes it out row by row.
#[ongpu::kernel]
pub fn register_tile(a: &[f32], b: &[f32], c: &mut [f32]) {
    let t = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    let mut acc = [[0.0f32; TN]; TM];
    for r in 0..ROUNDS {
        let mut x = [0.0f32; TM];
        let mut y = [0.0f32; TN];
        for i in 0..TM {
            x[i] = a[(t * ROUNDS + r) * TM + i];
        }
        for j in 0..TN {
            y[j] = b[(t * ROUNDS + r) * TN + j];
        }
        for i in 0..TM {
            for j in 0..TN {
                acc[i][j] += x[i] * y[j];
            }
        }
    }
    for i in 0..TM {
        for j in 0..TN {
            c[(t * TM + i) * TN + j] = acc[i][j];
        }
    }
}

/// `x` through a cubic by Horner's rule, its coefficients a local array literal.
#[ongpu::device]
fn cubic(x: f32) -> f32 {
    let coefficients = [0.25f32, -0.5, 1.0, 2.0];
    let mut s = 0.0f32;
    for k in 0..4 {
        s = s * x + coefficients[k];
    }
    s
}

/// Per thread: an array literal with a parameter's element in it, a copy that a later write
/// to the original leaves alone, a nested `[v; N]` of a variable, and a device function
/// with a local array.
#[ongpu::kernel]
pub fn array_values(a: &[f32], out: &mut [f32]) {
    let t = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    let mut v = [a[t], 2.0, 3.0];
    let w = v;
    v[0] = cubic(v[0]);
    let grid: [[f32; 2]; 3] = [[t as f32; 2]; 3];
    let mut counts = [0u32; 3];
    for k in 0..3 {
        counts[k] += k as u32 * 10;
    }
    out[4 * t] = v[0];
    out[4 * t + 1] = w[0] + w[2];
    out[4 * t + 2] = grid[2][1] + v[1];
    out[4 * t + 3] = (counts[1] + counts[2]) as f32;
}

/// Both kernels against host references, outputs poisoned first.
pub fn local_arrays() -> Vec<Output> {
    let mut r = rng(81);
    let (blocks, threads) = (3usize, 32usize);
    let n = blocks * threads;
    let av: Vec<f32> = (0..n * ROUNDS * TM)
        .map(|_| r.random_range(-1.0..1.0))
        .collect();
    let bv: Vec<f32> = (0..n * ROUNDS * TN)
        .map(|_| r.random_range(-1.0..1.0))
        .collect();
    let a: Field<f32, AoS> = Field::from_vec(av.clone());
    let b: Field<f32, AoS> = Field::from_vec(bv.clone());
    let mut c: Field<f32, AoS> = Field::filled(n * TM * TN, f32::NAN);
    let shape = LaunchShape::linear(blocks as u32, threads as u32);
    register_tile::launch(shape, &a, &b, &mut c).unwrap();
    let mut want = vec![0.0f64; n * TM * TN];
    for t in 0..n {
        for i in 0..TM {
            for j in 0..TN {
                let mut s = 0.0f32;
                for rd in 0..ROUNDS {
                    s += av[(t * ROUNDS + rd) * TM + i] * bv[(t * ROUNDS + rd) * TN + j];
                }
                want[(t * TM + i) * TN + j] = s as f64;
            }
        }
    }
    let tile = Output {
        name: "register tile",
        got: c.to_vec().unwrap().iter().map(|&x| x as f64).collect(),
        want,
        kind: Kind::Rel(1e-6),
    };

    let xv: Vec<f32> = (0..n).map(|_| r.random_range(-1.0..1.0)).collect();
    let x: Field<f32, AoS> = Field::from_vec(xv.clone());
    let mut out: Field<f32, AoS> = Field::filled(4 * n, f32::NAN);
    array_values::launch(shape, &x, &mut out).unwrap();
    let mut want = Vec::with_capacity(4 * n);
    for (t, &xt) in xv.iter().enumerate() {
        let y = ((0.25f32 * xt - 0.5) * xt + 1.0) * xt + 2.0;
        want.extend([y, xt + 3.0, t as f32 + 2.0, 30.0].map(f64::from));
    }
    // Within rounding: the GPU may fuse Horner's multiply-adds.
    let values = Output {
        name: "array values",
        got: out.to_vec().unwrap().iter().map(|&x| x as f64).collect(),
        want,
        kind: Kind::Rel(1e-6),
    };
    vec![tile, values]
}
