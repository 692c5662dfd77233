//! Mixed-precision BiCGStab for the even-odd Wilson(-clover) system `M̂ x_e = b_e`, with
//! reliable updates (Clark, Babich, Barros, Brower, Rebbi, Comput. Phys. Commun. 181 (2010)
//! 1517, after Sleijpen and van der Vorst): the solution `x` and the true residual in f64,
//! the iterations in f32 on a single-precision copy of the operator (links and clover
//! inverses rounded to f32 once per solver call).
//!
//! The f32 iterations solve for a correction `e` with `M̂ e = r / |r|` (the residual scaled
//! to unit length, so that its entries stay far from f32's range limits however small the
//! true residual has become). When their iterated residual has fallen by the factor `δ`
//! (or below what the tolerance asks), a **reliable update** adds `|r| e` to `x` in f64 and
//! recomputes `r = b − M̂ x` in f64, and the iterations start again from it. BiCGStab's
//! short recurrences do not survive a change of residual, so each update restarts them
//! (as QUDA's mixed-precision BiCGStab does); the f64 residual keeps the answer exact.
//!
//! The solve ends when the true residual of an update meets the tolerance: the same
//! `|b − M̂ x| ≤ tol |b|` as the f64 [`BiCgStab`](super::BiCgStab).

use super::algebra::{even_spinor_algebra, round_to};
use super::clover::CloverFieldOf;
use super::even_odd::WilsonEvenOdd;
use super::operator::{hop, hop_clover};
use super::{SpinorFieldOf, Wilson};
use crate::gauge::LinksOf;
use crate::solver::bicgstab::{iterate, Run, Work};
use crate::solver::refinement::{refine, LowPrecision, Refinement};
use crate::solver::{
    BiCgStabOperator, LinearOperator, LinearSolver, Solution, SolverError, VectorAlgebra,
};
use ongpu::prelude::*;

/// The default `δ`: the true residual is recomputed whenever the f32 iterations have
/// reduced theirs by this factor.
pub const DEFAULT_WILSON_DELTA: f64 = 0.1;

/// Mixed-precision BiCGStab on [`WilsonEvenOdd`]: f64 solution and true residual, f32
/// iterations with reliable updates (see the module documentation). Solves to
/// `|b − M̂ x| ≤ tolerance · |b|` within `max_iterations` f32 iterations in all.
pub struct MixedBiCgStab {
    asked: Refinement,
}

impl MixedBiCgStab {
    /// A solver to relative residual `tolerance` in at most `max_iterations` iterations,
    /// with `δ` = [`DEFAULT_WILSON_DELTA`].
    pub fn new(tolerance: f64, max_iterations: usize) -> Self {
        MixedBiCgStab {
            asked: Refinement {
                tolerance,
                max_iterations,
                delta: DEFAULT_WILSON_DELTA,
            },
        }
    }

    /// The same solver with reliable updates whenever the f32 residual has fallen by
    /// `delta` (in `(0, 1)`: smaller means fewer updates and longer f32 runs).
    pub fn with_delta(mut self, delta: f64) -> Self {
        self.asked.delta = delta;
        self
    }
}

impl<S: Space> LinearSolver<WilsonEvenOdd<'_, '_, S>> for MixedBiCgStab {
    fn solve(
        &mut self,
        op: &WilsonEvenOdd<'_, '_, S>,
        b: &SpinorFieldOf<S>,
        x: &mut SpinorFieldOf<S>,
    ) -> Result<Solution, SolverError> {
        self.asked.check()?;
        mixed_bicgstab(op, b, x, self)
    }

    fn name(&self) -> &'static str {
        "mixed BiCGStab"
    }
}

/// `M̂` of a Wilson(-clover) operator with links and clover inverses in f32.
struct SingleEvenOdd<S: Space> {
    lat: S,
    links: LinksOf<S, f32>,
    inverses: Option<CloverFieldOf<S, f32>>,
    kappa2: f32,
}

impl<S: Space> SingleEvenOdd<S> {
    /// The f32 copy of `op`, rounded on the device.
    fn new(op: &Wilson<'_, S>) -> ongpu::Result<Self> {
        let lat = op.lattice();
        let links64 = op.links();
        let mut links: LinksOf<S, f32> = lat.zeros()?;
        on_gpu!(lat, {
            for mu in 0..4 {
                links[mu] = links64[mu].to_f32();
            }
        })?;
        let inverses = match op.clover() {
            None => None,
            Some(c) => {
                let inv64 = c.inverses();
                let mut inv: CloverFieldOf<S, f32> = lat.zeros()?;
                on_gpu!(lat, {
                    for k in 0..12 {
                        inv[k] = inv64[k].to_f32();
                    }
                })?;
                Some(inv)
            }
        };
        Ok(SingleEvenOdd {
            lat,
            links,
            inverses,
            kappa2: (op.kappa() * op.kappa()) as f32,
        })
    }
}

impl<S: Space> SingleEvenOdd<S> {
    /// `out_e = A_ee⁻¹ H_eo A_oo⁻¹ H_oe psi_e` in f32 (through `tmp`'s odd sites).
    fn hops(
        &self,
        psi: &SpinorFieldOf<S, f32>,
        tmp: &mut SpinorFieldOf<S, f32>,
        out: &mut SpinorFieldOf<S, f32>,
    ) -> ongpu::Result<()> {
        let lat = self.lat;
        match &self.inverses {
            None => {
                hop(lat.odd(), &self.links, psi, tmp)?;
                hop(lat.even(), &self.links, tmp, out)
            }
            Some(inv) => {
                hop_clover(lat.odd(), &self.links, inv, psi, tmp)?;
                hop_clover(lat.even(), &self.links, inv, tmp, out)
            }
        }
    }
}

impl<S: Space> LinearOperator for SingleEvenOdd<S> {
    type Space = S;
    type Vector = SpinorFieldOf<S, f32>;

    fn space(&self) -> S {
        self.lat
    }

    fn vector(&self) -> ongpu::Result<SpinorFieldOf<S, f32>> {
        self.lat.zeros()
    }

    fn apply(
        &self,
        psi: &SpinorFieldOf<S, f32>,
        tmp: &mut SpinorFieldOf<S, f32>,
        out: &mut SpinorFieldOf<S, f32>,
    ) -> ongpu::Result<()> {
        self.hops(psi, tmp, out)?;
        let k2 = self.kappa2;
        on_gpu!(self.lat.even(), {
            out[0] = psi[0] - out[0] * k2;
            out[1] = psi[1] - out[1] * k2;
            out[2] = psi[2] - out[2] * k2;
            out[3] = psi[3] - out[3] * k2;
        })
    }
}

impl<S: Space> BiCgStabOperator for SingleEvenOdd<S> {
    fn apply_and_dot(
        &self,
        psi: &SpinorFieldOf<S, f32>,
        tmp: &mut SpinorFieldOf<S, f32>,
        out: &mut SpinorFieldOf<S, f32>,
        with: &SpinorFieldOf<S, f32>,
    ) -> ongpu::Result<Complex<f64>> {
        self.hops(psi, tmp, out)?;
        let k2 = self.kappa2;
        on_gpu!(sum: self.lat.even(), {
            out[0] = psi[0] - out[0] * k2;
            out[1] = psi[1] - out[1] * k2;
            out[2] = psi[2] - out[2] * k2;
            out[3] = psi[3] - out[3] * k2;
            (with[0].dot(out[0]) + with[1].dot(out[1]) + with[2].dot(out[2]) + with[3].dot(out[3]))
                .to_f64()
        })
    }

    even_spinor_algebra!(bicgstab f32);
}

impl<S: Space> VectorAlgebra for SingleEvenOdd<S> {
    even_spinor_algebra!(vector f32);
}

fn mixed_bicgstab<S: Space>(
    op: &WilsonEvenOdd<'_, '_, S>,
    b: &SpinorFieldOf<S>,
    x: &mut SpinorFieldOf<S>,
    solver: &MixedBiCgStab,
) -> Result<Solution, SolverError> {
    let lat = op.wilson().lattice();
    let single = SingleEvenOdd::new(op.wilson())?;
    let mut low = SingleBiCgStab {
        work: Work::new(&single)?,
        single,
        rs: lat.zeros()?,
        es: lat.zeros()?,
    };
    refine(op, b, x, &solver.asked, &mut low)
}

/// The f32 half of [`MixedBiCgStab`]: BiCGStab's iterations on the f32 operator.
struct SingleBiCgStab<S: Space> {
    single: SingleEvenOdd<S>,
    work: Work<SpinorFieldOf<S, f32>>,
    rs: SpinorFieldOf<S, f32>,
    es: SpinorFieldOf<S, f32>,
}

impl<S: Space> LowPrecision<SpinorFieldOf<S>> for SingleBiCgStab<S> {
    fn iterate(
        &mut self,
        r: &SpinorFieldOf<S>,
        scale: f64,
        stop: f64,
        allowed: usize,
    ) -> Result<usize, SolverError> {
        let (rs, es) = (&mut self.rs, &mut self.es);
        on_gpu!(self.single.lat.even(), {
            rs[0] = (r[0] * scale).to_f32();
            rs[1] = (r[1] * scale).to_f32();
            rs[2] = (r[2] * scale).to_f32();
            rs[3] = (r[3] * scale).to_f32();
        })?;
        // (A pass of its own: a body's `ColorVector::zero()` is in the precision of the
        // body's f64 values where it has some.)
        on_gpu!(self.single.lat.even(), {
            es[0] = ColorVector::zero();
            es[1] = ColorVector::zero();
            es[2] = ColorVector::zero();
            es[3] = ColorVector::zero();
        })?;
        let stop2 = stop * stop;
        let run = Run {
            r2: 1.0,
            b2: 1.0,
            done: |s2| s2 <= stop2,
            max_iterations: allowed,
        };
        iterate(&self.single, es, rs, &mut self.work, run).map(|(made, _)| made)
    }

    fn add_correction(&self, scale: f64, x: &mut SpinorFieldOf<S>) -> ongpu::Result<()> {
        add_correction(self.single.lat, &self.es, scale, x)
    }
}

/// `x += scale · e` on the even sites, in f64.
fn add_correction<S: Space>(
    lat: S,
    e: &SpinorFieldOf<S, f32>,
    scale: f64,
    x: &mut SpinorFieldOf<S>,
) -> ongpu::Result<()> {
    on_gpu!(lat.even(), {
        x[0] += e[0].to_f64() * scale;
        x[1] += e[1].to_f64() * scale;
        x[2] += e[2].to_f64() * scale;
        x[3] += e[3].to_f64() * scale;
    })
}
