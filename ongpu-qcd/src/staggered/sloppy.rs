//! The staggered operator in low precision, for the inner iterations of [`MixedCg`]:
//! links stored as two rows of the storage real `R` (`f32`, or 16 bits: `f16`, `bf16`),
//! vectors stored in `R`, all arithmetic in `f32`, sums in `f64`.
//!
//! The folded links of [`Staggered`] (`η U / 2`) are not in SU(3), so they cannot be stored
//! as two rows; [`SloppyStaggered`] stores the links `U` themselves and applies the phases
//! and the ½ in the body: `η_mu(x)` from the site's coordinates (the backward link
//! `U_mu(x − mû)` has the same phase, as `η_mu` does not depend on `x_mu`), the ½ once on
//! the sum.
//!
//! [`MixedCg`]: super::MixedCg

use super::{FermionOf, Staggered};
use crate::gauge::compressed::{compress, su3_from_rows, CompressedLinksOf, CompressedSite};
use crate::gauge::LinksOf;
use crate::SiteLayout;
use ongpu::prelude::*;
use ongpu::Element;

/// An `on_gpu!` call over `[$head]` (the sites, with `sum:` for a reduction) whose body
/// computes `h = D psi` in `f32` at the site (links rebuilt from their rows, phases from
/// the coordinates, the ½ applied once) and then runs the tail. A device function cannot
/// shift, so the stencil is shared as a template, as the Wilson operator's is.
macro_rules! sloppy_hopping {
    ([$($head:tt)*] $lat:ident, $u:ident, $psi:ident, |$h:ident| { $($tail:tt)* }) => {
        on_gpu!($($head)* |i| {
            let mut $h = ColorVector::zero();
            let mut below = 0usize;
            for mu in 0..4 {
                let f = $u[mu];
                let g = $u.shift(mu, -1)[mu];
                let d = su3_from_rows(f[0].widen(), f[1].widen()) * $psi.shift(mu, 1).widen()
                    - su3_from_rows(g[0].widen(), g[1].widen()).adj()
                        * $psi.shift(mu, -1).widen();
                if below % 2 == 0 {
                    $h += d;
                } else {
                    $h -= d;
                }
                below += $lat.coord(i, mu);
            }
            $h = 0.5f32 * $h;
            $($tail)*
        })
    };
}

/// Colour vectors stored in `R` at every site of a [`Space`].
pub type SloppyFermionOf<S, R> = <S as Space>::Field<ColorVector<R>, SiteLayout>;

/// Colour vectors in `f32` at every site of a [`Space`] (the inner solution of a mixed
/// solve, which accumulates many small corrections).
pub type SingleFermionOf<S> = <S as Space>::Field<ColorVector<f32>, SiteLayout>;

/// Bytes of one site of the low-precision hop with no cache reuse: 8 links of 12 reals
/// and 8 neighbour vectors of 6 reals read, one vector written, `bytes` per real.
pub fn sloppy_hop_bytes(bytes: usize) -> f64 {
    (8.0 * 12.0 + 8.0 * 6.0 + 6.0) * bytes as f64
}

/// The staggered operator with its links as two rows of `R` (see the module
/// documentation).
pub struct SloppyStaggered<S: Space, R: StorageReal<Compute = f32>>
where
    CompressedSite<R>: Element,
{
    lat: S,
    rows: CompressedLinksOf<S, R>,
    mass: f64,
}

impl<S: Space, R: StorageReal<Compute = f32>> SloppyStaggered<S, R>
where
    f32: CastReal<R>,
    ColorVector<R>: Element,
    CompressedSite<R>: Element,
{
    /// The operator of `op` in low precision, built on the device: its links unfolded
    /// (`2 η` times the folded ones, exact), rounded to `f32`, checked to be SU(3) to 1e-6
    /// and stored as two rows of `R` (an [`ongpu::Error`] if a link is not, as
    /// [`compress`] says).
    pub fn new(op: &Staggered<S>) -> ongpu::Result<Self> {
        let lat = op.lattice();
        let folded = op.links();
        let mut single: LinksOf<S, f32> = lat.zeros()?;
        on_gpu!(lat, |i| {
            let mut below = 0usize;
            for mu in 0..4 {
                let unfold = if below % 2 == 0 { 2.0 } else { -2.0 };
                single[mu] = (unfold * folded[mu]).to_f32();
                below += lat.coord(i, mu);
            }
        })?;
        let mut rows: CompressedLinksOf<S, R> = lat.zeros()?;
        compress::<f32, R, S>(lat, &single, 1e-6, &mut rows)?;
        Ok(SloppyStaggered {
            lat,
            rows,
            mass: op.mass(),
        })
    }

    /// Where its vectors live.
    pub fn lattice(&self) -> S {
        self.lat
    }

    /// The links, two rows each.
    pub fn rows(&self) -> &CompressedLinksOf<S, R> {
        &self.rows
    }

    /// `out = D psi` at the sites of `sites` (one parity), reading `psi` at their
    /// neighbours.
    pub fn hop<P: SpaceSubset<Space = S>>(
        &self,
        sites: P,
        psi: &SloppyFermionOf<S, R>,
        out: &mut SloppyFermionOf<S, R>,
    ) -> ongpu::Result<()> {
        let (lat, u) = (self.lat, &self.rows);
        sloppy_hopping!([sites,] lat, u, psi, |h| {
            out = h.narrow();
        })
    }

    /// At the even sites `w = m² r − D_eo t` (with `t = D_oe r`: `w = A r`), returning
    /// `|r|²` and `Re⟨r, A r⟩` summed in `f64` (as the real and imaginary parts of one sum).
    pub fn apply_and_reduce(
        &self,
        t: &SloppyFermionOf<S, R>,
        r: &SloppyFermionOf<S, R>,
        w: &mut SloppyFermionOf<S, R>,
    ) -> ongpu::Result<Complex<f64>> {
        let (lat, u) = (self.lat, &self.rows);
        let mass2 = (self.mass * self.mass) as f32;
        sloppy_hopping!([sum: lat.even(),] lat, u, t, |h| {
            let rv = r.widen();
            let ar = mass2 * rv - h;
            w = ar.narrow();
            Complex::new(rv.norm2(), rv.dot(ar).re).to_f64()
        })
    }

    /// At the even sites `s = m² p − D_eo t` (with `t = D_oe p`: `s = A p`, computed
    /// afresh), returning `Re⟨p, A p⟩` and `Re⟨r, A p⟩` in `f64` (as one complex sum).
    pub fn apply_to_direction(
        &self,
        t: &SloppyFermionOf<S, R>,
        p: &SloppyFermionOf<S, R>,
        r: &SloppyFermionOf<S, R>,
        s: &mut SloppyFermionOf<S, R>,
    ) -> ongpu::Result<Complex<f64>> {
        let (lat, u) = (self.lat, &self.rows);
        let mass2 = (self.mass * self.mass) as f32;
        sloppy_hopping!([sum: lat.even(),] lat, u, t, |h| {
            let pv = p.widen();
            let ap = mass2 * pv - h;
            s = ap.narrow();
            Complex::new(pv.dot(ap).re, r.widen().dot(ap).re).to_f64()
        })
    }
}

/// The vector updates of one inner iteration at the even sites, in `f32`:
/// `p = r + β p`, `s = w + β s`, `x += α p`, `r −= α s` (`x` kept in `f32`).
#[allow(clippy::too_many_arguments)]
pub fn sloppy_update<S: Space, R: StorageReal<Compute = f32>>(
    lat: S,
    alpha: f32,
    beta: f32,
    w: &SloppyFermionOf<S, R>,
    p: &mut SloppyFermionOf<S, R>,
    s: &mut SloppyFermionOf<S, R>,
    x: &mut SingleFermionOf<S>,
    r: &mut SloppyFermionOf<S, R>,
) -> ongpu::Result<()>
where
    f32: CastReal<R>,
    ColorVector<R>: Element,
{
    on_gpu!(lat.even(), {
        let pn = r.widen() + beta * p.widen();
        let sn = w.widen() + beta * s.widen();
        p = pn.narrow();
        s = sn.narrow();
        x += alpha * pn;
        r = (r.widen() - alpha * sn).narrow();
    })
}

/// `low = scale · high` at the even sites, rounded to `R` (the residual handed to the inner
/// iterations, scaled so that its entries are of order one in 16 bits).
pub fn to_sloppy<S: Space, R: StorageReal<Compute = f32>>(
    lat: S,
    high: &FermionOf<S>,
    scale: f64,
    low: &mut SloppyFermionOf<S, R>,
) -> ongpu::Result<()>
where
    f32: CastReal<R>,
    ColorVector<R>: Element,
{
    on_gpu!(lat.even(), {
        low = (scale * high).to_f32().narrow();
    })
}

/// `high += scale · low` and `low = 0` at the even sites (the inner solution added to the
/// outer one in `f64`, and cleared).
pub fn accumulate<S: Space>(
    lat: S,
    scale: f64,
    low: &mut SingleFermionOf<S>,
    high: &mut FermionOf<S>,
) -> ongpu::Result<()> {
    on_gpu!(lat.even(), {
        high += scale * low.to_f64();
        low = ColorVector::zero().narrow();
    })
}

/// `v = 0` at the even sites of a low-precision field.
pub fn zero_sloppy<S: Space, R: StorageReal<Compute = f32>>(
    lat: S,
    v: &mut SloppyFermionOf<S, R>,
) -> ongpu::Result<()>
where
    f32: CastReal<R>,
    ColorVector<R>: Element,
{
    on_gpu!(lat.even(), {
        v = ColorVector::zero().narrow();
    })
}
