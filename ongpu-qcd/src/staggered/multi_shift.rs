//! Multi-shift CG: the solutions of `(A + σ_k) x_k = b` for every shift `σ_k` from the one
//! Krylov space of `A + σ_0` (`σ_0` the smallest shift), for the even-odd normal operator
//! `A = m² − D_eo D_oe` of staggered and HISQ quarks: what the rational approximations of
//! RHMC need, `Σ_k a_k (A + σ_k)⁻¹ b`, at the cost of one solve.
//!
//! The shifted systems' residuals stay parallel to the base one's, `r_k = ζ_k r`, with
//! (Jegerlehner, hep-lat/9612014)
//!
//! `ζ_k(n+1) = ζ_k(n) ζ_k(n−1) α(n−1) / [α(n) β(n−1) (ζ_k(n−1) − ζ_k(n)) + ζ_k(n−1) α(n−1)
//! (1 + (σ_k − σ_0) α(n))]`,
//!
//! `α_k(n) = α(n) ζ_k(n+1)/ζ_k(n)`, `β_k(n) = β(n) (ζ_k(n+1)/ζ_k(n))²`, so each shift costs
//! two vector updates per iteration and no application of `A`. The `N` solutions and
//! directions are one field of `N` vectors per site ([`FermionsOf`]), updated for all
//! shifts in one pass. A shift stops being updated when its own residual `|ζ_k r|` meets
//! the tolerance; at the end each solution's true residual `|b − (A + σ_k) x_k| / |b|` is
//! computed and reported.

use super::many::FermionsOf;
use super::FermionOf;
use crate::solver::SolverError;
use ongpu::prelude::*;
use ongpu::Element;
use std::time::Instant;

/// An even-odd normal operator with a shift: what [`MultiShiftCg`] applies.
pub trait ShiftedNormal<S: Space> {
    /// Where its vectors live.
    fn space(&self) -> S;

    /// At the even sites `w = (A + shift) x` (through `t`, whose odd sites it overwrites),
    /// returning `|x|²` and `Re⟨x, w⟩` from the same pass.
    fn apply_shifted(
        &self,
        x: &FermionOf<S>,
        shift: f64,
        t: &mut FermionOf<S>,
        w: &mut FermionOf<S>,
    ) -> ongpu::Result<(f64, f64)>;
}

/// The report of a multi-shift solve.
#[derive(Debug, Clone, PartialEq)]
pub struct MultiShiftSolution<const N: usize> {
    /// Iterations of the base system (each one application of `A + σ_0`).
    pub iterations: usize,
    /// The iteration at which each shift met the tolerance.
    pub converged_at: [usize; N],
    /// Each solution's true `|b − (A + σ_k) x_k| / |b|`.
    pub relative_residuals: [f64; N],
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// Multi-shift CG for `N` shifts (see the module documentation).
pub struct MultiShiftCg<const N: usize> {
    tolerance: f64,
    max_iterations: usize,
}

impl<const N: usize> MultiShiftCg<N> {
    /// A solver to relative residual `tolerance` for every shift within `max_iterations`.
    pub fn new(tolerance: f64, max_iterations: usize) -> Self {
        MultiShiftCg {
            tolerance,
            max_iterations,
        }
    }

    /// Solves `(A + shifts[k]) x[k] = b` for every `k` at the even sites (`x`'s vector `k`
    /// is solution `k`; its odd sites are left as they were). The shifts must be finite
    /// and not negative (`A + σ` then stays positive definite) and differ from each other.
    pub fn solve<S: Space, O: ShiftedNormal<S>>(
        &mut self,
        op: &O,
        shifts: [f64; N],
        b: &FermionOf<S>,
        x: &mut FermionsOf<S, N>,
    ) -> Result<MultiShiftSolution<N>, SolverError>
    where
        [ColorVector<f64>; N]: Element,
    {
        let start = Instant::now();
        let lat = op.space();
        check_shifts(&shifts)?;
        lat.check_field(b, "source")?;
        lat.check_field(x, "solutions")?;
        let base = shifts.iter().copied().fold(f64::INFINITY, f64::min);
        let offsets: [f64; N] = std::array::from_fn(|k| shifts[k] - base);
        let mut r: FermionOf<S> = lat.zeros()?;
        let mut pb: FermionOf<S> = lat.zeros()?;
        let mut t: FermionOf<S> = lat.zeros()?;
        let mut w: FermionOf<S> = lat.zeros()?;
        let mut p: FermionsOf<S, N> = lat.zeros()?;
        // x = 0, r = p_k = p = b.
        let b2 = begin(lat, b, &mut r, &mut pb, &mut p, x)?;
        let target = self.tolerance * self.tolerance * b2;
        let mut converged_at = [0usize; N];
        let mut active = [b2 > target; N];
        let (mut zeta, mut zeta_old) = ([1.0f64; N], [1.0f64; N]);
        let (mut alpha_old, mut beta_old) = (1.0f64, 0.0f64);
        let mut rr = b2;
        let mut iterations = 0;
        while active.iter().any(|&a| a) {
            if iterations == self.max_iterations {
                return Err(SolverError::NotConverged {
                    iterations,
                    relative_residual: (rr / b2).sqrt(),
                });
            }
            let (_, p_dot_w) = op.apply_shifted(&pb, base, &mut t, &mut w)?;
            if !(p_dot_w > 0.0 && p_dot_w.is_finite()) {
                return Err(SolverError::Breakdown {
                    iterations,
                    p_dot_ap: p_dot_w,
                });
            }
            let alpha = rr / p_dot_w;
            // The shifted ζ(n+1) and α_k(n) from α(n), α(n−1), β(n−1).
            let mut zeta_new = [0.0f64; N];
            let mut alpha_k = [0.0f64; N];
            for k in 0..N {
                if !active[k] {
                    continue;
                }
                let denominator = alpha * beta_old * (zeta_old[k] - zeta[k])
                    + zeta_old[k] * alpha_old * (1.0 + offsets[k] * alpha);
                zeta_new[k] = zeta[k] * zeta_old[k] * alpha_old / denominator;
                alpha_k[k] = alpha * zeta_new[k] / zeta[k];
            }
            let rr_new = step(lat, alpha, alpha_k, &w, &p, &mut r, x)?;
            let beta = rr_new / rr;
            let mut beta_k = [0.0f64; N];
            let mut zeta_r = [0.0f64; N];
            for k in 0..N {
                if active[k] {
                    let ratio = zeta_new[k] / zeta[k];
                    beta_k[k] = beta * ratio * ratio;
                    zeta_r[k] = zeta_new[k];
                }
            }
            directions(
                lat,
                beta,
                zeta_r,
                beta_k,
                active_mask(&active),
                &r,
                &mut pb,
                &mut p,
            )?;
            iterations += 1;
            for k in 0..N {
                if active[k] {
                    zeta_old[k] = zeta[k];
                    zeta[k] = zeta_new[k];
                    if zeta[k] * zeta[k] * rr_new <= target {
                        active[k] = false;
                        converged_at[k] = iterations;
                    }
                }
            }
            alpha_old = alpha;
            beta_old = beta;
            rr = rr_new;
        }
        let relative_residuals = true_residuals(op, &shifts, b, b2, x, &mut pb, &mut t, &mut w)?;
        Ok(MultiShiftSolution {
            iterations,
            converged_at,
            relative_residuals,
            seconds: start.elapsed().as_secs_f64(),
        })
    }
}

/// The shifts must be finite, not negative, and distinct.
fn check_shifts(shifts: &[f64]) -> Result<(), SolverError> {
    let bad = |why: String| Err(SolverError::Ongpu(ongpu::Error::InvalidArgument(why)));
    if shifts.is_empty() {
        return bad("a multi-shift solve needs at least one shift".into());
    }
    if let Some(s) = shifts.iter().find(|s| !(s.is_finite() && **s >= 0.0)) {
        return bad(format!(
            "shift {s}: the shifts must be finite and not negative (A + σ must stay positive definite)"
        ));
    }
    for (i, a) in shifts.iter().enumerate() {
        if shifts[..i].contains(a) {
            return bad(format!("shift {a} is given twice"));
        }
    }
    Ok(())
}

/// `1.0` for the shifts still updated, `0.0` for the others.
fn active_mask<const N: usize>(active: &[bool; N]) -> [f64; N] {
    std::array::from_fn(|k| if active[k] { 1.0 } else { 0.0 })
}

/// `x_k = 0`, `r = pb = p_k = b` at the even sites; returns `|b|²`.
fn begin<S: Space, const N: usize>(
    lat: S,
    b: &FermionOf<S>,
    r: &mut FermionOf<S>,
    pb: &mut FermionOf<S>,
    p: &mut FermionsOf<S, N>,
    x: &mut FermionsOf<S, N>,
) -> ongpu::Result<f64>
where
    [ColorVector<f64>; N]: Element,
{
    let n = N;
    on_gpu!(sum: lat.even(), {
        r = b;
        pb = b;
        for k in 0..n {
            p[k] = b;
            x[k] = ColorVector::zero();
        }
        b.norm2()
    })
}

/// `r −= α w` and `x_k += α_k p_k` at the even sites, returning the new `|r|²`.
fn step<S: Space, const N: usize>(
    lat: S,
    alpha: f64,
    alpha_k: [f64; N],
    w: &FermionOf<S>,
    p: &FermionsOf<S, N>,
    r: &mut FermionOf<S>,
    x: &mut FermionsOf<S, N>,
) -> ongpu::Result<f64>
where
    [ColorVector<f64>; N]: Element,
{
    let n = N;
    on_gpu!(sum: lat.even(), {
        for k in 0..n {
            x[k] += alpha_k[k] * p[k];
        }
        let rn = r - alpha * w;
        r = rn;
        rn.norm2()
    })
}

/// `pb = r + β pb` and, for the shifts still updated (`mask` 1), `p_k = ζ_k r + β_k p_k`.
#[allow(clippy::too_many_arguments)]
fn directions<S: Space, const N: usize>(
    lat: S,
    beta: f64,
    zeta: [f64; N],
    beta_k: [f64; N],
    mask: [f64; N],
    r: &FermionOf<S>,
    pb: &mut FermionOf<S>,
    p: &mut FermionsOf<S, N>,
) -> ongpu::Result<()>
where
    [ColorVector<f64>; N]: Element,
{
    let n = N;
    on_gpu!(lat.even(), {
        pb = r + beta * pb;
        for k in 0..n {
            if mask[k] != 0.0 {
                p[k] = zeta[k] * r + beta_k[k] * p[k];
            }
        }
    })
}

/// Each solution's true `|b − (A + σ_k) x_k| / |b|`.
#[allow(clippy::too_many_arguments)]
fn true_residuals<S: Space, O: ShiftedNormal<S>, const N: usize>(
    op: &O,
    shifts: &[f64; N],
    b: &FermionOf<S>,
    b2: f64,
    x: &FermionsOf<S, N>,
    xk: &mut FermionOf<S>,
    t: &mut FermionOf<S>,
    w: &mut FermionOf<S>,
) -> Result<[f64; N], SolverError>
where
    [ColorVector<f64>; N]: Element,
{
    let lat = op.space();
    let mut out = [0.0; N];
    if b2 == 0.0 {
        return Ok(out);
    }
    for (k, residual) in out.iter_mut().enumerate() {
        on_gpu!(lat.even(), {
            xk = x[k];
        })?;
        op.apply_shifted(xk, shifts[k], t, w)?;
        let r2: f64 = on_gpu!(sum: lat.even(), {
            let d = b - w;
            d.norm2()
        })?;
        *residual = (r2 / b2).sqrt();
    }
    Ok(out)
}
