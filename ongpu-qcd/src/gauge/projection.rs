//! Projections onto the groups as device functions: reunitarisation (links drift off SU(3)
//! by rounding over many updates, and every update ends by projecting them back), and the
//! polar projections onto U(3) (HISQ's smearing) and SU(3) (APE smearing).

use ongpu::prelude::*;

/// Back onto SU(3): Gram–Schmidt on the first two rows, the third their conjugate cross
/// product. Rounding drifts links off the group over many updates; this removes the drift.
#[ongpu::device]
pub fn reunitarise(m: ColorMatrix<f64>) -> ColorMatrix<f64> {
    let mut u = m;
    let n0 = (u[0][0].norm_sqr() + u[0][1].norm_sqr() + u[0][2].norm_sqr()).sqrt();
    for j in 0..3 {
        u[0][j] /= n0;
    }
    let c = u[0][0].conj() * u[1][0] + u[0][1].conj() * u[1][1] + u[0][2].conj() * u[1][2];
    for j in 0..3 {
        let along = c * u[0][j];
        u[1][j] -= along;
    }
    let n1 = (u[1][0].norm_sqr() + u[1][1].norm_sqr() + u[1][2].norm_sqr()).sqrt();
    for j in 0..3 {
        u[1][j] /= n1;
    }
    u[2][0] = (u[0][1] * u[1][2] - u[0][2] * u[1][1]).conj();
    u[2][1] = (u[0][2] * u[1][0] - u[0][0] * u[1][2]).conj();
    u[2][2] = (u[0][0] * u[1][1] - u[0][1] * u[1][0]).conj();
    u
}

/// `W = m (m†m)^{−1/2}`, the unitary matrix closest to `m` (it maximises `Re tr(W† m)` over
/// U(3)), found by Newton's iteration `W ← (γW + W^{−†}/γ)/2` with the determinant scaling
/// `γ = |det W|^{−1/3}` (Higham), which converges quadratically for every invertible `m`;
/// `W^{−†}` has the conjugated cofactors of `W` over its conjugated determinant. Near a
/// singular `m` (a smeared link with a tiny singular value, which MILC guards against with
/// a floor on the eigenvalues of `m†m`), the scaling keeps the steps bounded and the
/// iteration stops after 40 steps at most; an exactly singular `m` gives NaN.
#[ongpu::device]
pub fn polar_u3(m: ColorMatrix<f64>) -> ColorMatrix<f64> {
    let mut w = m;
    let mut done = false;
    let mut step = 0usize;
    while !done && step < 40 {
        // The cofactors: row i is the cross product of rows i+1 and i+2.
        let c00 = w[1][1] * w[2][2] - w[1][2] * w[2][1];
        let c01 = w[1][2] * w[2][0] - w[1][0] * w[2][2];
        let c02 = w[1][0] * w[2][1] - w[1][1] * w[2][0];
        let c10 = w[2][1] * w[0][2] - w[2][2] * w[0][1];
        let c11 = w[2][2] * w[0][0] - w[2][0] * w[0][2];
        let c12 = w[2][0] * w[0][1] - w[2][1] * w[0][0];
        let c20 = w[0][1] * w[1][2] - w[0][2] * w[1][1];
        let c21 = w[0][2] * w[1][0] - w[0][0] * w[1][2];
        let c22 = w[0][0] * w[1][1] - w[0][1] * w[1][0];
        let det = w[0][0] * c00 + w[0][1] * c01 + w[0][2] * c02;
        let gamma = det.norm().powf(-1.0 / 3.0);
        // ½ / conj(γ det) = ½ γ det / |γ det|²
        let scaled = det * gamma;
        let inv = scaled * (0.5 / scaled.norm_sqr());
        let half = gamma * 0.5;
        let next = ColorMatrix::new([
            [
                w[0][0] * half + c00.conj() * inv,
                w[0][1] * half + c01.conj() * inv,
                w[0][2] * half + c02.conj() * inv,
            ],
            [
                w[1][0] * half + c10.conj() * inv,
                w[1][1] * half + c11.conj() * inv,
                w[1][2] * half + c12.conj() * inv,
            ],
            [
                w[2][0] * half + c20.conj() * inv,
                w[2][1] * half + c21.conj() * inv,
                w[2][2] * half + c22.conj() * inv,
            ],
        ]);
        done = (next - w).norm2() <= 1e-30;
        w = next;
        step += 1;
    }
    w
}

/// The SU(3) matrix closest to `m` in the sense of the polar decomposition: the unitary
/// factor `W = m (m†m)^{-1/2}` (which maximises `Re tr(W† m)` over U(3)), its determinant's
/// phase divided out (`W e^{−iφ/3}`, `φ = arg det W`). Unlike Gram–Schmidt
/// ([`reunitarise`]) it commutes with `m → g m h†` for any `g`, `h` in SU(3), which is what
/// keeps APE smearing gauge covariant. `W` is [`polar_u3`] (Newton's iteration with
/// determinant scaling). A singular `m` gives NaN.
#[ongpu::device]
pub fn polar_su3(m: ColorMatrix<f64>) -> ColorMatrix<f64> {
    let w = polar_u3(m);
    let d = w[0][0] * (w[1][1] * w[2][2] - w[1][2] * w[2][1])
        + w[0][1] * (w[1][2] * w[2][0] - w[1][0] * w[2][2])
        + w[0][2] * (w[1][0] * w[2][1] - w[1][1] * w[2][0]);
    let third = -d.arg() / 3.0;
    w * Complex::new(third.cos(), third.sin())
}
