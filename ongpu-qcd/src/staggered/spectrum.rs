//! The top of the spectrum of an even-odd normal operator `A = m² − D_eo D_oe`, by the power
//! method: what a rational approximation's range must cover. (The bottom needs no
//! estimate: `A ≥ m²` exactly, as `−D_eo D_oe = D_oe† D_oe ≥ 0`.)

use super::multi_shift::ShiftedNormal;
use super::FermionOf;
use ongpu::prelude::*;

/// The Rayleigh quotient `⟨x, A x⟩/⟨x, x⟩` after `iterations` power iterations from a fixed
/// Gaussian start: an estimate of the largest eigenvalue of `A` from below, converging as
/// `(λ₂/λ₁)^{2k}`.
pub fn largest_eigenvalue<S: Space, O: ShiftedNormal<S>>(
    op: &O,
    iterations: usize,
) -> ongpu::Result<f64> {
    let lat = op.space();
    let mut x: FermionOf<S> = lat.zeros()?;
    let mut t: FermionOf<S> = lat.zeros()?;
    let mut w: FermionOf<S> = lat.zeros()?;
    let rng = Philox::new(0x5eed_fa11);
    on_gpu!(lat.even(), |i| {
        let s = lat.whole_index(i);
        x = ColorVector::new([
            Complex::new(rng.normal_f64(s, 0), rng.normal_f64(s, 1)),
            Complex::new(rng.normal_f64(s, 2), rng.normal_f64(s, 3)),
            Complex::new(rng.normal_f64(s, 4), rng.normal_f64(s, 5)),
        ]);
    })?;
    let mut estimate = 0.0;
    for _ in 0..iterations.max(1) {
        let (xx, xw) = op.apply_shifted(&x, 0.0, &mut t, &mut w)?;
        estimate = xw / xx;
        let ww: f64 = on_gpu!(sum: lat.even(), { w.norm2() })?;
        let scale = 1.0 / ww.sqrt();
        on_gpu!(lat.even(), {
            x = scale * w;
        })?;
    }
    Ok(estimate)
}
