//! Mixed-precision multi-shift CG: the multi-shift iterations in `f32`, then each shift's
//! solution refined in `f64` (the arrangement QUDA uses for RHMC).
//!
//! 1. [`MultiShiftCg`]'s iterations on the `f32` operator (`f32` links and vectors, sums in
//!    `f64`) from `b / |b|` (unit length, far from `f32`'s range limits) until every shift's
//!    iterated residual has fallen below the `f32` stop (by default
//!    [`DEFAULT_SINGLE_STOP`], or the tolerance if that is looser). The shifted residuals
//!    stay parallel to the base one only in exact arithmetic: the `f32` solutions carry
//!    rounding errors of every mode, so their true residuals are that stop at best.
//! 2. Each solution scaled back by `|b|` to `f64`, and then refined on its own shift: the true
//!    residual `r_k = b − (A + σ_k) x_k` in `f64`, and rounds of `f32` CG on
//!    `(A + σ_k) e = r_k / |r_k|` each reducing its residual by `δ` (by default
//!    [`DEFAULT_REFINEMENT_DELTA`]), `x_k += |r_k| e` and the true residual again after each
//!    (the reliable updates of `crate::solver::refinement`), until
//!    `|r_k| ≤ tolerance · |b|`.
//!
//! The `f64` work is then one application of `A + σ_k` per round per shift; everything else
//! runs at `f32`'s bandwidth. Each shift's true residual is the one its last update
//! computed, so the report costs nothing more.

use super::many::FermionsOf;
use super::multi_shift::{MultiShiftCg, ShiftedNormal};
use super::passes::{copy_even, norm2_even, residual, zero_even};
use super::FermionOf;
use crate::solver::refinement::{refine, LowPrecision, Refinement};
use crate::solver::{LinearOperator, SolverError, VectorAlgebra};
use ongpu::prelude::*;
use ongpu::Element;
use std::marker::PhantomData;
use std::time::Instant;

/// Where the `f32` multi-shift iterations stop (relative residual of each shift's
/// recursion), unless the tolerance is looser: `f32` rounding keeps the true residual from
/// following the recursion much further.
pub const DEFAULT_SINGLE_STOP: f64 = 1e-5;

/// The default reduction of each refinement round's `f32` iterations before a reliable
/// update in `f64` (each round restarts CG, so a round should reduce by much).
pub const DEFAULT_REFINEMENT_DELTA: f64 = 1e-4;

/// The report of a mixed-precision multi-shift solve.
#[derive(Debug, Clone, PartialEq)]
pub struct MixedMultiShiftSolution<const N: usize> {
    /// Iterations of the `f32` multi-shift stage.
    pub multi_shift_iterations: usize,
    /// The iteration at which each shift met the `f32` stop.
    pub converged_at: [usize; N],
    /// Each shift's `f32` CG iterations in its refinement.
    pub refinement_iterations: [usize; N],
    /// Each shift's reliable updates (`f64` true residuals after the first).
    pub reliable_updates: [usize; N],
    /// Each solution's true `|b − (A + σ_k) x_k| / |b|`.
    pub relative_residuals: [f64; N],
    /// Wall-clock seconds.
    pub seconds: f64,
}

impl<const N: usize> MixedMultiShiftSolution<N> {
    /// All `f32` iterations: the multi-shift stage's and every refinement's.
    pub fn iterations(&self) -> usize {
        self.multi_shift_iterations + self.refinement_iterations.iter().sum::<usize>()
    }
}

/// Mixed-precision multi-shift CG for `N` shifts (see the module documentation).
pub struct MixedMultiShiftCg<const N: usize> {
    /// The tolerance, the iterations allowed (per stage and per refinement) and `δ`.
    asked: Refinement,
    single_stop: f64,
}

impl<const N: usize> MixedMultiShiftCg<N> {
    /// A solver to relative true residual `tolerance` for every shift, within
    /// `max_iterations` `f32` iterations for the multi-shift stage and as many for each
    /// shift's refinement.
    pub fn new(tolerance: f64, max_iterations: usize) -> Self {
        MixedMultiShiftCg {
            asked: Refinement {
                tolerance,
                max_iterations,
                delta: DEFAULT_REFINEMENT_DELTA,
            },
            single_stop: DEFAULT_SINGLE_STOP,
        }
    }

    /// The same solver with the `f32` stage stopping at relative residual `stop` and each
    /// refinement round reducing its residual by `delta` (both checked to lie in `(0, 1)`
    /// when a solve starts).
    pub fn with_stops(mut self, stop: f64, delta: f64) -> Self {
        self.single_stop = stop;
        self.asked.delta = delta;
        self
    }

    /// Solves `(A + shifts[k]) x[k] = b` for every `k` at the even sites, `op` being `A` in
    /// `f64` and `single` the same operator in `f32` (for HISQ, [`Hisq::single`](crate::hisq::Hisq::single)).
    /// The shifts must be finite, not negative and distinct, as for [`MultiShiftCg`].
    pub fn solve<S: Space, O: ShiftedNormal<S>, L: ShiftedNormal<S, f32>>(
        &mut self,
        op: &O,
        single: &L,
        shifts: [f64; N],
        b: &FermionOf<S>,
        x: &mut FermionsOf<S, N>,
    ) -> Result<MixedMultiShiftSolution<N>, SolverError>
    where
        [ColorVector<f64>; N]: Element,
        [ColorVector<f32>; N]: Element,
    {
        let start = Instant::now();
        let lat = op.space();
        lat.check_field(b, "source")?;
        lat.check_field(x, "solutions")?;
        if single.space() != lat {
            return Err(invalid(
                "the f32 operator lives on another lattice than the f64 one".into(),
            ));
        }
        if !(self.single_stop > 0.0 && self.single_stop < 1.0) {
            return Err(invalid(format!(
                "f32 stop = {} of the mixed multi-shift CG: it must lie in (0, 1)",
                self.single_stop
            )));
        }
        self.asked.check()?;
        let (tolerance, max_iterations) = (self.asked.tolerance, self.asked.max_iterations);
        let b2 = norm2_even(lat, b)?;
        // The f32 stage on b / |b|.
        let scale = if b2 > 0.0 { 1.0 / b2.sqrt() } else { 0.0 };
        let mut bs: FermionOf<S, f32> = lat.zeros()?;
        on_gpu!(lat.even(), {
            bs = (b * scale).to_f32();
        })?;
        let mut xs: FermionsOf<S, N, f32> = lat.zeros()?;
        let stage = MultiShiftCg::<N>::new(self.single_stop.max(tolerance), max_iterations)
            .iterate(single, shifts, &bs, &mut xs)?;
        let (n, norm) = (N, b2.sqrt());
        on_gpu!(lat.even(), {
            for k in 0..n {
                x[k] = xs[k].to_f64() * norm;
            }
        })?;
        // Each shift refined in f64 from its f32 solution.
        let mut refinement_iterations = [0usize; N];
        let mut reliable_updates = [0usize; N];
        let mut relative_residuals = [0.0f64; N];
        let mut work = RefineWork::new(lat)?;
        let mut low = SingleShift {
            op: single,
            shift: 0.0,
            rs: lat.zeros()?,
            es: lat.zeros()?,
        };
        for k in 0..N {
            let shifted = Shifted {
                op,
                shift: shifts[k],
                space: PhantomData,
            };
            low.shift = shifts[k];
            let outcome = work.refine(&shifted, &mut low, b, b2, x, k, &self.asked)?;
            refinement_iterations[k] = outcome.0;
            reliable_updates[k] = outcome.1;
            relative_residuals[k] = outcome.2;
        }
        Ok(MixedMultiShiftSolution {
            multi_shift_iterations: stage.iterations,
            converged_at: stage.converged_at,
            refinement_iterations,
            reliable_updates,
            relative_residuals,
            seconds: start.elapsed().as_secs_f64(),
        })
    }
}

fn invalid(why: String) -> SolverError {
    SolverError::Ongpu(ongpu::Error::InvalidArgument(why))
}

/// The `f64` vectors of the refinements, shared by the shifts.
struct RefineWork<S: Space> {
    xk: FermionOf<S>,
    r: FermionOf<S>,
    e: FermionOf<S>,
    t: FermionOf<S>,
    w: FermionOf<S>,
}

impl<S: Space> RefineWork<S> {
    fn new(lat: S) -> ongpu::Result<Self> {
        Ok(RefineWork {
            xk: lat.zeros()?,
            r: lat.zeros()?,
            e: lat.zeros()?,
            t: lat.zeros()?,
            w: lat.zeros()?,
        })
    }

    /// Refines solution `k` of `x` on `shifted`; returns the `f32` iterations, the
    /// reliable updates and the true relative residual.
    #[allow(clippy::too_many_arguments)]
    fn refine<O: ShiftedNormal<S>, const N: usize>(
        &mut self,
        shifted: &Shifted<'_, S, O>,
        low: &mut impl LowPrecision<FermionOf<S>>,
        b: &FermionOf<S>,
        b2: f64,
        x: &mut FermionsOf<S, N>,
        k: usize,
        asked: &Refinement,
    ) -> Result<(usize, usize, f64), SolverError>
    where
        [ColorVector<f64>; N]: Element,
    {
        let lat = shifted.space();
        let (xk, r, e) = (&mut self.xk, &mut self.r, &mut self.e);
        on_gpu!(lat.even(), {
            xk = x[k];
        })?;
        // r = b − (A + σ_k) x_k: what the f32 stage left.
        shifted.apply(xk, &mut self.t, &mut self.w)?;
        let r2 = residual(lat, b, &self.w, r)?;
        if b2 == 0.0 || r2 <= asked.tolerance * asked.tolerance * b2 {
            return Ok((0, 0, if b2 == 0.0 { 0.0 } else { (r2 / b2).sqrt() }));
        }
        // (A + σ_k) e = r to |r − (A + σ_k) e| ≤ tolerance · |b|, then x_k += e.
        let asked = Refinement {
            tolerance: asked.tolerance * (b2 / r2).sqrt(),
            ..*asked
        };
        let solution = refine(shifted, r, e, &asked, low)?;
        on_gpu!(lat.even(), {
            x[k] += e;
        })?;
        Ok((
            solution.iterations,
            solution.reliable_updates,
            solution.relative_residual * (r2 / b2).sqrt(),
        ))
    }
}

/// `A + σ` in `f64` as an operator of the generic solvers (for the refinement loop).
struct Shifted<'a, S, O> {
    op: &'a O,
    shift: f64,
    space: PhantomData<S>,
}

impl<S: Space, O: ShiftedNormal<S>> LinearOperator for Shifted<'_, S, O> {
    type Space = S;
    type Vector = FermionOf<S>;

    fn space(&self) -> S {
        self.op.space()
    }

    fn vector(&self) -> ongpu::Result<FermionOf<S>> {
        self.op.space().zeros()
    }

    fn apply(
        &self,
        x: &FermionOf<S>,
        scratch: &mut FermionOf<S>,
        out: &mut FermionOf<S>,
    ) -> ongpu::Result<()> {
        self.op
            .apply_shifted(x, self.shift, scratch, out)
            .map(|_| ())
    }
}

impl<S: Space, O: ShiftedNormal<S>> VectorAlgebra for Shifted<'_, S, O> {
    fn norm2(&self, v: &FermionOf<S>) -> ongpu::Result<f64> {
        norm2_even(self.space(), v)
    }

    fn copy(&self, src: &FermionOf<S>, dst: &mut FermionOf<S>) -> ongpu::Result<()> {
        copy_even(self.space(), src, dst)
    }

    fn zero(&self, v: &mut FermionOf<S>) -> ongpu::Result<()> {
        zero_even(self.space(), v)
    }

    fn residual(
        &self,
        b: &FermionOf<S>,
        ax: &FermionOf<S>,
        r: &mut FermionOf<S>,
    ) -> ongpu::Result<f64> {
        residual(self.space(), b, ax, r)
    }

    fn check_vector(&self, v: &FermionOf<S>, what: &str) -> ongpu::Result<()> {
        self.space().check_field(v, what)
    }
}

/// The `f32` half of a refinement: CG on `A + σ` in `f32` (a one-shift [`MultiShiftCg`]).
struct SingleShift<'a, S: Space, L> {
    op: &'a L,
    shift: f64,
    rs: FermionOf<S, f32>,
    es: FermionsOf<S, 1, f32>,
}

impl<S: Space, L: ShiftedNormal<S, f32>> LowPrecision<FermionOf<S>> for SingleShift<'_, S, L> {
    fn iterate(
        &mut self,
        r: &FermionOf<S>,
        scale: f64,
        stop: f64,
        allowed: usize,
    ) -> Result<usize, SolverError> {
        let rs = &mut self.rs;
        on_gpu!(self.op.space().even(), {
            rs = (r * scale).to_f32();
        })?;
        MultiShiftCg::<1>::new(stop, allowed)
            .iterate(self.op, [self.shift], rs, &mut self.es)
            .map(|done| done.iterations)
    }

    fn add_correction(&self, scale: f64, x: &mut FermionOf<S>) -> ongpu::Result<()> {
        let es = &self.es;
        on_gpu!(self.op.space().even(), {
            x += es[0].to_f64() * scale;
        })
    }
}
