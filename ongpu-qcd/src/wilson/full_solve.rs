//! Solving the full system `D x = b` through the even-odd one: the source prepared, the
//! even sites solved by any solver of [`WilsonEvenOdd`], the odd sites reconstructed, and
//! the true residual of the full system recomputed.

use super::{SpinorFieldOf, Wilson, WilsonEvenOdd};
use crate::solver::{LinearSolver, Solution, SolverError};
use ongpu::prelude::*;
use std::time::Instant;

impl<S: Space> Wilson<'_, S> {
    /// Solves `D x = b` at every site (`b` any spinor field): `M̂ x_e = b̂_e` by `solver`,
    /// then `x_o`. The [`Solution`] has the solver's iterations and the true
    /// `|b − D x| / |b|` of the full system.
    pub fn solve<Sol>(
        &self,
        solver: &mut Sol,
        b: &SpinorFieldOf<S>,
        x: &mut SpinorFieldOf<S>,
    ) -> Result<Solution, SolverError>
    where
        Sol: for<'w> LinearSolver<WilsonEvenOdd<'w, 'w, S>>,
    {
        let start = Instant::now();
        let lat = self.lattice();
        let eo = WilsonEvenOdd::new(self);
        let mut b_hat: SpinorFieldOf<S> = lat.zeros()?;
        let mut tmp: SpinorFieldOf<S> = lat.zeros()?;
        eo.prepare(b, &mut b_hat, &mut tmp)?;
        let even = solver.solve(&eo, &b_hat, x)?;
        eo.reconstruct(b, x, &mut tmp)?;
        let relative_residual = self.residual(b, x, &mut tmp)?;
        Ok(Solution {
            relative_residual,
            seconds: start.elapsed().as_secs_f64(),
            ..even
        })
    }

    /// The true `|b − D x| / |b|` over every site (0 for `b = 0`), through `tmp`.
    pub fn residual(
        &self,
        b: &SpinorFieldOf<S>,
        x: &SpinorFieldOf<S>,
        tmp: &mut SpinorFieldOf<S>,
    ) -> ongpu::Result<f64> {
        let lat = self.lattice();
        let b2 = norm2_all(lat, b)?;
        if b2 == 0.0 {
            return Ok(0.0);
        }
        self.apply(x, tmp)?;
        let r2: f64 = on_gpu!(sum: lat, {
            (b[0] - tmp[0]).norm2()
                + (b[1] - tmp[1]).norm2()
                + (b[2] - tmp[2]).norm2()
                + (b[3] - tmp[3]).norm2()
        })?;
        Ok((r2 / b2).sqrt())
    }
}

/// `Σ_x |a(x)|²`.
fn norm2_all<S: Space>(lat: S, a: &SpinorFieldOf<S>) -> ongpu::Result<f64> {
    on_gpu!(sum: lat, {
        a[0].norm2() + a[1].norm2() + a[2].norm2() + a[3].norm2()
    })
}
