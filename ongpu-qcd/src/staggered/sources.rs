//! Sources on the host: random colour vectors and their even part.

use ongpu::prelude::*;
use rand::rngs::SmallRng;
use rand::SeedableRng;

/// A colour vector per site on the host, in the lattice's site order.
pub type HostVector = Vec<ColorVector<f64>>;

/// A random colour vector at every site of `lat`, parts uniform in [-1, 1), from `seed`.
pub fn random_vector(lat: &Lattice, seed: u64) -> HostVector {
    let mut r = SmallRng::seed_from_u64(seed);
    (0..lat.volume())
        .map(|_| {
            ColorVector::new(std::array::from_fn(|_| {
                crate::gauge::su3::random_complex(&mut r)
            }))
        })
        .collect()
}

/// `v` on the even sites and zero on the odd ones (a source of the even-odd system).
pub fn even_part(lat: &Lattice, v: &[ColorVector<f64>]) -> HostVector {
    v.iter()
        .enumerate()
        .map(|(i, x)| {
            if lat.parity(i) == 0 {
                *x
            } else {
                ColorVector::zero()
            }
        })
        .collect()
}
