//! BiCGStab (van der Vorst, SIAM J. Sci. Stat. Comput. 13 (1992) 631) for the even-odd
//! Wilson system `M̂ x_e = b_e`, in f64, every vector operation an `on_gpu!` call over the
//! even sites; the iteration stops on the recursive residual and the true residual
//! `|b − M̂ x| / |b|` is recomputed at the end.

use super::even_odd::{copy_even, dot_even, norm2_even, start_solve, true_residual, WilsonEvenOdd};
use super::SpinorFieldOf;
use crate::solver::{LinearSolver, Solution, SolverError};
use ongpu::prelude::*;
use std::time::Instant;

/// BiCGStab on [`WilsonEvenOdd`]: solves to `|r| ≤ tolerance · |b|` within `max_iterations`.
pub struct BiCgStab {
    tolerance: f64,
    max_iterations: usize,
}

impl BiCgStab {
    /// A solver to relative residual `tolerance` in at most `max_iterations` iterations.
    pub fn new(tolerance: f64, max_iterations: usize) -> Self {
        BiCgStab {
            tolerance,
            max_iterations,
        }
    }
}

impl<S: Space> LinearSolver<WilsonEvenOdd<'_, '_, S>> for BiCgStab {
    fn solve(
        &mut self,
        op: &WilsonEvenOdd<'_, '_, S>,
        b: &SpinorFieldOf<S>,
        x: &mut SpinorFieldOf<S>,
    ) -> Result<Solution, SolverError> {
        bicgstab(op, b, x, self.tolerance, self.max_iterations)
    }

    fn name(&self) -> &'static str {
        "BiCGStab"
    }
}

fn bicgstab<S: Space>(
    op: &WilsonEvenOdd<'_, '_, S>,
    b: &SpinorFieldOf<S>,
    x: &mut SpinorFieldOf<S>,
    tolerance: f64,
    max_iterations: usize,
) -> Result<Solution, SolverError> {
    let start = Instant::now();
    let lat = op.wilson().lattice();
    let zeros = || -> ongpu::Result<SpinorFieldOf<S>> { lat.zeros() };
    let (mut r, mut p, mut v, mut sv, mut t, mut tmp) =
        (zeros()?, zeros()?, zeros()?, zeros()?, zeros()?, zeros()?);
    // x = 0, r = r̂ = b.
    let b2 = start_solve(lat, b, x, &mut r)?;
    let done = |r2: f64| r2 <= tolerance * tolerance * b2;
    let mut r_hat = zeros()?;
    copy_even(lat, &r, &mut r_hat)?;
    let one = Complex::new(1.0, 0.0);
    let (mut rho, mut alpha, mut omega) = (one, one, one);
    let mut iterations = 0;
    let mut r2 = b2;
    while !done(r2) {
        if iterations == max_iterations {
            return Err(SolverError::NotConverged {
                iterations,
                relative_residual: (r2 / b2).sqrt(),
            });
        }
        let rho_new = dot_even(lat, &r_hat, &r)?;
        let beta = (rho_new / rho) * (alpha / omega);
        rho = rho_new;
        // p = r + β (p − ω v)
        on_gpu!(lat.even(), {
            p[0] = r[0] + (p[0] - v[0] * omega) * beta;
            p[1] = r[1] + (p[1] - v[1] * omega) * beta;
            p[2] = r[2] + (p[2] - v[2] * omega) * beta;
            p[3] = r[3] + (p[3] - v[3] * omega) * beta;
        })?;
        // v = M̂ p with ⟨r̂, v⟩ from its last pass.
        let rv = op.apply_and_dot(&p, &mut tmp, &mut v, &r_hat)?;
        alpha = rho / rv;
        // s = r − α v
        on_gpu!(lat.even(), {
            sv[0] = r[0] - v[0] * alpha;
            sv[1] = r[1] - v[1] * alpha;
            sv[2] = r[2] - v[2] * alpha;
            sv[3] = r[3] - v[3] * alpha;
        })?;
        // t = M̂ s with ⟨s, t⟩ from its last pass.
        let ts = op.apply_and_dot(&sv, &mut tmp, &mut t, &sv)?.conj();
        let tt = norm2_even(lat, &t)?;
        omega = ts / tt;
        if !(rho.norm().is_finite() && rv.norm() > 0.0 && tt > 0.0 && omega.norm() > 0.0) {
            return Err(SolverError::Breakdown {
                iterations,
                p_dot_ap: rv.norm(),
            });
        }
        // x += α p + ω s;  r = s − ω t, with |r|² from the same pass.
        r2 = on_gpu!(sum: lat.even(), {
            x[0] += p[0] * alpha + sv[0] * omega;
            x[1] += p[1] * alpha + sv[1] * omega;
            x[2] += p[2] * alpha + sv[2] * omega;
            x[3] += p[3] * alpha + sv[3] * omega;
            r[0] = sv[0] - t[0] * omega;
            r[1] = sv[1] - t[1] * omega;
            r[2] = sv[2] - t[2] * omega;
            r[3] = sv[3] - t[3] * omega;
            r[0].norm2() + r[1].norm2() + r[2].norm2() + r[3].norm2()
        })?;
        iterations += 1;
    }
    let relative_residual = true_residual(op, b, x, b2, [&mut tmp, &mut t, &mut r])?;
    Ok(Solution {
        iterations,
        restarts: 0,
        reliable_updates: 0,
        relative_residual,
        seconds: start.elapsed().as_secs_f64(),
    })
}
