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
//! directions are one field of `N` vectors per site ([`FermionsOf`]). An iteration is the
//! operator's two passes and `r(n+1) = r(n) − α w` with `|r|²`; the shifts' vectors are
//! advanced two iterations at a time, in one pass every second iteration that reads `r(n+1)`
//! and `r(n+2)` (kept in two fields in turn) and, per shift, makes
//! `p_k(n+1) = ζ_k(n+1) r(n+1) + β_k(n) p_k(n)`, `x_k += α_k(n) p_k(n) + α_k(n+1) p_k(n+1)`
//! and `p_k(n+2)` in registers: each shift's solution and direction are read and written
//! once per two iterations (the base direction is renewed every iteration, in the pair's
//! pass or a small pass of its own). A shift that has met the tolerance (its own residual
//! `|ζ_k r|`) is neither read nor written from then on, so the pass thins out as the large
//! shifts converge. At the end each solution's true residual `|b − (A + σ_k) x_k| / |b|` is
//! computed and reported.
//!
//! The vectors may be `f64` or `f32` (`T`); the sums and the recursion's scalars are `f64`
//! either way. In `f32` the iterated residual drifts from the true one:
//! [`MixedMultiShiftCg`](super::MixedMultiShiftCg) refines each shift in `f64` afterwards.

use super::many::FermionsOf;
use super::FermionOf;
use crate::real;
use crate::solver::SolverError;
use ongpu::prelude::*;
use ongpu::{Element, RealValue};
use ongpu_runtime::Summable;
use std::time::Instant;

/// An even-odd normal operator with a shift, on vectors of `T`: what [`MultiShiftCg`]
/// applies.
pub trait ShiftedNormal<S: Space, T: VectorReal = f64>
where
    ColorVector<T>: Element,
{
    /// Where its vectors live.
    fn space(&self) -> S;

    /// At the even sites `w = (A + shift) x` (through `t`, whose odd sites it overwrites),
    /// returning `|x|²` and `Re⟨x, w⟩` from the same pass.
    fn apply_shifted(
        &self,
        x: &FermionOf<S, T>,
        shift: f64,
        t: &mut FermionOf<S, T>,
        w: &mut FermionOf<S, T>,
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

/// The iterations of a solve, before its true residuals.
pub(crate) struct Iterated<const N: usize> {
    pub iterations: usize,
    pub converged_at: [usize; N],
    /// `|b|²`.
    pub b2: f64,
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
    pub fn solve<S: Space, T: VectorReal, O: ShiftedNormal<S, T>>(
        &mut self,
        op: &O,
        shifts: [f64; N],
        b: &FermionOf<S, T>,
        x: &mut FermionsOf<S, N, T>,
    ) -> Result<MultiShiftSolution<N>, SolverError>
    where
        ColorVector<T>: Element,
        [ColorVector<T>; N]: Element,
    {
        let start = Instant::now();
        let done = self.iterate(op, shifts, b, x)?;
        let lat = op.space();
        let (mut xk, mut t, mut w) = (lat.zeros()?, lat.zeros()?, lat.zeros()?);
        let relative_residuals =
            true_residuals(op, &shifts, b, done.b2, x, &mut xk, &mut t, &mut w)?;
        Ok(MultiShiftSolution {
            iterations: done.iterations,
            converged_at: done.converged_at,
            relative_residuals,
            seconds: start.elapsed().as_secs_f64(),
        })
    }

    /// The iterations of [`solve`](Self::solve), without the true residuals.
    pub(crate) fn iterate<S: Space, T: VectorReal, O: ShiftedNormal<S, T>>(
        &mut self,
        op: &O,
        shifts: [f64; N],
        b: &FermionOf<S, T>,
        x: &mut FermionsOf<S, N, T>,
    ) -> Result<Iterated<N>, SolverError>
    where
        ColorVector<T>: Element,
        [ColorVector<T>; N]: Element,
    {
        let lat = op.space();
        check_shifts(&shifts)?;
        lat.check_field(b, "source")?;
        lat.check_field(x, "solutions")?;
        let base = shifts.iter().copied().fold(f64::INFINITY, f64::min);
        let offsets: [f64; N] = std::array::from_fn(|k| shifts[k] - base);
        // r(j) and r(j+1) in turn in rs[0] and rs[1]: a pair's advance reads both.
        let mut rs: [FermionOf<S, T>; 2] = [lat.zeros()?, lat.zeros()?];
        let mut pb: FermionOf<S, T> = lat.zeros()?;
        let mut t: FermionOf<S, T> = lat.zeros()?;
        let mut w: FermionOf<S, T> = lat.zeros()?;
        let mut p: FermionsOf<S, N, T> = lat.zeros()?;
        // x = 0, r = p_k = p = b.
        let b2 = begin(lat, b, &mut rs[0], &mut pb, &mut p, x)?;
        let mut current = 0;
        let target = self.tolerance * self.tolerance * b2;
        let mut converged_at = [0usize; N];
        let mut active = [b2 > target; N];
        let (mut zeta, mut zeta_old) = ([1.0f64; N], [1.0f64; N]);
        let (mut alpha_old, mut beta_old) = (1.0f64, 0.0f64);
        let mut rr = b2;
        let mut iterations = 0;
        // The first iteration of a pair, whose shift updates wait for the second.
        let mut pending: Option<ShiftStep<N>> = None;
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
            let [r0, r1] = &mut rs;
            let (from, to) = if current == 0 { (&*r0, r1) } else { (&*r1, r0) };
            let rr_new = residual_step(lat, real(alpha), &w, from, to)?;
            current = 1 - current;
            let beta = rr_new / rr;
            iterations += 1;
            // Per shift: ζ(n+1) from α(n), α(n−1), β(n−1); then α_k(n), β_k(n), and
            // whether the shift goes on.
            let mut step = ShiftStep::<N>::idle();
            for k in 0..N {
                if !active[k] {
                    continue;
                }
                let denominator = alpha * beta_old * (zeta_old[k] - zeta[k])
                    + zeta_old[k] * alpha_old * (1.0 + offsets[k] * alpha);
                let zeta_new = zeta[k] * zeta_old[k] * alpha_old / denominator;
                let ratio = zeta_new / zeta[k];
                step.alpha[k] = alpha * ratio;
                step.zeta[k] = zeta_new;
                step.beta[k] = beta * ratio * ratio;
                step.active[k] = true;
                zeta_old[k] = zeta[k];
                zeta[k] = zeta_new;
                if zeta_new * zeta_new * rr_new <= target {
                    active[k] = false;
                    converged_at[k] = iterations;
                }
            }
            step.goes_on = active;
            let [r0, r1] = &rs;
            let (older, newer) = if current == 0 { (r1, r0) } else { (r0, r1) };
            match pending.take() {
                // The second iteration of a pair: both steps of every shift in one pass.
                Some(first) => {
                    let pass = PairPass::<T, N>::new(&first, Some(&step));
                    advance_pair(lat, &pass, real(beta), older, newer, &mut pb, &mut p, x)?;
                }
                None => {
                    renew_base_direction(lat, real(beta), newer, &mut pb)?;
                    pending = Some(step);
                }
            }
            alpha_old = alpha;
            beta_old = beta;
            rr = rr_new;
        }
        // A pair left half done: its one step (nothing to renew).
        if let Some(first) = pending {
            let newer = &rs[current];
            let pass = PairPass::<T, N>::new(&first, None);
            advance_pair(lat, &pass, real(0.0), newer, newer, &mut pb, &mut p, x)?;
        }
        Ok(Iterated {
            iterations,
            converged_at,
            b2,
        })
    }
}

/// The reals of a multi-shift solve's vectors: `f64` or `f32`, their sums taken in `f64`.
pub trait VectorReal: RealValue + Summable<Total = f64, Itself = Self> {}
impl<T: RealValue + Summable<Total = f64, Itself = T>> VectorReal for T {}

/// One iteration's scalars of the shifts (f64, as the recursion runs).
struct ShiftStep<const N: usize> {
    /// `α_k(n)`.
    alpha: [f64; N],
    /// `ζ_k(n+1)`.
    zeta: [f64; N],
    /// `β_k(n)`.
    beta: [f64; N],
    /// The shift was updated in this iteration.
    active: [bool; N],
    /// The shift goes on after it (its direction is renewed).
    goes_on: [bool; N],
}

impl<const N: usize> ShiftStep<N> {
    fn idle() -> Self {
        ShiftStep {
            alpha: [0.0; N],
            zeta: [0.0; N],
            beta: [0.0; N],
            active: [false; N],
            goes_on: [false; N],
        }
    }
}

/// The scalars of one pass of [`advance_pair`]: iterations `n` and `n+1` of every shift
/// (`second` absent when the solve ended after `n`: its `α` is then 0 and nothing is kept).
struct PairPass<T, const N: usize> {
    alpha0: [T; N],
    zeta1: [T; N],
    beta0: [T; N],
    alpha1: [T; N],
    zeta2: [T; N],
    beta1: [T; N],
    /// 1 where the shift was updated in iteration `n`.
    add: [u32; N],
    /// 1 where its direction is renewed after iteration `n+1`.
    keep: [u32; N],
}

impl<T: VectorReal, const N: usize> PairPass<T, N> {
    fn new(first: &ShiftStep<N>, second: Option<&ShiftStep<N>>) -> Self {
        let idle = ShiftStep::idle();
        let second = second.unwrap_or(&idle);
        let t = |v: &[f64; N]| v.map(real::<T>);
        PairPass {
            alpha0: t(&first.alpha),
            zeta1: t(&first.zeta),
            beta0: t(&first.beta),
            alpha1: t(&second.alpha),
            zeta2: t(&second.zeta),
            beta1: t(&second.beta),
            add: first.active.map(u32::from),
            keep: second.goes_on.map(u32::from),
        }
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

/// `x_k = 0`, `r = pb = p_k = b` at the even sites; returns `|b|²`.
fn begin<S: Space, T: VectorReal, const N: usize>(
    lat: S,
    b: &FermionOf<S, T>,
    r: &mut FermionOf<S, T>,
    pb: &mut FermionOf<S, T>,
    p: &mut FermionsOf<S, N, T>,
    x: &mut FermionsOf<S, N, T>,
) -> ongpu::Result<f64>
where
    ColorVector<T>: Element,
    [ColorVector<T>; N]: Element,
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

/// `to = from − α w` at the even sites, returning `|to|²`.
fn residual_step<S: Space, T: VectorReal>(
    lat: S,
    alpha: T,
    w: &FermionOf<S, T>,
    from: &FermionOf<S, T>,
    to: &mut FermionOf<S, T>,
) -> ongpu::Result<f64>
where
    ColorVector<T>: Element,
{
    on_gpu!(sum: lat.even(), {
        let rn = from - w * alpha;
        to = rn;
        rn.norm2()
    })
}

/// `pb = r + β pb` at the even sites (the base direction, renewed every iteration).
fn renew_base_direction<S: Space, T: VectorReal>(
    lat: S,
    beta: T,
    r: &FermionOf<S, T>,
    pb: &mut FermionOf<S, T>,
) -> ongpu::Result<()>
where
    ColorVector<T>: Element,
{
    on_gpu!(lat.even(), {
        pb = r + pb * beta;
    })
}

/// Two iterations `n`, `n+1` of every shift in one pass at the even sites, from `r1 =
/// r(n+1)` and `r2 = r(n+2)`: with `p_k = p_k(n)`,
///
/// `p_k(n+1) = ζ_k(n+1) r1 + β_k(n) p_k`, `x_k += α_k(n) p_k + α_k(n+1) p_k(n+1)`, and
/// where the shift goes on `p_k = ζ_k(n+2) r2 + β_k(n+1) p_k(n+1)`;
///
/// and `pb = r2 + β pb`. Each shift's solution and direction are read and written once per
/// two iterations; a shift that had converged before `n` is not touched.
#[allow(clippy::too_many_arguments)]
fn advance_pair<S: Space, T: VectorReal, const N: usize>(
    lat: S,
    pass: &PairPass<T, N>,
    beta: T,
    r1: &FermionOf<S, T>,
    r2: &FermionOf<S, T>,
    pb: &mut FermionOf<S, T>,
    p: &mut FermionsOf<S, N, T>,
    x: &mut FermionsOf<S, N, T>,
) -> ongpu::Result<()>
where
    ColorVector<T>: Element,
    [ColorVector<T>; N]: Element,
{
    let n = N;
    let (alpha0, zeta1, beta0) = (pass.alpha0, pass.zeta1, pass.beta0);
    let (alpha1, zeta2, beta1) = (pass.alpha1, pass.zeta2, pass.beta1);
    let (add, keep) = (pass.add, pass.keep);
    on_gpu!(lat.even(), {
        pb = r2 + pb * beta;
        for k in 0..n {
            if add[k] != 0 {
                let pk0 = p[k];
                let pk1 = r1 * zeta1[k] + pk0 * beta0[k];
                x[k] += pk0 * alpha0[k] + pk1 * alpha1[k];
                if keep[k] != 0 {
                    p[k] = r2 * zeta2[k] + pk1 * beta1[k];
                }
            }
        }
    })
}

/// Each solution's true `|b − (A + σ_k) x_k| / |b|`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn true_residuals<S: Space, T: VectorReal, O: ShiftedNormal<S, T>, const N: usize>(
    op: &O,
    shifts: &[f64; N],
    b: &FermionOf<S, T>,
    b2: f64,
    x: &FermionsOf<S, N, T>,
    xk: &mut FermionOf<S, T>,
    t: &mut FermionOf<S, T>,
    w: &mut FermionOf<S, T>,
) -> Result<[f64; N], SolverError>
where
    ColorVector<T>: Element,
    [ColorVector<T>; N]: Element,
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
