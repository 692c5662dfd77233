//! Changes of the links that keep the physics: reunitarisation (back onto SU(3) after
//! rounding) and gauge transformations `U_mu(x) → g(x) U_mu(x) g(x+mû)†`, under which every
//! closed loop's trace, and so every gauge-invariant observable, stays as it was.

use super::projection::reunitarise;
use super::su3::random_su3;
use super::GaugeField;
use crate::SiteLayout;
use ongpu::prelude::*;
use rand::rngs::SmallRng;
use rand::SeedableRng;

impl<S: Space> GaugeField<S> {
    /// Projects every link back onto SU(3) (Gram–Schmidt of its first two rows, the third
    /// their conjugate cross product), on the device.
    pub fn reunitarise(&mut self) -> ongpu::Result<()> {
        let lat = self.lattice();
        let u = self.links_mut();
        on_gpu!(lat, {
            for mu in 0..4 {
                u[mu] = reunitarise(u[mu]);
            }
        })
    }

    /// The gauge transformation `U_mu(x) → g(x) U_mu(x) g(x+mû)†` by one SU(3) matrix per
    /// site (`g` on this field's lattice).
    pub fn gauge_transform(
        &mut self,
        g: &S::Field<ColorMatrix<f64>, SiteLayout>,
    ) -> ongpu::Result<()> {
        let lat = self.lattice();
        lat.check_field(g, "gauge transformation")?;
        let u = self.links_mut();
        on_gpu!(lat, {
            for mu in 0..4 {
                u[mu] = g * u[mu] * g.shift(mu, 1).adj();
            }
        })
    }
}

/// A random gauge transformation: an independent random SU(3) matrix per site of the whole
/// lattice, drawn on the host from `seed` in site order (the same matrices whichever space
/// holds them).
pub fn random_gauge_transformation<S: Space>(
    lat: S,
    seed: u64,
) -> ongpu::Result<S::Field<ColorMatrix<f64>, SiteLayout>> {
    let mut r = SmallRng::seed_from_u64(seed);
    let host: Vec<ColorMatrix<f64>> = (0..lat.whole().volume())
        .map(|_| random_su3(&mut r))
        .collect();
    lat.field_from_vec(host)
}
