//! The Wilson operator as `on_gpu!` passes with spin projection: each of the eight hops
//! projects the neighbour's spinor onto a half spinor (two colour vectors, made with
//! additions and multiplications by ±i only), multiplies the two by the link, and rebuilds
//! the four spin components from them, so a site costs 8 × 2 SU(3) products instead of
//! 8 × 4.

use super::clover::{Clover, CloverFieldOf, CloverSite};
use super::clover_algebra::{block_bottom, block_top};
use super::{Spinor, SpinorFieldOf};
use crate::boundary::{apply_time_boundary, TimeBoundary};
use crate::gauge::{GaugeField, LinksOf};
use ongpu::prelude::*;
use ongpu::Element;

/// Useful flops of one site of the hopping term in the standard count (QUDA's and
/// Chroma's): 8 directions of two SU(3) matrix-vector products (66 flops each) and a
/// projection (12), and 7 × 24 to add the directions' four rebuilt spin components:
/// 8 · 144 + 168 = 1320.
pub const HOP_FLOPS: f64 = 1320.0;

/// Bytes of one site of the hopping term with no reuse (f64): 8 links of 144 bytes and 8
/// neighbour spinors of 192 bytes read, one spinor written.
pub const HOP_BYTES: f64 = 8.0 * 144.0 + 8.0 * 192.0 + 192.0;

/// Flops of applying the two packed clover blocks of a site in the standard count (QUDA's):
/// two Hermitian 6×6 blocks times a half spinor, 252 each.
pub const CLOVER_FLOPS: f64 = 504.0;

/// Bytes of the clover blocks of one site (f64): 72 reals.
pub const CLOVER_BYTES: f64 = 72.0 * 8.0;

/// The Wilson operator `D_W = 1 − κ H` of a gauge field, with the hopping term
/// `H ψ(x) = Σ_mu [(1 − γ_mu) U_mu(x) ψ(x+mû) + (1 + γ_mu) U_mu(x−mû)† ψ(x−mû)]`
/// (DeGrand–Rossi γ's, [`gamma`](super::gamma::gamma)), periodic in every direction unless
/// built [`with_boundary`](Wilson::with_boundary); with a [`Clover`] term
/// ([`Wilson::with_clover`]) the clover-improved `D = A − κ H`.
pub struct Wilson<'u, S: Space = Lattice> {
    lat: S,
    links: HopLinks<'u, S>,
    kappa: f64,
    clover: Option<&'u Clover<S>>,
    boundary: TimeBoundary,
}

/// The links the hops read: the gauge field's own (periodic quarks), or a copy with the
/// time boundary's sign on the last time slice.
enum HopLinks<'u, S: Space> {
    Gauge(&'u LinksOf<S>),
    WithBoundary(LinksOf<S>),
}

impl<'u, S: Space> Wilson<'u, S> {
    /// The operator of the links of `u` and the hopping parameter `kappa` (the bare mass is
    /// `1/(2κ) − 4`), periodic in every direction.
    pub fn new(u: &'u GaugeField<S>, kappa: f64) -> Wilson<'u, S> {
        Wilson {
            lat: u.lattice(),
            links: HopLinks::Gauge(u.links()),
            kappa,
            clover: None,
            boundary: TimeBoundary::Periodic,
        }
    }

    /// The operator with the quarks' time boundary `boundary`: antiperiodic hops across the
    /// last time slice read a copy of the links with its time links negated
    /// ([`crate::boundary`]; the clover term is unchanged by it). Another call replaces the
    /// boundary, it does not compound.
    pub fn with_boundary(self, boundary: TimeBoundary) -> ongpu::Result<Wilson<'u, S>> {
        if boundary == self.boundary {
            return Ok(self);
        }
        let links = match self.links {
            HopLinks::Gauge(gauge) => {
                let mut copy: LinksOf<S> = self.lat.zeros()?;
                on_gpu!(self.lat, {
                    copy = gauge;
                })?;
                apply_time_boundary(self.lat, boundary, &mut copy)?;
                HopLinks::WithBoundary(copy)
            }
            // The other boundary: the sign flips back (an involution).
            HopLinks::WithBoundary(mut own) => {
                apply_time_boundary(self.lat, TimeBoundary::Antiperiodic, &mut own)?;
                HopLinks::WithBoundary(own)
            }
        };
        Ok(Wilson {
            links,
            boundary,
            ..self
        })
    }

    /// The quarks' boundary condition in time.
    pub fn boundary(&self) -> TimeBoundary {
        self.boundary
    }

    /// The clover-improved operator `D = A − κ H` with the blocks `A` of `clover`, which
    /// must have been built for this `κ` (and these links) on the same lattice.
    pub fn with_clover(self, clover: &'u Clover<S>) -> ongpu::Result<Wilson<'u, S>> {
        if clover.kappa() != self.kappa {
            return Err(ongpu::Error::InvalidArgument(format!(
                "a clover term built for κ = {} on a Wilson operator of κ = {}: build it \
                 with the operator's κ",
                clover.kappa(),
                self.kappa
            )));
        }
        self.lat
            .check_field(clover.blocks(), "field of clover blocks")?;
        Ok(Wilson {
            clover: Some(clover),
            ..self
        })
    }

    /// The hopping parameter κ.
    pub fn kappa(&self) -> f64 {
        self.kappa
    }

    /// Where its spinors live.
    pub fn lattice(&self) -> S {
        self.lat
    }

    /// The links the hops read (with the time boundary's sign, if not periodic).
    pub fn links(&self) -> &LinksOf<S> {
        match &self.links {
            HopLinks::Gauge(links) => links,
            HopLinks::WithBoundary(links) => links,
        }
    }

    /// Its clover term, if it has one.
    pub fn clover(&self) -> Option<&'u Clover<S>> {
        self.clover
    }

    /// `out = D psi` at every site: the hopping term, then `A psi − κ H psi` (`A = 1`
    /// without a clover term; two passes: one pass that also kept the site's own spinor
    /// would hold 48 more registers through the hops, past what an f64 kernel has without
    /// spilling).
    pub fn apply(&self, psi: &SpinorFieldOf<S>, out: &mut SpinorFieldOf<S>) -> ongpu::Result<()> {
        hop(self.lat.all(), self.links(), psi, out)?;
        let kappa = self.kappa;
        match self.clover {
            None => on_gpu!(self.lat, {
                out[0] = psi[0] - out[0] * kappa;
                out[1] = psi[1] - out[1] * kappa;
                out[2] = psi[2] - out[2] * kappa;
                out[3] = psi[3] - out[3] * kappa;
            }),
            Some(c) => {
                let a = c.blocks();
                on_gpu!(self.lat, {
                    let s0 = psi[0];
                    let s1 = psi[1];
                    let s2 = psi[2];
                    let s3 = psi[3];
                    out[0] = block_top(a[0], a[1], a[2], a[3], a[4], s0, s1) - out[0] * kappa;
                    out[1] = block_bottom(a[0], a[1], a[2], a[3], a[5], s0, s1) - out[1] * kappa;
                    out[2] = block_top(a[6], a[7], a[8], a[9], a[10], s2, s3) - out[2] * kappa;
                    out[3] = block_bottom(a[6], a[7], a[8], a[9], a[11], s2, s3) - out[3] * kappa;
                })
            }
        }
    }

    /// `out = H psi` at the sites of `sites` (out elsewhere as it was): over one parity it
    /// is one off-diagonal block of the operator, `H_eo` or `H_oe`.
    pub fn hop<P: SpaceSubset<Space = S>>(
        &self,
        sites: P,
        psi: &SpinorFieldOf<S>,
        out: &mut SpinorFieldOf<S>,
    ) -> ongpu::Result<()> {
        hop(sites, self.links(), psi, out)
    }

    /// `out = A⁻¹ H psi` at `sites` (`H psi` without a clover term): one off-diagonal block
    /// of the even-odd operator.
    pub fn hop_inverse_clover<P: SpaceSubset<Space = S>>(
        &self,
        sites: P,
        psi: &SpinorFieldOf<S>,
        out: &mut SpinorFieldOf<S>,
    ) -> ongpu::Result<()> {
        match self.clover {
            None => hop(sites, self.links(), psi, out),
            Some(c) => hop_clover(sites, self.links(), c.inverses(), psi, out),
        }
    }
}

/// One pass of the hopping term: `$r0 … $r3` are the four spin components of `H ψ` at the
/// site, which `$store` writes.
macro_rules! hopping {
    ($sites:expr, $u:ident, $psi:ident, |$r0:ident, $r1:ident, $r2:ident, $r3:ident| $store:block) => {
        on_gpu!($sites, {
            let mut $r0 = ColorVector::zero();
            let mut $r1 = ColorVector::zero();
            let mut $r2 = ColorVector::zero();
            let mut $r3 = ColorVector::zero();
            // x: (1 − γ_0) forward: h = (ψ0 − iψ3, ψ1 − iψ2), rows (h0, h1, i h1, i h0).
            let f = $psi.shift(0, 1);
            let a = $u[0] * (f[0] - f[3].times_i());
            let b = $u[0] * (f[1] - f[2].times_i());
            $r0 += a;
            $r1 += b;
            $r2 += b.times_i();
            $r3 += a.times_i();
            // (1 + γ_0) backward: h = (ψ0 + iψ3, ψ1 + iψ2), rows (h0, h1, −i h1, −i h0).
            let g = $psi.shift(0, -1);
            let w = $u.shift(0, -1)[0].adj();
            let a = w * (g[0] + g[3].times_i());
            let b = w * (g[1] + g[2].times_i());
            $r0 += a;
            $r1 += b;
            $r2 -= b.times_i();
            $r3 -= a.times_i();
            // y: (1 − γ_1) forward: h = (ψ0 + ψ3, ψ1 − ψ2), rows (h0, h1, −h1, h0).
            let f = $psi.shift(1, 1);
            let a = $u[1] * (f[0] + f[3]);
            let b = $u[1] * (f[1] - f[2]);
            $r0 += a;
            $r1 += b;
            $r2 -= b;
            $r3 += a;
            // (1 + γ_1) backward: h = (ψ0 − ψ3, ψ1 + ψ2), rows (h0, h1, h1, −h0).
            let g = $psi.shift(1, -1);
            let w = $u.shift(1, -1)[1].adj();
            let a = w * (g[0] - g[3]);
            let b = w * (g[1] + g[2]);
            $r0 += a;
            $r1 += b;
            $r2 += b;
            $r3 -= a;
            // z: (1 − γ_2) forward: h = (ψ0 − iψ2, ψ1 + iψ3), rows (h0, h1, i h0, −i h1).
            let f = $psi.shift(2, 1);
            let a = $u[2] * (f[0] - f[2].times_i());
            let b = $u[2] * (f[1] + f[3].times_i());
            $r0 += a;
            $r1 += b;
            $r2 += a.times_i();
            $r3 -= b.times_i();
            // (1 + γ_2) backward: h = (ψ0 + iψ2, ψ1 − iψ3), rows (h0, h1, −i h0, i h1).
            let g = $psi.shift(2, -1);
            let w = $u.shift(2, -1)[2].adj();
            let a = w * (g[0] + g[2].times_i());
            let b = w * (g[1] - g[3].times_i());
            $r0 += a;
            $r1 += b;
            $r2 -= a.times_i();
            $r3 += b.times_i();
            // t: (1 − γ_3) forward: h = (ψ0 − ψ2, ψ1 − ψ3), rows (h0, h1, −h0, −h1).
            let f = $psi.shift(3, 1);
            let a = $u[3] * (f[0] - f[2]);
            let b = $u[3] * (f[1] - f[3]);
            $r0 += a;
            $r1 += b;
            $r2 -= a;
            $r3 -= b;
            // (1 + γ_3) backward: h = (ψ0 + ψ2, ψ1 + ψ3), rows (h0, h1, h0, h1).
            let g = $psi.shift(3, -1);
            let w = $u.shift(3, -1)[3].adj();
            let a = w * (g[0] + g[2]);
            let b = w * (g[1] + g[3]);
            $r0 += a;
            $r1 += b;
            $r2 += a;
            $r3 += b;
            $store
        })
    };
}

/// `out = H psi` at `sites`.
pub fn hop<T: Real, P: SpaceSubset>(
    sites: P,
    u: &LinksOf<P::Space, T>,
    psi: &SpinorFieldOf<P::Space, T>,
    out: &mut SpinorFieldOf<P::Space, T>,
) -> ongpu::Result<()>
where
    ColorVector<T>: Element,
    ColorMatrix<T>: Element,
    [ColorMatrix<T>; 4]: Element,
    Spinor<T>: Element,
{
    hopping!(sites, u, psi, |r0, r1, r2, r3| {
        out[0] = r0;
        out[1] = r1;
        out[2] = r2;
        out[3] = r3;
    })
}

/// `out = blocks · H psi` at `sites`, in one pass: the hopping term, then at the site the
/// packed clover blocks `blocks` (on the even-odd operator, the inverse blocks), with the standard
/// count of [`HOP_FLOPS`] + [`CLOVER_FLOPS`].
pub fn hop_clover<T: Real, P: SpaceSubset>(
    sites: P,
    u: &LinksOf<P::Space, T>,
    blocks: &CloverFieldOf<P::Space, T>,
    psi: &SpinorFieldOf<P::Space, T>,
    out: &mut SpinorFieldOf<P::Space, T>,
) -> ongpu::Result<()>
where
    ColorVector<T>: Element,
    ColorMatrix<T>: Element,
    [ColorMatrix<T>; 4]: Element,
    Spinor<T>: Element,
    CloverSite<T>: Element,
{
    hopping!(sites, u, psi, |r0, r1, r2, r3| {
        // (`blocks`, not a name the hops' own `let`s use: the body's names are matched by
        // their spelling.)
        out[0] = block_top(
            blocks[0], blocks[1], blocks[2], blocks[3], blocks[4], r0, r1,
        );
        out[1] = block_bottom(
            blocks[0], blocks[1], blocks[2], blocks[3], blocks[5], r0, r1,
        );
        out[2] = block_top(
            blocks[6], blocks[7], blocks[8], blocks[9], blocks[10], r2, r3,
        );
        out[3] = block_bottom(
            blocks[6], blocks[7], blocks[8], blocks[9], blocks[11], r2, r3,
        );
    })
}
