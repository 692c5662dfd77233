//! The even-odd preconditioned Wilson(-clover) operator `M̂ = 1 − κ² A_ee⁻¹ H_eo A_oo⁻¹
//! H_oe` on the even sites (`A = 1` for Wilson): `D x = b` with `D = A − κ H` is `M̂ x_e =
//! b̂_e`, `b̂_e = A_ee⁻¹ (b_e + κ H_eo A_oo⁻¹ b_o)`, and `x_o = A_oo⁻¹ (b_o + κ H_oe x_e)`, a
//! system of half the size and a better condition number. The spinor linear algebra its solvers need is here
//! too, as `on_gpu!` calls over the even sites.

use super::algebra::{even_spinor_algebra, round_to};
use super::clover::clover_times;
use super::clover_algebra::{apply_blocks, block_bottom, block_top};
use super::{SpinorFieldOf, Wilson};
use crate::solver::{BiCgStabOperator, LinearOperator, VectorAlgebra};
use ongpu::prelude::*;

/// `M̂ = 1 − κ² A_ee⁻¹ H_eo A_oo⁻¹ H_oe` of a [`Wilson`] operator (with or without a clover
/// term), acting on the even sites of spinor fields (their odd sites are scratch).
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

    /// `out = M̂ psi` on the even sites; `tmp`'s odd sites receive `A_oo⁻¹ H_oe psi`.
    pub fn apply(
        &self,
        psi: &SpinorFieldOf<S>,
        tmp: &mut SpinorFieldOf<S>,
        out: &mut SpinorFieldOf<S>,
    ) -> ongpu::Result<()> {
        let (lat, k2) = self.hops(psi, tmp, out)?;
        on_gpu!(lat.even(), {
            out[0] = psi[0] - out[0] * k2;
            out[1] = psi[1] - out[1] * k2;
            out[2] = psi[2] - out[2] * k2;
            out[3] = psi[3] - out[3] * k2;
        })
    }

    /// `out = M̂ psi` as [`apply`](Self::apply), returning `⟨with, M̂ psi⟩` over the even
    /// sites from its last pass (a solver's inner product without reading `out` again).
    pub fn apply_and_dot(
        &self,
        psi: &SpinorFieldOf<S>,
        tmp: &mut SpinorFieldOf<S>,
        out: &mut SpinorFieldOf<S>,
        with: &SpinorFieldOf<S>,
    ) -> ongpu::Result<Complex<f64>> {
        let (lat, k2) = self.hops(psi, tmp, out)?;
        on_gpu!(sum: lat.even(), {
            out[0] = psi[0] - out[0] * k2;
            out[1] = psi[1] - out[1] * k2;
            out[2] = psi[2] - out[2] * k2;
            out[3] = psi[3] - out[3] * k2;
            with[0].dot(out[0]) + with[1].dot(out[1]) + with[2].dot(out[2]) + with[3].dot(out[3])
        })
    }

    /// `out_e = A_ee⁻¹ H_eo A_oo⁻¹ H_oe psi_e` (through `tmp`'s odd sites); returns the
    /// lattice and `κ²` for the pass that completes `M̂`.
    fn hops(
        &self,
        psi: &SpinorFieldOf<S>,
        tmp: &mut SpinorFieldOf<S>,
        out: &mut SpinorFieldOf<S>,
    ) -> ongpu::Result<(S, f64)> {
        let lat = self.op.lattice();
        self.op.hop_inverse_clover(lat.odd(), psi, tmp)?;
        self.op.hop_inverse_clover(lat.even(), tmp, out)?;
        Ok((lat, self.op.kappa() * self.op.kappa()))
    }

    /// The source of the even-odd system for `D x = b`: `b̂_e = A_ee⁻¹ (b_e + κ H_eo A_oo⁻¹
    /// b_o)` on the even sites of `b_hat` (`tmp` is scratch).
    pub fn prepare(
        &self,
        b: &SpinorFieldOf<S>,
        b_hat: &mut SpinorFieldOf<S>,
        tmp: &mut SpinorFieldOf<S>,
    ) -> ongpu::Result<()> {
        let lat = self.op.lattice();
        match self.op.clover() {
            None => self.op.hop(lat.even(), b, tmp)?,
            Some(c) => {
                clover_times(lat.odd(), c.inverses(), b, b_hat)?;
                self.op.hop(lat.even(), b_hat, tmp)?;
            }
        }
        self.inverse_clover_of_sum(lat.even(), b, tmp, b_hat)
    }

    /// The odd sites of the solution of `D x = b` from its even sites (the solution of
    /// `M̂ x_e = b̂_e`): `x_o = A_oo⁻¹ (b_o + κ H_oe x_e)` (`tmp` is scratch).
    pub fn reconstruct(
        &self,
        b: &SpinorFieldOf<S>,
        x: &mut SpinorFieldOf<S>,
        tmp: &mut SpinorFieldOf<S>,
    ) -> ongpu::Result<()> {
        let lat = self.op.lattice();
        self.op.hop(lat.odd(), x, tmp)?;
        self.inverse_clover_of_sum(lat.odd(), b, tmp, x)
    }

    /// `out = A⁻¹ (b + κ t)` at `sites` (`b + κ t` without a clover term).
    fn inverse_clover_of_sum<P: SpaceSubset<Space = S>>(
        &self,
        sites: P,
        b: &SpinorFieldOf<S>,
        t: &SpinorFieldOf<S>,
        out: &mut SpinorFieldOf<S>,
    ) -> ongpu::Result<()> {
        let kappa = self.op.kappa();
        match self.op.clover() {
            None => on_gpu!(sites, {
                out[0] = b[0] + t[0] * kappa;
                out[1] = b[1] + t[1] * kappa;
                out[2] = b[2] + t[2] * kappa;
                out[3] = b[3] + t[3] * kappa;
            }),
            Some(c) => {
                let a = c.inverses();
                apply_blocks!(
                    sites,
                    a,
                    out,
                    [
                        b[0] + t[0] * kappa,
                        b[1] + t[1] * kappa,
                        b[2] + t[2] * kappa,
                        b[3] + t[3] * kappa
                    ]
                )
            }
        }
    }
}

/// `M̂` on the even sites (the scratch vector's odd sites receive `A_oo⁻¹ H_oe x`).
impl<S: Space> LinearOperator for WilsonEvenOdd<'_, '_, S> {
    type Space = S;
    type Vector = SpinorFieldOf<S>;

    fn space(&self) -> S {
        self.op.lattice()
    }

    fn vector(&self) -> ongpu::Result<SpinorFieldOf<S>> {
        self.op.lattice().zeros()
    }

    fn apply(
        &self,
        x: &SpinorFieldOf<S>,
        scratch: &mut SpinorFieldOf<S>,
        out: &mut SpinorFieldOf<S>,
    ) -> ongpu::Result<()> {
        WilsonEvenOdd::apply(self, x, scratch, out)
    }
}

impl<S: Space> BiCgStabOperator for WilsonEvenOdd<'_, '_, S> {
    fn apply_and_dot(
        &self,
        x: &SpinorFieldOf<S>,
        scratch: &mut SpinorFieldOf<S>,
        out: &mut SpinorFieldOf<S>,
        with: &SpinorFieldOf<S>,
    ) -> ongpu::Result<Complex<f64>> {
        WilsonEvenOdd::apply_and_dot(self, x, scratch, out, with)
    }

    even_spinor_algebra!(bicgstab f64);
}

impl<S: Space> VectorAlgebra for WilsonEvenOdd<'_, '_, S> {
    even_spinor_algebra!(vector f64);
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
