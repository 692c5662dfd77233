//! The Lie algebra su(3) on the device: the projection of a matrix onto it and the
//! exponential back to the group, for the gradient flow (and the molecular dynamics of HMC).
//!
//! The exponential uses the Cayley–Hamilton theorem, as openQCD does: a traceless 3×3 `Y`
//! satisfies `Y³ = c₁ Y + c₀` with `c₁ = tr(Y²)/2` and `c₀ = det Y = tr(Y³)/3`, so every
//! power, and the Taylor series of `exp(Y)`, is `a + b Y + c Y²` with scalar coefficients
//! that follow by a recursion on three complex numbers. The series is summed to machine
//! precision for `|Y| ≤ 1` (Frobenius norm; 22 terms: `1/22! < 10⁻²¹`), and a larger `X` is
//! scaled by `2⁻ᵏ` into that range and the result squared `k` times. Unlike the closed form
//! of Morningstar and Peardon (Phys. Rev. D 69 (2004) 054501), it has no division by a
//! quantity that vanishes as `X → 0` or at degenerate eigenvalues.

use ongpu::prelude::*;

/// The traceless anti-Hermitian part `(M − M†)/2 − tr(M − M†)/6`: the projection onto
/// su(3) of the forces and the field strength.
#[ongpu::device]
pub fn traceless_antihermitian(m: ColorMatrix<f64>) -> ColorMatrix<f64> {
    let a = (m - m.adj()) * 0.5;
    let third = a.trace() * (1.0 / 3.0);
    a - ColorMatrix::identity() * third
}

/// `exp(X)` for a traceless anti-Hermitian `X` (in SU(3), to rounding); see the module
/// documentation for the method.
#[ongpu::device]
pub fn exp_su3(x: ColorMatrix<f64>) -> ColorMatrix<f64> {
    // The scale 2^-k that brings |X| to at most 1.
    let n2 = x.norm2();
    let mut s = 1.0;
    let mut k = 0usize;
    for _halving in 0..64 {
        if n2 * s * s > 1.0 {
            s *= 0.5;
            k += 1;
        }
    }
    let y = x * s;
    let y2 = y * y;
    let c1 = y2.trace() * 0.5;
    let c0 = (y2 * y).trace() * (1.0 / 3.0);
    // Y^n/n! = a + b Y + c Y², and Y^(n+1) = c c₀ + (a + c c₁) Y + b Y².
    let mut a = Complex::new(1.0, 0.0);
    let mut b = Complex::new(0.0, 0.0);
    let mut c = Complex::new(0.0, 0.0);
    let mut sa = a;
    let mut sb = b;
    let mut sc = c;
    // 22 terms after the constant: 1/22! < 1e-21.
    for n in 1..23 {
        let inv = 1.0 / (n as f64);
        let na = c * c0 * inv;
        let nb = (a + c * c1) * inv;
        let nc = b * inv;
        a = na;
        b = nb;
        c = nc;
        sa += a;
        sb += b;
        sc += c;
    }
    let mut e = ColorMatrix::identity() * sa + y * sb + y2 * sc;
    for _squaring in 0..k {
        e = e * e;
    }
    e
}

/// The outer product `a b†` of two colour vectors: the matrix whose `(i, j)` entry is
/// `a_i conj(b_j)` (the colour structure of a fermion force).
#[ongpu::device]
pub fn outer_product(a: ColorVector<f64>, b: ColorVector<f64>) -> ColorMatrix<f64> {
    let b0 = b[0].conj();
    let b1 = b[1].conj();
    let b2 = b[2].conj();
    ColorMatrix::new([
        [a[0] * b0, a[0] * b1, a[0] * b2],
        [a[1] * b0, a[1] * b1, a[1] * b2],
        [a[2] * b0, a[2] * b1, a[2] * b2],
    ])
}
