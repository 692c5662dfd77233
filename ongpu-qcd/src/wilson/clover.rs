//! The clover term of the Sheikholeslami–Wohlert (clover-improved Wilson) operator and its
//! inverse, per site on the device.
//!
//! `D = A − κ H` with `A(x) = 1 + (i c_sw κ / 2) Σ_{mu,nu} σ_{mu nu} F_{mu nu}(x)`,
//! `σ_{mu nu} = (i/2)[γ_mu, γ_nu]`, the clover-leaf `F_{mu nu}` of
//! [`GaugeField::field_strength`] (anti-Hermitian): `A = 1 − c_sw κ Σ_{mu<nu} γ_mu γ_nu
//! F_{mu nu}`, Hermitian, block diagonal in the chiral basis. Times `1/(2κ)` this is the
//! `c_sw (i/4) σ_{mu nu} F_{mu nu}` of Lüscher, Sint, Sommer and Weisz (Nucl. Phys. B478
//! (1996) 365) added to the Wilson operator in the mass form. Both blocks are stored packed
//! ([`clover_algebra`](super::clover_algebra)), as is their inverse, which even-odd
//! preconditioning applies.

use super::clover_algebra::{
    apply_blocks, block_bottom, block_pivots, block_top, diagonals, from_rows, hermitian, inverse3,
    lower, row,
};
use super::{Spinor, SpinorFieldOf};
use crate::gauge::{FieldStrengthOf, GaugeField};
use crate::SiteLayout;
use ongpu::prelude::*;
use ongpu::Element;

/// The two packed Hermitian 6×6 blocks of one site (36 reals each), upper spins first.
pub type CloverSite<T = f64> = [ColorVector<T>; 12];

/// Packed clover blocks at every site of a [`Space`].
pub type CloverFieldOf<S, T = f64> = <S as Space>::Field<CloverSite<T>, SiteLayout>;

/// The clover blocks `A(x)` of a gauge field and their inverses, for one `κ` and `c_sw`.
pub struct Clover<S: Space = Lattice> {
    lat: S,
    kappa: f64,
    c_sw: f64,
    blocks: CloverFieldOf<S>,
    inverses: CloverFieldOf<S>,
}

impl<S: Space> Clover<S> {
    /// The clover term of `u` at hopping parameter `kappa` and coefficient `c_sw`: the field
    /// strength, the packed blocks and their inverses, all on the device. An
    /// [`ongpu::Error`] if a block is singular (a zero determinant of the block or of its
    /// upper colour block, through which it is inverted): no clover term is returned then.
    pub fn new(u: &GaugeField<S>, kappa: f64, c_sw: f64) -> ongpu::Result<Clover<S>> {
        let lat = u.lattice();
        let mut f: FieldStrengthOf<S> = lat.filled([ColorMatrix::zero(); 6])?;
        u.field_strength(&mut f)?;
        let mut blocks = lat.filled([ColorVector::zero(); 12])?;
        pack(lat, &f, c_sw * kappa, &mut blocks)?;
        drop(f);
        let singular = singular_sites(lat, &blocks)?;
        if singular > 0 {
            return Err(ongpu::Error::InvalidArgument(format!(
                "the clover term (c_sw = {c_sw}, κ = {kappa}) has a singular block at \
                 {singular} site(s) of the {lat}: it has no inverse for even-odd \
                 preconditioning (are the links finite, and c_sw κ of a usual size?)"
            )));
        }
        let mut inverses = lat.filled([ColorVector::zero(); 12])?;
        invert(lat, &blocks, &mut inverses)?;
        Ok(Clover {
            lat,
            kappa,
            c_sw,
            blocks,
            inverses,
        })
    }

    /// The hopping parameter it was built for.
    pub fn kappa(&self) -> f64 {
        self.kappa
    }

    /// The clover coefficient `c_sw`.
    pub fn c_sw(&self) -> f64 {
        self.c_sw
    }

    /// Where it lives.
    pub fn lattice(&self) -> S {
        self.lat
    }

    /// The packed blocks `A(x)`.
    pub fn blocks(&self) -> &CloverFieldOf<S> {
        &self.blocks
    }

    /// The packed inverses `A(x)⁻¹`.
    pub fn inverses(&self) -> &CloverFieldOf<S> {
        &self.inverses
    }
}

/// The blocks from the field strength: with `k = c_sw κ` and `F_p` the planes of
/// [`PLANES`](crate::gauge::PLANES), the DeGrand–Rossi `γ_mu γ_nu` give
/// upper `P = 1 + i k (F01 − F23)`, `Q = k (F02 + F13 − i (F03 − F12))`,
/// `R = 1 − i k (F01 − F23)`; lower `P = 1 + i k (F01 + F23)`,
/// `Q = k (F02 − F13 + i (F03 + F12))`, `R = 1 − i k (F01 + F23)`.
fn pack<S: Space>(
    lat: S,
    f: &FieldStrengthOf<S>,
    k: f64,
    a: &mut CloverFieldOf<S>,
) -> ongpu::Result<()> {
    on_gpu!(lat, {
        let one = ColorMatrix::identity();
        let d = (f[0] - f[5]).times_i() * k;
        let p = one + d;
        let q = (f[1] + f[4] - (f[2] - f[3]).times_i()) * k;
        let r = one - d;
        a[0] = row(q, 0);
        a[1] = row(q, 1);
        a[2] = row(q, 2);
        a[3] = diagonals(p, r);
        a[4] = lower(p);
        a[5] = lower(r);
        let d = (f[0] + f[5]).times_i() * k;
        let p = one + d;
        let q = (f[1] - f[4] + (f[2] + f[3]).times_i()) * k;
        let r = one - d;
        a[6] = row(q, 0);
        a[7] = row(q, 1);
        a[8] = row(q, 2);
        a[9] = diagonals(p, r);
        a[10] = lower(p);
        a[11] = lower(r);
    })
}

/// How many sites have a block whose inversion through the Schur complement cannot go
/// through (a zero or non-finite pivot determinant).
fn singular_sites<S: Space>(lat: S, a: &CloverFieldOf<S>) -> ongpu::Result<u64> {
    on_gpu!(sum: lat, {
        let up = block_pivots(a[0], a[1], a[2], a[3], a[4], a[5]);
        let down = block_pivots(a[6], a[7], a[8], a[9], a[10], a[11]);
        let fine = up > 0.0 && down > 0.0 && up * down < f64::INFINITY;
        if fine {
            0u32
        } else {
            1u32
        }
    })
}

/// `inv = A⁻¹` block by block: `P⁻¹`, `S = R − Q† P⁻¹ Q`, and
/// `[[P⁻¹ + P⁻¹ Q S⁻¹ Q† P⁻¹, −P⁻¹ Q S⁻¹], [·, S⁻¹]]`, packed again.
fn invert<S: Space>(lat: S, a: &CloverFieldOf<S>, inv: &mut CloverFieldOf<S>) -> ongpu::Result<()> {
    macro_rules! invert_block {
        ($q0:literal, $q1:literal, $q2:literal, $d:literal, $lp:literal, $lr:literal) => {
            on_gpu!(lat, {
                let dd = a[$d];
                let p = hermitian(dd[0].re, dd[1].re, dd[2].re, a[$lp]);
                let q = from_rows(a[$q0], a[$q1], a[$q2]);
                let r = hermitian(dd[0].im, dd[1].im, dd[2].im, a[$lr]);
                let pi = inverse3(p);
                let si = inverse3(r - q.adj() * pi * q);
                let iq = pi * q * si * (-1.0);
                let ip = pi - iq * q.adj() * pi;
                inv[$q0] = row(iq, 0);
                inv[$q1] = row(iq, 1);
                inv[$q2] = row(iq, 2);
                inv[$d] = diagonals(ip, si);
                inv[$lp] = lower(ip);
                inv[$lr] = lower(si);
            })
        };
    }
    invert_block!(0, 1, 2, 3, 4, 5)?;
    invert_block!(6, 7, 8, 9, 10, 11)
}

/// `out = a psi` at `sites`, `a` packed clover blocks (or their inverses).
pub fn clover_times<T: Real, P: SpaceSubset>(
    sites: P,
    a: &CloverFieldOf<P::Space, T>,
    psi: &SpinorFieldOf<P::Space, T>,
    out: &mut SpinorFieldOf<P::Space, T>,
) -> ongpu::Result<()>
where
    ColorVector<T>: Element,
    ColorMatrix<T>: Element,
    CloverSite<T>: Element,
    Spinor<T>: Element,
{
    apply_blocks!(sites, a, out, [psi[0], psi[1], psi[2], psi[3]])
}
