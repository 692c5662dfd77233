//! The 4-D even-odd preconditioned domain-wall operator. With `D = [[A, D_eo], [D_oe, A]]`
//! over the even and odd 4-D sites (`A` local in 4-D, `D_eo = −½ H_eo M_φ`), `D x = b` is
//!
//! `M̂ x_e = b̂_e`, `M̂ = A − ¼ H_eo M_φ A⁻¹ H_oe M_φ`, `b̂_e = b_e + ½ H_eo M_φ A⁻¹ b_o`,
//!
//! and then `x_o = A⁻¹ (b_o + ½ H_oe M_φ x_e)` (`M_φ` and `A⁻¹` commute: both are
//! polynomials in `S`). The adjoint `M̂† = A† − ¼ M_φ† H_oe† (A†)⁻¹ M_φ† H_eo†` with
//! `H_eo† = γ5 H_oe γ5`, `A†`, `M_φ†` polynomials in `S†`, which commute with γ5.

use super::passes::{
    combine, combine_in_place, copy, five_inverse_then, five_local, gamma5, hop5, Along,
};
use super::{algebra, DomainWall, FiveFieldOf, FiveSpinor};
use crate::solver::{LinearOperator, LinearSolver, Solution, SolverError};
use ongpu::prelude::*;
use ongpu::{Element, RealValue};

/// `M̂` of a [`DomainWall`] operator, acting on the even sites of 5-D fields (their odd
/// sites are scratch).
pub struct DomainWallEvenOdd<'o, 'u, const LS: usize, S: Space = Lattice, T: Real = f64>
where
    [ColorMatrix<T>; 4]: Element,
{
    op: &'o DomainWall<'u, LS, S, T>,
}

impl<'o, 'u, const LS: usize, S: Space, T: RealValue> DomainWallEvenOdd<'o, 'u, LS, S, T>
where
    ColorVector<T>: Element,
    ColorMatrix<T>: Element,
    [ColorMatrix<T>; 4]: Element,
    FiveSpinor<T, LS>: ongpu_runtime::ElementArray<Entry = ColorVector<T>>,
{
    /// The preconditioned operator of `op`; an error if `A` is singular for its parameters.
    pub fn new(op: &'o DomainWall<'u, LS, S, T>) -> ongpu::Result<Self> {
        let p = op.params();
        let (alpha, beta) = p.diagonal();
        let z = -beta / alpha;
        let det = alpha * (1.0 + p.mf * z.powi(LS as i32));
        if alpha == 0.0 || det == 0.0 || !det.is_finite() {
            return Err(ongpu::Error::InvalidArgument(format!(
                "the even-odd domain-wall operator needs A invertible: {p:?} with Ls = {LS} \
                 makes it singular"
            )));
        }
        Ok(DomainWallEvenOdd { op })
    }

    /// The operator it preconditions.
    pub fn operator(&self) -> &DomainWall<'u, LS, S, T> {
        self.op
    }

    /// `out_e = H_eo M_φ A⁻¹ H_oe M_φ x_e` through `scratch`; `out`'s odd sites are scratch.
    fn hops(
        &self,
        x: &FiveFieldOf<S, LS, T>,
        scratch: &mut FiveFieldOf<S, LS, T>,
        out: &mut FiveFieldOf<S, LS, T>,
    ) -> ongpu::Result<()> {
        let (lat, p) = (self.op.lattice(), self.op.params());
        five_local(lat.even(), Along::S, p.kernel(), p.mf, x, scratch)?;
        hop5(lat.odd(), self.op.links(), scratch, out)?;
        five_inverse_then(
            lat.odd(),
            Along::S,
            p.diagonal(),
            p.kernel(),
            p.mf,
            out,
            scratch,
        )?;
        hop5(lat.even(), self.op.links(), scratch, out)
    }

    /// `out = M̂ x` on the even sites (`scratch` and `out`'s odd sites overwritten).
    pub fn apply(
        &self,
        x: &FiveFieldOf<S, LS, T>,
        scratch: &mut FiveFieldOf<S, LS, T>,
        out: &mut FiveFieldOf<S, LS, T>,
    ) -> ongpu::Result<()> {
        let (lat, p) = (self.op.lattice(), self.op.params());
        self.hops(x, scratch, out)?;
        combine_in_place(lat.even(), p.diagonal(), p.mf, -0.25, x, out)
    }

    /// `out = M̂† x` on the even sites: `γ5 x`, its hop to the odd sites, `M_φ† (A†)⁻¹` there,
    /// the hop back, and `A† x − ¼ M_φ† γ5` of it (`scratch`, `scratch2` overwritten).
    pub fn apply_dagger(
        &self,
        x: &FiveFieldOf<S, LS, T>,
        scratch: &mut FiveFieldOf<S, LS, T>,
        scratch2: &mut FiveFieldOf<S, LS, T>,
        out: &mut FiveFieldOf<S, LS, T>,
    ) -> ongpu::Result<()> {
        let (lat, p, u) = (self.op.lattice(), self.op.params(), self.op.links());
        gamma5(lat.even(), x, scratch2)?;
        hop5(lat.odd(), u, scratch2, out)?;
        five_inverse_then(
            lat.odd(),
            Along::Dagger,
            p.diagonal(),
            p.kernel(),
            p.mf,
            out,
            scratch,
        )?;
        hop5(lat.even(), u, scratch, scratch2)?;
        combine(
            lat.even(),
            Along::Dagger,
            p.diagonal(),
            p.kernel(),
            p.mf,
            -0.25,
            x,
            scratch2,
            out,
        )
    }

    /// The source of the even system for `D x = b`: `b̂_e = b_e + ½ H_eo M_φ A⁻¹ b_o` on the
    /// even sites of `b_hat` (`scratch` overwritten).
    pub fn prepare(
        &self,
        b: &FiveFieldOf<S, LS, T>,
        b_hat: &mut FiveFieldOf<S, LS, T>,
        scratch: &mut FiveFieldOf<S, LS, T>,
    ) -> ongpu::Result<()> {
        let (lat, p) = (self.op.lattice(), self.op.params());
        five_inverse_then(
            lat.odd(),
            Along::S,
            p.diagonal(),
            p.kernel(),
            p.mf,
            b,
            scratch,
        )?;
        hop5(lat.even(), self.op.links(), scratch, b_hat)?;
        combine_in_place(lat.even(), (1.0, 0.0), p.mf, 0.5, b, b_hat)
    }

    /// The odd sites of the solution of `D x = b` from its even ones (the solution of
    /// `M̂ x_e = b̂_e`): `x_o = A⁻¹ (b_o + ½ H_oe M_φ x_e)` (`scratch` overwritten).
    pub fn reconstruct(
        &self,
        b: &FiveFieldOf<S, LS, T>,
        x: &mut FiveFieldOf<S, LS, T>,
        scratch: &mut FiveFieldOf<S, LS, T>,
    ) -> ongpu::Result<()> {
        let (lat, p) = (self.op.lattice(), self.op.params());
        five_local(lat.even(), Along::S, p.kernel(), p.mf, x, scratch)?;
        hop5(lat.odd(), self.op.links(), scratch, x)?;
        combine_in_place(lat.odd(), (1.0, 0.0), p.mf, 0.5, b, x)?;
        five_inverse_then(
            lat.odd(),
            Along::S,
            p.diagonal(),
            (1.0, 0.0),
            p.mf,
            x,
            scratch,
        )?;
        copy(lat.odd(), scratch, x)
    }
}

impl<const LS: usize, S: Space> DomainWallEvenOdd<'_, '_, LS, S>
where
    FiveSpinor<f64, LS>: ongpu_runtime::ElementArray<Entry = ColorVector<f64>>,
{
    /// Solves `D x = b` on the whole lattice: `b̂_e`, `solver` on `M̂ x_e = b̂_e`, then
    /// `x_o`. The solution's residual is that of the even system (`|b̂_e − M̂ x_e| /
    /// |b̂_e|`).
    pub fn solve(
        &self,
        solver: &mut dyn LinearSolver<Self>,
        b: &FiveFieldOf<S, LS>,
        x: &mut FiveFieldOf<S, LS>,
    ) -> Result<Solution, SolverError> {
        let lat = self.op.lattice();
        lat.check_field(b, "source")?;
        lat.check_field(x, "solution")?;
        let mut b_hat: FiveFieldOf<S, LS> = lat.zeros()?;
        let mut scratch: FiveFieldOf<S, LS> = lat.zeros()?;
        self.prepare(b, &mut b_hat, &mut scratch)?;
        let solution = solver.solve(self, &b_hat, x)?;
        self.reconstruct(b, x, &mut scratch)?;
        Ok(solution)
    }
}

// The generic solvers' interface over the even sites (CGNR on `M̂`: CG on the normal
// equations `M̂† M̂ x_e = M̂† b̂_e`).
algebra::solver_interface!(
    DomainWallEvenOdd<'_, '_, LS, S, T>,
    |eo| eo.op.lattice(),
    even
);
