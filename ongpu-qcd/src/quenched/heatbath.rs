//! The link updates: a Cabibbo–Marinari heatbath (Kennedy–Pendleton in each of the three
//! SU(2) subgroups, with an exact rejection sampler where KP is slow) and overrelaxation.
//!
//! The local action of a link `U` with staple sum `A` is `−(β/3) Re tr(U A)`. Multiplying
//! `U` from the left by an SU(2) element `r` in rows (p, q) changes it by
//! `−(β/3) Re tr(r w)`, with `w` the (p, q) block of `W = U A`; only the quaternion
//! projection `k v` of `w` (v in SU(2), k ≥ 0) matters. With `X = r v`, the heatbath draws
//! `X` with weight `exp((2βk/3) x0)` under the Haar measure, then `r = X v†`.

use super::su2::{project, rotate_rows};
use crate::gauge::reunitarise;
use ongpu::prelude::*;

/// `x0` with density `∝ √(1 − x0²) exp(α x0)` on `[−1, 1]`, from draws `base..base + 1024`.
///
/// For α ≥ 1, Kennedy–Pendleton (Phys. Lett. B 156 (1985) 393): `λ² = −(ln r1 +
/// cos²(2π r2) ln r3) / (2α)`, accepted with probability `√(1 − λ²)`, `x0 = 1 − 2λ²`. Its
/// `−cos²(2π r2) ln r3` is `z²/2` for a standard normal `z` (Box–Muller), which is how it is
/// drawn here. For α < 1, where KP mostly rejects, the first coordinate of a uniform point of
/// the unit disk (`√r1` times a uniform direction, from two normals) has density `√(1 − x0²)`
/// and is accepted with probability `exp(α (x0 − 1))`. Both are exact; 256 attempts fail
/// with probability below 0.6^256 (then `x0 = 1`: `X = 1`, and the subgroup block becomes
/// `v†`, the most probable element, the draw's limit as β → ∞, not the old link). No
/// trigonometric function is called: the GPU's would bring a stack frame for its slow path.
#[ongpu::device]
pub fn su2_x0(alpha: f64, rng: Philox, site: usize, base: u32) -> f64 {
    let mut x0 = 1.0;
    let mut attempt = 0u32;
    let mut done = false;
    while !done && attempt < 256 {
        let d = base + 4 * attempt;
        let r1 = rng.uniform_f64(site, d);
        let z1 = rng.normal_f64(site, d + 1);
        let z2 = rng.normal_f64(site, d + 2);
        let r4 = rng.uniform_f64(site, d + 3);
        if alpha >= 1.0 {
            let lambda2 = (0.5 * z1 * z1 - r1.ln()) / (2.0 * alpha);
            if r4 * r4 <= 1.0 - lambda2 {
                x0 = 1.0 - 2.0 * lambda2;
                done = true;
            }
        } else {
            let candidate = r1.sqrt() * z1 / (z1 * z1 + z2 * z2).sqrt();
            if r4 <= (alpha * (candidate - 1.0)).exp() {
                x0 = candidate;
                done = true;
            }
        }
        attempt += 1;
    }
    x0
}

/// One heatbath update of a link with staple sum `staple`: the three subgroups in turn, then
/// back onto SU(3). Draws `sub * 2048 + 0..1027` of `site` in the generator's stream.
#[ongpu::device]
pub fn heatbath_link(
    link: ColorMatrix<f64>,
    staple: ColorMatrix<f64>,
    beta: f64,
    rng: Philox,
    site: usize,
) -> ColorMatrix<f64> {
    let mut u = link;
    for sub in 0..3u32 {
        let w = u * staple;
        let a0 = project(w, sub, 0);
        let a1 = project(w, sub, 1);
        let a2 = project(w, sub, 2);
        let a3 = project(w, sub, 3);
        let k = (a0 * a0 + a1 * a1 + a2 * a2 + a3 * a3).sqrt();
        if k > 1e-14 {
            let base = sub * 2048;
            let x0 = su2_x0(2.0 * beta * k / 3.0, rng, site, base);
            // A uniform direction for the rest of the unit quaternion: three normals,
            // normalised.
            let xr = (1.0 - x0 * x0).max(0.0).sqrt();
            let n1 = rng.normal_f64(site, base + 1024);
            let n2 = rng.normal_f64(site, base + 1025);
            let n3 = rng.normal_f64(site, base + 1026);
            let scale = xr / (n1 * n1 + n2 * n2 + n3 * n3).sqrt();
            let x1 = scale * n1;
            let x2 = scale * n2;
            let x3 = scale * n3;
            // r = X v†, v† = (a0, −a) / k; (p0, p)(q0, q) = (p0 q0 − p·q, p0 q + q0 p − p × q).
            let b0 = a0 / k;
            let b1 = -a1 / k;
            let b2 = -a2 / k;
            let b3 = -a3 / k;
            let r0 = x0 * b0 - (x1 * b1 + x2 * b2 + x3 * b3);
            let r1 = x0 * b1 + b0 * x1 - (x2 * b3 - x3 * b2);
            let r2 = x0 * b2 + b0 * x2 - (x3 * b1 - x1 * b3);
            let r3 = x0 * b3 + b0 * x3 - (x1 * b2 - x2 * b1);
            u = rotate_rows(u, sub, r0, r1, r2, r3);
        }
    }
    reunitarise(u)
}

/// One overrelaxation update: in each subgroup `r = (v†)²`, which leaves `Re tr(U A)`, and so
/// the action, unchanged (a microcanonical move that decorrelates faster than the heatbath).
#[ongpu::device]
pub fn overrelax_link(link: ColorMatrix<f64>, staple: ColorMatrix<f64>) -> ColorMatrix<f64> {
    let mut u = link;
    for sub in 0..3u32 {
        let w = u * staple;
        let a0 = project(w, sub, 0);
        let a1 = project(w, sub, 1);
        let a2 = project(w, sub, 2);
        let a3 = project(w, sub, 3);
        let k = (a0 * a0 + a1 * a1 + a2 * a2 + a3 * a3).sqrt();
        if k > 1e-14 {
            // v† = (a0, −a) / k, squared: ((a0² − a²) / k², −2 a0 a / k²).
            let kk = k * k;
            let r0 = (a0 * a0 - (a1 * a1 + a2 * a2 + a3 * a3)) / kk;
            let s = -2.0 * a0 / kk;
            u = rotate_rows(u, sub, r0, s * a1, s * a2, s * a3);
        }
    }
    reunitarise(u)
}
