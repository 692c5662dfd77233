//! The 4-D quark of domain-wall fermions: the source a 4-D field makes on the walls, the
//! quark read back from them, and the 4-D propagator between the two.
//!
//! With `P` the chiral permutation `(P ψ)(s) = P_− ψ(s) + P_+ ψ(s+1)` (cyclic in `s`), the
//! effective 4-D operator of the light modes is `D_eff = [P⁻¹ D(1)⁻¹ D(m_f) P]_{00}`
//! (Pauli–Villars `D(1)`: the operator at `m_f = 1`), which is
//! `(1 + m_f)/2 + (1 − m_f)/2 γ5 ε_Ls(H)` with `ε_Ls` the polar approximation of the
//! Möbius kernel. Its propagator with the contact term removed,
//! `S = (D_eff⁻¹ − 1)/(1 − m_f)`, is one 5-D solve: the part of `D(m_f)` that `m_f` multiplies
//! is `−m_f (c D_W − 1) B` (`B` joins the walls), and `D_eff⁻¹ = [P⁻¹ D(m_f)⁻¹ D(1) P]_{00}`
//! (the matrix is block-triangular), so
//!
//! `S η = P_− x(0) + P_+ x(Ls−1)`, `D(m_f) x = (1 − c D_W) z`, `z(0) = P_+ η`,
//! `z(Ls−1) = P_− η`, `z = 0` between.
//!
//! The quark at the midpoint of the fifth dimension, `P_− x(Ls/2) + P_+ x(Ls/2 − 1)`, makes
//! the correlator whose ratio to the pion's is the residual mass. docs/domain-wall.md says
//! how the tests check each identity.

use super::passes::{combine_in_place, hop5};
use super::{DomainWall, FiveFieldOf, FiveSpinor};
use crate::solver::{Solution, SolverError};
use crate::wilson::SpinorFieldOf;
use ongpu::prelude::*;

/// `out(0) = P_+ η`, `out(Ls−1) = P_− η`, zero between, at the sites of `sites`
/// (γ5 = diag(1, 1, −1, −1): `P_+` is spins 0 and 1).
pub fn to_walls<const LS: usize, P: SpaceSubset>(
    sites: P,
    eta: &SpinorFieldOf<P::Space>,
    out: &mut FiveFieldOf<P::Space, LS>,
) -> ongpu::Result<()>
where
    FiveSpinor<f64, LS>: ongpu::Element,
{
    let (n, last) = (4 * LS, 4 * (LS - 1));
    on_gpu!(sites, {
        for k in 0..n {
            out[k] = ColorVector::zero();
        }
        out[0] = eta[0];
        out[1] = eta[1];
        out[last + 2] = eta[2];
        out[last + 3] = eta[3];
    })
}

/// `q = P_− ψ(cut) + P_+ ψ(cut − 1)` (cyclic in `s`) at the sites of `sites`: the 4-D quark
/// at the walls (`cut = 0`) or at the midpoint (`cut = Ls/2`).
pub fn at_cut<const LS: usize, P: SpaceSubset>(
    sites: P,
    cut: usize,
    psi: &FiveFieldOf<P::Space, LS>,
    q: &mut SpinorFieldOf<P::Space>,
) -> ongpu::Result<()>
where
    FiveSpinor<f64, LS>: ongpu::Element,
{
    let (upper, lower) = cut_entries(cut, LS);
    on_gpu!(sites, {
        q[0] = psi[lower];
        q[1] = psi[lower + 1];
        q[2] = psi[upper + 2];
        q[3] = psi[upper + 3];
    })
}

/// The first entries of the slices `cut` and `cut − 1` (cyclic) of a site's `4 Ls`.
pub(crate) fn cut_entries(cut: usize, ls: usize) -> (usize, usize) {
    (4 * (cut % ls), 4 * ((cut + ls - 1) % ls))
}

impl<const LS: usize, S: Space> DomainWall<'_, LS, S>
where
    FiveSpinor<f64, LS>: ongpu::Element,
{
    /// The 5-D source of the 4-D propagator of `eta`: `b = (1 − c D_W) z` with `z` the
    /// walls of `eta` ([`to_walls`]); `z` is overwritten.
    pub fn physical_source(
        &self,
        eta: &SpinorFieldOf<S>,
        z: &mut FiveFieldOf<S, LS>,
        b: &mut FiveFieldOf<S, LS>,
    ) -> ongpu::Result<()> {
        let (lat, p) = (self.lattice(), self.params());
        if p.c == 0.0 {
            return to_walls(lat.all(), eta, b);
        }
        to_walls(lat.all(), eta, z)?;
        hop5(lat.all(), self.links(), z, b)?;
        // (1 − c D_W) z = (1 − c (4 − M5)) z + (c/2) H z.
        combine_in_place(
            lat.all(),
            (1.0 - p.c * (4.0 - p.m5), 0.0),
            p.mf,
            0.5 * p.c,
            z,
            b,
        )
    }

    /// The 4-D quark of a 5-D solution: `q = P_− x(0) + P_+ x(Ls−1)`.
    pub fn physical_quark(
        &self,
        x: &FiveFieldOf<S, LS>,
        q: &mut SpinorFieldOf<S>,
    ) -> ongpu::Result<()> {
        at_cut(self.lattice().all(), 0, x, q)
    }

    /// The quark at the midpoint of the fifth dimension: `P_− x(Ls/2) + P_+ x(Ls/2 − 1)`.
    pub fn midpoint_quark(
        &self,
        x: &FiveFieldOf<S, LS>,
        q: &mut SpinorFieldOf<S>,
    ) -> ongpu::Result<()> {
        at_cut(self.lattice().all(), LS / 2, x, q)
    }

    /// `q = S η`, the 4-D propagator with the contact term removed (module
    /// documentation), by one solve of `D x = b`: `solve(b, x)` is any solver of this
    /// operator (the even-odd one, `|b, x| eo.solve(&mut cgnr, b, x)`, or the plain
    /// [`Cgnr`](crate::solver::Cgnr) on `D`). `x` holds the 5-D solution afterwards (its
    /// midpoint gives [`Self::midpoint_quark`]).
    pub fn propagator(
        &self,
        solve: impl FnOnce(
            &FiveFieldOf<S, LS>,
            &mut FiveFieldOf<S, LS>,
        ) -> Result<Solution, SolverError>,
        eta: &SpinorFieldOf<S>,
        x: &mut FiveFieldOf<S, LS>,
        q: &mut SpinorFieldOf<S>,
    ) -> Result<Solution, SolverError> {
        let lat = self.lattice();
        lat.check_field(eta, "4-D source")?;
        lat.check_field(q, "4-D quark")?;
        let mut z: FiveFieldOf<S, LS> = lat.zeros()?;
        let mut b: FiveFieldOf<S, LS> = lat.zeros()?;
        self.physical_source(eta, &mut z, &mut b)?;
        let solution = solve(&b, x)?;
        self.physical_quark(x, q)?;
        Ok(solution)
    }
}
