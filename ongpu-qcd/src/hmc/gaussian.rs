//! The Gaussian colour vectors pseudofermion heatbaths start from.

use crate::staggered::FermionOf;
use ongpu::prelude::*;

/// `out = χ` at `sites` (of the space `lat`), `χ` Gaussian with `⟨χχ†⟩ = 1` (each real part
/// of standard deviation `1/√2`), from the draws `first_draw` to `first_draw + 5` of `rng`
/// keyed by whole-lattice site: the same numbers on any space and either backend.
pub(crate) fn gaussian_vectors<P: SpaceSubset>(
    lat: P::Space,
    sites: P,
    rng: Philox,
    first_draw: u32,
    out: &mut FermionOf<P::Space>,
) -> ongpu::Result<()> {
    let d = first_draw;
    let s = std::f64::consts::FRAC_1_SQRT_2;
    on_gpu!(sites, |i| {
        let w = lat.whole_index(i);
        out = ColorVector::new([
            Complex::new(rng.normal_f64(w, d) * s, rng.normal_f64(w, d + 1) * s),
            Complex::new(rng.normal_f64(w, d + 2) * s, rng.normal_f64(w, d + 3) * s),
            Complex::new(rng.normal_f64(w, d + 4) * s, rng.normal_f64(w, d + 5) * s),
        ]);
    })
}
