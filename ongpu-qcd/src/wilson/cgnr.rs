//! CGNR ([`Cgnr`](crate::solver::Cgnr)) for the even-odd Wilson(-clover) system: the
//! adjoint `M̂† = A_ee γ5 M̂ γ5 A_ee⁻¹` (γ5-hermiticity; `γ5 M̂ γ5` without a clover term)
//! and the iteration's vector passes over the even sites.

use super::clover_algebra::{apply_blocks, block_bottom, block_top};
use super::even_odd::WilsonEvenOdd;
use super::SpinorFieldOf;
use crate::solver::CgnrOperator;
use ongpu::prelude::*;

impl<S: Space> CgnrOperator for WilsonEvenOdd<'_, '_, S> {
    fn apply_dagger(
        &self,
        x: &SpinorFieldOf<S>,
        g5: &mut SpinorFieldOf<S>,
        tmp: &mut SpinorFieldOf<S>,
        out: &mut SpinorFieldOf<S>,
    ) -> ongpu::Result<()> {
        apply_dagger(self, x, g5, tmp, out)
    }

    fn cgnr_step(
        &self,
        alpha: f64,
        p: &SpinorFieldOf<S>,
        q: &SpinorFieldOf<S>,
        x: &mut SpinorFieldOf<S>,
        s: &mut SpinorFieldOf<S>,
    ) -> ongpu::Result<()> {
        on_gpu!(self.wilson().lattice().even(), {
            x[0] += p[0] * alpha;
            x[1] += p[1] * alpha;
            x[2] += p[2] * alpha;
            x[3] += p[3] * alpha;
            s[0] -= q[0] * alpha;
            s[1] -= q[1] * alpha;
            s[2] -= q[2] * alpha;
            s[3] -= q[3] * alpha;
        })
    }

    fn cgnr_direction(
        &self,
        beta: f64,
        r: &SpinorFieldOf<S>,
        p: &mut SpinorFieldOf<S>,
    ) -> ongpu::Result<()> {
        on_gpu!(self.wilson().lattice().even(), {
            p[0] = r[0] + p[0] * beta;
            p[1] = r[1] + p[1] * beta;
            p[2] = r[2] + p[2] * beta;
            p[3] = r[3] + p[3] * beta;
        })
    }
}

/// `out = M̂† psi` on the even sites (`g5` and `tmp` scratch). `M̂ = A_ee⁻¹ K` with `K`
/// γ5-Hermitian and `A` Hermitian and commuting with γ5 (block diagonal in the chiral
/// basis), so `M̂† = K† A_ee⁻¹ = A_ee γ5 M̂ γ5 A_ee⁻¹`: `γ5 M̂ γ5` without a clover term.
fn apply_dagger<S: Space>(
    op: &WilsonEvenOdd<'_, '_, S>,
    psi: &SpinorFieldOf<S>,
    g5: &mut SpinorFieldOf<S>,
    tmp: &mut SpinorFieldOf<S>,
    out: &mut SpinorFieldOf<S>,
) -> ongpu::Result<()> {
    let lat = op.wilson().lattice();
    // γ5 = diag(1, 1, −1, −1) in the DeGrand–Rossi basis.
    match op.wilson().clover() {
        None => on_gpu!(lat.even(), {
            g5[0] = psi[0];
            g5[1] = psi[1];
            g5[2] = -psi[2];
            g5[3] = -psi[3];
        })?,
        Some(c) => {
            let a = c.inverses();
            apply_blocks!(lat.even(), a, g5, [psi[0], psi[1], -psi[2], -psi[3]])?
        }
    }
    op.apply(g5, tmp, out)?;
    match op.wilson().clover() {
        None => on_gpu!(lat.even(), {
            out[2] = -out[2];
            out[3] = -out[3];
        }),
        Some(c) => {
            let a = c.blocks();
            apply_blocks!(lat.even(), a, out, [out[0], out[1], -out[2], -out[3]])
        }
    }
}
