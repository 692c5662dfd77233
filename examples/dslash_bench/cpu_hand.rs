//! The host's hand-vectorised reference: the staggered hopping term on the even sites over
//! `AoSoA<32>` storage, written as a Rust programmer vectorises a stencil by hand: blocks of
//! 32 even sites; per direction, the neighbours' vectors (and the backward links) gathered
//! into lane buffers through a neighbour table built once (as ongpu's CPU backend builds
//! one), the links at the sites read where they lie, and every product a loop over the 32
//! lanes of one component (a few vector instructions each); blocks on rayon threads, the
//! loops compiled for the width `on_gpu!` uses (`ongpu::with_cpu_vectors`).

#![allow(clippy::needless_range_loop)] // lanes and colours read best as indices

use ongpu::prelude::*;
use rayon::prelude::*;

/// Lanes of a block.
const V: usize = 32;
/// Scalars of a vector, and of a site's four links.
const VEC: usize = 6;
const LINKS: usize = 72;

/// Scalar `c` of site `s` in `AoSoA<32>` storage of elements of `comps` scalars.
fn at(s: usize, c: usize, comps: usize) -> usize {
    (s / V) * comps * V + c * V + s % V
}

/// A problem laid out for the reference: links, source and neighbour table.
pub struct Hand<T> {
    links: Vec<T>,
    psi: Vec<T>,
    /// `[forward, backward][mu]` neighbour of every even site.
    next: Vec<[[u32; 4]; 2]>,
    even: usize,
}

impl<T: Copy + Default + Send + Sync> Hand<T> {
    /// The reference's storage of `links` and `psi` (one element per site, in the lattice's
    /// order) on `lat`.
    pub fn new(lat: &Lattice, links: &[[ColorMatrix<T>; 4]], psi: &[ColorVector<T>]) -> Self {
        let n = lat.volume();
        let blocks = n.div_ceil(V);
        let mut l = vec![T::default(); blocks * LINKS * V];
        let mut p = vec![T::default(); blocks * VEC * V];
        for s in 0..n {
            for mu in 0..4 {
                for (k, z) in links[s][mu].m.iter().flatten().enumerate() {
                    l[at(s, mu * 18 + 2 * k, LINKS)] = z.re;
                    l[at(s, mu * 18 + 2 * k + 1, LINKS)] = z.im;
                }
            }
            for (k, z) in psi[s].v.iter().enumerate() {
                p[at(s, 2 * k, VEC)] = z.re;
                p[at(s, 2 * k + 1, VEC)] = z.im;
            }
        }
        let even = n / 2;
        let next = (0..even)
            .map(|s| [1, -1].map(|k| [0, 1, 2, 3].map(|mu| lat.shift(s, mu, k) as u32)))
            .collect();
        Hand {
            links: l,
            psi: p,
            next,
            even,
        }
    }

    /// The result's even sites, in the lattice's order.
    pub fn even_sites(&self, chi: &[T]) -> Vec<ColorVector<T>> {
        (0..self.even)
            .map(|s| {
                ColorVector::new(std::array::from_fn(|k| {
                    Complex::new(chi[at(s, 2 * k, VEC)], chi[at(s, 2 * k + 1, VEC)])
                }))
            })
            .collect()
    }

    /// Storage for the result.
    pub fn output(&self) -> Vec<T> {
        vec![T::default(); self.even.div_ceil(V) * VEC * V]
    }
}

/// Lane buffers of one complex component: real and imaginary parts.
type Lanes<T> = ([T; V], [T; V]);

impl<T> Hand<T>
where
    T: Copy + Default + Send + Sync,
    T: std::ops::Add<Output = T> + std::ops::Sub<Output = T> + std::ops::Mul<Output = T>,
{
    /// `chi = D psi` on the even sites (whole blocks of 32; the even half is a multiple of
    /// 32 for the benchmark's sizes).
    pub fn run(&self, chi: &mut [T]) {
        chi.par_chunks_mut(16 * VEC * V)
            .enumerate()
            .for_each(|(task, out)| {
                ongpu::with_cpu_vectors(
                    #[inline(always)]
                    || {
                        for (b, out) in out.chunks_exact_mut(VEC * V).enumerate() {
                            self.block((task * 16 + b) * V, out);
                        }
                    },
                )
            });
    }

    /// One block of 32 even sites from `s0`.
    #[inline(always)]
    fn block(&self, s0: usize, out: &mut [T]) {
        let zero = || ([T::default(); V], [T::default(); V]);
        let mut r: [Lanes<T>; 3] = [zero(), zero(), zero()];
        for mu in 0..4 {
            // The neighbours' vectors forward and backward, and the backward links, gathered.
            let mut fwd: [Lanes<T>; 3] = [zero(), zero(), zero()];
            let mut bwd: [Lanes<T>; 3] = [zero(), zero(), zero()];
            let mut ub: [[Lanes<T>; 3]; 3] = [[zero(), zero(), zero()]; 3];
            for l in 0..V {
                let [f, b] = self.next[s0 + l].map(|d| d[mu] as usize);
                for k in 0..3 {
                    fwd[k].0[l] = self.psi[at(f, 2 * k, VEC)];
                    fwd[k].1[l] = self.psi[at(f, 2 * k + 1, VEC)];
                    bwd[k].0[l] = self.psi[at(b, 2 * k, VEC)];
                    bwd[k].1[l] = self.psi[at(b, 2 * k + 1, VEC)];
                    for j in 0..3 {
                        let c = mu * 18 + 2 * (k * 3 + j);
                        ub[k][j].0[l] = self.links[at(b, c, LINKS)];
                        ub[k][j].1[l] = self.links[at(b, c + 1, LINKS)];
                    }
                }
            }
            // The links at the sites, where they lie (one block's 32 lanes of a component).
            let base = (s0 / V) * LINKS * V;
            let u = |i: usize, k: usize, im: usize| -> &[T] {
                let c = mu * 18 + 2 * (i * 3 + k) + im;
                &self.links[base + c * V..base + (c + 1) * V]
            };
            for i in 0..3 {
                let (re, im) = &mut r[i];
                for k in 0..3 {
                    let (ur, ui) = (u(i, k, 0), u(i, k, 1));
                    let (fr, fi) = (&fwd[k].0, &fwd[k].1);
                    // U_mu(x)† entry (i, k) is conj(U_mu(x − mû) entry (k, i)).
                    let (br, bi) = (&ub[k][i].0, &ub[k][i].1);
                    let (pr, pi) = (&bwd[k].0, &bwd[k].1);
                    for l in 0..V {
                        re[l] = re[l] + (ur[l] * fr[l] - ui[l] * fi[l])
                            - (br[l] * pr[l] + bi[l] * pi[l]);
                        im[l] = im[l] + (ur[l] * fi[l] + ui[l] * fr[l])
                            - (br[l] * pi[l] - bi[l] * pr[l]);
                    }
                }
            }
        }
        for (i, (re, im)) in r.iter().enumerate() {
            out[2 * i * V..(2 * i + 1) * V].copy_from_slice(re);
            out[(2 * i + 1) * V..(2 * i + 2) * V].copy_from_slice(im);
        }
    }
}
