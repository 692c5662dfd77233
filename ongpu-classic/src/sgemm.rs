//! The SGEMM of the `matmul` example: C = A·B for row-major `f32` matrices (A m×k, B k×n),
//! written as a CUDA expert writes FP32 SGEMM for Hopper without tensor cores.
//!
//! - Each block computes a `BM`×`BN` tile of C with `THREADS` threads; each thread holds a
//!   `TM`×`TN` piece of it in a local array, which stays in registers (every loop that
//!   indexes it has constant bounds and is unrolled).
//! - A step stages a `BM`×`BK` slice of A (transposed, so that a thread's `TM` values of one
//!   column are contiguous) and a `BK`×`BN` slice of B in shared memory, read from global
//!   memory with 16-byte `load4`s and stored to shared memory conflict-free (the A rows are
//!   padded by 4 floats).
//! - Double buffering: the slices of step s+1 are loaded into registers before the
//!   multiply-adds of step s and stored to the other buffer after them, so one barrier per
//!   step suffices and the global loads overlap the arithmetic.
//! - A thread's rows and columns come in groups of 4 that are `BM / (TM / 4)` apart (64 for
//!   the 128×128 tile), so the 8 threads of a quarter warp read 128 contiguous bytes of a
//!   staged row with `load4`: no bank conflicts.
//!
//! Sizes: any m, n, k (m·k, k·n, m·n below 2³²). Vector accesses need k and n to be
//! multiples of 4 (16-byte aligned rows); other sizes take scalar loads, as do the edges.
//! The variants differ only in their constants ([`bk8`], [`bk16`], [`tall`]): write another
//! module with `sgemm_kernel!()` and other constants to try another tile. The 256×128 tile
//! ([`tall`], 16×8 per thread, one block of 256 threads per SM at 213 registers) is the
//! fastest on an H200: 128 multiply-adds per six 16-byte shared loads, against 64 per four.

/// The kernel, instantiated with the constants of the module that invokes it: `BM`, `BN`,
/// `BK`, `TM`, `TN`, `THREADS`, `A_VECTORS`, `B_VECTORS` (see [`bk8`]).
macro_rules! sgemm_kernel {
    () => {
        /// C = A·B: one `BM`×`BN` tile of C per block of `(BN / TN) × (BM / TM)` threads.
        /// Launch with [`shape`](self::shape).
        #[ongpu::kernel]
        #[allow(clippy::manual_div_ceil)] // `div_ceil` is not in the body language
        pub fn sgemm(a: &[f32], b: &[f32], c: &mut [f32], m: u32, n: u32, k: u32) {
            let at = shared!([[f32; BM + 4]; 2 * BK]);
            let bt = shared!([[f32; BN]; 2 * BK]);
            let tx = thread_idx().x;
            let ty = thread_idx().y;
            let tid = ty * (BN / TN) as u32 + tx;
            let row0 = block_idx().y * BM as u32;
            let col0 = block_idx().x * BN as u32;
            let vectors = k % 4 == 0 && n % 4 == 0;
            let steps = (k + BK as u32 - 1) / BK as u32;
            let mut acc = [[0.0f32; TN]; TM];
            let mut a_next = [[0.0f32; 4]; A_VECTORS];
            let mut b_next = [[0.0f32; 4]; B_VECTORS];
            // Iteration s loads slice s (s < steps) and multiplies slice s - 1 (s > 0).
            for s in 0..steps + 1 {
                if s < steps {
                    let base = s * BK as u32;
                    for v in 0..A_VECTORS {
                        let e = tid + (v * THREADS) as u32;
                        let r = row0 + e / (BK / 4) as u32;
                        let q = base + e % (BK / 4) as u32 * 4;
                        a_next[v] = if vectors && r < m && q < k {
                            a.load4((r * k + q) / 4)
                        } else {
                            [
                                if r < m && q < k { a[r * k + q] } else { 0.0 },
                                if r < m && q + 1 < k {
                                    a[r * k + q + 1]
                                } else {
                                    0.0
                                },
                                if r < m && q + 2 < k {
                                    a[r * k + q + 2]
                                } else {
                                    0.0
                                },
                                if r < m && q + 3 < k {
                                    a[r * k + q + 3]
                                } else {
                                    0.0
                                },
                            ]
                        };
                    }
                    for v in 0..B_VECTORS {
                        let e = tid + (v * THREADS) as u32;
                        let r = base + e / (BN / 4) as u32;
                        let q = col0 + e % (BN / 4) as u32 * 4;
                        b_next[v] = if vectors && r < k && q < n {
                            b.load4((r * n + q) / 4)
                        } else {
                            [
                                if r < k && q < n { b[r * n + q] } else { 0.0 },
                                if r < k && q + 1 < n {
                                    b[r * n + q + 1]
                                } else {
                                    0.0
                                },
                                if r < k && q + 2 < n {
                                    b[r * n + q + 2]
                                } else {
                                    0.0
                                },
                                if r < k && q + 3 < n {
                                    b[r * n + q + 3]
                                } else {
                                    0.0
                                },
                            ]
                        };
                    }
                }
                if s > 0 {
                    let cur = (s - 1) % 2 * BK as u32;
                    for p in 0..BK {
                        let row = cur + p as u32;
                        let mut af = [0.0f32; TM];
                        let mut bf = [0.0f32; TN];
                        for g in 0..TM / 4 {
                            let v = at[row].load4((g * (BM / TM)) as u32 + ty);
                            for i in 0..4 {
                                af[4 * g + i] = v[i];
                            }
                        }
                        for g in 0..TN / 4 {
                            let v = bt[row].load4((g * (BN / TN)) as u32 + tx);
                            for j in 0..4 {
                                bf[4 * g + j] = v[j];
                            }
                        }
                        for i in 0..TM {
                            for j in 0..TN {
                                acc[i][j] += af[i] * bf[j];
                            }
                        }
                    }
                }
                if s < steps {
                    let next = s % 2 * BK as u32;
                    for v in 0..A_VECTORS {
                        let e = tid + (v * THREADS) as u32;
                        let r = e / (BK / 4) as u32;
                        let q = next + e % (BK / 4) as u32 * 4;
                        for j in 0..4 {
                            at[q + j as u32][r] = a_next[v][j];
                        }
                    }
                    for v in 0..B_VECTORS {
                        let e = tid + (v * THREADS) as u32;
                        bt[next + e / (BN / 4) as u32].store4(e % (BN / 4) as u32, b_next[v]);
                    }
                }
                sync_threads();
            }
            for i in 0..TM {
                let r = row0 + (i / 4 * (4 * BM / TM) + i % 4) as u32 + 4 * ty;
                for g in 0..TN / 4 {
                    let col = col0 + (g * (4 * BN / TN)) as u32 + 4 * tx;
                    let v = [
                        acc[i][4 * g],
                        acc[i][4 * g + 1],
                        acc[i][4 * g + 2],
                        acc[i][4 * g + 3],
                    ];
                    if r < m {
                        if vectors && col < n {
                            c.store4((r * n + col) / 4, v);
                        } else {
                            for j in 0..4 {
                                if col + (j as u32) < n {
                                    c[r * n + col + j as u32] = v[j];
                                }
                            }
                        }
                    }
                }
            }
        }

        /// The blocks covering an m×n matrix C, each `BM`×`BN`, of `(BN / TN) × (BM / TM)`
        /// threads.
        pub fn shape(m: usize, n: usize) -> LaunchShape {
            LaunchShape {
                grid: (n.div_ceil(BN) as u32, m.div_ceil(BM) as u32, 1),
                block: ((BN / TN) as u32, (BM / TM) as u32, 1),
            }
        }
    };
}

/// 128×128 tiles, 8 columns of A per step, 8×8 per thread, 256 threads.
pub mod bk8 {
    use ongpu::prelude::*;

    /// Rows of C per block.
    pub const BM: usize = 128;
    /// Columns of C per block.
    pub const BN: usize = 128;
    /// Columns of A (rows of B) staged per step.
    pub const BK: usize = 8;
    /// Rows of C per thread (a multiple of 4).
    pub const TM: usize = 8;
    /// Columns of C per thread (a multiple of 4).
    pub const TN: usize = 8;
    /// Threads per block.
    pub const THREADS: usize = (BM / TM) * (BN / TN);
    /// `load4`s of A per thread and step.
    pub const A_VECTORS: usize = BM * BK / (4 * THREADS);
    /// `load4`s of B per thread and step.
    pub const B_VECTORS: usize = BK * BN / (4 * THREADS);

    sgemm_kernel!();
}

/// The same with 16 columns of A per step: half the barriers, twice the shared memory.
pub mod bk16 {
    use ongpu::prelude::*;

    /// Rows of C per block.
    pub const BM: usize = 128;
    /// Columns of C per block.
    pub const BN: usize = 128;
    /// Columns of A (rows of B) staged per step.
    pub const BK: usize = 16;
    /// Rows of C per thread (a multiple of 4).
    pub const TM: usize = 8;
    /// Columns of C per thread (a multiple of 4).
    pub const TN: usize = 8;
    /// Threads per block.
    pub const THREADS: usize = (BM / TM) * (BN / TN);
    /// `load4`s of A per thread and step.
    pub const A_VECTORS: usize = BM * BK / (4 * THREADS);
    /// `load4`s of B per thread and step.
    pub const B_VECTORS: usize = BK * BN / (4 * THREADS);

    sgemm_kernel!();
}

/// 256×128 tiles, 8 columns of A per step, 16×8 per thread, 256 threads.
pub mod tall {
    use ongpu::prelude::*;

    /// Rows of C per block.
    pub const BM: usize = 256;
    /// Columns of C per block.
    pub const BN: usize = 128;
    /// Columns of A (rows of B) staged per step.
    pub const BK: usize = 8;
    /// Rows of C per thread (a multiple of 4).
    pub const TM: usize = 16;
    /// Columns of C per thread (a multiple of 4).
    pub const TN: usize = 8;
    /// Threads per block.
    pub const THREADS: usize = (BM / TM) * (BN / TN);
    /// `load4`s of A per thread and step.
    pub const A_VECTORS: usize = BM * BK / (4 * THREADS);
    /// `load4`s of B per thread and step.
    pub const B_VECTORS: usize = BK * BN / (4 * THREADS);

    sgemm_kernel!();
}
