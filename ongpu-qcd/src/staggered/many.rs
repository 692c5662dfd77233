//! Many right-hand sides at once: `N` staggered vectors per site, `[ColorVector<T>; N]`, so
//! that one pass over the sites reads each link once for all `N` (a single right-hand side
//! reads 8 links of 72 or 144 bytes for 8 neighbour vectors of 24 or 48 bytes: the links
//! are most of the traffic).
//!
//! - [`hop_many`]: `out[k] = D psi[k]` for every `k` at the sites of a call;
//! - [`MultiCg`]: `N` conjugate-gradient solves of the even-odd normal system
//!   `(m² − D_eo D_oe) x_k = b_k` sharing every operator application. Each system keeps its
//!   own α and β (an array captured by value), stops when its own residual meets the
//!   tolerance and is left unchanged from then on, so each solution has the bits of a
//!   [`Cg`](super::Cg) solve of its system alone.
//!
//! The bodies loop over the right-hand sides and touch one vector at a time (`psi[k]`,
//! `out[k] = ...`): on the GPU those are read and written in the field entry by entry, so a
//! site never holds all `N` vectors (docs/semantics.md).

use super::passes::{HOP_FLOPS, NORM_FLOPS, RESIDUAL_FLOPS, UPDATE_FLOPS};
use super::Staggered;
use crate::gauge::LinksOf;
use crate::solver::{SolverError, MAX_RESTARTS};
use crate::SiteLayout;
use ongpu::prelude::*;
use ongpu::Element;
use std::time::Instant;

/// `N` colour vectors at every site of a [`Space`] (`N` right-hand sides), in double
/// precision unless `T` says otherwise.
pub type FermionsOf<S, const N: usize, T = f64> =
    <S as Space>::Field<[ColorVector<T>; N], SiteLayout>;

/// `N` colour vectors at every site of a [`Lattice`].
pub type Fermions<const N: usize, T = f64> = FermionsOf<Lattice, N, T>;

/// `out[k] = D psi[k]` for `k < N` at the sites of `sites` (one parity, or the whole
/// lattice), reading `psi` at their neighbours: [`hop`](super::passes::hop) for `N` vectors
/// with each link read once. `out` elsewhere is left as it was.
pub fn hop_many<T: Real, const N: usize, P: SpaceSubset>(
    sites: P,
    u: &LinksOf<P::Space, T>,
    psi: &FermionsOf<P::Space, N, T>,
    out: &mut FermionsOf<P::Space, N, T>,
) -> ongpu::Result<()>
where
    ColorVector<T>: Element,
    ColorMatrix<T>: Element,
    [ColorMatrix<T>; 4]: Element,
    [ColorVector<T>; N]: Element,
{
    let rhs = N;
    on_gpu!(sites, {
        for k in 0..rhs {
            let mut h = ColorVector::zero();
            for mu in 0..4 {
                h += u[mu] * psi.shift(mu, 1)[k] - u.shift(mu, -1)[mu].adj() * psi.shift(mu, -1)[k];
            }
            out[k] = h;
        }
    })
}

/// `out[k] = m² x[k] − D_eo t[k]` at the even sites (with `t = D_oe x`: `out = A x`).
fn normal_many<S: Space, const N: usize>(
    lat: S,
    u: &LinksOf<S>,
    t: &FermionsOf<S, N>,
    x: &FermionsOf<S, N>,
    mass2: f64,
    out: &mut FermionsOf<S, N>,
) -> ongpu::Result<()>
where
    [ColorVector<f64>; N]: Element,
{
    let rhs = N;
    on_gpu!(lat.even(), {
        for k in 0..rhs {
            let mut h = ColorVector::zero();
            for mu in 0..4 {
                h += u[mu] * t.shift(mu, 1)[k] - u.shift(mu, -1)[mu].adj() * t.shift(mu, -1)[k];
            }
            out[k] = mass2 * x[k] - h;
        }
    })
}

/// `(|r[k]|², Re⟨r[k], w[k]⟩)` over the even sites.
fn sums_of<S: Space, const N: usize>(
    lat: S,
    r: &FermionsOf<S, N>,
    w: &FermionsOf<S, N>,
    k: usize,
) -> ongpu::Result<Complex<f64>>
where
    [ColorVector<f64>; N]: Element,
{
    on_gpu!(sum: lat.even(), { Complex::new(r[k].norm2(), r[k].dot(w[k]).re) })
}

/// `r[k] = b[k] − w[k]` at the even sites, returning `|r[k]|²`.
fn residual_of<S: Space, const N: usize>(
    lat: S,
    b: &FermionsOf<S, N>,
    w: &FermionsOf<S, N>,
    r: &mut FermionsOf<S, N>,
    k: usize,
) -> ongpu::Result<f64>
where
    [ColorVector<f64>; N]: Element,
{
    on_gpu!(sum: lat.even(), {
        r[k] = b[k] - w[k];
        r[k].norm2()
    })
}

/// `|v[k]|²` over the even sites.
fn norm2_of<S: Space, const N: usize>(lat: S, v: &FermionsOf<S, N>, k: usize) -> ongpu::Result<f64>
where
    [ColorVector<f64>; N]: Element,
{
    on_gpu!(sum: lat.even(), { v[k].norm2() })
}

/// The vector updates of one iteration for every system at the even sites, in one pass:
/// `p = r + β p`, `s = w + β s`, `x += α p`, `r −= α s` with each system's own α and β
/// ([`update`](super::passes::update) per vector; α = β = 0 leaves `x` and `r` as they are).
#[allow(clippy::too_many_arguments)]
fn update_many<S: Space, const N: usize>(
    lat: S,
    alpha: [f64; N],
    beta: [f64; N],
    w: &FermionsOf<S, N>,
    p: &mut FermionsOf<S, N>,
    s: &mut FermionsOf<S, N>,
    x: &mut FermionsOf<S, N>,
    r: &mut FermionsOf<S, N>,
) -> ongpu::Result<()>
where
    [ColorVector<f64>; N]: Element,
{
    let rhs = N;
    on_gpu!(lat.even(), {
        for k in 0..rhs {
            p[k] = r[k] + beta[k] * p[k];
            s[k] = w[k] + beta[k] * s[k];
            x[k] += alpha[k] * p[k];
            r[k] -= alpha[k] * s[k];
        }
    })
}

/// `dst = src` at the even sites, or zero where `src` is `None`.
fn set_even<S: Space, const N: usize>(
    lat: S,
    src: Option<&FermionsOf<S, N>>,
    dst: &mut FermionsOf<S, N>,
) -> ongpu::Result<()>
where
    [ColorVector<f64>; N]: Element,
{
    match src {
        Some(src) => on_gpu!(lat.even(), {
            dst = src;
        }),
        None => {
            let rhs = N;
            on_gpu!(lat.even(), {
                for k in 0..rhs {
                    dst[k] = ColorVector::zero();
                }
            })
        }
    }
}

/// What a [`MultiCg`] solve reports.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MultiSolution<const N: usize> {
    /// Applications of the operator (to all `N` vectors at once) in the recursion, over all
    /// restarts: the iterations of the slowest system.
    pub applications: usize,
    /// Iterations of each system (its own updates, as a [`Cg`](super::Cg) solve counts).
    pub iterations: [usize; N],
    /// How often the solver started again from the true residuals.
    pub restarts: usize,
    /// Each system's true `|b − A x| / |b|`, recomputed from `x` at the end.
    pub relative_residuals: [f64; N],
    /// Wall-clock seconds of the solve.
    pub seconds: f64,
}

impl<const N: usize> MultiSolution<N> {
    /// Flops of the solve's passes on `lat` (each on its `V/2` sites, per vector): per
    /// application two hops and the normal operator's `m² x − h`, the sums, an update; the
    /// norms and true residuals.
    pub fn flops(&self, lat: &Lattice) -> f64 {
        let half = (lat.volume() / 2) as f64;
        let vectors = N as f64;
        let applications = self.applications + self.restarts + 1;
        half * vectors
            * (applications as f64 * (2.0 * HOP_FLOPS + 12.0 + 2.0 * NORM_FLOPS)
                + self.applications as f64 * UPDATE_FLOPS
                + (self.restarts + 1) as f64 * RESIDUAL_FLOPS
                + NORM_FLOPS)
    }
}

/// `N` conjugate-gradient solves of [`Staggered`]'s even-odd normal system
/// `(m² − D_eo D_oe) x_k = b_k`, sharing every application of the operator: per iteration
/// two [`hop_many`] passes, one sum per system (`|r_k|²`, `⟨r_k, A r_k⟩`) and one update
/// pass, in the Chronopoulos–Gear arrangement of [`Cg`](super::Cg).
///
/// A system whose iterated residual meets the tolerance stops (α = β = 0 from then on).
/// When all have stopped, the true residuals `b_k − A x_k` are computed; the systems that
/// rounding left short start again from theirs (at most [`MAX_RESTARTS`] times), as a
/// single [`Cg`](super::Cg) does. Each system thus runs exactly the arithmetic of its own
/// `Cg` solve: its solution has the same bits.
pub struct MultiCg<const N: usize, S: Space = Lattice> {
    lat: S,
    tol: f64,
    max_iter: usize,
    work: Option<MultiWork<S, N>>,
}

/// The solver's vectors.
struct MultiWork<S: Space, const N: usize> {
    r: FermionsOf<S, N>,
    p: FermionsOf<S, N>,
    s: FermionsOf<S, N>,
    w: FermionsOf<S, N>,
    t: FermionsOf<S, N>,
}

/// One system's recursion.
#[derive(Debug, Clone, Copy)]
struct System {
    target: f64,
    b_norm2: f64,
    gamma: f64,
    delta: f64,
    alpha_old: Option<f64>,
    beta: f64,
    iterations: usize,
    /// Still iterating (its residual above the target).
    active: bool,
}

impl<const N: usize, S: Space> MultiCg<N, S>
where
    [ColorVector<f64>; N]: Element,
{
    /// A solver on `lat` to the relative tolerance `tol` (`|b − A x| ≤ tol |b|` for each
    /// system), allowing `max_iter` iterations per system.
    pub fn new(lat: S, tol: f64, max_iter: usize) -> Self {
        MultiCg {
            lat,
            tol,
            max_iter,
            work: None,
        }
    }

    /// Solves `A x_k = b_k` for `k < N` from `x = 0`.
    pub fn solve(
        &mut self,
        op: &Staggered<S>,
        b: &FermionsOf<S, N>,
        x: &mut FermionsOf<S, N>,
    ) -> Result<MultiSolution<N>, SolverError> {
        let lat = self.lat;
        if op.lattice() != lat {
            return Err(ongpu::Error::InvalidArgument(format!(
                "the solver was made for the {lat}, the operator is on the {}",
                op.lattice()
            ))
            .into());
        }
        lat.check_field(b, "source")?;
        lat.check_field(x, "solution")?;
        let start = Instant::now();
        let work = match &mut self.work {
            Some(w) => w,
            empty => empty.insert(MultiWork {
                r: lat.zeros()?,
                p: lat.zeros()?,
                s: lat.zeros()?,
                w: lat.zeros()?,
                t: lat.zeros()?,
            }),
        };
        let mut systems = [System {
            target: 0.0,
            b_norm2: 0.0,
            gamma: 0.0,
            delta: 0.0,
            alpha_old: None,
            beta: 0.0,
            iterations: 0,
            active: true,
        }; N];
        for (k, sys) in systems.iter_mut().enumerate() {
            sys.b_norm2 = norm2_of(lat, b, k)?;
            sys.target = self.tol * self.tol * sys.b_norm2;
            sys.active = sys.b_norm2 != 0.0;
        }
        set_even(lat, None, x)?;
        set_even(lat, Some(b), &mut work.r)?;
        set_even(lat, None, &mut work.p)?;
        set_even(lat, None, &mut work.s)?;
        let (mut applications, mut restarts) = (0, 0);
        let mass2 = op.mass() * op.mass();
        // w = A r and each active system's sums.
        let apply = |work: &mut MultiWork<S, N>, systems: &mut [System; N]| -> ongpu::Result<()> {
            hop_many(lat.odd(), op.links(), &work.r, &mut work.t)?;
            normal_many(lat, op.links(), &work.t, &work.r, mass2, &mut work.w)?;
            for (k, sys) in systems.iter_mut().enumerate() {
                if sys.active {
                    let sums = sums_of(lat, &work.r, &work.w, k)?;
                    (sys.gamma, sys.delta) = (sums.re, sums.im);
                }
            }
            Ok(())
        };
        loop {
            // The recursion from each active system's residual in r.
            apply(work, &mut systems)?;
            applications += 1;
            for sys in systems.iter_mut().filter(|s| s.active) {
                (sys.alpha_old, sys.beta) = (None, 0.0);
                sys.active = sys.gamma > sys.target;
            }
            while systems.iter().any(|s| s.active) {
                let (mut alpha, mut beta) = ([0.0; N], [0.0; N]);
                for (k, sys) in systems.iter_mut().enumerate().filter(|(_, s)| s.active) {
                    if sys.iterations >= self.max_iter {
                        return Err(SolverError::NotConverged {
                            iterations: sys.iterations,
                            relative_residual: (sys.gamma / sys.b_norm2).sqrt(),
                        });
                    }
                    let p_dot_ap = match sys.alpha_old {
                        None => sys.delta,
                        Some(a) => sys.delta - sys.beta * sys.gamma / a,
                    };
                    if !(p_dot_ap > 0.0 && p_dot_ap.is_finite()) {
                        return Err(SolverError::Breakdown {
                            iterations: sys.iterations,
                            p_dot_ap,
                        });
                    }
                    alpha[k] = sys.gamma / p_dot_ap;
                    beta[k] = sys.beta;
                    sys.iterations += 1;
                }
                let MultiWork { r, p, s, w, .. } = &mut *work;
                update_many(lat, alpha, beta, w, p, s, x, r)?;
                let gammas = systems.map(|s| s.gamma);
                apply(work, &mut systems)?;
                applications += 1;
                for (k, sys) in systems.iter_mut().enumerate().filter(|(_, s)| s.active) {
                    sys.beta = sys.gamma / gammas[k];
                    sys.alpha_old = Some(alpha[k]);
                    sys.active = sys.gamma > sys.target;
                }
            }
            // The true residuals, into r: w = A x, r = b − w.
            hop_many(lat.odd(), op.links(), x, &mut work.t)?;
            normal_many(lat, op.links(), &work.t, x, mass2, &mut work.w)?;
            let mut relative_residuals = [0.0; N];
            let mut again = false;
            for (k, sys) in systems.iter_mut().enumerate() {
                if sys.b_norm2 == 0.0 {
                    continue;
                }
                let r_norm2 = residual_of(lat, b, &work.w, &mut work.r, k)?;
                relative_residuals[k] = (r_norm2 / sys.b_norm2).sqrt();
                sys.active = r_norm2 > sys.target;
                again |= sys.active;
            }
            if !again {
                return Ok(MultiSolution {
                    applications,
                    iterations: systems.map(|s| s.iterations),
                    restarts,
                    relative_residuals,
                    seconds: start.elapsed().as_secs_f64(),
                });
            }
            let stuck = systems.iter().zip(relative_residuals).find(|(s, _)| {
                s.active && (restarts == MAX_RESTARTS || s.iterations >= self.max_iter)
            });
            if let Some((sys, relative_residual)) = stuck {
                return Err(SolverError::NotConverged {
                    iterations: sys.iterations,
                    relative_residual,
                });
            }
            restarts += 1;
        }
    }
}
