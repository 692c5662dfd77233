//! CG with its scalars on the device, for any operator and any [`Space`]: the recursion of
//! [`Cg`](super::Cg), but the sums go into [`DeviceScalar`]s, a one-site kernel turns them
//! into α and β, and the updates read those. The host queues iterations without waiting
//! and reads `|r|²` only between blocks of them, so the GPUs never idle on a host round
//! trip. Over MPI ranks the sums are added on the GPUs too (exact sums, NCCL), the same
//! bits for every rank count.
//!
//! Iterations queued past convergence change nothing: once `|r|²` is at or below the
//! target, [`coefficients`] sets α = β = 0 and stops counting, so the solution and the
//! iteration count are those of stopping exactly there. The host picks each block's length
//! from the rate at which `|r|²` fell since the last look, so few iterations run idle.

use super::cg::{solve_with_restarts, CgOperator, CgPasses, Limits, Problem, Work};
use super::{LinearSolver, Solution, SolverError};
use ongpu::prelude::*;

/// The most iterations queued between two looks at `|r|²`.
pub const MAX_BLOCK: usize = 32;

/// Iterations queued before the first look (no rate known yet).
const FIRST_BLOCK: usize = 8;

/// What CG with device scalars needs of an operator besides [`CgOperator`]: the same two
/// passes with their scalars on the device.
pub trait DeviceCgOperator: CgOperator {
    /// [`apply_and_norm`](CgOperator::apply_and_norm) with `(|x|², Re⟨x, A x⟩)` left in
    /// `sums` (as its real and imaginary parts) on the device.
    fn apply_and_norm_into(
        &self,
        x: &Self::Vector,
        scratch: &mut Self::Vector,
        out: &mut Self::Vector,
        sums: &mut DeviceScalar<Complex<f64>>,
    ) -> ongpu::Result<()>;

    /// [`cg_update`](CgOperator::cg_update) with α and β read from the device.
    #[allow(clippy::too_many_arguments)]
    fn cg_update_from(
        &self,
        alpha: &DeviceScalar,
        beta: &DeviceScalar,
        w: &Self::Vector,
        p: &mut Self::Vector,
        s: &mut Self::Vector,
        x: &mut Self::Vector,
        r: &mut Self::Vector,
    ) -> ongpu::Result<()>;
}

/// The device scalars of CG in the Chronopoulos–Gear arrangement of [`Cg`](super::Cg).
pub struct Scalars {
    /// `(|r|², Re⟨r, A r⟩)` as one complex sum.
    pub sums: DeviceScalar<Complex<f64>>,
    /// γ of the previous iteration (`+∞` before the first: then β = 0).
    pub gamma_old: DeviceScalar,
    /// α of the previous iteration (1 before the first; it is multiplied by β = 0 there).
    pub alpha_old: DeviceScalar,
    /// This iteration's α.
    pub alpha: DeviceScalar,
    /// This iteration's β.
    pub beta: DeviceScalar,
    /// The `|r|²` at or below which the iterations stop (α = β = 0); `−∞` never stops.
    pub stop_at: DeviceScalar,
    /// Iterations made, not counting those after the stop.
    pub steps: DeviceScalar,
    /// 1 once `⟨p, A p⟩` came out non-positive or not finite (CG broke down: the operator is
    /// not positive definite, or rounding lost it), which also stops the iterations.
    pub broke: DeviceScalar,
    /// The `⟨p, A p⟩` of the breakdown.
    pub broke_at: DeviceScalar,
}

impl Scalars {
    /// Scalars for a fresh start, never stopping.
    pub fn new() -> ongpu::Result<Scalars> {
        let mut s = Scalars {
            sums: DeviceScalar::zero(),
            gamma_old: DeviceScalar::zero(),
            alpha_old: DeviceScalar::zero(),
            alpha: DeviceScalar::zero(),
            beta: DeviceScalar::zero(),
            stop_at: DeviceScalar::new(f64::NEG_INFINITY),
            steps: DeviceScalar::zero(),
            broke: DeviceScalar::zero(),
            broke_at: DeviceScalar::zero(),
        };
        s.restart()?;
        Ok(s)
    }

    /// Forgets the previous iteration, so that the next has β = 0 (CG from the current
    /// residual).
    pub fn restart(&mut self) -> ongpu::Result<()> {
        self.gamma_old.set(f64::INFINITY)?;
        self.broke.set(0.0)?;
        self.alpha_old.set(1.0)
    }

    /// The breakdown the one-site kernel kept, as [`Cg`](super::Cg) reports one (a read of
    /// the device: call it where the host looks anyway).
    pub fn breakdown(&self, iterations: usize) -> Result<(), SolverError> {
        if self.broke.get()? != 0.0 {
            return Err(SolverError::Breakdown {
                iterations,
                p_dot_ap: self.broke_at.get()?,
            });
        }
        Ok(())
    }
}

/// One site: while `|r|² > stop_at`, `β = γ / γ_old`, `α = γ / (δ − β γ / α_old)` from the
/// sums, as the host computes them in [`Cg`](super::Cg), then `γ_old = γ`, `α_old = α`
/// and one more step; at or below it (or NaN), α = β = 0 and the rest unchanged, so that
/// the updates leave `x` and `r` as they are. A `⟨p, A p⟩ = δ − β γ / α_old` that is not
/// positive and finite stops the iterations the same way and sets `broke` (the host's
/// [`Cg`](super::Cg) reports it as a breakdown).
pub fn coefficients(s: &mut Scalars) -> ongpu::Result<()> {
    let Scalars {
        sums,
        gamma_old,
        alpha_old,
        alpha,
        beta,
        stop_at,
        steps,
        broke,
        broke_at,
    } = s;
    on_gpu!({
        let gamma = sums.re;
        let live = gamma > stop_at && broke == 0.0;
        let b0 = gamma / gamma_old;
        let pap = sums.im - b0 * gamma / alpha_old;
        let fine = pap > 0.0 && pap * 0.0 == 0.0;
        let go = live && fine;
        let b = if go { b0 } else { 0.0 };
        let a = if go { gamma / pap } else { 0.0 };
        beta = b;
        alpha = a;
        gamma_old = if go { gamma } else { gamma_old };
        alpha_old = if go { a } else { alpha_old };
        steps = if go { steps + 1.0 } else { steps };
        broke = if live && !fine { 1.0 } else { broke };
        broke_at = if live && !fine { pap } else { broke_at };
    })
}

/// CG for any [`DeviceCgOperator`] on any [`Space`] with α and β on the device: the host
/// looks at `|r|²` once per block of iterations. Over a lattice split over several GPUs of
/// one process a solve is an error (the scalars live on one device): use [`Cg`](super::Cg)
/// there. Its work vectors and scalars are made at
/// the first solve, so later solves allocate nothing.
pub struct DeviceCg<S: Space, V> {
    limits: Limits<S>,
    passes: CgPasses,
    looks: usize,
    work: Option<(Work<V>, Scalars)>,
}

impl<S: Space, V> DeviceCg<S, V> {
    /// A solver for `A x = b` on `lat` to `|b − A x| ≤ tol |b|` in at most `max_iter`
    /// iterations.
    pub fn new(lat: S, tol: f64, max_iter: usize) -> Self {
        DeviceCg {
            limits: Limits { lat, tol, max_iter },
            passes: CgPasses::default(),
            looks: 0,
            work: None,
        }
    }

    /// The passes the last solve ran, idle iterations after the stop included.
    pub fn passes(&self) -> CgPasses {
        self.passes
    }

    /// How often the last solve's host waited for `|r|²` (once before the first block of
    /// each recursion, then once after each block).
    pub fn looks(&self) -> usize {
        self.looks
    }
}

/// Iterations to queue before the next look: as many as the rate at which `|r|²` fell over
/// the last block predicts are left to the target, between 1 and [`MAX_BLOCK`].
fn next_block(last: Option<(f64, usize)>, gamma: f64, steps: usize, target: f64) -> usize {
    let Some((before, at)) = last else {
        return FIRST_BLOCK;
    };
    let made = steps.saturating_sub(at);
    if made == 0 || gamma.partial_cmp(&before) != Some(std::cmp::Ordering::Less) || gamma <= 0.0 {
        return FIRST_BLOCK;
    }
    let rate = (gamma / before).ln() / made as f64;
    let left = ((target / gamma).ln() / rate).ceil();
    if left.is_finite() {
        (left as usize).clamp(1, MAX_BLOCK)
    } else {
        MAX_BLOCK
    }
}

/// The start of the device-side recursion from the residual in `work.r`: β = 0 next, and
/// `w = A r` with its sums. Shared by [`DeviceCg`] and the staggered graph and device-loop
/// solvers.
pub(crate) fn start<O: DeviceCgOperator>(
    op: &O,
    work: &mut Work<O::Vector>,
    scalars: &mut Scalars,
) -> ongpu::Result<()> {
    scalars.restart()?;
    op.apply_and_norm_into(&work.r, &mut work.t, &mut work.w, &mut scalars.sums)
}

/// One iteration with its scalars on the device: α and β from the sums, the updates, and
/// `w = A r` with the next sums. Shared by [`DeviceCg`] and the staggered graph and
/// device-loop solvers.
pub(crate) fn iteration<O: DeviceCgOperator>(
    op: &O,
    w: &mut Work<O::Vector>,
    scalars: &mut Scalars,
    x: &mut O::Vector,
) -> ongpu::Result<()> {
    coefficients(scalars)?;
    op.cg_update_from(
        &scalars.alpha,
        &scalars.beta,
        &w.w,
        &mut w.p,
        &mut w.s,
        x,
        &mut w.r,
    )?;
    op.apply_and_norm_into(&w.r, &mut w.t, &mut w.w, &mut scalars.sums)
}

/// CG from the residual in `work.r` until `|r|² ≤ target` by the recursion.
fn iterate<O: DeviceCgOperator>(
    p: &Problem<O>,
    work: &mut Work<O::Vector>,
    scalars: &mut Scalars,
    x: &mut O::Vector,
    iterations: &mut usize,
    passes: &mut CgPasses,
    looks: &mut usize,
) -> Result<(), SolverError> {
    let op = p.op;
    scalars.stop_at.set(p.target)?;
    scalars.steps.set(0.0)?;
    start(op, work, scalars)?;
    passes.applications += 1;
    let first = *iterations;
    let mut last = None;
    loop {
        let gamma = scalars.sums.get()?.re;
        let steps = scalars.steps.get()? as usize;
        *looks += 1;
        *iterations = first + steps;
        scalars.breakdown(*iterations)?;
        if !gamma.is_finite() {
            return Err(SolverError::Breakdown {
                iterations: *iterations,
                p_dot_ap: f64::NAN,
            });
        }
        if gamma <= p.target {
            return Ok(());
        }
        if *iterations >= p.max_iter {
            return Err(SolverError::NotConverged {
                iterations: *iterations,
                relative_residual: (gamma / p.b_norm2).sqrt(),
            });
        }
        let block = next_block(last, gamma, steps, p.target).min(p.max_iter - *iterations);
        for _ in 0..block {
            iteration(op, work, scalars, x)?;
        }
        passes.updates += block;
        passes.applications += block;
        last = Some((gamma, steps));
    }
}

/// An error for a lattice split over several GPUs of one process on the GPU backend: a
/// [`DeviceScalar`] lives on one device, and the parts on the others cannot read it.
fn check_one_device<S: Space + 'static>(lat: &S) -> ongpu::Result<()> {
    let Some(split) = (lat as &dyn std::any::Any).downcast_ref::<ongpu_runtime::SplitLattice>()
    else {
        return Ok(());
    };
    if ongpu::backend()? != ongpu::Backend::Cuda {
        return Ok(());
    }
    let devices = split.devices();
    let mut ordinals: Vec<usize> = (0..split.parts())
        .filter_map(|p| devices.ordinal(p))
        .collect();
    ordinals.sort_unstable();
    ordinals.dedup();
    if ordinals.len() > 1 || devices.has_host() {
        return Err(ongpu::Error::InvalidArgument(format!(
            "DeviceCg over {lat}: its scalars live on one GPU, which the parts on the other \
             devices cannot read; use Cg (α and β on the host) over a lattice split over \
             several devices"
        )));
    }
    Ok(())
}

impl<O: DeviceCgOperator> LinearSolver<O> for DeviceCg<O::Space, O::Vector>
where
    O::Space: 'static,
{
    fn solve(&mut self, op: &O, b: &O::Vector, x: &mut O::Vector) -> Result<Solution, SolverError> {
        check_one_device(&self.limits.lat)?;
        let mut passes = CgPasses::default();
        let (work, scalars) = match &mut self.work {
            Some(w) => w,
            empty => empty.insert((Work::new(|| op.vector())?, Scalars::new()?)),
        };
        let mut in_iterations = CgPasses::default();
        let mut looks = 0;
        let result =
            solve_with_restarts(&self.limits, op, b, x, work, &mut passes, |p, w, x, n| {
                iterate(p, w, scalars, x, n, &mut in_iterations, &mut looks)
            });
        passes.applications += in_iterations.applications;
        passes.updates += in_iterations.updates;
        self.passes = passes;
        self.looks = looks;
        result
    }

    fn name(&self) -> &'static str {
        "device-scalar CG"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-site kernel on the CPU backend: a step, then a breakdown (`⟨p, A p⟩ < 0`)
    /// that stops the iterations and is kept for the host, then the stop at the target.
    #[test]
    fn coefficients_step_break_down_and_stop() {
        ongpu_runtime::with_backend(ongpu_runtime::Backend::Cpu, || {
            let mut s = Scalars::new().unwrap();
            s.sums.set(Complex::new(4.0, 2.0)).unwrap();
            coefficients(&mut s).unwrap();
            // β = 4/∞ = 0, α = 4 / 2.
            assert_eq!((s.alpha.get().unwrap(), s.beta.get().unwrap()), (2.0, 0.0));
            assert_eq!((s.steps.get().unwrap(), s.broke.get().unwrap()), (1.0, 0.0));
            // β = 1/4, ⟨p, A p⟩ = −1 − (1/4)(1/2) < 0: a breakdown, nothing moves.
            s.sums.set(Complex::new(1.0, -1.0)).unwrap();
            coefficients(&mut s).unwrap();
            assert_eq!((s.alpha.get().unwrap(), s.beta.get().unwrap()), (0.0, 0.0));
            assert_eq!((s.steps.get().unwrap(), s.broke.get().unwrap()), (1.0, 1.0));
            assert_eq!(s.broke_at.get().unwrap(), -1.125);
            assert_eq!(s.gamma_old.get().unwrap(), 4.0);
            // A restart forgets the breakdown; at the target the iterations stop.
            s.restart().unwrap();
            s.stop_at.set(1.0).unwrap();
            coefficients(&mut s).unwrap();
            assert_eq!((s.alpha.get().unwrap(), s.beta.get().unwrap()), (0.0, 0.0));
            assert_eq!((s.steps.get().unwrap(), s.broke.get().unwrap()), (1.0, 0.0));
        })
    }

    #[test]
    fn blocks_follow_the_rate_of_the_residual() {
        assert_eq!(next_block(None, 1.0, 0, 1e-20), FIRST_BLOCK);
        // |r|² fell by 10 per iteration over 8 iterations: 3 more reach 2e-11.
        assert_eq!(next_block(Some((1.0, 0)), 1e-8, 8, 2e-11), 3);
        assert_eq!(next_block(Some((1.0, 0)), 1e-8, 8, 1e-200), MAX_BLOCK);
        assert_eq!(next_block(Some((1.0, 0)), 1e-8, 8, 0.99e-8), 1);
        // A residual that rose (CG is not monotone in |r|) gives no rate.
        assert_eq!(next_block(Some((1.0, 0)), 2.0, 8, 1e-11), FIRST_BLOCK);
        assert_eq!(next_block(Some((1.0, 8)), 0.5, 8, 1e-11), FIRST_BLOCK);
    }
}
