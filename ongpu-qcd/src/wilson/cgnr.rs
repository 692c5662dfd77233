//! CGNR for the even-odd Wilson(-clover) system: conjugate gradients on the normal equations
//! `M̂† M̂ x = M̂† b`, with `M̂† = A_ee γ5 M̂ γ5 A_ee⁻¹` (γ5-hermiticity; `γ5 M̂ γ5` without a
//! clover term). Slower than BiCGStab (it squares
//! the condition number) but never breaks down, which makes it the reference the faster
//! solver is checked against. It tracks the residual of the original system,
//! `s = b − M̂ x`, and stops on `|s| ≤ tolerance · |b|`; the true residual is recomputed at
//! the end.

use super::clover_algebra::{apply_blocks, block_bottom, block_top};
use super::even_odd::{copy_even, norm2_even, start_solve, true_residual, WilsonEvenOdd};
use super::SpinorFieldOf;
use crate::solver::{LinearSolver, Solution, SolverError};
use ongpu::prelude::*;
use std::time::Instant;

/// CGNR on [`WilsonEvenOdd`]: solves to `|b − M̂ x| ≤ tolerance · |b|` within
/// `max_iterations`.
pub struct Cgnr {
    tolerance: f64,
    max_iterations: usize,
}

impl Cgnr {
    /// A solver to relative residual `tolerance` in at most `max_iterations` iterations.
    pub fn new(tolerance: f64, max_iterations: usize) -> Self {
        Cgnr {
            tolerance,
            max_iterations,
        }
    }
}

impl<S: Space> LinearSolver<WilsonEvenOdd<'_, '_, S>> for Cgnr {
    fn solve(
        &mut self,
        op: &WilsonEvenOdd<'_, '_, S>,
        b: &SpinorFieldOf<S>,
        x: &mut SpinorFieldOf<S>,
    ) -> Result<Solution, SolverError> {
        cgnr(op, b, x, self.tolerance, self.max_iterations)
    }

    fn name(&self) -> &'static str {
        "CGNR"
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

fn cgnr<S: Space>(
    op: &WilsonEvenOdd<'_, '_, S>,
    b: &SpinorFieldOf<S>,
    x: &mut SpinorFieldOf<S>,
    tolerance: f64,
    max_iterations: usize,
) -> Result<Solution, SolverError> {
    let start = Instant::now();
    let lat = op.wilson().lattice();
    let zeros = || -> ongpu::Result<SpinorFieldOf<S>> { lat.zeros() };
    let (mut s, mut r, mut p, mut q, mut g5, mut tmp) =
        (zeros()?, zeros()?, zeros()?, zeros()?, zeros()?, zeros()?);
    // x = 0, s = b, r = p = M̂† b.
    let b2 = start_solve(lat, b, x, &mut s)?;
    apply_dagger(op, b, &mut g5, &mut tmp, &mut r)?;
    copy_even(lat, &r, &mut p)?;
    let mut s2 = b2;
    let mut r2 = norm2_even(lat, &r)?;
    let mut iterations = 0;
    while s2 > tolerance * tolerance * b2 {
        if iterations == max_iterations {
            return Err(SolverError::NotConverged {
                iterations,
                relative_residual: (s2 / b2).sqrt(),
            });
        }
        op.apply(&p, &mut tmp, &mut q)?;
        let q2 = norm2_even(lat, &q)?;
        if !(q2 > 0.0 && q2.is_finite()) {
            return Err(SolverError::Breakdown {
                iterations,
                p_dot_ap: q2,
            });
        }
        let alpha = r2 / q2;
        // x += α p;  s −= α q
        on_gpu!(lat.even(), {
            x[0] += p[0] * alpha;
            x[1] += p[1] * alpha;
            x[2] += p[2] * alpha;
            x[3] += p[3] * alpha;
            s[0] -= q[0] * alpha;
            s[1] -= q[1] * alpha;
            s[2] -= q[2] * alpha;
            s[3] -= q[3] * alpha;
        })?;
        s2 = norm2_even(lat, &s)?;
        // r = M̂† s (the normal residual), p = r + β p.
        apply_dagger(op, &s, &mut g5, &mut tmp, &mut r)?;
        let r2_new = norm2_even(lat, &r)?;
        let beta = r2_new / r2;
        r2 = r2_new;
        on_gpu!(lat.even(), {
            p[0] = r[0] + p[0] * beta;
            p[1] = r[1] + p[1] * beta;
            p[2] = r[2] + p[2] * beta;
            p[3] = r[3] + p[3] * beta;
        })?;
        iterations += 1;
    }
    let relative_residual = true_residual(op, b, x, b2, [&mut tmp, &mut q, &mut s])?;
    Ok(Solution {
        iterations,
        restarts: 0,
        reliable_updates: 0,
        relative_residual,
        seconds: start.elapsed().as_secs_f64(),
    })
}
