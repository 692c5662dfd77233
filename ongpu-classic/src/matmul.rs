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

/// The edge of the C tile one block of the register-blocked kernel computes (16×16 threads,
/// each a 4×4 piece of it).
pub const BLOCK_TILE: usize = 64;
/// How many columns of A (rows of B) the register-blocked kernel stages per step.
pub const DEPTH: usize = 16;
/// A row of the staged A tile (stored transposed) with 4 floats of padding, so that the 16
/// threads that store one row of A write 16 different banks (2-way conflicts at most), while
/// a thread's 4 values stay contiguous and 16-byte aligned.
pub const PADDED: usize = BLOCK_TILE + 4;

/// The product with a 4×4 piece of C per thread held in registers: each step stages a 64×16
/// slice of A (transposed) and a 16×64 slice of B in shared memory, then every thread reads
/// 4 values of each per column and makes 16 multiply-adds of them, 4 times the work per
/// shared-memory load of the tiled kernel. Thread (x, y) owns rows 4y..4y+3 and columns
/// 4x..4x+3 of its block's tile. Launch with [`blocked_shape`].
#[ongpu::kernel]
#[allow(clippy::manual_div_ceil)] // `div_ceil` is not in the body language
pub fn matmul_blocked(a: &[f32], b: &[f32], c: &mut [f32], m: u32, n: u32, k: u32) {
    let at = shared!([[f32; PADDED]; DEPTH]);
    let bt = shared!([[f32; BLOCK_TILE]; DEPTH]);
    let tx = thread_idx().x;
    let ty = thread_idx().y;
    let tid = ty * TILE as u32 + tx;
    let row0 = block_idx().y * BLOCK_TILE as u32;
    let col0 = block_idx().x * BLOCK_TILE as u32;
    let r = 4 * ty;
    let q = 4 * tx;
    let mut c00 = 0.0f32;
    let mut c01 = 0.0f32;
    let mut c02 = 0.0f32;
    let mut c03 = 0.0f32;
    let mut c10 = 0.0f32;
    let mut c11 = 0.0f32;
    let mut c12 = 0.0f32;
    let mut c13 = 0.0f32;
    let mut c20 = 0.0f32;
    let mut c21 = 0.0f32;
    let mut c22 = 0.0f32;
    let mut c23 = 0.0f32;
    let mut c30 = 0.0f32;
    let mut c31 = 0.0f32;
    let mut c32 = 0.0f32;
    let mut c33 = 0.0f32;
    let steps = (k + DEPTH as u32 - 1) / DEPTH as u32;
    for s in 0..steps {
        let base = s * DEPTH as u32;
        // 1024 elements of each slice, 4 per thread; consecutive threads read consecutive
        // addresses of A's rows and of B's rows. Zero beyond the matrices' edges.
        for part in 0..4u32 {
            let e = tid + part * 256;
            let ar = e / DEPTH as u32;
            let ac = e % DEPTH as u32;
            at[ac][ar] = if row0 + ar < m && base + ac < k {
                a[(row0 + ar) * k + base + ac]
            } else {
                0.0
            };
            let br = e / BLOCK_TILE as u32;
            let bc = e % BLOCK_TILE as u32;
            bt[br][bc] = if base + br < k && col0 + bc < n {
                b[(base + br) * n + col0 + bc]
            } else {
                0.0
            };
        }
        sync_threads();
        for p in 0..DEPTH {
            let a0 = at[p][r];
            let a1 = at[p][r + 1];
            let a2 = at[p][r + 2];
            let a3 = at[p][r + 3];
            let b0 = bt[p][q];
            let b1 = bt[p][q + 1];
            let b2 = bt[p][q + 2];
            let b3 = bt[p][q + 3];
            c00 += a0 * b0;
            c01 += a0 * b1;
            c02 += a0 * b2;
            c03 += a0 * b3;
            c10 += a1 * b0;
            c11 += a1 * b1;
            c12 += a1 * b2;
            c13 += a1 * b3;
            c20 += a2 * b0;
            c21 += a2 * b1;
            c22 += a2 * b2;
            c23 += a2 * b3;
            c30 += a3 * b0;
            c31 += a3 * b1;
            c32 += a3 * b2;
            c33 += a3 * b3;
        }
        sync_threads();
    }
    let row = row0 + r;
    let col = col0 + q;
    // The piece's elements inside C, written out: a loop that picks the accumulator by index
    // (a device function) costs 9 more registers (65), past the 64 that let 4 blocks share an SM.
    if row < m {
        let e = row * n + col;
        if col < n {
            c[e] = c00;
        }
        if col + 1 < n {
            c[e + 1] = c01;
        }
        if col + 2 < n {
            c[e + 2] = c02;
        }
        if col + 3 < n {
            c[e + 3] = c03;
        }
    }
    if row + 1 < m {
        let e = (row + 1) * n + col;
        if col < n {
            c[e] = c10;
        }
        if col + 1 < n {
            c[e + 1] = c11;
        }
        if col + 2 < n {
            c[e + 2] = c12;
        }
        if col + 3 < n {
            c[e + 3] = c13;
        }
    }
    if row + 2 < m {
        let e = (row + 2) * n + col;
        if col < n {
            c[e] = c20;
        }
        if col + 1 < n {
            c[e + 1] = c21;
        }
        if col + 2 < n {
            c[e + 2] = c22;
        }
        if col + 3 < n {
            c[e + 3] = c23;
        }
    }
    if row + 3 < m {
        let e = (row + 3) * n + col;
        if col < n {
            c[e] = c30;
        }
        if col + 1 < n {
            c[e + 1] = c31;
        }
        if col + 2 < n {
            c[e + 2] = c32;
        }
        if col + 3 < n {
            c[e + 3] = c33;
        }
    }
}

/// 16×16 blocks, each covering a 64×64 tile of an m×n matrix C.
#[allow(clippy::manual_div_ceil)]
pub fn blocked_shape(m: usize, n: usize) -> LaunchShape {
    let tiles = |len: usize| ((len + BLOCK_TILE - 1) / BLOCK_TILE) as u32;
    LaunchShape {
        grid: (tiles(n), tiles(m), 1),
        block: (TILE as u32, TILE as u32, 1),
    }
}
