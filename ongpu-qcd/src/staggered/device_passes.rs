//! The passes of a CG iteration whose scalars never leave the device, so that a block of
//! iterations can be recorded as one graph: the sums go into a [`DeviceScalar`], a
//! one-site kernel turns them into α and β, and the vector updates read those.

use super::Fermion;
use crate::gauge::Links;
use ongpu::prelude::*;

/// The device scalars of CG in the Chronopoulos–Gear arrangement of [`Cg`](super::Cg).
pub struct Scalars {
    /// `(|r|², Re⟨r, A r⟩)` as one complex sum, from [`apply_and_reduce_into`].
    pub sums: DeviceScalar<Complex<f64>>,
    /// γ of the previous iteration (`+∞` before the first: then β = 0).
    pub gamma_old: DeviceScalar,
    /// α of the previous iteration (1 before the first; it is multiplied by β = 0 there).
    pub alpha_old: DeviceScalar,
    /// This iteration's α.
    pub alpha: DeviceScalar,
    /// This iteration's β.
    pub beta: DeviceScalar,
}

impl Scalars {
    /// Scalars for a fresh start.
    pub fn new() -> ongpu::Result<Scalars> {
        let mut s = Scalars {
            sums: DeviceScalar::zero(),
            gamma_old: DeviceScalar::zero(),
            alpha_old: DeviceScalar::zero(),
            alpha: DeviceScalar::zero(),
            beta: DeviceScalar::zero(),
        };
        s.restart()?;
        Ok(s)
    }

    /// Forgets the previous iteration, so that the next has β = 0 (CG from the current
    /// residual).
    pub fn restart(&mut self) -> ongpu::Result<()> {
        self.gamma_old.set(f64::INFINITY)?;
        self.alpha_old.set(1.0)
    }
}

/// [`apply_and_reduce`](super::passes::apply_and_reduce) with its sums left in `sums` on
/// the device: `w = m² r − D_eo t` at the even sites, `sums = (|r|², Re⟨r, w⟩)`. The
/// stencil is [`hop`](super::passes::hop)'s body (a device function cannot shift).
pub fn apply_and_reduce_into(
    lat: Lattice,
    u: &Links,
    t: &Fermion,
    r: &Fermion,
    mass2: f64,
    w: &mut Fermion,
    sums: &mut DeviceScalar<Complex<f64>>,
) -> ongpu::Result<()> {
    on_gpu!(sum -> sums: lat.even(), {
        let mut h = ColorVector::zero();
        for mu in 0..4 {
            h += u[mu] * t.shift(mu, 1) - u.shift(mu, -1)[mu].adj() * t.shift(mu, -1);
        }
        let ar = mass2 * r - h;
        w = ar;
        Complex::new(r.norm2(), r.dot(ar).re)
    })
}

/// One site: `β = γ / γ_old`, `α = γ / (δ − β γ / α_old)` from the sums, as the host
/// computes them in [`Cg`](super::Cg), then `γ_old = γ`, `α_old = α`.
pub fn coefficients(s: &mut Scalars) -> ongpu::Result<()> {
    let Scalars {
        sums,
        gamma_old,
        alpha_old,
        alpha,
        beta,
    } = s;
    on_gpu!({
        let gamma = sums.re;
        let b = gamma / gamma_old;
        let a = gamma / (sums.im - b * gamma / alpha_old);
        beta = b;
        alpha = a;
        gamma_old = gamma;
        alpha_old = a;
    })
}

/// [`update`](super::passes::update) with α and β read from the device.
#[allow(clippy::too_many_arguments)]
pub fn update_from(
    lat: Lattice,
    alpha: &DeviceScalar,
    beta: &DeviceScalar,
    w: &Fermion,
    p: &mut Fermion,
    s: &mut Fermion,
    x: &mut Fermion,
    r: &mut Fermion,
) -> ongpu::Result<()> {
    on_gpu!(lat.even(), {
        p = r + beta * p;
        s = w + beta * s;
        x += alpha * p;
        r -= alpha * s;
    })
}
