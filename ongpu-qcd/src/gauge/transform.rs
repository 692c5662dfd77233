//! Changes of the links that keep the physics: reunitarisation (back onto SU(3) after
//! rounding) and gauge transformations `U_mu(x) → g(x) U_mu(x) g(x+mû)†`, under which every
//! closed loop's trace, and so every gauge-invariant observable, stays as it was.

use super::projection::reunitarise;
use super::su3::random_su3;
use super::GaugeField;
use ongpu::prelude::*;
use rand::rngs::SmallRng;
use rand::SeedableRng;

impl GaugeField {
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
    pub fn gauge_transform(&mut self, g: &Field<ColorMatrix<f64>>) -> ongpu::Result<()> {
        let lat = self.lattice();
        if g.len() != lat.volume() {
            return Err(ongpu::Error::InvalidArgument(format!(
                "a gauge transformation on the {lat} needs {} matrices, got {}",
                lat.volume(),
                g.len()
            )));
        }
        let u = self.links_mut();
        on_gpu!(lat, {
            for mu in 0..4 {
                u[mu] = g * u[mu] * g.shift(mu, 1).adj();
            }
        })
    }
}

/// A random gauge transformation: an independent random SU(3) matrix per site of `lat`,
/// drawn on the host from `seed`.
pub fn random_gauge_transformation(lat: Lattice, seed: u64) -> Field<ColorMatrix<f64>> {
    let mut r = SmallRng::seed_from_u64(seed);
    Field::from_vec((0..lat.volume()).map(|_| random_su3(&mut r)).collect())
}
