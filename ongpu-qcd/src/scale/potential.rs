//! The static potential from Wilson loops, the force with the tree-level improved distance,
//! and the Sommer scale.
//!
//! - `V(r) = ln(W(r, t) / W(r, t + 1))` at one `t`: the energy of the static pair once the
//!   excited states have decayed (smeared spatial links make that early).
//! - The force between neighbouring distances, `F = V(r) − V(r − 1)`, is assigned to the
//!   distance `r_I` at which the tree-level (one-gluon) lattice force equals the continuum
//!   one: `1/(4π r_I²) = −(G(r) − G(r − 1))`, `G` the lattice Coulomb potential of unit
//!   charge on the axis (R. Sommer, Nucl. Phys. B411 (1994) 839). This removes the leading
//!   lattice artefact of the short-distance force.
//! - `r₀` solves `r² F(r) = 1.65` (Sommer's definition): around the first distance where
//!   `r_I² F` rises through 1.65, `r² F` is taken as `σ r² + c` (the Cornell force
//!   `σ + c/r²`), fitted by least squares to the two points below and the two above (fewer
//!   where the data end), so `r₀ = √((1.65 − c)/σ)`. Four points rather than the two that
//!   bracket the crossing average the noise of single force differences, which grows with
//!   `r`.

use std::f64::consts::PI;
use std::sync::OnceLock;

/// `r₀² F(r₀)`, Sommer's reference value.
pub const SOMMER_REFERENCE: f64 = 1.65;

/// `V(r)` for `r` in `1..=r_max` from the loops at `t` and `t + 1` (NaN where a loop is not
/// positive).
pub fn potential(loops: &super::WilsonLoops, t: usize) -> Vec<f64> {
    (1..=loops.r_max())
        .map(|r| {
            let (a, b) = (loops.get(r, t), loops.get(r, t + 1));
            if a > 0.0 && b > 0.0 {
                (a / b).ln()
            } else {
                f64::NAN
            }
        })
        .collect()
}

/// Midpoints per half axis of the Coulomb integral.
const QUADRATURE_POINTS: usize = 192;

/// The tree-level improved distance of the force between `r − 1` and `r` on an axis
/// (`r ≥ 2`); close to `√(r (r − 1))`, the continuum's, for large `r`.
pub fn improved_distance(r: usize) -> f64 {
    static KERNEL: OnceLock<Vec<f64>> = OnceLock::new();
    let kernel = KERNEL.get_or_init(|| coulomb_kernel(QUADRATURE_POINTS));
    distance_from_kernel(kernel, r)
}

/// `h(k₁) = Σ_{k₂,k₃} 1/(4 Σ_i sin²(k_i/2))` at the midpoints `k = (j + ½) π / n` of
/// `(0, π)`: the Coulomb propagator summed over the two transverse momenta (the integrand is
/// even in each, so the half range serves).
fn coulomb_kernel(n: usize) -> Vec<f64> {
    let s: Vec<f64> = (0..n)
        .map(|j| ((j as f64 + 0.5) * PI / n as f64 / 2.0).sin().powi(2))
        .collect();
    s.iter()
        .map(|s1| {
            let mut h = 0.0;
            for (j2, s2) in s.iter().enumerate() {
                h += 1.0 / (4.0 * (s1 + 2.0 * s2));
                for s3 in &s[j2 + 1..] {
                    h += 2.0 / (4.0 * (s1 + s2 + s3));
                }
            }
            h
        })
        .collect()
}

/// `r_I` from the kernel.
fn distance_from_kernel(kernel: &[f64], r: usize) -> f64 {
    assert!(r >= 2, "the force needs r ≥ 2, not {r}");
    (-1.0 / (4.0 * PI * coulomb_difference(kernel, r))).sqrt()
}

/// `G(r) − G(r−1) = n⁻³ Σ_{k₁} (cos k₁r − cos k₁(r−1)) h(k₁)`.
fn coulomb_difference(kernel: &[f64], r: usize) -> f64 {
    let n = kernel.len() as f64;
    kernel
        .iter()
        .enumerate()
        .map(|(j, h)| {
            let k = (j as f64 + 0.5) * PI / n;
            ((k * r as f64).cos() - (k * (r - 1) as f64).cos()) * h
        })
        .sum::<f64>()
        / (n * n * n)
}

/// `(r_I, r_I² F)` for `r` in `2..=v.len()`, from `v[r − 1] = V(r)`.
pub fn force(v: &[f64]) -> Vec<(f64, f64)> {
    (2..=v.len())
        .map(|r| {
            let ri = improved_distance(r);
            (ri, ri * ri * (v[r - 1] - v[r - 2]))
        })
        .collect()
}

/// `r₀/a` from `v[r − 1] = V(r)`: where `r_I² F` first rises through 1.65, by the local
/// fit the module describes; `None` if it never does (or a value is NaN before it does).
pub fn sommer_r0(v: &[f64]) -> Option<f64> {
    let points = force(v);
    let k = points
        .windows(2)
        .position(|w| w[0].1 < SOMMER_REFERENCE && w[1].1 >= SOMMER_REFERENCE)?;
    let window = &points[k.saturating_sub(1)..(k + 3).min(points.len())];
    // Least squares of y = σ x + c in x = r_I².
    let n = window.len() as f64;
    let (sx, sy) = window
        .iter()
        .fold((0.0, 0.0), |(a, b), &(r, y)| (a + r * r, b + y));
    let (mx, my) = (sx / n, sy / n);
    let (sxx, sxy) = window.iter().fold((0.0, 0.0), |(a, b), &(r, y)| {
        let dx = r * r - mx;
        (a + dx * dx, b + dx * (y - my))
    });
    let sigma = sxy / sxx;
    let c = my - sigma * mx;
    let r0_squared = (SOMMER_REFERENCE - c) / sigma;
    (sigma > 0.0 && r0_squared > 0.0).then(|| r0_squared.sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The quadrature meets the exact `G(0) − G(1) = 1/6` (the lattice Laplacian of the
    /// Green function is the delta at the origin), has converged, and the improved distance
    /// tends to the continuum's `√(r (r − 1))` as the lattice's artefacts (`O(1/r²)`
    /// relative) die out.
    #[test]
    fn improved_distance_converges_to_the_continuum() {
        let coarse = coulomb_kernel(96);
        let nearest = coulomb_difference(&coarse, 1);
        assert!(
            (nearest + 1.0 / 6.0).abs() < 1e-4,
            "G(1) − G(0) = {nearest}"
        );
        for r in 2..=12 {
            let (fine, rough) = (improved_distance(r), distance_from_kernel(&coarse, r));
            assert!(
                (fine - rough).abs() < 2e-4 * fine,
                "r = {r}: {fine} vs {rough}"
            );
        }
        let continuum = |r: f64| (r * (r - 1.0)).sqrt();
        let gap = |r: usize| (improved_distance(r) - continuum(r as f64)).abs();
        assert!(
            gap(10) < 0.05 && gap(10) < gap(5) && gap(5) < gap(3),
            "{} {} {}",
            gap(10),
            gap(5),
            gap(3)
        );
    }

    /// A Cornell potential `V = A + B/r + σ r` sampled with the improved distances' force
    /// (`F(r_I) = σ − B/r_I²`) gives back its `r₀ = √((1.65 + B)/σ)` exactly.
    #[test]
    fn r0_of_a_cornell_force() {
        let (b, sigma) = (-0.26, 0.05);
        let mut v = vec![0.3];
        for r in 2..=10 {
            let ri = improved_distance(r);
            v.push(v[r - 2] + sigma - b / (ri * ri));
        }
        let want = ((SOMMER_REFERENCE + b) / sigma).sqrt();
        let got = sommer_r0(&v).unwrap();
        assert!((got - want).abs() < 1e-12, "{got} vs {want}");
        assert!(sommer_r0(&v[..3]).is_none());
    }
}
