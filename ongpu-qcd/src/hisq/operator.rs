//! The HISQ operator: the staggered hop through the fat links to the nearest neighbours and
//! through the Naik links to the third ones,
//!
//! `D ψ(x) = Σ_μ F_μ(x) ψ(x+μ̂) − F_μ(x−μ̂)† ψ(x−μ̂) + N_μ(x) ψ(x+3μ̂) − N_μ(x−3μ̂)† ψ(x−3μ̂)`
//!
//! (phases, ½ and coefficients folded into `F` and `N`: [`HisqLinks`]), and the normal
//! operator `A = m² − D_eo D_oe` on the even sites that the CG solvers invert, as for
//! [`Staggered`](crate::staggered::Staggered). Its shifts reach three sites: on a split
//! lattice or over ranks the halos are three deep.

use super::links::HisqLinks;
use super::single::SingleHisq;
use crate::boundary::TimeBoundary;
use crate::gauge::{GaugeField, LinksOf};
use crate::real;
use crate::staggered::FermionOf;
use crate::staggered::VectorReal;
use ongpu::prelude::*;
use ongpu_runtime::Summable;

/// Useful flops of one site of [`hop`]: 16 SU(3) matrix times vector products (66 flops
/// each) and 15 vector additions (6 each), the count MILC and QUDA use.
pub const HOP_FLOPS: f64 = 16.0 * 66.0 + 15.0 * 6.0;

/// Bytes of one site of [`hop`] with no cache reuse (f64): 16 links (144 B each) and 16
/// neighbour vectors (48 B) read, one vector written.
pub const HOP_BYTES: f64 = 16.0 * 144.0 + 16.0 * 48.0 + 48.0;

/// An `on_gpu!` call over `[$head]` whose body computes `h = D psi` at the site and runs
/// the tail (a device function cannot shift, so the stencil is a template).
macro_rules! hisq_hopping {
    ([$($head:tt)*] $fat:ident, $naik:ident, $psi:ident, |$h:ident| { $($tail:tt)* }) => {
        on_gpu!($($head)* {
            let mut $h = ColorVector::zero();
            for mu in 0..4 {
                $h += $fat[mu] * $psi.shift(mu, 1) - $fat.shift(mu, -1)[mu].adj() * $psi.shift(mu, -1);
                $h += $naik[mu] * $psi.shift(mu, 3) - $naik.shift(mu, -3)[mu].adj() * $psi.shift(mu, -3);
            }
            $($tail)*
        })
    };
}

/// `out = D psi` at the sites of `sites` (one parity, or the whole lattice), reading `psi`
/// at their neighbours one and three sites away (the other parity). `out` elsewhere is left
/// as it was.
pub fn hop<T: Real, P: SpaceSubset>(
    sites: P,
    fat: &LinksOf<P::Space, T>,
    naik: &LinksOf<P::Space, T>,
    psi: &FermionOf<P::Space, T>,
    out: &mut FermionOf<P::Space, T>,
) -> ongpu::Result<()>
where
    ColorVector<T>: ongpu::Element,
    ColorMatrix<T>: ongpu::Element,
    [ColorMatrix<T>; 4]: ongpu::Element,
{
    hisq_hopping!([sites,] fat, naik, psi, |h| {
        out = h;
    })
}

/// The HISQ operator of a gauge field, a mass and a Naik correction.
pub struct Hisq<S: Space = Lattice> {
    lat: S,
    links: HisqLinks<S>,
    mass: f64,
    epsilon: f64,
}

impl<S: Space> Hisq<S> {
    /// The operator of `u` with quark mass `mass` and Naik correction `epsilon` (0 for the
    /// light and strange quarks; the charm's is negative), its links smeared in f64 on the
    /// device, quarks antiperiodic in time unless `boundary` says otherwise.
    pub fn new(
        u: &GaugeField<S>,
        mass: f64,
        epsilon: f64,
        boundary: TimeBoundary,
    ) -> ongpu::Result<Hisq<S>> {
        if !mass.is_finite() {
            return Err(ongpu::Error::InvalidArgument(format!(
                "the quark mass must be finite, not {mass}"
            )));
        }
        Ok(Hisq {
            lat: u.lattice(),
            links: HisqLinks::new(u, epsilon, boundary)?,
            mass,
            epsilon,
        })
    }

    /// The operator of links built already (the same smearing serves several masses).
    pub fn from_links(lat: S, links: HisqLinks<S>, mass: f64, epsilon: f64) -> Hisq<S> {
        Hisq {
            lat,
            links,
            mass,
            epsilon,
        }
    }

    /// Where its vectors live.
    pub fn lattice(&self) -> S {
        self.lat
    }

    /// The quark mass `m` of the normal operator `m² − D_eo D_oe`.
    pub fn mass(&self) -> f64 {
        self.mass
    }

    /// The Naik correction `ε`.
    pub fn epsilon(&self) -> f64 {
        self.epsilon
    }

    /// The fat and Naik links the passes read.
    pub fn links(&self) -> &HisqLinks<S> {
        &self.links
    }

    /// `out = D_oe psi`: the odd sites of `out` from the even sites of `psi`.
    pub fn d_oe(&self, psi: &FermionOf<S>, out: &mut FermionOf<S>) -> ongpu::Result<()> {
        hop(self.lat.odd(), &self.links.fat, &self.links.naik, psi, out)
    }

    /// `out = D_eo psi`: the even sites of `out` from the odd sites of `psi`.
    pub fn d_eo(&self, psi: &FermionOf<S>, out: &mut FermionOf<S>) -> ongpu::Result<()> {
        hop(self.lat.even(), &self.links.fat, &self.links.naik, psi, out)
    }

    /// `out = D psi` at every site.
    pub fn dslash(&self, psi: &FermionOf<S>, out: &mut FermionOf<S>) -> ongpu::Result<()> {
        self.d_oe(psi, out)?;
        self.d_eo(psi, out)
    }

    /// `out = (m² − D_eo D_oe) x` at the even sites, through `t = D_oe x` at the odd ones.
    pub fn normal(
        &self,
        x: &FermionOf<S>,
        t: &mut FermionOf<S>,
        out: &mut FermionOf<S>,
    ) -> ongpu::Result<()> {
        self.d_oe(x, t)?;
        let (fat, naik) = (&self.links.fat, &self.links.naik);
        let mass2 = self.mass * self.mass;
        hisq_hopping!([self.lat.even(),] fat, naik, t, |h| {
            out = mass2 * x - h;
        })
    }

    /// At the even sites `w = (m² + shift) x − D_eo t` (with `t = D_oe x`, so `w = (A +
    /// shift) x`), returning `|x|²` and `Re⟨x, w⟩` from the same pass.
    pub fn apply_shifted(
        &self,
        x: &FermionOf<S>,
        shift: f64,
        t: &mut FermionOf<S>,
        w: &mut FermionOf<S>,
    ) -> ongpu::Result<(f64, f64)> {
        let (fat, naik) = (&self.links.fat, &self.links.naik);
        hop(self.lat.odd(), fat, naik, x, t)?;
        diagonal_minus_hop(self.lat, fat, naik, self.mass * self.mass + shift, x, t, w)
    }

    /// The operator with its links rounded to `f32`, for the low-precision iterations of
    /// the mixed solvers.
    pub fn single(&self) -> ongpu::Result<SingleHisq<S>> {
        SingleHisq::new(self)
    }
}

/// At the even sites `w = diagonal · x − D_eo t` (with `t = D_oe x`: `w = (A + shift) x`
/// for `diagonal = m² + shift`), returning `|x|²` and `Re⟨x, w⟩` from the same pass (the
/// two real sums as one complex one: one launch, one wait).
pub(crate) fn diagonal_minus_hop<S: Space, T: VectorReal>(
    lat: S,
    fat: &LinksOf<S, T>,
    naik: &LinksOf<S, T>,
    diagonal: f64,
    x: &FermionOf<S, T>,
    t: &FermionOf<S, T>,
    w: &mut FermionOf<S, T>,
) -> ongpu::Result<(f64, f64)>
where
    ColorVector<T>: ongpu::Element,
    ColorMatrix<T>: ongpu::Element,
    [ColorMatrix<T>; 4]: ongpu::Element,
    Complex<T>: Summable<Total = Complex<f64>, Itself = Complex<T>>,
{
    let diagonal = real::<T>(diagonal);
    let sums: Complex<f64> = hisq_hopping!([sum: lat.even(),] fat, naik, t, |h| {
        let ax = x * diagonal - h;
        w = ax;
        Complex::new(x.norm2(), x.dot(ax).re)
    })?;
    Ok((sums.re, sums.im))
}

crate::staggered::interface::even_odd_normal_interface!(Hisq);
