//! The host's hand-vectorised reference: `x += y * z` over `AoSoA<32>` storage written as a
//! Rust programmer vectorises it by hand: blocks of 32 sites, every operation a loop over
//! the 32 lanes of one component (contiguous, so each is a few vector instructions), the
//! product of a row and a column kept in lane arrays, blocks on rayon threads, and the loops
//! compiled for the width `on_gpu!` uses (`ongpu::with_cpu_vectors`: AVX-512, AVX2+FMA or
//! the baseline, the widest the host has; no FMA contraction, which Rust never makes on its
//! own).

use ongpu::prelude::*;
use rayon::prelude::*;

/// Lanes of a block.
const V: usize = 32;
/// Scalars of one block of colour matrices.
const BLOCK: usize = 18 * V;

/// The storage of `elements` in `AoSoA<32>` order (component `c` of site `32 b + l` at
/// `b * 18 * 32 + c * 32 + l`; the last block padded with zeros).
pub fn to_blocks<T: Copy + Default>(elements: &[ColorMatrix<T>]) -> Vec<T> {
    let mut out = vec![T::default(); elements.len().div_ceil(V) * BLOCK];
    for (s, e) in elements.iter().enumerate() {
        for (c, x) in e.m.iter().flatten().flat_map(|z| [z.re, z.im]).enumerate() {
            out[(s / V) * BLOCK + c * V + s % V] = x;
        }
    }
    out
}

/// The first `n` elements of `AoSoA<32>` storage.
pub fn from_blocks<T: Copy + Default>(blocks: &[T], n: usize) -> Vec<ColorMatrix<T>> {
    (0..n)
        .map(|s| {
            let at = |c: usize| blocks[(s / V) * BLOCK + c * V + s % V];
            ColorMatrix::new(std::array::from_fn(|i| {
                std::array::from_fn(|j| Complex::new(at((i * 3 + j) * 2), at((i * 3 + j) * 2 + 1)))
            }))
        })
        .collect()
}

/// `x += y * z` on one block.
#[inline(always)]
fn block<T>(x: &mut [T], y: &[T], z: &[T])
where
    T: Copy + Default + std::ops::Add<Output = T> + std::ops::Sub<Output = T>,
    T: std::ops::Mul<Output = T>,
{
    // Component `im` (0: real, 1: imaginary) of entry (i, j): 32 contiguous lanes.
    fn comp<T>(a: &[T], i: usize, j: usize, im: usize) -> &[T; V] {
        let at = ((i * 3 + j) * 2 + im) * V;
        a[at..at + V].try_into().unwrap()
    }
    let x: &mut [T; BLOCK] = x.try_into().unwrap();
    for i in 0..3 {
        for j in 0..3 {
            let (mut re, mut im) = ([T::default(); V], [T::default(); V]);
            for k in 0..3 {
                let (yr, yi) = (comp(y, i, k, 0), comp(y, i, k, 1));
                let (zr, zi) = (comp(z, k, j, 0), comp(z, k, j, 1));
                for l in 0..V {
                    re[l] = re[l] + (yr[l] * zr[l] - yi[l] * zi[l]);
                    im[l] = im[l] + (yr[l] * zi[l] + yi[l] * zr[l]);
                }
            }
            let at = (i * 3 + j) * 2 * V;
            for l in 0..V {
                x[at + l] = x[at + l] + re[l];
                x[at + V + l] = x[at + V + l] + im[l];
            }
        }
    }
}

/// `x += y * z` over every block, 64 blocks a rayon task, at the width `on_gpu!` uses.
pub fn run<T>(x: &mut [T], y: &[T], z: &[T])
where
    T: Copy + Default + Send + Sync + std::ops::Add<Output = T> + std::ops::Sub<Output = T>,
    T: std::ops::Mul<Output = T>,
{
    let task = 64 * BLOCK;
    x.par_chunks_mut(task)
        .zip(y.par_chunks(task))
        .zip(z.par_chunks(task))
        .for_each(|((x, y), z)| {
            ongpu::with_cpu_vectors(
                #[inline(always)]
                || {
                    for ((x, y), z) in x
                        .chunks_exact_mut(BLOCK)
                        .zip(y.chunks_exact(BLOCK))
                        .zip(z.chunks_exact(BLOCK))
                    {
                        block(x, y, z);
                    }
                },
            )
        });
}
