//! What a gauge field measures: the plaquette, the link trace, the Polyakov loop and the
//! staples.

use super::staple_sum::{by_direction, with_staples};
use super::{GaugeField, StraightLine};
use crate::SiteLayout;
use ongpu::prelude::*;

impl<S: Space> GaugeField<S> {
    /// The mean plaquette `(1/6V) Σ_x Σ_{mu<nu} Re tr U_{mu nu}(x) / 3` (1 for the unit
    /// field), as one reduction.
    pub fn plaquette(&self) -> ongpu::Result<f64> {
        let u = self.links();
        let sum: f64 = on_gpu!(sum: self.lattice(), {
            let mut s = 0.0;
            for mu in 0..4 {
                for nu in (mu + 1)..4 {
                    s += (u[mu] * u.shift(mu, 1)[nu] * u.shift(nu, 1)[mu].adj() * u[nu].adj())
                        .trace()
                        .re;
                }
            }
            s
        })?;
        Ok(sum / (18.0 * self.lattice().whole().volume() as f64))
    }

    /// The mean link trace `(1/4V) Σ_x Σ_mu Re tr U_mu(x) / 3`: zero on average by gauge
    /// invariance, 1 for the unit field; a check of starts and of stored configurations.
    pub fn link_trace(&self) -> ongpu::Result<f64> {
        let u = self.links();
        let sum: f64 = on_gpu!(sum: self.lattice(), {
            let mut s = 0.0;
            for mu in 0..4 {
                s += u[mu].trace().re;
            }
            s
        })?;
        Ok(sum / (12.0 * self.lattice().whole().volume() as f64))
    }

    /// The Polyakov loop `(1/V) Σ_x tr Π_{t=0}^{T−1} U_t(x + t t̂) / 3`: the mean over every
    /// site of the trace of the time-like line that winds once round the lattice from it
    /// (by cyclicity the same at every time of a spatial site, so this is the usual mean
    /// over spatial sites). Zero on average in the confined phase by the centre symmetry;
    /// `T − 1` passes of one colour-matrix product each.
    pub fn polyakov_loop(&self) -> ongpu::Result<Complex<f64>> {
        let lat = self.lattice();
        let u = self.links();
        let mut winding = StraightLine::new(lat, u, 3)?;
        for _ in 1..lat.whole().extents()[3] {
            winding.extend(u)?;
        }
        let line = winding.line();
        let sum: Complex<f64> = on_gpu!(sum: lat, { line.trace() })?;
        Ok(sum / (3.0 * lat.whole().volume() as f64))
    }

    /// `staple = A_mu(x)` at the sites of `sites`: the sum of the six staples around
    /// `U_mu(x)`, so that the plaquettes containing `U_mu(x)` sum to `Re tr(U_mu(x) A_mu(x))`.
    /// `staple` elsewhere is left as it was.
    pub fn staples(
        &self,
        mu: usize,
        sites: S::Subset,
        staple: &mut S::Field<ColorMatrix<f64>, SiteLayout>,
    ) -> ongpu::Result<()> {
        let u = self.links();
        macro_rules! pass {
            ($mu:literal) => {
                with_staples!([sites,] u, $mu, |a| {
                    staple = a;
                })
            };
        }
        by_direction!(mu, pass)
    }
}
