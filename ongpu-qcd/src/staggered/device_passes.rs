//! The passes of a CG iteration whose scalars never leave the device, so that iterations
//! are queued without host waits or recorded as one graph: the sums go into a
//! [`DeviceScalar`], a one-site kernel ([`coefficients`]) turns them into α and β, and the
//! vector updates read those. On any [`Space`]: over MPI ranks the sums are added on the
//! GPUs.

use super::{FermionOf, Staggered};
use crate::gauge::LinksOf;
use crate::solver::DeviceCgOperator;
use ongpu::prelude::*;

pub use crate::solver::device_cg::{coefficients, Scalars};

/// [`apply_and_reduce`](super::passes::apply_and_reduce) with its sums left in `sums` on
/// the device: `w = m² r − D_eo t` at the even sites, `sums = (|r|², Re⟨r, w⟩)`. The
/// stencil is [`hop`](super::passes::hop)'s body (a device function cannot shift).
pub fn apply_and_reduce_into<S: Space>(
    lat: S,
    u: &LinksOf<S>,
    t: &FermionOf<S>,
    r: &FermionOf<S>,
    mass2: f64,
    w: &mut FermionOf<S>,
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

/// [`update`](super::passes::update) with α and β read from the device.
#[allow(clippy::too_many_arguments)]
pub fn update_from<S: Space>(
    lat: S,
    alpha: &DeviceScalar,
    beta: &DeviceScalar,
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

/// CG with device scalars ([`DeviceCg`](super::DeviceCg)) on the staggered normal operator:
/// `t = D_oe x` then the fused pass, and the updates, as [`Cg`](super::Cg) runs them.
impl<S: Space> DeviceCgOperator for Staggered<S> {
    fn apply_and_norm_into(
        &self,
        x: &FermionOf<S>,
        scratch: &mut FermionOf<S>,
        out: &mut FermionOf<S>,
        sums: &mut DeviceScalar<Complex<f64>>,
    ) -> ongpu::Result<()> {
        self.d_oe(x, scratch)?;
        let m2 = self.mass() * self.mass();
        apply_and_reduce_into(self.lattice(), self.links(), scratch, x, m2, out, sums)
    }

    fn cg_update_from(
        &self,
        alpha: &DeviceScalar,
        beta: &DeviceScalar,
        w: &FermionOf<S>,
        p: &mut FermionOf<S>,
        s: &mut FermionOf<S>,
        x: &mut FermionOf<S>,
        r: &mut FermionOf<S>,
    ) -> ongpu::Result<()> {
        update_from(self.lattice(), alpha, beta, w, p, s, x, r)
    }
}
