//! The staggered operator as `on_gpu!` passes over the links of
//! [`Staggered::links`](super::Staggered::links) (phases and 1/2 folded in):
//!
//! `D ψ(x) = Σ_mu Ũ_mu(x) ψ(x+mû) − Ũ_mu(x−mû)† ψ(x−mû)`, `Ũ_mu(x) = η_mu(x) U_mu(x) / 2`.
//!
//! D only connects sites of opposite parity, so one call over a parity is one block of it:
//! [`hop`] over `lat.odd()` is `D_oe` (odd output from even input), over `lat.even()` it is
//! `D_eo`. [`apply_and_reduce`] is the second half of `A = m² − D_eo D_oe` fused with the
//! two inner products CG needs, and [`update`] is the vector updates of an iteration.

use super::FermionOf;
use crate::gauge::LinksOf;
use ongpu::prelude::*;

/// Useful flops of one site of [`hop`]: 8 SU(3) matrix times vector products (9 complex
/// multiplications and 6 complex additions, 66 flops each) and 7 vector additions (6 each).
pub const HOP_FLOPS: f64 = 8.0 * 66.0 + 7.0 * 6.0;

/// Flops of one site of [`apply_and_reduce`]: the hop, `m² r − h` (6 multiplications and 6
/// subtractions), and the two site values `|r|²` and `Re⟨r, w⟩`, each 6 multiplications and
/// 6 additions (5 within the site, one into the sum).
pub const APPLY_AND_REDUCE_FLOPS: f64 = HOP_FLOPS + 12.0 + 12.0 + 12.0;

/// Flops of one site of [`update`]: four `a + c·b` of colour vectors with a real `c`.
pub const UPDATE_FLOPS: f64 = 4.0 * 12.0;

/// Flops of one site of [`residual`]: a vector subtraction and `|r|²`.
pub const RESIDUAL_FLOPS: f64 = 6.0 + NORM_FLOPS;

/// Flops of one site of [`norm2_even`]: 6 multiplications and 6 additions.
pub const NORM_FLOPS: f64 = 12.0;

/// Bytes of one site of [`hop`] with no cache reuse (f64): 8 links (144 B each) and 8
/// neighbour vectors (48 B) read, one vector written.
pub const HOP_BYTES: f64 = 8.0 * 144.0 + 8.0 * 48.0 + 48.0;

/// Bytes of one site of [`apply_and_reduce`]: the hop's, and `r` read.
pub const APPLY_AND_REDUCE_BYTES: f64 = HOP_BYTES + 48.0;

/// Bytes of one site of [`update`]: `r w p s x` read, `p s x r` written.
pub const UPDATE_BYTES: f64 = 9.0 * 48.0;

/// `out = D psi` at the sites of `sites` (one parity, or the whole lattice), reading `psi`
/// at their neighbours (the other parity). `out` elsewhere is left as it was.
pub fn hop<T: Real, P: SpaceSubset>(
    sites: P,
    u: &LinksOf<P::Space, T>,
    psi: &FermionOf<P::Space, T>,
    out: &mut FermionOf<P::Space, T>,
) -> ongpu::Result<()>
where
    ColorVector<T>: ongpu::Element,
    ColorMatrix<T>: ongpu::Element,
    [ColorMatrix<T>; 4]: ongpu::Element,
{
    on_gpu!(sites, {
        let mut h = ColorVector::zero();
        for mu in 0..4 {
            h += u[mu] * psi.shift(mu, 1) - u.shift(mu, -1)[mu].adj() * psi.shift(mu, -1);
        }
        out = h;
    })
}

/// `D_oe` then `D_eo` with no linear algebra (`t = D_oe psi`, `out = D_eo t`): the
/// benchmark's yardstick for the solve.
pub fn dslash_eo_oe<S: Space>(
    lat: S,
    u: &LinksOf<S>,
    psi: &FermionOf<S>,
    t: &mut FermionOf<S>,
    out: &mut FermionOf<S>,
) -> ongpu::Result<()> {
    hop(lat.odd(), u, psi, t)?;
    hop(lat.even(), u, t, out)
}

/// The sums that [`apply_and_reduce`] returns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sums {
    /// `|r|²` over the even sites.
    pub r_norm2: f64,
    /// `Re⟨r, A r⟩` over the even sites (A is Hermitian, so the imaginary part is rounding).
    pub r_dot_ar: f64,
}

/// At the even sites, `w = m² r − D_eo t` (with `t = D_oe r` from [`hop`] over `lat.odd()`,
/// this is `w = A r`), and in the same pass the sums `|r|²` and `Re⟨r, w⟩`. The two real sums
/// travel as the real and imaginary parts of one complex sum, so one reduction (one launch
/// and one wait) gives both. The stencil is the body of [`hop`]: a device function cannot
/// shift, so the four lines are repeated here.
pub fn apply_and_reduce<S: Space>(
    lat: S,
    u: &LinksOf<S>,
    t: &FermionOf<S>,
    r: &FermionOf<S>,
    mass2: f64,
    w: &mut FermionOf<S>,
) -> ongpu::Result<Sums> {
    let sums: Complex<f64> = on_gpu!(sum: lat.even(), {
        let mut h = ColorVector::zero();
        for mu in 0..4 {
            h += u[mu] * t.shift(mu, 1) - u.shift(mu, -1)[mu].adj() * t.shift(mu, -1);
        }
        let ar = mass2 * r - h;
        w = ar;
        Complex::new(r.norm2(), r.dot(ar).re)
    })?;
    Ok(Sums {
        r_norm2: sums.re,
        r_dot_ar: sums.im,
    })
}

/// The vector updates of one iteration at the even sites, in one pass:
/// `p = r + β p`, `s = w + β s` (so `s = A p`), `x += α p`, `r −= α s`.
#[allow(clippy::too_many_arguments)]
pub fn update<S: Space>(
    lat: S,
    alpha: f64,
    beta: f64,
    w: &FermionOf<S>,
    p: &mut FermionOf<S>,
    s: &mut FermionOf<S>,
    x: &mut FermionOf<S>,
    r: &mut FermionOf<S>,
) -> ongpu::Result<()> {
    on_gpu!(lat.even(), {
        p = r + beta * p;
        s = w + beta * s;
        x += alpha * p;
        r -= alpha * s;
    })
}

/// `r = b − w` at the even sites, returning `|r|²` (with `w = A x`: the true residual).
pub fn residual<S: Space>(
    lat: S,
    b: &FermionOf<S>,
    w: &FermionOf<S>,
    r: &mut FermionOf<S>,
) -> ongpu::Result<f64> {
    on_gpu!(sum: lat.even(), {
        r = b - w;
        r.norm2()
    })
}

/// `out = m² x − D_eo t` at the even sites (with `t = D_oe x`: `out = A x`).
pub fn normal<S: Space>(
    lat: S,
    u: &LinksOf<S>,
    t: &FermionOf<S>,
    x: &FermionOf<S>,
    mass2: f64,
    out: &mut FermionOf<S>,
) -> ongpu::Result<()> {
    on_gpu!(lat.even(), {
        let mut h = ColorVector::zero();
        for mu in 0..4 {
            h += u[mu] * t.shift(mu, 1) - u.shift(mu, -1)[mu].adj() * t.shift(mu, -1);
        }
        out = mass2 * x - h;
    })
}

/// `|v|²` over the even sites.
pub fn norm2_even<S: Space>(lat: S, v: &FermionOf<S>) -> ongpu::Result<f64> {
    on_gpu!(sum: lat.even(), { v.norm2() })
}

/// `dst = src` at the even sites.
pub fn copy_even<S: Space>(
    lat: S,
    src: &FermionOf<S>,
    dst: &mut FermionOf<S>,
) -> ongpu::Result<()> {
    on_gpu!(lat.even(), {
        dst = src;
    })
}

/// `v = 0` at the even sites.
pub fn zero_even<S: Space>(lat: S, v: &mut FermionOf<S>) -> ongpu::Result<()> {
    on_gpu!(lat.even(), {
        v = ColorVector::zero();
    })
}
