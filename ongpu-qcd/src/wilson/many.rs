//! Many right-hand sides of Wilson quarks at once: `N` spinors per site, [`Spinors`], so
//! that one pass over the sites reads each link (and clover block) once for all `N`.
//!
//! - [`Spinors`]: the element, the `N` spinors of a site as one flat array of `4 N` colour
//!   vectors (entry `4 k + spin`). Flat, not `[Spinor; N]`, because a body reaches it one
//!   entry at a time: `psi.shift(0, 1)[4 * k + 3]` and `out[4 * k] = r0` are entries of the
//!   element, which the GPU reads and writes in the field itself (docs/semantics.md), where
//!   `out[k][0] = …` would be below an entry and make the site hold all `4 N` colour vectors
//!   in a local array. The element of a domain-wall field is the same type (its `Ls`
//!   slices are `N` spinors: [`crate::domain_wall::FiveSpinor`]);
//! - [`hop_many`], [`hop_clover_many`]: `H ψ_k` and `A⁻¹ H ψ_k` for every `k`, the passes
//!   [`hop`](super::hop) and [`hop_clover`](super::hop_clover) with a loop over the
//!   right-hand sides inside the body: each link is loaded once per site.

use super::clover_algebra::{block_bottom, block_top};
use super::CloverFieldOf;
use super::CloverSite;
use super::Spinor;
use crate::gauge::LinksOf;
use crate::SiteLayout;
use ongpu::prelude::*;
use ongpu::Element;
use std::ops::{Index, IndexMut};

/// `N` spinors at every site of a [`Space`] (`N` right-hand sides), in double precision
/// unless `T` says otherwise.
pub type SpinorsOf<S, const N: usize, T = f64> = <S as Space>::Field<Spinors<T, N>, SiteLayout>;

/// `N` spinors at one site, indexed flat: `v[4 * k + spin]` is spin `spin` of spinor `k`
/// (`0 ≤ k < N`).
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(transparent)]
pub struct Spinors<T, const N: usize>(pub [Spinor<T>; N]);

// SAFETY: `[Spinor<T>; N]` of plain reals, transparent: no padding, any bit pattern valid.
unsafe impl<T: Real, const N: usize> bytemuck::Zeroable for Spinors<T, N> where
    ColorVector<T>: bytemuck::Zeroable
{
}
// SAFETY: as above.
unsafe impl<T: Real, const N: usize> bytemuck::Pod for Spinors<T, N> where
    ColorVector<T>: bytemuck::Pod
{
}

// SAFETY: `4 N` colour vectors in a row, as `ongpu::array<ColorVector<T>, 4 N>` is.
unsafe impl<T: Real, const N: usize> Element for Spinors<T, N>
where
    ColorVector<T>: Element + bytemuck::Pod,
{
    type Scalar = <ColorVector<T> as Element>::Scalar;
    const COMPONENTS: usize = 4 * N * <ColorVector<T> as Element>::COMPONENTS;
    const ENTRIES: usize = 4 * N;
    fn cuda_type() -> String {
        format!("ongpu::array<{}, {}>", ColorVector::<T>::cuda_type(), 4 * N)
    }
}

// SAFETY: `4 N` colour vectors in a row; `cuda_type` is `ongpu::array<ColorVector<T>, 4 N>`.
unsafe impl<T: Real, const N: usize> ongpu_runtime::ElementArray for Spinors<T, N>
where
    ColorVector<T>: Element + bytemuck::Pod,
{
    type Entry = ColorVector<T>;
    const LEN: usize = 4 * N;
}

impl<T, const N: usize> Spinors<T, N> {
    /// The spinors, `[k][spin]`.
    pub fn spinors(&self) -> &[Spinor<T>; N] {
        &self.0
    }
}

impl<T: Real, const N: usize> Default for Spinors<T, N> {
    fn default() -> Self {
        Spinors([[ColorVector::zero(); 4]; N])
    }
}

impl<T, const N: usize> Index<usize> for Spinors<T, N> {
    type Output = ColorVector<T>;
    #[inline(always)]
    fn index(&self, k: usize) -> &ColorVector<T> {
        &self.0[k / 4][k % 4]
    }
}

impl<T, const N: usize> IndexMut<usize> for Spinors<T, N> {
    #[inline(always)]
    fn index_mut(&mut self, k: usize) -> &mut ColorVector<T> {
        &mut self.0[k / 4][k % 4]
    }
}

/// One pass of the hopping term on `N` spinors per site: per `k`, `$r0 … $r3` are the
/// four spin components of `H ψ_k` (entries from `$e = 4 k`), which `$store` writes. The
/// spin projection of [`super::hop`] (the table of docs/wilson.md), each neighbour's
/// spin components read one colour vector at a time.
macro_rules! hopping_many {
    ($sites:expr, $n:expr, $u:ident, $psi:ident, |$e:ident, $r0:ident, $r1:ident, $r2:ident, $r3:ident| $store:block) => {{
        let n = $n;
        on_gpu!($sites, {
            for k in 0..n {
                let $e = 4 * k;
                let mut $r0 = ColorVector::zero();
                let mut $r1 = ColorVector::zero();
                let mut $r2 = ColorVector::zero();
                let mut $r3 = ColorVector::zero();
                // x: (1 − γ_0) forward: h = (ψ0 − iψ3, ψ1 − iψ2), rows (h0, h1, i h1, i h0).
                let link = $u[0];
                let a = link * ($psi.shift(0, 1)[$e] - $psi.shift(0, 1)[$e + 3].times_i());
                let b = link * ($psi.shift(0, 1)[$e + 1] - $psi.shift(0, 1)[$e + 2].times_i());
                $r0 += a;
                $r1 += b;
                $r2 += b.times_i();
                $r3 += a.times_i();
                // (1 + γ_0) backward: h = (ψ0 + iψ3, ψ1 + iψ2), rows (h0, h1, −i h1, −i h0).
                let link = $u.shift(0, -1)[0].adj();
                let a = link * ($psi.shift(0, -1)[$e] + $psi.shift(0, -1)[$e + 3].times_i());
                let b = link * ($psi.shift(0, -1)[$e + 1] + $psi.shift(0, -1)[$e + 2].times_i());
                $r0 += a;
                $r1 += b;
                $r2 -= b.times_i();
                $r3 -= a.times_i();
                // y: (1 − γ_1) forward: h = (ψ0 + ψ3, ψ1 − ψ2), rows (h0, h1, −h1, h0).
                let link = $u[1];
                let a = link * ($psi.shift(1, 1)[$e] + $psi.shift(1, 1)[$e + 3]);
                let b = link * ($psi.shift(1, 1)[$e + 1] - $psi.shift(1, 1)[$e + 2]);
                $r0 += a;
                $r1 += b;
                $r2 -= b;
                $r3 += a;
                // (1 + γ_1) backward: h = (ψ0 − ψ3, ψ1 + ψ2), rows (h0, h1, h1, −h0).
                let link = $u.shift(1, -1)[1].adj();
                let a = link * ($psi.shift(1, -1)[$e] - $psi.shift(1, -1)[$e + 3]);
                let b = link * ($psi.shift(1, -1)[$e + 1] + $psi.shift(1, -1)[$e + 2]);
                $r0 += a;
                $r1 += b;
                $r2 += b;
                $r3 -= a;
                // z: (1 − γ_2) forward: h = (ψ0 − iψ2, ψ1 + iψ3), rows (h0, h1, i h0, −i h1).
                let link = $u[2];
                let a = link * ($psi.shift(2, 1)[$e] - $psi.shift(2, 1)[$e + 2].times_i());
                let b = link * ($psi.shift(2, 1)[$e + 1] + $psi.shift(2, 1)[$e + 3].times_i());
                $r0 += a;
                $r1 += b;
                $r2 += a.times_i();
                $r3 -= b.times_i();
                // (1 + γ_2) backward: h = (ψ0 + iψ2, ψ1 − iψ3), rows (h0, h1, −i h0, i h1).
                let link = $u.shift(2, -1)[2].adj();
                let a = link * ($psi.shift(2, -1)[$e] + $psi.shift(2, -1)[$e + 2].times_i());
                let b = link * ($psi.shift(2, -1)[$e + 1] - $psi.shift(2, -1)[$e + 3].times_i());
                $r0 += a;
                $r1 += b;
                $r2 -= a.times_i();
                $r3 += b.times_i();
                // t: (1 − γ_3) forward: h = (ψ0 − ψ2, ψ1 − ψ3), rows (h0, h1, −h0, −h1).
                let link = $u[3];
                let a = link * ($psi.shift(3, 1)[$e] - $psi.shift(3, 1)[$e + 2]);
                let b = link * ($psi.shift(3, 1)[$e + 1] - $psi.shift(3, 1)[$e + 3]);
                $r0 += a;
                $r1 += b;
                $r2 -= a;
                $r3 -= b;
                // (1 + γ_3) backward: h = (ψ0 + ψ2, ψ1 + ψ3), rows (h0, h1, h0, h1).
                let link = $u.shift(3, -1)[3].adj();
                let a = link * ($psi.shift(3, -1)[$e] + $psi.shift(3, -1)[$e + 2]);
                let b = link * ($psi.shift(3, -1)[$e + 1] + $psi.shift(3, -1)[$e + 3]);
                $r0 += a;
                $r1 += b;
                $r2 += a;
                $r3 += b;
                $store
            }
        })
    }};
}

/// `out_k = H psi_k` for every `k < N` at the sites of `sites` (one parity: one
/// off-diagonal block; the whole lattice: all of `H`), each link loaded once per site.
/// `out` elsewhere is left as it was.
pub fn hop_many<T: Real, const N: usize, P: SpaceSubset>(
    sites: P,
    u: &LinksOf<P::Space, T>,
    psi: &SpinorsOf<P::Space, N, T>,
    out: &mut SpinorsOf<P::Space, N, T>,
) -> ongpu::Result<()>
where
    ColorVector<T>: Element,
    ColorMatrix<T>: Element,
    [ColorMatrix<T>; 4]: Element,
    Spinors<T, N>: ongpu_runtime::ElementArray<Entry = ColorVector<T>>,
{
    hopping_many!(sites, N, u, psi, |e, r0, r1, r2, r3| {
        out[e] = r0;
        out[e + 1] = r1;
        out[e + 2] = r2;
        out[e + 3] = r3;
    })
}

/// `out_k = blocks · H psi_k` for every `k < N` at the sites of `sites`: [`hop_many`] with
/// the packed clover blocks at the site (on the even-odd operator, the inverse blocks), as
/// [`super::hop_clover`] does for one spinor.
pub fn hop_clover_many<T: Real, const N: usize, P: SpaceSubset>(
    sites: P,
    u: &LinksOf<P::Space, T>,
    blocks: &CloverFieldOf<P::Space, T>,
    psi: &SpinorsOf<P::Space, N, T>,
    out: &mut SpinorsOf<P::Space, N, T>,
) -> ongpu::Result<()>
where
    ColorVector<T>: Element,
    ColorMatrix<T>: Element,
    [ColorMatrix<T>; 4]: Element,
    CloverSite<T>: Element,
    Spinors<T, N>: ongpu_runtime::ElementArray<Entry = ColorVector<T>>,
{
    hopping_many!(sites, N, u, psi, |e, r0, r1, r2, r3| {
        out[e] = block_top(
            blocks[0], blocks[1], blocks[2], blocks[3], blocks[4], r0, r1,
        );
        out[e + 1] = block_bottom(
            blocks[0], blocks[1], blocks[2], blocks[3], blocks[5], r0, r1,
        );
        out[e + 2] = block_top(
            blocks[6], blocks[7], blocks[8], blocks[9], blocks[10], r2, r3,
        );
        out[e + 3] = block_bottom(
            blocks[6], blocks[7], blocks[8], blocks[9], blocks[11], r2, r3,
        );
    })
}
