//! The momenta conjugate to the links: Gaussian su(3) fields, and their kinetic energy.

use crate::gauge::LinksOf;
use ongpu::prelude::*;

/// `P = −i Σ_a p_a λ_a / 2` (the Gell-Mann matrices `λ_a`): the su(3) element with
/// coordinates `p_a` in the generators `Tᵃ = −iλ_a/2`, so that `−tr P² = ½ Σ_a p_a²`.
#[allow(clippy::too_many_arguments)]
#[ongpu::device]
pub fn su3_from_coordinates(
    p1: f64,
    p2: f64,
    p3: f64,
    p4: f64,
    p5: f64,
    p6: f64,
    p7: f64,
    p8: f64,
) -> ColorMatrix<f64> {
    let q = p8 * 0.5773502691896257;
    let h00 = 0.5 * (p3 + q);
    let h11 = 0.5 * (q - p3);
    let h22 = -q;
    ColorMatrix::new([
        [
            Complex::new(0.0, -h00),
            Complex::new(-0.5 * p2, -0.5 * p1),
            Complex::new(-0.5 * p5, -0.5 * p4),
        ],
        [
            Complex::new(0.5 * p2, -0.5 * p1),
            Complex::new(0.0, -h11),
            Complex::new(-0.5 * p7, -0.5 * p6),
        ],
        [
            Complex::new(0.5 * p5, -0.5 * p4),
            Complex::new(0.5 * p7, -0.5 * p6),
            Complex::new(0.0, -h22),
        ],
    ])
}

/// Fills `p` with Gaussian momenta (each coordinate a standard normal deviate) from the
/// generator `rng`, keyed by whole-lattice site: the same momenta on any space.
pub fn refresh<S: Space>(lat: S, rng: Philox, p: &mut LinksOf<S>) -> ongpu::Result<()> {
    on_gpu!(lat, |i| {
        let w = lat.whole_index(i);
        for mu in 0..4 {
            let d = (8 * mu) as u32;
            p[mu] = su3_from_coordinates(
                rng.normal_f64(w, d),
                rng.normal_f64(w, d + 1),
                rng.normal_f64(w, d + 2),
                rng.normal_f64(w, d + 3),
                rng.normal_f64(w, d + 4),
                rng.normal_f64(w, d + 5),
                rng.normal_f64(w, d + 6),
                rng.normal_f64(w, d + 7),
            );
        }
    })
}

/// The kinetic energy `K = −Σ_{x,mu} tr P_mu(x)² = ½ Σ p²` (for anti-Hermitian `P`,
/// `−tr P² = |P|²`).
pub fn kinetic_energy<S: Space>(lat: S, p: &LinksOf<S>) -> ongpu::Result<f64> {
    on_gpu!(sum: lat, {
        p[0].norm2() + p[1].norm2() + p[2].norm2() + p[3].norm2()
    })
}
