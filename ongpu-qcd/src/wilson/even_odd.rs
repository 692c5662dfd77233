//! The even-odd preconditioned Wilson operator `M̂ = 1 − κ² H_eo H_oe` on the even sites:
//! with `b_o = 0`, `D_W x = b` is `M̂ x_e = b_e` and `x_o = κ H_oe x_e`, a system of half the
//! size and a better condition number. The spinor linear algebra its solvers need is here
//! too, as `on_gpu!` calls over the even sites.

use super::operator::hop;
use super::{SpinorFieldOf, Wilson};
use crate::solver::LinearOperator;
use ongpu::prelude::*;

/// `M̂ = 1 − κ² H_eo H_oe` of a [`Wilson`] operator, acting on the even sites of spinor
/// fields (their odd sites are scratch).
pub struct WilsonEvenOdd<'w, 'u, S: Space = Lattice> {
    op: &'w Wilson<'u, S>,
}

impl<'w, 'u, S: Space> WilsonEvenOdd<'w, 'u, S> {
    /// The preconditioned operator of `op`.
    pub fn new(op: &'w Wilson<'u, S>) -> Self {
        WilsonEvenOdd { op }
    }

    /// The Wilson operator it preconditions.
    pub fn wilson(&self) -> &Wilson<'u, S> {
        self.op
    }

    /// `out = M̂ psi` on the even sites; `tmp`'s odd sites receive `H_oe psi`.
    pub fn apply(
        &self,
        psi: &SpinorFieldOf<S>,
        tmp: &mut SpinorFieldOf<S>,
        out: &mut SpinorFieldOf<S>,
    ) -> ongpu::Result<()> {
        let lat = self.op.lattice();
        hop(lat.odd(), self.op.links(), psi, tmp)?;
        hop(lat.even(), self.op.links(), tmp, out)?;
        let k2 = self.op.kappa() * self.op.kappa();
        on_gpu!(lat.even(), {
            out[0] = psi[0] - out[0] * k2;
            out[1] = psi[1] - out[1] * k2;
            out[2] = psi[2] - out[2] * k2;
            out[3] = psi[3] - out[3] * k2;
        })
    }

    /// The odd sites of the full solution from its even sites: `x_o = κ H_oe x_e` (for a
    /// source with no odd part).
    pub fn odd_solution(
        &self,
        x: &mut SpinorFieldOf<S>,
        tmp: &mut SpinorFieldOf<S>,
    ) -> ongpu::Result<()> {
        let lat = self.op.lattice();
        hop(lat.odd(), self.op.links(), x, tmp)?;
        let kappa = self.op.kappa();
        on_gpu!(lat.odd(), {
            x[0] = tmp[0] * kappa;
            x[1] = tmp[1] * kappa;
            x[2] = tmp[2] * kappa;
            x[3] = tmp[3] * kappa;
        })
    }
}

impl<S: Space> LinearOperator for WilsonEvenOdd<'_, '_, S> {
    type Space = S;
    type Vector = SpinorFieldOf<S>;

    fn space(&self) -> S {
        self.op.lattice()
    }
}

/// `Σ_even ⟨a, b⟩`.
pub fn dot_even<S: Space>(
    lat: S,
    a: &SpinorFieldOf<S>,
    b: &SpinorFieldOf<S>,
) -> ongpu::Result<Complex<f64>> {
    on_gpu!(sum: lat.even(), {
        a[0].dot(b[0]) + a[1].dot(b[1]) + a[2].dot(b[2]) + a[3].dot(b[3])
    })
}

/// `Σ_even |a|²`.
pub fn norm2_even<S: Space>(lat: S, a: &SpinorFieldOf<S>) -> ongpu::Result<f64> {
    on_gpu!(sum: lat.even(), {
        a[0].norm2() + a[1].norm2() + a[2].norm2() + a[3].norm2()
    })
}

/// `dst = src` on the even sites.
pub(crate) fn copy_even<S: Space>(
    lat: S,
    src: &SpinorFieldOf<S>,
    dst: &mut SpinorFieldOf<S>,
) -> ongpu::Result<()> {
    on_gpu!(lat.even(), {
        dst[0] = src[0];
        dst[1] = src[1];
        dst[2] = src[2];
        dst[3] = src[3];
    })
}

/// The start of a solve of `M̂ x = b`: `x = 0` and `r = b` on the even sites; returns `|b|²`.
pub(crate) fn start_solve<S: Space>(
    lat: S,
    b: &SpinorFieldOf<S>,
    x: &mut SpinorFieldOf<S>,
    r: &mut SpinorFieldOf<S>,
) -> ongpu::Result<f64> {
    on_gpu!(lat.even(), {
        x[0] = ColorVector::zero();
        x[1] = ColorVector::zero();
        x[2] = ColorVector::zero();
        x[3] = ColorVector::zero();
    })?;
    copy_even(lat, b, r)?;
    norm2_even(lat, b)
}

/// The true `|b − M̂ x| / |b|` recomputed from `x` (`b2 = |b|²`; 0 for `b = 0`), through the
/// scratch fields `tmp`, `ax` and `r`.
pub(crate) fn true_residual<S: Space>(
    op: &WilsonEvenOdd<'_, '_, S>,
    b: &SpinorFieldOf<S>,
    x: &SpinorFieldOf<S>,
    b2: f64,
    [tmp, ax, r]: [&mut SpinorFieldOf<S>; 3],
) -> ongpu::Result<f64> {
    if b2 == 0.0 {
        return Ok(0.0);
    }
    let lat = op.wilson().lattice();
    op.apply(x, tmp, ax)?;
    on_gpu!(lat.even(), {
        r[0] = b[0] - ax[0];
        r[1] = b[1] - ax[1];
        r[2] = b[2] - ax[2];
        r[3] = b[3] - ax[3];
    })?;
    Ok((norm2_even(lat, r)? / b2).sqrt())
}
