//! The kernels of the `matmul` example (the tests compile and check them too): C = A·B for
//! row-major `f32` matrices, A of m×k, B of k×n, any sizes. Launch both with 16×16 blocks
//! covering C ([`shape`]).

use ongpu::prelude::*;

/// The tile edge of the shared-memory kernel, which is also the block edge of both.
pub const TILE: usize = 16;

/// One thread per element of C, reading its row of A and column of B from global memory.
#[ongpu::kernel]
pub fn matmul_naive(a: &[f32], b: &[f32], c: &mut [f32], m: u32, n: u32, k: u32) {
    let row = block_idx().y * block_dim().y + thread_idx().y;
    let col = block_idx().x * block_dim().x + thread_idx().x;
    if row < m && col < n {
        let mut acc = 0.0f32;
        for p in 0..k {
            acc += a[row * k + p] * b[p * n + col];
        }
        c[row * n + col] = acc;
    }
}

/// The same product in 16×16 tiles: each block stages a tile of A and one of B in shared
/// memory (one element per thread, zero beyond the matrices' edges), waits for the whole
/// tile, and accumulates 16 products per thread from shared memory before the next tile.
/// Every thread reaches both barriers of every tile, also those outside C.
#[ongpu::kernel]
#[allow(clippy::manual_div_ceil)] // `div_ceil` is not in the body language
pub fn matmul_tiled(a: &[f32], b: &[f32], c: &mut [f32], m: u32, n: u32, k: u32) {
    let ta = shared!([[f32; TILE]; TILE]);
    let tb = shared!([[f32; TILE]; TILE]);
    let tx = thread_idx().x;
    let ty = thread_idx().y;
    let row = block_idx().y * TILE as u32 + ty;
    let col = block_idx().x * TILE as u32 + tx;
    let tiles = (k + TILE as u32 - 1) / TILE as u32;
    let mut acc = 0.0f32;
    for t in 0..tiles {
        let base = t * TILE as u32;
        ta[ty][tx] = if row < m && base + tx < k {
            a[row * k + base + tx]
        } else {
            0.0
        };
        tb[ty][tx] = if base + ty < k && col < n {
            b[(base + ty) * n + col]
        } else {
            0.0
        };
        sync_threads();
        for p in 0..TILE {
            acc += ta[ty][p] * tb[p][tx];
        }
        sync_threads();
    }
    if row < m && col < n {
        c[row * n + col] = acc;
    }
}

/// 16×16 blocks covering an m×n matrix C (x along columns, y along rows).
pub fn shape(m: usize, n: usize) -> LaunchShape {
    LaunchShape::cover_2d((n as u32, m as u32), (TILE as u32, TILE as u32))
}
