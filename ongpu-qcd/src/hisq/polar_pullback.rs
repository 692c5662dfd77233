//! The chain rule through the U(3) projection `W = V (V†V)^{−1/2}`: the gradient with
//! respect to `V` from the gradient with respect to `W` (gradients in the convention
//! `δS = Σ Re tr(G† δV)`).
//!
//! With `S = W†V = (V†V)^{1/2}` and `R = S⁻¹`, `δW = δV R + V δR`, `δR = −R δS R` and
//! `S δS + δS S = δQ`, `Q = V†V`. Carried backwards:
//!
//! `G_V = G_W R − V (Y + Y†)`, where `S Y + Y S = R K R` and `K = V† G_W`.
//!
//! The Sylvester equation `S Y + Y S = C` is solved in closed form through the
//! Cayley–Hamilton theorem (`p(λ) = λ³ + c₂λ² + c₁λ + c₀` the characteristic polynomial of
//! `S`): `Y = −[c₁ C + c₂ (S C − C S) + C S² − S C S + S² C] p(−S)⁻¹`. Unlike MILC's and
//! QUDA's form through the eigenvalues of `Q`, it divides by no difference of eigenvalues,
//! so it holds as written at degenerate ones (a unit link, a cold start); `p(−S) =
//! −Π (S + λᵢ)` is invertible whenever `V` is.

use crate::gauge::polar_u3;
use crate::wilson::clover_algebra::{det3, inverse3};
use ongpu::prelude::*;

/// `G_V`, the gradient with respect to `v` of a function whose gradient with respect to
/// `W = polar_u3(v)` is `g`.
#[ongpu::device]
pub fn polar_u3_pullback(v: ColorMatrix<f64>, g: ColorMatrix<f64>) -> ColorMatrix<f64> {
    let w = polar_u3(v);
    let s_raw = w.adj() * v;
    let s = (s_raw + s_raw.adj()) * 0.5;
    let r = inverse3(s);
    let rkr = r * (v.adj() * g) * r;
    let s2 = s * s;
    let tr = s.trace();
    let c2 = -tr;
    let c1 = (tr * tr - s2.trace()) * 0.5;
    let c0 = -det3(s);
    let sum = rkr * c1 + (s * rkr - rkr * s) * c2 + rkr * s2 - s * rkr * s + s2 * rkr;
    let one = ColorMatrix::identity();
    let p_minus_s = s2 * s * (-1.0) + s2 * c2 - s * c1 + one * c0;
    let y = sum * inverse3(p_minus_s) * (-1.0);
    g * r - v * (y + y.adj())
}
