//! BiCGStab (van der Vorst, SIAM J. Sci. Stat. Comput. 13 (1992) 631) for the even-odd
//! Wilson system `M̂ x_e = b_e`, in f64, every vector operation an `on_gpu!` call over the
//! even sites; the iteration stops on the recursive residual and the true residual
//! `|b − M̂ x| / |b|` is recomputed at the end.

use super::even_odd::{start_solve, true_residual, WilsonEvenOdd};
use super::{Spinor, SpinorFieldOf};
use crate::solver::{LinearSolver, Solution, SolverError};
use ongpu::prelude::*;
use ongpu::Element;
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

/// An even-odd system that BiCGStab iterates on, with spinors of real `T`: `M̂` applied,
/// with `⟨with, M̂ psi⟩` from its last pass ([`WilsonEvenOdd`] in f64, the mixed solver's
/// single-precision copy in f32).
pub(crate) trait EvenOddSystem<S: Space, T: Real>
where
    Spinor<T>: Element,
{
    /// Where the spinors live.
    fn lattice(&self) -> S;
    /// `out = M̂ psi` on the even sites (`tmp` scratch), returning `⟨with, M̂ psi⟩`.
    fn apply_and_dot(
        &self,
        psi: &SpinorFieldOf<S, T>,
        tmp: &mut SpinorFieldOf<S, T>,
        out: &mut SpinorFieldOf<S, T>,
        with: &SpinorFieldOf<S, T>,
    ) -> ongpu::Result<Complex<f64>>;
}

impl<S: Space> EvenOddSystem<S, f64> for WilsonEvenOdd<'_, '_, S> {
    fn lattice(&self) -> S {
        self.wilson().lattice()
    }

    fn apply_and_dot(
        &self,
        psi: &SpinorFieldOf<S>,
        tmp: &mut SpinorFieldOf<S>,
        out: &mut SpinorFieldOf<S>,
        with: &SpinorFieldOf<S>,
    ) -> ongpu::Result<Complex<f64>> {
        WilsonEvenOdd::apply_and_dot(self, psi, tmp, out, with)
    }
}

/// The work fields of BiCGStab iterations: `r̂`, `p`, `v`, `s`, `t` and scratch.
pub(crate) struct Work<S: Space, T: Real>
where
    Spinor<T>: Element,
{
    r_hat: SpinorFieldOf<S, T>,
    p: SpinorFieldOf<S, T>,
    v: SpinorFieldOf<S, T>,
    s: SpinorFieldOf<S, T>,
    t: SpinorFieldOf<S, T>,
    tmp: SpinorFieldOf<S, T>,
}

impl<S: Space, T: Real> Work<S, T>
where
    Spinor<T>: Element,
{
    pub(crate) fn new(lat: S) -> ongpu::Result<Self> {
        Ok(Work {
            r_hat: lat.zeros()?,
            p: lat.zeros()?,
            v: lat.zeros()?,
            s: lat.zeros()?,
            t: lat.zeros()?,
            tmp: lat.zeros()?,
        })
    }
}

/// BiCGStab iterations written once for each precision `$t` (the passes capture `Complex<$t>`
/// scalars and sum in `$t`, which generic code could not name): `$name(op, x, r, work,
/// r2, b2, done, max_iterations)` iterates from `x` with residual `r` (`|r|² = r2`),
/// updating both, until `done(|r|²)` on the recursive residual or `max_iterations` (an
/// error reporting `|r|²/b2`), and returns the iterations made and the last `|r|²`.
/// Scalars are computed in f64 on the host and rounded to `$t` for the passes.
macro_rules! bicgstab_iterations {
    ($name:ident, $t:ty) => {
        #[allow(clippy::too_many_arguments)] // the state of the iteration, and where it stops
        pub(crate) fn $name<S: Space, O: EvenOddSystem<S, $t>>(
            op: &O,
            x: &mut SpinorFieldOf<S, $t>,
            r: &mut SpinorFieldOf<S, $t>,
            w: &mut Work<S, $t>,
            mut r2: f64,
            b2: f64,
            done: impl Fn(f64) -> bool,
            max_iterations: usize,
        ) -> Result<(usize, f64), SolverError> {
            let round = |z: Complex<f64>| Complex::new(z.re as $t, z.im as $t);
            let lat = op.lattice();
            let Work {
                r_hat,
                p,
                v,
                s: sv,
                t,
                tmp,
            } = w;
            on_gpu!(lat.even(), {
                r_hat[0] = r[0];
                r_hat[1] = r[1];
                r_hat[2] = r[2];
                r_hat[3] = r[3];
                p[0] = ColorVector::zero();
                p[1] = ColorVector::zero();
                p[2] = ColorVector::zero();
                p[3] = ColorVector::zero();
                v[0] = ColorVector::zero();
                v[1] = ColorVector::zero();
                v[2] = ColorVector::zero();
                v[3] = ColorVector::zero();
            })?;
            let one = Complex::new(1.0, 0.0);
            let (mut rho, mut alpha, mut omega) = (one, one, one);
            let mut iterations = 0;
            while !done(r2) {
                if iterations == max_iterations {
                    return Err(SolverError::NotConverged {
                        iterations,
                        relative_residual: (r2 / b2).sqrt(),
                    });
                }
                let rho_new: Complex<f64> = on_gpu!(sum: lat.even(), {
                    (r_hat[0].dot(r[0]) + r_hat[1].dot(r[1]) + r_hat[2].dot(r[2])
                        + r_hat[3].dot(r[3]))
                        .to_f64()
                })?;
                let beta = (rho_new / rho) * (alpha / omega);
                rho = rho_new;
                // p = r + β (p − ω v)
                let (beta_t, omega_t) = (round(beta), round(omega));
                on_gpu!(lat.even(), {
                    p[0] = r[0] + (p[0] - v[0] * omega_t) * beta_t;
                    p[1] = r[1] + (p[1] - v[1] * omega_t) * beta_t;
                    p[2] = r[2] + (p[2] - v[2] * omega_t) * beta_t;
                    p[3] = r[3] + (p[3] - v[3] * omega_t) * beta_t;
                })?;
                // v = M̂ p with ⟨r̂, v⟩ from its last pass.
                let rv = op.apply_and_dot(p, tmp, v, r_hat)?;
                alpha = rho / rv;
                // s = r − α v
                let alpha_t = round(alpha);
                on_gpu!(lat.even(), {
                    sv[0] = r[0] - v[0] * alpha_t;
                    sv[1] = r[1] - v[1] * alpha_t;
                    sv[2] = r[2] - v[2] * alpha_t;
                    sv[3] = r[3] - v[3] * alpha_t;
                })?;
                // t = M̂ s with ⟨s, t⟩ from its last pass.
                let ts = op.apply_and_dot(sv, tmp, t, sv)?.conj();
                let tt: f64 = on_gpu!(sum: lat.even(), {
                    (t[0].norm2() + t[1].norm2() + t[2].norm2() + t[3].norm2()) as f64
                })?;
                omega = ts / tt;
                if !(rho.norm().is_finite() && rv.norm() > 0.0 && tt > 0.0 && omega.norm() > 0.0)
                {
                    return Err(SolverError::Breakdown {
                        iterations,
                        p_dot_ap: rv.norm(),
                    });
                }
                // x += α p + ω s;  r = s − ω t, with |r|² from the same pass.
                let omega_t = round(omega);
                r2 = on_gpu!(sum: lat.even(), {
                    x[0] += p[0] * alpha_t + sv[0] * omega_t;
                    x[1] += p[1] * alpha_t + sv[1] * omega_t;
                    x[2] += p[2] * alpha_t + sv[2] * omega_t;
                    x[3] += p[3] * alpha_t + sv[3] * omega_t;
                    r[0] = sv[0] - t[0] * omega_t;
                    r[1] = sv[1] - t[1] * omega_t;
                    r[2] = sv[2] - t[2] * omega_t;
                    r[3] = sv[3] - t[3] * omega_t;
                    (r[0].norm2() + r[1].norm2() + r[2].norm2() + r[3].norm2()) as f64
                })?;
                iterations += 1;
            }
            Ok((iterations, r2))
        }
    };
}

bicgstab_iterations!(iterate, f64);
bicgstab_iterations!(iterate_single, f32);

fn bicgstab<S: Space>(
    op: &WilsonEvenOdd<'_, '_, S>,
    b: &SpinorFieldOf<S>,
    x: &mut SpinorFieldOf<S>,
    tolerance: f64,
    max_iterations: usize,
) -> Result<Solution, SolverError> {
    let start = Instant::now();
    let lat = op.wilson().lattice();
    let mut r: SpinorFieldOf<S> = lat.zeros()?;
    let mut w = Work::new(lat)?;
    // x = 0, r = r̂ = b.
    let b2 = start_solve(lat, b, x, &mut r)?;
    let (iterations, _) = iterate(
        op,
        x,
        &mut r,
        &mut w,
        b2,
        b2,
        |r2| r2 <= tolerance * tolerance * b2,
        max_iterations,
    )?;
    let relative_residual = true_residual(op, b, x, b2, [&mut w.tmp, &mut w.t, &mut r])?;
    Ok(Solution {
        iterations,
        restarts: 0,
        reliable_updates: 0,
        relative_residual,
        seconds: start.elapsed().as_secs_f64(),
    })
}
