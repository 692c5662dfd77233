//! Mixed-precision CG with reliable updates (Clark, Babich, Barros, Brower, Rebbi, Comput.
//! Phys. Commun. 181 (2010) 1517, section 4.3, after Sleijpen and van der Vorst): the
//! solution `x` and the true residual in `f64`, the iterations in low precision.
//!
//! The inner iterations are those of [`Cg`](super::Cg) (the Chronopoulos–Gear arrangement:
//! one reduction, one host wait per iteration) on [`SloppyStaggered`]: links as two rows
//! and vectors in the storage real `R` (`f32`, `f16` or `bf16`), arithmetic in `f32`, sums
//! in `f64`. They accumulate a correction `x̂` in `f32`. Their residual drifts from the true
//! one by the low precision's rounding, so whenever the iterated `|r̂|` has fallen below
//! `δ` times its largest value since the last update (and when it meets the tolerance),
//! a **reliable update** adds the correction to `x` and recomputes `r = b − A x` in `f64`,
//! which replaces the iterated residual. The search direction is kept across an update, so
//! the Krylov space built so far is not thrown away. The residual handed to the inner
//! iterations is scaled to unit size per entry on average, so that 16-bit storage neither
//! underflows nor overflows however small the true residual has become.
//!
//! The solve ends when the true residual of an update meets the tolerance: the same
//! `|b − A x| ≤ tol |b|` as the `f64` solvers.

use super::passes::{apply_and_reduce, copy_even, hop, norm2_even, residual, zero_even};
use super::sloppy::{
    accumulate, sloppy_update, to_sloppy, zero_sloppy, SingleFermionOf, SloppyFermionOf,
    SloppyStaggered,
};
use super::{FermionOf, Staggered};
use crate::gauge::compressed::CompressedSite;
use crate::solver::MAX_RESTARTS;
use crate::solver::{check_vectors, LinearSolver, Solution, SolverError};
use ongpu::prelude::*;
use ongpu::Element;
use std::marker::PhantomData;
use std::time::Instant;

/// The default `δ` of the reliable updates: the true residual is recomputed whenever the
/// iterated one has fallen by this factor since the last update.
pub const DEFAULT_DELTA: f64 = 0.1;

/// Reliable updates in a row that do not halve the true residual before a solve is
/// declared stagnated.
const STALLED_UPDATES: usize = 3;

/// Mixed-precision CG for the normal operator of [`Staggered`]: `f64` outer solution and
/// residual, inner iterations with vectors and links stored in `R` (see the module
/// documentation).
pub struct MixedCg<S: Space = Lattice, R: StorageReal<Compute = f32> = f32>
where
    ColorVector<R>: Element,
{
    lat: S,
    tol: f64,
    max_iter: usize,
    delta: f64,
    work: Option<MixedWork<S, R>>,
    _storage: PhantomData<R>,
}

/// The fields of a solve: in `f64` the residual `r`, `t = D_oe x` and `w = A x` of the
/// reliable updates; in `R` the inner residual, direction, `A p`, `A r` and `D_oe r`; in
/// `f32` the inner solution.
struct MixedWork<S: Space, R: StorageReal<Compute = f32>>
where
    ColorVector<R>: Element,
{
    r: FermionOf<S>,
    t: FermionOf<S>,
    w: FermionOf<S>,
    rs: SloppyFermionOf<S, R>,
    ps: SloppyFermionOf<S, R>,
    ss: SloppyFermionOf<S, R>,
    ws: SloppyFermionOf<S, R>,
    ts: SloppyFermionOf<S, R>,
    xs: SingleFermionOf<S>,
}

impl<S: Space, R: StorageReal<Compute = f32>> MixedWork<S, R>
where
    ColorVector<R>: Element,
{
    fn new(lat: S) -> ongpu::Result<Self> {
        Ok(MixedWork {
            r: lat.zeros()?,
            t: lat.zeros()?,
            w: lat.zeros()?,
            rs: lat.zeros()?,
            ps: lat.zeros()?,
            ss: lat.zeros()?,
            ws: lat.zeros()?,
            ts: lat.zeros()?,
            xs: lat.zeros()?,
        })
    }
}

impl<S: Space, R: StorageReal<Compute = f32>> MixedCg<S, R>
where
    f32: CastReal<R>,
    ColorVector<R>: Element,
    CompressedSite<R>: Element,
{
    /// A solver for `(m² − D_eo D_oe) x = b` on `lat` to `|b − A x| ≤ tol |b|` in at most
    /// `max_iter` inner iterations, with reliable updates at [`DEFAULT_DELTA`].
    pub fn new(lat: S, tol: f64, max_iter: usize) -> Self {
        MixedCg {
            lat,
            tol,
            max_iter,
            delta: DEFAULT_DELTA,
            work: None,
            _storage: PhantomData,
        }
    }

    /// The same with the reliable updates' `δ` (in `(0, 1)`: smaller means fewer updates
    /// and more drift between them).
    pub fn with_delta(mut self, delta: f64) -> ongpu::Result<Self> {
        if !(delta > 0.0 && delta < 1.0) {
            return Err(ongpu::Error::InvalidArgument(format!(
                "the reliable-update factor δ must lie in (0, 1), not {delta}"
            )));
        }
        self.delta = delta;
        Ok(self)
    }
}

/// Where a solve stands, for the iterations.
struct Progress {
    iterations: usize,
    updates: usize,
    restarts: usize,
}

impl<S: Space, R: StorageReal<Compute = f32>> LinearSolver<Staggered<S>> for MixedCg<S, R>
where
    f32: CastReal<R>,
    ColorVector<R>: Element,
    CompressedSite<R>: Element,
{
    fn solve(
        &mut self,
        op: &Staggered<S>,
        b: &FermionOf<S>,
        x: &mut FermionOf<S>,
    ) -> Result<Solution, SolverError> {
        check_vectors(Some(self.lat), op, b, x)?;
        let start = Instant::now();
        let lat = self.lat;
        let work = match &mut self.work {
            Some(w) => w,
            empty => empty.insert(MixedWork::new(lat)?),
        };
        let b_norm2 = norm2_even(lat, b)?;
        zero_even(lat, x)?;
        let mut progress = Progress {
            iterations: 0,
            updates: 0,
            restarts: 0,
        };
        let relative_residual = if b_norm2 == 0.0 {
            0.0
        } else {
            let sloppy = SloppyStaggered::<S, R>::new(op)?;
            copy_even(lat, b, &mut work.r)?;
            let limits = (self.tol * self.tol * b_norm2, self.delta, self.max_iter);
            iterate(op, &sloppy, b, x, work, b_norm2, limits, &mut progress)?
        };
        Ok(Solution {
            iterations: progress.iterations,
            restarts: progress.restarts,
            reliable_updates: progress.updates,
            relative_residual,
            seconds: start.elapsed().as_secs_f64(),
        })
    }

    fn name(&self) -> &'static str {
        "mixed-precision CG"
    }
}

/// The inner iterations from `r = b` (in `work.r`), with their reliable updates; returns
/// the final true relative residual.
#[allow(clippy::too_many_arguments)]
fn iterate<S: Space, R: StorageReal<Compute = f32>>(
    op: &Staggered<S>,
    sloppy: &SloppyStaggered<S, R>,
    b: &FermionOf<S>,
    x: &mut FermionOf<S>,
    w: &mut MixedWork<S, R>,
    b_norm2: f64,
    (target, delta, max_iter): (f64, f64, usize),
    progress: &mut Progress,
) -> Result<f64, SolverError>
where
    f32: CastReal<R>,
    ColorVector<R>: Element,
    CompressedSite<R>: Element,
{
    let lat = op.lattice();
    let mass2 = op.mass() * op.mass();
    // The inner residual is the true one times `scale`: entries of order one.
    let half_volume = (lat.whole().volume() / 2) as f64;
    let mut r_norm2 = b_norm2;
    let mut scale = (half_volume / r_norm2).sqrt();
    to_sloppy(lat, &w.r, scale, &mut w.rs)?;
    zero_sloppy(lat, &mut w.ps)?;
    zero_sloppy(lat, &mut w.ss)?;
    zero_sloppy::<S, f32>(lat, &mut w.xs)?;
    let apply = |w: &mut MixedWork<S, R>| -> ongpu::Result<Complex<f64>> {
        sloppy.hop(lat.odd(), &w.rs, &mut w.ts)?;
        sloppy.apply_and_reduce(&w.ts, &w.rs, &mut w.ws)
    };
    let mut sums = apply(w)?;
    // γ and the largest γ since the last update, in units of the current scale.
    let mut gamma_max = sums.re;
    // α and γ of the last step, and β of the next.
    let (mut alpha_old, mut gamma_old, mut beta) = (None::<f64>, 0.0, 0.0);
    // `⟨p, A p⟩` of the next step where it was summed rather than recurred.
    let mut exact_p_dot_ap = None::<f64>;
    // The smallest true |r|² so far, and the updates since it last halved.
    let (mut best, mut stalled) = (b_norm2, 0);
    loop {
        let (mut gamma, mut delta_r) = (sums.re, sums.im);
        gamma_max = gamma_max.max(gamma);
        let converged_by_recursion = gamma / (scale * scale) <= target;
        if gamma <= delta * delta * gamma_max || converged_by_recursion {
            // The reliable update: x += x̂ / scale, r = b − A x in f64.
            accumulate(lat, 1.0 / scale, &mut w.xs, x)?;
            hop::<f64, _>(lat.odd(), op.links(), x, &mut w.t)?;
            apply_and_reduce(lat, op.links(), &w.t, x, mass2, &mut w.w)?;
            r_norm2 = residual(lat, b, &w.w, &mut w.r)?;
            progress.updates += 1;
            if r_norm2 <= target {
                return Ok((r_norm2 / b_norm2).sqrt());
            }
            // Stagnation: three updates in a row that did not halve the true residual.
            stalled = if r_norm2 > 0.25 * best {
                stalled + 1
            } else {
                0
            };
            best = best.min(r_norm2);
            if stalled == STALLED_UPDATES {
                return Err(SolverError::Stagnated {
                    iterations: progress.iterations,
                    relative_residual: (r_norm2 / b_norm2).sqrt(),
                });
            }
            // The direction keeps its size relative to the residual under the new scale;
            // `s = A p` is computed afresh, and with it `⟨p, A p⟩` of the next step, which
            // the recurrence cannot give once the residual has been replaced.
            let rescale = (half_volume / r_norm2).sqrt() / scale;
            scale *= rescale;
            to_sloppy(lat, &w.r, scale, &mut w.rs)?;
            rescale_direction(lat, rescale, w)?;
            sloppy.hop(lat.odd(), &w.ps, &mut w.ts)?;
            let direction = sloppy.apply_to_direction(&w.ts, &w.ps, &w.rs, &mut w.ss)?;
            sums = apply(w)?;
            (gamma, delta_r) = (sums.re, sums.im);
            gamma_max = gamma;
            gamma_old *= rescale * rescale;
            beta = if alpha_old.is_some() {
                gamma / gamma_old
            } else {
                0.0
            };
            // ⟨r + β p, A (r + β p)⟩ from the fresh sums.
            exact_p_dot_ap = Some(delta_r + 2.0 * beta * direction.im + beta * beta * direction.re);
        }
        if progress.iterations >= max_iter {
            return Err(SolverError::NotConverged {
                iterations: progress.iterations,
                relative_residual: (r_norm2 / b_norm2).sqrt(),
            });
        }
        let p_dot_ap = match (exact_p_dot_ap.take(), alpha_old) {
            (Some(exact), _) => exact,
            (None, None) => delta_r,
            (None, Some(a)) => delta_r - beta * gamma / a,
        };
        if !(p_dot_ap > 0.0 && p_dot_ap.is_finite()) {
            // Rounding in low precision can leave the recurrence inconsistent: start the
            // directions again from the current residual (p = r), a few times at most.
            if !delta_r.is_finite() {
                return Err(SolverError::Breakdown {
                    iterations: progress.iterations,
                    p_dot_ap,
                });
            }
            if alpha_old.is_none() || progress.restarts == MAX_RESTARTS {
                return Err(SolverError::Stagnated {
                    iterations: progress.iterations,
                    relative_residual: (r_norm2 / b_norm2).sqrt(),
                });
            }
            progress.restarts += 1;
            (alpha_old, beta) = (None, 0.0);
            continue;
        }
        let alpha = gamma / p_dot_ap;
        sloppy_update(
            lat,
            alpha as f32,
            beta as f32,
            &w.ws,
            &mut w.ps,
            &mut w.ss,
            &mut w.xs,
            &mut w.rs,
        )?;
        progress.iterations += 1;
        sums = apply(w)?;
        beta = sums.re / gamma;
        (alpha_old, gamma_old) = (Some(alpha), gamma);
    }
}

/// `p *= k` at the even sites (the direction under a new scale of the residual).
fn rescale_direction<S: Space, R: StorageReal<Compute = f32>>(
    lat: S,
    k: f64,
    w: &mut MixedWork<S, R>,
) -> ongpu::Result<()>
where
    f32: CastReal<R>,
    ColorVector<R>: Element,
{
    let k = k as f32;
    let p = &mut w.ps;
    on_gpu!(lat.even(), {
        p = (k * p.widen()).narrow();
    })
}
