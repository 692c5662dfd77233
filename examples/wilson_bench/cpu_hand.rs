//! The host's hand-vectorised reference for the Wilson hop `H ψ` on the even sites over
//! `AoSoA<32>` storage, written as a Rust programmer vectorises a stencil by hand: blocks of
//! 32 even sites; per direction and sign, the neighbours' spinors (and the backward links)
//! gathered into lane buffers through a neighbour table built once, the spinors projected to
//! two colour vectors, multiplied by the link and reconstructed into the four spin
//! components, each step a loop over the 32 lanes of one component; the links at the sites
//! read where they lie; blocks on rayon threads, the loops compiled for the width `on_gpu!`
//! uses (`ongpu::with_cpu_vectors`). The spin projections are those of the library's `hop`
//! (DeGrand–Rossi γ matrices), so the result is the same operator to rounding.

#![allow(clippy::needless_range_loop)] // lanes, colours and spins read best as indices

use ongpu::prelude::*;
use ongpu::qcd::wilson::Spinor;
use rayon::prelude::*;

/// Lanes of a block.
const V: usize = 32;
/// Scalars of a spinor, and of a site's four links.
const SPIN: usize = 24;
const LINKS: usize = 72;

/// Scalar `c` of site `s` in `AoSoA<32>` storage of elements of `comps` scalars.
fn at(s: usize, c: usize, comps: usize) -> usize {
    (s / V) * comps * V + c * V + s % V
}

/// A factor of a spin projection or reconstruction.
#[derive(Clone, Copy)]
enum Phase {
    Plus,
    Minus,
    PlusI,
    MinusI,
}

/// One direction and sign: `h0 = ψ0 + c ψp`, `h1 = ψ1 + c ψq`; `a = U h0`, `b = U h1`;
/// `r0 += a`, `r1 += b`, `r2 += c x`, `r3 += c y` with `x`, `y` one of `a` (0) or `b` (1).
struct Projection {
    h0: (usize, Phase),
    h1: (usize, Phase),
    r2: (usize, Phase),
    r3: (usize, Phase),
}

use Phase::{Minus, MinusI, Plus, PlusI};

/// `[mu][forward, backward]`, as the library's `hop` projects.
const PROJECTIONS: [[Projection; 2]; 4] = [
    [
        Projection {
            h0: (3, MinusI),
            h1: (2, MinusI),
            r2: (1, PlusI),
            r3: (0, PlusI),
        },
        Projection {
            h0: (3, PlusI),
            h1: (2, PlusI),
            r2: (1, MinusI),
            r3: (0, MinusI),
        },
    ],
    [
        Projection {
            h0: (3, Plus),
            h1: (2, Minus),
            r2: (1, Minus),
            r3: (0, Plus),
        },
        Projection {
            h0: (3, Minus),
            h1: (2, Plus),
            r2: (1, Plus),
            r3: (0, Minus),
        },
    ],
    [
        Projection {
            h0: (2, MinusI),
            h1: (3, PlusI),
            r2: (0, PlusI),
            r3: (1, MinusI),
        },
        Projection {
            h0: (2, PlusI),
            h1: (3, MinusI),
            r2: (0, MinusI),
            r3: (1, PlusI),
        },
    ],
    [
        Projection {
            h0: (2, Minus),
            h1: (3, Minus),
            r2: (0, Minus),
            r3: (1, Minus),
        },
        Projection {
            h0: (2, Plus),
            h1: (3, Plus),
            r2: (0, Plus),
            r3: (1, Plus),
        },
    ],
];

/// One component of 32 lanes.
type Lane<T> = [T; V];

/// The reference's storage of a problem: links, spinors and the neighbour table.
pub struct Hand<T> {
    links: Vec<T>,
    psi: Vec<T>,
    /// `[forward, backward][mu]` neighbour of every even site.
    next: Vec<[[u32; 4]; 2]>,
    even: usize,
}

impl<T> Hand<T>
where
    T: Copy + Default + Send + Sync,
    T: std::ops::Add<Output = T> + std::ops::Sub<Output = T> + std::ops::Mul<Output = T>,
{
    /// The reference's storage of `links` and `psi` (one element per site, in the lattice's
    /// order) on `lat`.
    pub fn new(lat: &Lattice, links: &[[ColorMatrix<T>; 4]], psi: &[Spinor<T>]) -> Self {
        let n = lat.volume();
        let blocks = n.div_ceil(V);
        let mut l = vec![T::default(); blocks * LINKS * V];
        let mut p = vec![T::default(); blocks * SPIN * V];
        for s in 0..n {
            for mu in 0..4 {
                for (k, z) in links[s][mu].m.iter().flatten().enumerate() {
                    l[at(s, mu * 18 + 2 * k, LINKS)] = z.re;
                    l[at(s, mu * 18 + 2 * k + 1, LINKS)] = z.im;
                }
            }
            for (k, z) in psi[s].iter().flat_map(|v| v.v.iter()).enumerate() {
                p[at(s, 2 * k, SPIN)] = z.re;
                p[at(s, 2 * k + 1, SPIN)] = z.im;
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

    /// Storage for the result.
    pub fn output(&self) -> Vec<T> {
        vec![T::default(); self.even.div_ceil(V) * SPIN * V]
    }

    /// The result's even sites, in the lattice's order.
    pub fn even_sites(&self, out: &[T]) -> Vec<Spinor<T>> {
        (0..self.even)
            .map(|s| {
                std::array::from_fn(|spin| {
                    ColorVector::new(std::array::from_fn(|k| {
                        let c = 2 * (spin * 3 + k);
                        Complex::new(out[at(s, c, SPIN)], out[at(s, c + 1, SPIN)])
                    }))
                })
            })
            .collect()
    }

    /// `out = H psi` on the even sites (whole blocks of 32).
    pub fn run(&self, out: &mut [T]) {
        out.par_chunks_mut(8 * SPIN * V)
            .enumerate()
            .for_each(|(task, out)| {
                ongpu::with_cpu_vectors(
                    #[inline(always)]
                    || {
                        for (b, out) in out.chunks_exact_mut(SPIN * V).enumerate() {
                            self.block((task * 8 + b) * V, out);
                        }
                    },
                )
            });
    }

    /// One block of 32 even sites from `s0`.
    #[inline(always)]
    fn block(&self, s0: usize, out: &mut [T]) {
        let zero = [T::default(); V];
        // r[2 * (spin * 3 + colour) + im], h[2 * (half * 3 + colour) + im].
        let mut r: [Lane<T>; SPIN] = [zero; SPIN];
        for mu in 0..4 {
            for back in 0..2 {
                let p = &PROJECTIONS[mu][back];
                // The neighbours' spinors, and the backward links U_mu(x - mu), gathered.
                let mut f: [Lane<T>; SPIN] = [zero; SPIN];
                let mut w: [Lane<T>; 18] = [zero; 18];
                for l in 0..V {
                    let y = self.next[s0 + l][back][mu] as usize;
                    for c in 0..SPIN {
                        f[c][l] = self.psi[at(y, c, SPIN)];
                    }
                    if back == 1 {
                        for c in 0..18 {
                            w[c][l] = self.links[at(y, mu * 18 + c, LINKS)];
                        }
                    }
                }
                // The projection to two colour vectors.
                let mut h: [Lane<T>; 12] = [zero; 12];
                for (half, (partner, phase)) in [p.h0, p.h1].into_iter().enumerate() {
                    for k in 0..3 {
                        let (dr, di) = (2 * (half * 3 + k), 2 * (half * 3 + k) + 1);
                        let (pr, pi) = (2 * (partner * 3 + k), 2 * (partner * 3 + k) + 1);
                        for l in 0..V {
                            let (a, b) = phased(phase, f[pr][l], f[pi][l]);
                            h[dr][l] = f[dr][l] + a;
                            h[di][l] = f[di][l] + b;
                        }
                    }
                }
                // a = U h0, b = U h1 (U_mu(x) where it lies forward, U_mu(x - mu)† back).
                let base = (s0 / V) * LINKS * V;
                let mut ab: [Lane<T>; 12] = [zero; 12];
                for half in 0..2 {
                    for i in 0..3 {
                        let (dr, di) = (2 * (half * 3 + i), 2 * (half * 3 + i) + 1);
                        for k in 0..3 {
                            let (hr, hi) = (&h[2 * (half * 3 + k)], &h[2 * (half * 3 + k) + 1]);
                            if back == 0 {
                                let c = base + (mu * 18 + 2 * (i * 3 + k)) * V;
                                let (ur, ui) =
                                    (&self.links[c..c + V], &self.links[c + V..c + 2 * V]);
                                for l in 0..V {
                                    ab[dr][l] = ab[dr][l] + (ur[l] * hr[l] - ui[l] * hi[l]);
                                    ab[di][l] = ab[di][l] + (ur[l] * hi[l] + ui[l] * hr[l]);
                                }
                            } else {
                                // (U†)_ik h_k = conj(U_ki) h_k.
                                let c = 2 * (k * 3 + i);
                                let (ur, ui) = (&w[c], &w[c + 1]);
                                for l in 0..V {
                                    ab[dr][l] = ab[dr][l] + (ur[l] * hr[l] + ui[l] * hi[l]);
                                    ab[di][l] = ab[di][l] + (ur[l] * hi[l] - ui[l] * hr[l]);
                                }
                            }
                        }
                    }
                }
                // The reconstruction into the four spin components.
                for c in 0..12 {
                    for l in 0..V {
                        r[c][l] = r[c][l] + ab[c][l];
                    }
                }
                for (spin, (src, phase)) in [(2, p.r2), (3, p.r3)] {
                    for k in 0..3 {
                        let (sr, si) = (2 * (src * 3 + k), 2 * (src * 3 + k) + 1);
                        let (c, d) = (2 * (spin * 3 + k), 2 * (spin * 3 + k) + 1);
                        for l in 0..V {
                            let (a, b) = phased(phase, ab[sr][l], ab[si][l]);
                            r[c][l] = r[c][l] + a;
                            r[d][l] = r[d][l] + b;
                        }
                    }
                }
            }
        }
        for (c, lane) in r.iter().enumerate() {
            out[c * V..(c + 1) * V].copy_from_slice(lane);
        }
    }
}

/// `phase × (re + i im)`, as (re, im); the negations written as subtractions from zero's
/// counterpart (`T` has no `Neg` bound here).
#[inline(always)]
fn phased<T>(phase: Phase, re: T, im: T) -> (T, T)
where
    T: Copy + Default + std::ops::Sub<Output = T>,
{
    let zero = T::default();
    match phase {
        Plus => (re, im),
        Minus => (zero - re, zero - im),
        PlusI => (zero - im, re),
        MinusI => (im, zero - re),
    }
}
