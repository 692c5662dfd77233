//! The pion two-point function from a point-source propagator: twelve solves of `D x = b`
//! (one per source spin and colour), and `C(t) = Σ_x Σ_{spins, colours} |S(x, t)|²`, which
//! γ5-hermiticity (`S(0, x) = γ5 S(x, 0)† γ5`) makes the correlator of `ū γ5 d`.

use super::{SpinorFieldOf, Wilson, WilsonEvenOdd};
use crate::solver::{LinearSolver, Solution, SolverError};
use ongpu::prelude::*;

/// The pion correlator of one point source, with the twelve solves' reports.
#[derive(Debug, Clone)]
pub struct PionCorrelator {
    /// `C(t)` for `t` in `0..T`, `t` counted from the source's time slice.
    pub correlator: Vec<f64>,
    /// The solves, source spin-major (`3 · spin + colour`).
    pub solves: Vec<Solution>,
}

impl PionCorrelator {
    /// The effective mass `m(t)` for `t` in `0..T/2`: the `m` with
    /// `C(t)/C(t+1) = cosh(m (T/2 − t)) / cosh(m (T/2 − t − 1))`, the form of a single state
    /// on a periodic time extent (NaN where the ratio admits none: `C(t) ≤ C(t+1)`).
    pub fn effective_mass(&self) -> Vec<f64> {
        let t_len = self.correlator.len();
        (0..t_len / 2)
            .map(|t| cosh_mass(self.correlator[t] / self.correlator[t + 1], t, t_len))
            .collect()
    }
}

/// The `m` of `ratio = cosh(m (T/2 − t)) / cosh(m (T/2 − t − 1))`, by bisection (the ratio
/// grows with `m` for `t < T/2`).
fn cosh_mass(ratio: f64, t: usize, t_len: usize) -> f64 {
    let h = t_len as f64 / 2.0 - t as f64;
    let f = |m: f64| (m * h).cosh() / (m * (h - 1.0)).cosh();
    if ratio.is_nan() || ratio <= 1.0 || ratio.is_infinite() {
        return f64::NAN;
    }
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    while f(hi) < ratio {
        hi *= 2.0;
        if hi > 100.0 {
            return f64::NAN;
        }
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) < ratio {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

impl<S: Space> Wilson<'_, S> {
    /// The pion correlator of a point source at `source` (coordinates on the whole
    /// lattice): twelve solves by `solver`, `after_solve(k)` called after the `k`-th
    /// (for a progress bar). Time runs along direction 3; the quarks have the operator's time
    /// boundary (antiperiodic quarks make a periodic pion, so the correlator is periodic
    /// either way).
    pub fn pion_correlator<Sol>(
        &self,
        solver: &mut Sol,
        source: [usize; 4],
        mut after_solve: impl FnMut(usize),
    ) -> Result<PionCorrelator, SolverError>
    where
        Sol: for<'w> LinearSolver<WilsonEvenOdd<'w, 'w, S>>,
    {
        let lat = self.lattice();
        let whole = lat.whole();
        let extents = whole.extents();
        if (0..4).any(|mu| source[mu] >= extents[mu]) {
            return Err(SolverError::Ongpu(ongpu::Error::InvalidArgument(format!(
                "a point source at {source:?} is outside the {whole}"
            ))));
        }
        let at = whole.index(source);
        let mut density: <S as Space>::Field<f64, crate::SiteLayout> = lat.zeros()?;
        let mut x: SpinorFieldOf<S> = lat.zeros()?;
        let mut solves = Vec::with_capacity(12);
        for k in 0..12 {
            let mut host = vec![[ColorVector::<f64>::zero(); 4]; whole.volume()];
            host[at][k / 3][k % 3] = Complex::new(1.0, 0.0);
            let b: SpinorFieldOf<S> = lat.field_from_vec(host)?;
            solves.push(self.solve(solver, &b, &mut x)?);
            on_gpu!(lat, {
                density += x[0].norm2() + x[1].norm2() + x[2].norm2() + x[3].norm2();
            })?;
            after_solve(k);
        }
        let density = density.values()?;
        let mut correlator = vec![0.0; extents[3]];
        for (site, d) in density.iter().enumerate() {
            let t = (whole.coords(site)[3] + extents[3] - source[3]) % extents[3];
            correlator[t] += d;
        }
        Ok(PionCorrelator { correlator, solves })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A single state on a periodic extent, `C(t) = cosh(m (T/2 − t))`, gives back `m` at
    /// every `t < T/2`; a correlator that does not fall gives NaN.
    #[test]
    fn the_cosh_mass_of_a_single_state_is_its_mass() {
        for (m, t_len) in [(0.37, 16), (1.2, 8), (0.05, 32)] {
            let h = t_len as f64 / 2.0;
            let c = PionCorrelator {
                correlator: (0..t_len).map(|t| (m * (h - t as f64)).cosh()).collect(),
                solves: Vec::new(),
            };
            for (t, got) in c.effective_mass().into_iter().enumerate() {
                assert!((got - m).abs() <= 1e-10 * m, "t = {t}: {got} vs {m}");
            }
        }
        assert!(cosh_mass(1.0, 2, 8).is_nan() && cosh_mass(0.5, 2, 8).is_nan());
    }
}
