//! The passes of the domain-wall operators, as `on_gpu!` calls over 5-D fields: the 4-D
//! hopping term applied to every `s` ([`hop5`], each link loaded once per 4-D site for all
//! `Ls` spinors), and the parts that act along the fifth dimension at one 4-D site
//! ([`five_local`], [`five_inverse_then`], [`combine`], [`gamma5`]).
//!
//! Along the fifth dimension every operator here is `α + β S` with
//! `S ψ(s) = P_+ ψ(s−1) + P_− ψ(s+1)`, the walls closed by the quark mass:
//! `P_+ ψ(−1) ≡ −m_f P_+ ψ(Ls−1)` and `P_− ψ(Ls) ≡ −m_f P_− ψ(0)`, `P_± = (1 ± γ5)/2`, or
//! its adjoint `S† ψ(s) = P_+ ψ(s+1) + P_− ψ(s−1)` (the same walls): [`Along`]. In the
//! chiral basis `P_+` keeps spins 0 and 1, `P_−` spins 2 and 3 (entries `4s`, `4s+1` and
//! `4s+2`, `4s+3` of a site's [`FiveSpinor`]).

use super::{FiveFieldOf, FiveSpinor};
use crate::gauge::LinksOf;
use crate::real;
use ongpu::prelude::*;
use ongpu::Element;

/// Useful flops of one 5-D site of [`hop5`]: the Wilson hopping term's standard count
/// ([`crate::wilson::HOP_FLOPS`]).
pub const HOP5_FLOPS: f64 = crate::wilson::HOP_FLOPS;

/// `out(s) = H ψ(s)` for every `s` at the sites of `sites` (one parity: one off-diagonal
/// block; the whole lattice: all of `H`). `out` elsewhere is left as it was. Per `s`, the
/// Wilson hopping term with spin projection, as [`crate::wilson::hop`] (the table of
/// docs/wilson.md), each neighbour's spin components read one colour vector at a time.
pub fn hop5<T: Real, const LS: usize, P: SpaceSubset>(
    sites: P,
    u: &LinksOf<P::Space, T>,
    psi: &FiveFieldOf<P::Space, LS, T>,
    out: &mut FiveFieldOf<P::Space, LS, T>,
) -> ongpu::Result<()>
where
    ColorVector<T>: Element,
    ColorMatrix<T>: Element,
    [ColorMatrix<T>; 4]: Element,
    FiveSpinor<T, LS>: ongpu_runtime::ElementArray<Entry = ColorVector<T>>,
{
    crate::wilson::hop_many(sites, u, psi, out)
}

/// Which of `S` and `S†` a pass applies along the fifth dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Along {
    /// `S ψ(s) = P_+ ψ(s−1) + P_− ψ(s+1)`: the operator.
    S,
    /// `S† ψ(s) = P_+ ψ(s+1) + P_− ψ(s−1)`: its adjoint.
    Dagger,
}

impl Along {
    /// The first spin of the chirality that `S` takes from `s − 1` (and the other one's,
    /// which it takes from `s + 1`).
    fn spins(self) -> (usize, usize) {
        match self {
            Along::S => (0, 2),
            Along::Dagger => (2, 0),
        }
    }
}

/// `out = (α + β S) ψ` at the sites of `sites` (`S†` for [`Along::Dagger`]).
pub fn five_local<T: ongpu::RealValue, const LS: usize, P: SpaceSubset>(
    sites: P,
    along: Along,
    (alpha, beta): (f64, f64),
    mf: f64,
    psi: &FiveFieldOf<P::Space, LS, T>,
    out: &mut FiveFieldOf<P::Space, LS, T>,
) -> ongpu::Result<()>
where
    ColorVector<T>: Element,
    FiveSpinor<T, LS>: Element,
{
    let (ls, a, b, wall) = (LS, real::<T>(alpha), real::<T>(beta), real::<T>(-mf * beta));
    let (lo, hi) = along.spins();
    on_gpu!(sites, {
        for s in 0..ls {
            let e = 4 * s;
            // Spins lo, lo + 1 from s − 1 (the wall at s = 0), spins hi, hi + 1 from s + 1
            // (the wall at Ls − 1).
            let below = if s == 0 { 4 * (ls - 1) } else { e - 4 };
            let above = if s == ls - 1 { 0 } else { e + 4 };
            let wb = if s == 0 { wall } else { b };
            let wa = if s == ls - 1 { wall } else { b };
            out[e + lo] = psi[e + lo] * a + psi[below + lo] * wb;
            out[e + lo + 1] = psi[e + lo + 1] * a + psi[below + lo + 1] * wb;
            out[e + hi] = psi[e + hi] * a + psi[above + hi] * wa;
            out[e + hi + 1] = psi[e + hi + 1] * a + psi[above + hi + 1] * wa;
        }
    })
}

/// The constants of `(α + β S)⁻¹`: with `z = −β/α`, per chirality
/// `y(wall end) = Σ_k z^k ψ(…) / (α (1 + m_f z^Ls))` and then `y = ψ/α + z (next)`.
struct Inverse<T> {
    /// `z^k / (α (1 + m_f z^Ls))`, `k < LS`.
    closed: Vec<T>,
    inv_alpha: T,
    z: T,
    /// `−m_f z`: the step across the wall.
    z_wall: T,
}

impl<T: Real> Inverse<T> {
    fn new(alpha: f64, beta: f64, mf: f64, ls: usize) -> ongpu::Result<Self> {
        let z = -beta / alpha;
        let det = alpha * (1.0 + mf * z.powi(ls as i32));
        if alpha == 0.0 || det == 0.0 || !det.is_finite() {
            return Err(ongpu::Error::InvalidArgument(format!(
                "α + β S with α = {alpha}, β = {beta}, m_f = {mf}, Ls = {ls} is singular"
            )));
        }
        Ok(Inverse {
            closed: (0..ls).map(|k| real(z.powi(k as i32) / det)).collect(),
            inv_alpha: real(1.0 / alpha),
            z: real(z),
            z_wall: real(-mf * z),
        })
    }
}

/// `out = (α2 + β2 S)(α + β S)⁻¹ ψ` at the sites of `sites` (`S†` for
/// [`Along::Dagger`]), in one pass: per chirality the inverse is a recurrence along `s`
/// (from the value at the wall, given in closed form), and each value of it is combined
/// with the previous one as it is made. `then = (1, 0)` gives the inverse alone. An error
/// if `α + β S` is singular.
#[allow(clippy::too_many_arguments)]
pub fn five_inverse_then<T: ongpu::RealValue, const LS: usize, P: SpaceSubset>(
    sites: P,
    along: Along,
    (alpha, beta): (f64, f64),
    then: (f64, f64),
    mf: f64,
    psi: &FiveFieldOf<P::Space, LS, T>,
    out: &mut FiveFieldOf<P::Space, LS, T>,
) -> ongpu::Result<()>
where
    ColorVector<T>: Element,
    FiveSpinor<T, LS>: Element,
{
    let inv = Inverse::<T>::new(alpha, beta, mf, LS)?;
    let closed: [T; LS] = std::array::from_fn(|k| inv.closed[k]);
    let (ls, inv_alpha, z, z_wall) = (LS, inv.inv_alpha, inv.z, inv.z_wall);
    let (a2, b2, wall2) = (
        real::<T>(then.0),
        real::<T>(then.1),
        real::<T>(-mf * then.1),
    );
    // `up`: the chirality whose `S` steps up in s (y(s) from y(s − 1)); `down` the other.
    let (up, down) = along.spins();
    on_gpu!(sites, {
        // Up: y(s) = ψ(s)/α + z y(s − 1), y(−1) ≡ −m_f y(Ls − 1).
        let mut y0 = ColorVector::zero();
        let mut y1 = ColorVector::zero();
        for k in 0..ls {
            let e = 4 * (ls - 1 - k) + up;
            y0 += psi[e] * closed[k];
            y1 += psi[e + 1] * closed[k];
        }
        // y0, y1 hold y(Ls − 1); the recurrence starts across the wall.
        let mut p0 = y0 * z_wall + psi[up] * inv_alpha;
        let mut p1 = y1 * z_wall + psi[up + 1] * inv_alpha;
        out[up] = p0 * a2 + y0 * wall2;
        out[up + 1] = p1 * a2 + y1 * wall2;
        for s in 1..ls {
            let e = 4 * s + up;
            let q0 = psi[e] * inv_alpha + p0 * z;
            let q1 = psi[e + 1] * inv_alpha + p1 * z;
            out[e] = q0 * a2 + p0 * b2;
            out[e + 1] = q1 * a2 + p1 * b2;
            p0 = q0;
            p1 = q1;
        }
        // Down: y(s) = ψ(s)/α + z y(s + 1), y(Ls) ≡ −m_f y(0).
        let mut v2 = ColorVector::zero();
        let mut v3 = ColorVector::zero();
        for k in 0..ls {
            let e = 4 * k + down;
            v2 += psi[e] * closed[k];
            v3 += psi[e + 1] * closed[k];
        }
        let top = 4 * (ls - 1) + down;
        let mut m2 = v2 * z_wall + psi[top] * inv_alpha;
        let mut m3 = v3 * z_wall + psi[top + 1] * inv_alpha;
        out[top] = m2 * a2 + v2 * wall2;
        out[top + 1] = m3 * a2 + v3 * wall2;
        for j in 1..ls {
            let e = 4 * (ls - 1 - j) + down;
            let q2 = psi[e] * inv_alpha + m2 * z;
            let q3 = psi[e + 1] * inv_alpha + m3 * z;
            out[e] = q2 * a2 + m2 * b2;
            out[e + 1] = q3 * a2 + m3 * b2;
            m2 = q2;
            m3 = q3;
        }
    })
}

/// `out = (α + β S) ψ + f (b + c S) t` at the sites of `sites` (`S†` for
/// [`Along::Dagger`], and then `γ5 t` for `t`): the last pass of the operators, `A ψ − ½ H
/// M_φ ψ` with `t` holding the hops (`t = H M_φ ψ`, `(b, c) = (1, 0)`), and of their
/// adjoints `A† ψ − ½ M_φ† γ5 t` (`t = H γ5 ψ`).
#[allow(clippy::too_many_arguments)]
pub fn combine<T: ongpu::RealValue, const LS: usize, P: SpaceSubset>(
    sites: P,
    along: Along,
    (alpha, beta): (f64, f64),
    (kb, kc): (f64, f64),
    mf: f64,
    f: f64,
    psi: &FiveFieldOf<P::Space, LS, T>,
    t: &FiveFieldOf<P::Space, LS, T>,
    out: &mut FiveFieldOf<P::Space, LS, T>,
) -> ongpu::Result<()>
where
    ColorVector<T>: Element,
    FiveSpinor<T, LS>: Element,
{
    let (ls, a, b, wall) = (LS, real::<T>(alpha), real::<T>(beta), real::<T>(-mf * beta));
    let (fb, fc, fwall) = (
        real::<T>(f * kb),
        real::<T>(f * kc),
        real::<T>(-mf * f * kc),
    );
    let (lo, hi) = along.spins();
    // γ5 on t for the adjoint: the signs of t's spins lo, lo + 1 and hi, hi + 1.
    let (sl, sh) = match along {
        Along::S => (real::<T>(1.0), real::<T>(1.0)),
        Along::Dagger => (real::<T>(-1.0), real::<T>(1.0)),
    };
    on_gpu!(sites, {
        for s in 0..ls {
            let e = 4 * s;
            let below = if s == 0 { 4 * (ls - 1) } else { e - 4 };
            let above = if s == ls - 1 { 0 } else { e + 4 };
            let wb = if s == 0 { wall } else { b };
            let wa = if s == ls - 1 { wall } else { b };
            let tb = if s == 0 { fwall } else { fc };
            let ta = if s == ls - 1 { fwall } else { fc };
            out[e + lo] =
                psi[e + lo] * a + psi[below + lo] * wb + (t[e + lo] * fb + t[below + lo] * tb) * sl;
            out[e + lo + 1] = psi[e + lo + 1] * a
                + psi[below + lo + 1] * wb
                + (t[e + lo + 1] * fb + t[below + lo + 1] * tb) * sl;
            out[e + hi] =
                psi[e + hi] * a + psi[above + hi] * wa + (t[e + hi] * fb + t[above + hi] * ta) * sh;
            out[e + hi + 1] = psi[e + hi + 1] * a
                + psi[above + hi + 1] * wa
                + (t[e + hi + 1] * fb + t[above + hi + 1] * ta) * sh;
        }
    })
}

/// `out = γ5 ψ` at the sites of `sites` (γ5 = diag(1, 1, −1, −1) on every slice).
pub fn gamma5<T: Real, const LS: usize, P: SpaceSubset>(
    sites: P,
    psi: &FiveFieldOf<P::Space, LS, T>,
    out: &mut FiveFieldOf<P::Space, LS, T>,
) -> ongpu::Result<()>
where
    ColorVector<T>: Element,
    FiveSpinor<T, LS>: Element,
{
    let ls = LS;
    on_gpu!(sites, {
        for s in 0..ls {
            let e = 4 * s;
            out[e] = psi[e];
            out[e + 1] = psi[e + 1];
            out[e + 2] = -psi[e + 2];
            out[e + 3] = -psi[e + 3];
        }
    })
}

/// `dst = src` at the sites of `sites`, entry by entry.
pub fn copy<T: Real, const LS: usize, P: SpaceSubset>(
    sites: P,
    src: &FiveFieldOf<P::Space, LS, T>,
    dst: &mut FiveFieldOf<P::Space, LS, T>,
) -> ongpu::Result<()>
where
    ColorVector<T>: Element,
    FiveSpinor<T, LS>: Element,
{
    let n = 4 * LS;
    on_gpu!(sites, {
        for k in 0..n {
            dst[k] = src[k];
        }
    })
}

/// `out = (α + β S) ψ + f · out` at the sites of `sites`, in place on `out` (each slice of
/// `out` read before it is written, and no other): the last pass of `D = A − ½ H M_φ` with
/// `out` holding the hops.
pub fn combine_in_place<T: ongpu::RealValue, const LS: usize, P: SpaceSubset>(
    sites: P,
    (alpha, beta): (f64, f64),
    mf: f64,
    f: f64,
    psi: &FiveFieldOf<P::Space, LS, T>,
    out: &mut FiveFieldOf<P::Space, LS, T>,
) -> ongpu::Result<()>
where
    ColorVector<T>: Element,
    FiveSpinor<T, LS>: Element,
{
    let (ls, a, b, wall, f) = (
        LS,
        real::<T>(alpha),
        real::<T>(beta),
        real::<T>(-mf * beta),
        real::<T>(f),
    );
    on_gpu!(sites, {
        for s in 0..ls {
            let e = 4 * s;
            let below = if s == 0 { 4 * (ls - 1) } else { e - 4 };
            let above = if s == ls - 1 { 0 } else { e + 4 };
            let wb = if s == 0 { wall } else { b };
            let wa = if s == ls - 1 { wall } else { b };
            out[e] = psi[e] * a + psi[below] * wb + out[e] * f;
            out[e + 1] = psi[e + 1] * a + psi[below + 1] * wb + out[e + 1] * f;
            out[e + 2] = psi[e + 2] * a + psi[above + 2] * wa + out[e + 2] * f;
            out[e + 3] = psi[e + 3] * a + psi[above + 3] * wa + out[e + 3] * f;
        }
    })
}
