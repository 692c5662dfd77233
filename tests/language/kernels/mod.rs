//! The explicit-kernel test programs: each launches `#[ongpu::kernel]`s on random inputs
//! (outputs poisoned first) on whatever backend is current, and returns its outputs with a
//! reference computed on the host. The CPU tests check them against the references (these
//! are what proves barrier and atomic semantics on the CPU backend); the GPU tests also check
//! that both backends agree; the NVRTC test compiles every kernel they launch. The examples'
//! kernels are included from `examples/`.

#![allow(dead_code)]

use crate::programs::{rng, Kind, Output};
pub use arrays::local_arrays;
pub use device_arrays::device_arrays_program as device_arrays;
pub use device_barriers::device_barriers;
pub use generic_fns::generic_fns;
use ongpu::prelude::*;
use rand::Rng;

pub mod arrays;
pub mod device_arrays;
pub mod device_barriers;
pub mod generic_fns;
pub use ongpu_classic::{dot, histogram, matmul, sgemm};

pub type Program = fn() -> Vec<Output>;

fn exact(name: &'static str, got: Vec<f64>, want: Vec<f64>) -> Output {
    Output {
        name,
        got,
        want,
        kind: Kind::Exact,
    }
}

fn f64s<T: Copy + Into<f64>>(v: &[T]) -> Vec<f64> {
    v.iter().map(|&x| x.into()).collect()
}

// ---------------------------------------------------------------- indices

/// Every thread of a 3-D grid of 3-D blocks writes its coordinates at its own linear index.
#[ongpu::kernel]
fn coordinates(out: &mut [u32]) {
    let t = thread_idx();
    let b = block_idx();
    let bd = block_dim();
    let gd = grid_dim();
    let block = (b.z * gd.y + b.y) * gd.x + b.x;
    let thread = (t.z * bd.y + t.y) * bd.x + t.x;
    let i = (block * bd.x * bd.y * bd.z + thread) as usize;
    out[i] = t.x | t.y << 4 | t.z << 8 | b.x << 12 | b.y << 16 | b.z << 20;
}

pub fn indices() -> Vec<Output> {
    let (grid, block) = ((3u32, 2u32, 2u32), (4u32, 3u32, 2u32));
    let n = (3 * 2 * 2 * 4 * 3 * 2) as usize;
    let mut out: Field<u32, AoS> = Field::filled(n, u32::MAX);
    coordinates::launch(LaunchShape { grid, block }, &mut out).unwrap();
    let mut want = Vec::new();
    for bz in 0..grid.2 {
        for by in 0..grid.1 {
            for bx in 0..grid.0 {
                for tz in 0..block.2 {
                    for ty in 0..block.1 {
                        for tx in 0..block.0 {
                            want.push(tx | ty << 4 | tz << 8 | bx << 12 | by << 16 | bz << 20);
                        }
                    }
                }
            }
        }
    }
    vec![exact(
        "coordinates",
        f64s(&out.to_vec().unwrap()),
        f64s(&want),
    )]
}

// ---------------------------------------------------------------- barriers

/// Each thread of a 2-D block writes its slot, then (after the barrier) reads its
/// neighbour's: without barrier semantics a thread would read a slot not yet written.
/// Twice, reusing the array, so a missing second barrier would be seen too.
#[ongpu::kernel]
fn rotate(x: &[f32], out: &mut [f32]) {
    let s = shared!([f32; 64]);
    let t = (thread_idx().y * block_dim().x + thread_idx().x) as usize;
    let threads = (block_dim().x * block_dim().y) as usize;
    let base = block_idx().x as usize * threads;
    s[t] = x[base + t];
    sync_threads();
    let first = s[(t + 1) % threads];
    sync_threads();
    s[t] = first * 2.0;
    sync_threads();
    out[base + t] = s[(t + threads - 1) % threads] + first;
}

/// Sums of blocks of 64 with a tree in shared memory: barriers inside a loop whose trip
/// count is the same for every thread.
#[ongpu::kernel]
fn block_sums(x: &[f64], sums: &mut [f64]) {
    let part = shared!([f64; 64]);
    let t = thread_idx().x as usize;
    let i = block_idx().x as usize * 64 + t;
    part[t] = if i < x.len() { x[i] } else { 0.0 };
    sync_threads();
    let mut half = 32;
    while half > 0 {
        if t < half {
            part[t] += part[t + half];
        }
        sync_threads();
        half /= 2;
    }
    if t == 0 {
        sums[block_idx().x] = part[0];
    }
}

/// A 2-D shared tile: C = Aᵀ for a rows×cols matrix, any sizes, 8×8 tiles (the tile is
/// read transposed after the barrier).
#[ongpu::kernel]
fn transpose(a: &[i32], c: &mut [i32], rows: u32, cols: u32) {
    let tile = shared!([[i32; 8]; 9]);
    let tx = thread_idx().x;
    let ty = thread_idx().y;
    let r = block_idx().y * 8 + ty;
    let col = block_idx().x * 8 + tx;
    if r < rows && col < cols {
        tile[ty][tx] = a[r * cols + col];
    }
    sync_threads();
    let orow = block_idx().x * 8 + ty;
    let ocol = block_idx().y * 8 + tx;
    if orow < cols && ocol < rows {
        c[orow * rows + ocol] = tile[tx][ty];
    }
}

pub fn barriers() -> Vec<Output> {
    let mut r = rng(11);
    let blocks = 5;
    let n = blocks * 64;
    let xv: Vec<f32> = (0..n)
        .map(|_| r.random_range(-8.0f32..8.0).round())
        .collect();
    let x: Field<f32, AoS> = Field::from_vec(xv.clone());
    let mut out: Field<f32, AoS> = Field::filled(n, f32::NAN);
    let shape = LaunchShape {
        grid: (blocks as u32, 1, 1),
        block: (16, 4, 1),
    };
    rotate::launch(shape, &x, &mut out).unwrap();
    let want: Vec<f32> = (0..n)
        .map(|i| {
            let (b, t) = (i / 64 * 64, i % 64);
            let first = |t: usize| xv[b + (t + 1) % 64];
            first((t + 63) % 64) * 2.0 + first(t)
        })
        .collect();

    let len = 1000usize;
    let yv: Vec<f64> = (0..len).map(|_| r.random_range(-1.0..1.0)).collect();
    let y: Field<f64, AoS> = Field::from_vec(yv.clone());
    let sums_n = len.div_ceil(64);
    let mut sums: Field<f64, AoS> = Field::filled(sums_n, f64::NAN);
    block_sums::launch(LaunchShape::linear(sums_n as u32, 64), &y, &mut sums).unwrap();
    let want_sums: Vec<f64> = yv.chunks(64).map(|c| c.iter().sum()).collect();

    let (rows, cols) = (19usize, 30usize);
    let av: Vec<i32> = (0..rows * cols)
        .map(|_| r.random_range(-1000..1000))
        .collect();
    let a: Field<i32, AoS> = Field::from_vec(av.clone());
    let mut c: Field<i32, AoS> = Field::filled(rows * cols, i32::MIN);
    let shape = LaunchShape::cover_2d((cols as u32, rows as u32), (8, 8));
    transpose::launch(shape, &a, &mut c, rows as u32, cols as u32).unwrap();
    let want_t: Vec<i32> = (0..cols * rows)
        .map(|k| av[(k % rows) * cols + k / rows])
        .collect();
    vec![
        exact("rotate", f64s(&out.to_vec().unwrap()), f64s(&want)),
        Output {
            name: "block sums",
            got: sums.to_vec().unwrap(),
            want: want_sums,
            kind: Kind::Rel(1e-14),
        },
        exact("transpose", f64s(&c.to_vec().unwrap()), f64s(&want_t)),
    ]
}

// ---------------------------------------------------------------- atomics

/// Every operation on global memory from many blocks: counts, a CAS-loop counter, the
/// extremes, and exchanges (whose old values, with the final one, are every id once).
#[ongpu::kernel]
fn global_atomics(
    v: &[i32],
    counts: &mut [u32],
    ints: &mut [i32],
    reals: &mut [f32],
    wide: &mut [f64],
    olds: &mut [u32],
    last: &mut [u32],
) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i >= v.len() {
        return;
    }
    let x = v[i];
    atomic_add(&mut counts[0], 1);
    atomic_sub(&mut counts[1], 3);
    atomic_add(&mut ints[0], x);
    atomic_min(&mut ints[1], x);
    atomic_max(&mut ints[2], x);
    atomic_min(&mut counts[2], x as u32);
    atomic_max(&mut counts[3], x as u32);
    atomic_add(&mut reals[0], x as f32);
    atomic_add(&mut wide[0], x as f64 * 0.5);
    let mut old = ints[3];
    loop {
        let seen = atomic_cas(&mut ints[3], old, old + 2);
        if seen == old {
            break;
        }
        old = seen;
    }
    olds[i] = atomic_exch(&mut last[0], i as u32 + 1);
}

/// A histogram of `v mod 16` per block in shared memory (shared atomics), added to the global
/// one; and a per-block count with `atomic_exch` on a shared flag.
#[ongpu::kernel]
fn shared_atomics(v: &[i32], hist: &mut [u32], firsts: &mut [u32]) {
    let h = shared!([u32; 16]);
    let flag = shared!([i32; 1]);
    let t = thread_idx().x as usize;
    if t < 16 {
        h[t] = 0;
    }
    if t == 0 {
        flag[0] = 0;
    }
    sync_threads();
    let i = block_idx().x as usize * block_dim().x as usize + t;
    if i < v.len() {
        atomic_add(&mut h[(v[i] & 15) as usize], 1);
        if atomic_exch(&mut flag[0], 1) == 0 {
            atomic_add(&mut firsts[0], 1);
        }
    }
    sync_threads();
    if t < 16 {
        atomic_add(&mut hist[t], h[t]);
    }
}

pub fn atomics() -> Vec<Output> {
    let mut r = rng(21);
    let n = 10_000;
    let vv: Vec<i32> = (0..n).map(|_| r.random_range(-2000..2000)).collect();
    let v: Field<i32, AoS> = Field::from_vec(vv.clone());
    let mut counts: Field<u32, AoS> = Field::from_vec(vec![0, 0, u32::MAX, 0]);
    let mut ints: Field<i32, AoS> = Field::from_vec(vec![0, i32::MAX, i32::MIN, 7]);
    let mut reals: Field<f32, AoS> = Field::zeros(1);
    let mut wide: Field<f64, AoS> = Field::zeros(1);
    let mut olds: Field<u32, AoS> = Field::filled(n, u32::MAX);
    let mut last: Field<u32, AoS> = Field::zeros(1);
    let shape = LaunchShape::linear((n as u32).div_ceil(128), 128);
    global_atomics::launch(
        shape,
        &v,
        &mut counts,
        &mut ints,
        &mut reals,
        &mut wide,
        &mut olds,
        &mut last,
    )
    .unwrap();
    let sum: i64 = vv.iter().map(|&x| x as i64).sum();
    let as_u32: Vec<u32> = vv.iter().map(|&x| x as u32).collect();
    let want_counts = [
        n as u32,
        0u32.wrapping_sub(3 * n as u32),
        *as_u32.iter().min().unwrap(),
        *as_u32.iter().max().unwrap(),
    ];
    let want_ints = [
        sum as i32,
        *vv.iter().min().unwrap(),
        *vv.iter().max().unwrap(),
        7 + 2 * n as i32,
    ];
    // The exchanges form a chain: sorted, the old values and the final one are 0..=n.
    let mut chain = olds.to_vec().unwrap();
    chain.extend(last.to_vec().unwrap());
    chain.sort_unstable();

    let blocks = (n as u32).div_ceil(256);
    let mut hist: Field<u32, AoS> = Field::zeros(16);
    let mut firsts: Field<u32, AoS> = Field::zeros(1);
    shared_atomics::launch(LaunchShape::linear(blocks, 256), &v, &mut hist, &mut firsts).unwrap();
    let mut want_hist = vec![0u32; 16];
    for &x in &vv {
        want_hist[(x & 15) as usize] += 1;
    }
    vec![
        exact(
            "counts",
            f64s(&counts.to_vec().unwrap()),
            f64s(&want_counts),
        ),
        exact("ints", f64s(&ints.to_vec().unwrap()), f64s(&want_ints)),
        // Every partial sum stays below 2^24 in magnitude (|Σ positives| < 2e3 · 1e4 / 2), so
        // the f32 sums are exact in any order; so are the f64 sums of halves.
        exact("f32 add", f64s(&reals.to_vec().unwrap()), vec![sum as f64]),
        exact("f64 add", wide.to_vec().unwrap(), vec![sum as f64 * 0.5]),
        exact(
            "exchange chain",
            f64s(&chain),
            (0..=n).map(|k| k as f64).collect(),
        ),
        exact(
            "shared histogram",
            f64s(&hist.to_vec().unwrap()),
            f64s(&want_hist),
        ),
        exact(
            "one first per block",
            f64s(&firsts.to_vec().unwrap()),
            vec![blocks as f64],
        ),
    ]
}

// ---------------------------------------------------------------- control flow, device fns

#[ongpu::device]
fn collatz_next(x: u64) -> u64 {
    if x % 2 == 0 {
        x / 2
    } else {
        3 * x + 1
    }
}

/// Collatz steps of each start value (`while`, `continue`, `loop`/`break`, early `return`).
#[ongpu::kernel]
fn collatz(starts: &[u32], steps: &mut [u32], limit: u32) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i >= starts.len() {
        return;
    }
    let mut x = starts[i] as u64;
    let mut n = 0u32;
    while x != 1 {
        x = collatz_next(x);
        n += 1;
        if n < limit {
            continue;
        }
        break;
    }
    let mut odd = 0u32;
    let mut k = 0u32;
    loop {
        if k >= n {
            break;
        }
        k += 1;
        if k % 2 == 0 {
            continue;
        }
        odd += 1;
    }
    steps[i] = n * 1000 + odd;
}

pub fn control_flow() -> Vec<Output> {
    let mut r = rng(31);
    let n = 3001;
    let sv: Vec<u32> = (0..n).map(|_| r.random_range(1..100_000)).collect();
    let starts: Field<u32, AoS> = Field::from_vec(sv.clone());
    let mut steps: Field<u32, AoS> = Field::filled(n, u32::MAX);
    collatz::launch(
        LaunchShape::linear((n as u32).div_ceil(64), 64),
        &starts,
        &mut steps,
        500,
    )
    .unwrap();
    let want: Vec<u32> = sv
        .iter()
        .map(|&s| {
            let (mut x, mut k) = (s as u64, 0u32);
            while x != 1 && k < 500 {
                x = if x % 2 == 0 { x / 2 } else { 3 * x + 1 };
                k += 1;
            }
            k * 1000 + k.div_ceil(2)
        })
        .collect();
    vec![exact(
        "collatz",
        f64s(&steps.to_vec().unwrap()),
        f64s(&want),
    )]
}

// ---------------------------------------------------------------- lattice element types

/// Arrays of complex numbers and colour matrices: partial writes, `+=` on elements, maths.
#[ongpu::kernel]
fn lattice(
    z: &mut [Complex<f32>],
    m: &[ColorMatrix<f64>],
    out: &mut [ColorMatrix<f64>],
    scale: f64,
) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < z.len() {
        z[i].im = z[i].re * 2.0;
        z[i] += Complex::<f32>::new(1.0, 0.5);
    }
    if i < m.len() {
        out[i] = m[i].adj() * m[i];
        out[i][0][1] = Complex::new(scale, -scale);
        out[i] *= scale;
    }
}

pub fn lattice_types() -> Vec<Output> {
    let mut r = rng(41);
    let n = 333;
    let zv: Vec<Complex<f32>> = (0..n)
        .map(|_| Complex::new(r.random_range(-1.0..1.0), 9.0))
        .collect();
    let mv: Vec<ColorMatrix<f64>> = (0..n).map(|_| crate::programs::matrix(&mut r)).collect();
    let mut z: Field<Complex<f32>, AoS> = Field::from_vec(zv.clone());
    let m: Field<ColorMatrix<f64>, AoS> = Field::from_vec(mv.clone());
    let mut out: Field<ColorMatrix<f64>, AoS> = Field::filled(n, ColorMatrix::zero() * f64::NAN);
    lattice::launch(LaunchShape::linear(6, 64), &mut z, &m, &mut out, 0.25).unwrap();
    let want_z: Vec<f64> = zv
        .iter()
        .flat_map(|z| [(z.re + 1.0) as f64, (z.re * 2.0 + 0.5) as f64])
        .collect();
    let got_z: Vec<f64> = z
        .to_vec()
        .unwrap()
        .iter()
        .flat_map(|z| [z.re as f64, z.im as f64])
        .collect();
    let want_m: Vec<f64> = mv
        .iter()
        .flat_map(|m| {
            let mut p = m.adj() * *m;
            p[0][1] = Complex::new(0.25, -0.25);
            crate::programs::matrix_reals(&(p * 0.25))
        })
        .collect();
    let got_m: Vec<f64> = out
        .to_vec()
        .unwrap()
        .iter()
        .flat_map(crate::programs::matrix_reals)
        .collect();
    vec![
        exact("complex", got_z, want_z),
        Output {
            name: "colour matrices",
            got: got_m,
            want: want_m,
            kind: Kind::Rel(1e-14),
        },
    ]
}

// ---------------------------------------------------------------- the examples' kernels

/// Random m×k times k×n products with the naive, the tiled, the register-blocked kernel and
/// the SGEMMs (sizes that are not multiples of 16, and more than one 64×64 tile; for the
/// SGEMMs also multiples of 4 that are not multiples of their tiles, and more than one of
/// the tall kernel's 256-row tiles), against an f64
/// reference: each element within the rounding bound (k + 2)·2⁻²⁴·Σ|a b|.
pub fn matmul_examples() -> Vec<Output> {
    let mut out = Vec::new();
    for ((m, n, k), names, seed) in [
        (
            (70, 83, 37),
            &[
                "naive",
                "tiled",
                "blocked",
                "sgemm bk8",
                "sgemm bk16",
                "sgemm tall",
            ][..],
            51,
        ),
        (
            (136, 260, 44),
            &[
                "sgemm bk8 (vectors)",
                "sgemm bk16 (vectors)",
                "sgemm tall (vectors)",
            ][..],
            52,
        ),
        ((300, 136, 20), &["sgemm tall (vectors)"][..], 53),
    ] {
        out.extend(matmul_checked(m, n, k, names, seed));
    }
    out
}

/// The product of random m×k and k×n matrices with each kernel of `names`, checked.
fn matmul_checked(m: usize, n: usize, k: usize, names: &[&'static str], seed: u64) -> Vec<Output> {
    let mut r = rng(seed);
    let av: Vec<f32> = (0..m * k).map(|_| r.random_range(-1.0..1.0)).collect();
    let bv: Vec<f32> = (0..k * n).map(|_| r.random_range(-1.0..1.0)).collect();
    let a: Field<f32, AoS> = Field::from_vec(av.clone());
    let b: Field<f32, AoS> = Field::from_vec(bv.clone());
    let mut out = Vec::new();
    for &kernel in names {
        let mut c: Field<f32, AoS> = Field::filled(m * n, f32::NAN);
        let shape = matmul::shape(m, n);
        let (mu, nu, ku) = (m as u32, n as u32, k as u32);
        match kernel {
            "naive" => matmul::matmul_naive::launch(shape, &a, &b, &mut c, mu, nu, ku),
            "tiled" => matmul::matmul_tiled::launch(shape, &a, &b, &mut c, mu, nu, ku),
            "blocked" => {
                let shape = matmul::blocked_shape(m, n);
                matmul::matmul_blocked::launch(shape, &a, &b, &mut c, mu, nu, ku)
            }
            name if name.starts_with("sgemm bk8") => {
                let shape = sgemm::bk8::shape(m, n);
                sgemm::bk8::sgemm::launch(shape, &a, &b, &mut c, mu, nu, ku)
            }
            name if name.starts_with("sgemm tall") => {
                let shape = sgemm::tall::shape(m, n);
                sgemm::tall::sgemm::launch(shape, &a, &b, &mut c, mu, nu, ku)
            }
            _ => {
                let shape = sgemm::bk16::shape(m, n);
                sgemm::bk16::sgemm::launch(shape, &a, &b, &mut c, mu, nu, ku)
            }
        }
        .unwrap();
        let got = c.to_vec().unwrap();
        // Within the bound: reported as the reference itself, so the check is exact.
        let mut within = Vec::with_capacity(m * n);
        let mut want = Vec::with_capacity(m * n);
        for i in 0..m {
            for j in 0..n {
                let (mut s, mut abs) = (0.0f64, 0.0f64);
                for p in 0..k {
                    let x = av[i * k + p] as f64 * bv[p * n + j] as f64;
                    s += x;
                    abs += x.abs();
                }
                let bound = (k + 2) as f64 * f64::powi(2.0, -24) * abs;
                let g = got[i * n + j] as f64;
                within.push(if (g - s).abs() <= bound { s } else { g });
                want.push(s);
            }
        }
        out.push(exact(kernel, within, want));
    }
    out
}

/// 100 003 random bytes (not a multiple of 4 words per thread) with each histogram
/// kernel: exact counts.
pub fn histogram_examples() -> Vec<Output> {
    let mut r = rng(61);
    let words_n = 25_001;
    let wv: Vec<u32> = (0..words_n).map(|_| r.random()).collect();
    let want: Vec<f64> = histogram::reference(&wv)
        .iter()
        .map(|&c| c as f64)
        .collect();
    let words: Field<u32, AoS> = Field::from_vec(wv);
    let shape = LaunchShape::linear(7, 128);
    let mut out = Vec::new();
    for (name, kernel) in [("global", 0), ("shared", 1), ("lanes", 2)] {
        let mut bins: Field<u32, AoS> = Field::zeros(histogram::BINS);
        match kernel {
            0 => histogram::histogram_global::launch(shape, &words, &mut bins),
            1 => histogram::histogram_shared::launch(shape, &words, &mut bins),
            _ => histogram::histogram_lanes::launch(shape, &words, &mut bins),
        }
        .unwrap();
        out.push(exact(name, f64s(&bins.to_vec().unwrap()), want.clone()));
    }
    let mut sink: Field<u32, AoS> = Field::zeros(7 * 128);
    histogram::read_words::launch(shape, &words, &mut sink).unwrap();
    let xor = sink.to_vec().unwrap().iter().fold(0, |a, &b| a ^ b);
    let want_xor = (0..words_n).fold(0u32, |a, i| a ^ words.get(i).unwrap());
    out.push(exact("read xor", vec![xor as f64], vec![want_xor as f64]));
    out
}

/// A dot product of 100 003 elements with the lock and the atomic version: within the
/// rounding bound of their summation order, d·2⁻²⁴·Σ|a b| where each product passes through
/// at most d additions (a thread's products, the tree, the blocks' sums). Inputs in [0, 1)
/// make the bound relative (about 3.5e-6), far below a lost block sum (1/37).
pub fn dot_examples() -> Vec<Output> {
    let mut r = rng(71);
    let n = 100_003usize;
    let av: Vec<f32> = (0..n).map(|_| r.random_range(0.0..1.0)).collect();
    let bv: Vec<f32> = (0..n).map(|_| r.random_range(0.0..1.0)).collect();
    let (want, abs) = dot::reference(&av, &bv);
    let blocks = 37;
    let depth = n.div_ceil(blocks * dot::THREADS) + dot::THREADS.ilog2() as usize + blocks + 2;
    let bound = depth as f64 * f64::powi(2.0, -24) * abs;
    let a: Field<f32, AoS> = Field::from_vec(av);
    let b: Field<f32, AoS> = Field::from_vec(bv);
    let shape = LaunchShape::linear(blocks as u32, dot::THREADS as u32);
    let mut sum: Field<f32, AoS> = Field::zeros(1);
    let mut lock: Field<i32, AoS> = Field::zeros(1);
    dot::dot_lock::launch(shape, &a, &b, &mut sum, &mut lock).unwrap();
    let locked = sum.get(0).unwrap() as f64;
    let mut sum: Field<f32, AoS> = Field::zeros(1);
    dot::dot_atomic::launch(shape, &a, &b, &mut sum).unwrap();
    let atomic = sum.get(0).unwrap() as f64;
    let within = |g: f64| if (g - want).abs() <= bound { want } else { g };
    vec![
        exact("lock", vec![within(locked)], vec![want]),
        exact("lock released", f64s(&lock.to_vec().unwrap()), vec![0.0]),
        exact("atomic", vec![within(atomic)], vec![want]),
    ]
}

/// Kernels that go wrong on purpose: barriers not reached by every thread, indices out of
/// range.
pub mod faults {
    #[ongpu::kernel]
    pub fn barrier_in_branch(out: &mut [u32], uniform: u32) {
        let t = thread_idx().x;
        if uniform > 0 {
            sync_threads();
        }
        if t < 4 {
            sync_threads();
        }
        out[t] = t;
    }

    #[ongpu::kernel]
    pub fn barriers_in_both_branches(out: &mut [u32]) {
        let t = thread_idx().x;
        if t % 2 == 0 {
            sync_threads();
        } else {
            sync_threads();
        }
        out[t] = t;
    }

    #[ongpu::kernel]
    pub fn read_past(a: &[f32], out: &mut [f32], shift: i32) {
        let i = thread_idx().x as i32;
        out[i] = a[i + shift];
    }

    /// Threads 4 and up index past `s`; each thread's value is its own, so an out-of-range
    /// write that landed on an in-range element would show in `out`.
    #[ongpu::kernel]
    pub fn shared_past(out: &mut [f32]) {
        let s = shared!([[f32; 4]; 2]);
        let t = thread_idx().x;
        s[1][t] = t as f32 + 1.0;
        sync_threads();
        out[t] = s[1][t];
    }
}

pub fn all() -> Vec<(&'static str, Program)> {
    vec![
        ("indices", indices),
        ("barriers", barriers),
        ("atomics", atomics),
        ("control_flow", control_flow),
        ("lattice_types", lattice_types),
        ("matmul_examples", matmul_examples),
        ("histogram_examples", histogram_examples),
        ("dot_examples", dot_examples),
        ("local_arrays", arrays::local_arrays),
        ("device_arrays", device_arrays),
        ("generic_fns", generic_fns),
        ("device_barriers", device_barriers),
    ]
}
