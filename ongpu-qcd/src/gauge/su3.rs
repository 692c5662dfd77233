//! SU(3) matrices on the host: projection onto the group and random elements, for set-up
//! and for the host references that check device results.

use ongpu::prelude::*;
use rand::rngs::SmallRng;
use rand::Rng;

/// Gauge links on the host, `links[site][mu] = U_mu(x)`, in the lattice's site order.
pub type HostLinks = Vec<[ColorMatrix<f64>; 4]>;

/// A random complex number with parts uniform in [-1, 1).
pub fn random_complex(r: &mut SmallRng) -> Complex<f64> {
    Complex::new(r.random_range(-1.0..1.0), r.random_range(-1.0..1.0))
}

/// A random complex 3x3 matrix with parts uniform in [-1, 1).
pub fn random_matrix(r: &mut SmallRng) -> ColorMatrix<f64> {
    ColorMatrix::new(std::array::from_fn(|_| {
        std::array::from_fn(|_| random_complex(r))
    }))
}

/// The SU(3) matrix of `m`'s first two rows: Gram-Schmidt makes them orthonormal, and the
/// third row is the conjugate of their cross product, which makes the determinant 1.
pub fn project_su3(m: &ColorMatrix<f64>) -> ColorMatrix<f64> {
    let dot = |a: &[Complex<f64>; 3], b: &[Complex<f64>; 3]| -> Complex<f64> {
        (0..3).map(|k| a[k].conj() * b[k]).sum()
    };
    let normalise = |a: [Complex<f64>; 3]| {
        let n = dot(&a, &a).re.sqrt();
        a.map(|z| z / n)
    };
    let r0 = normalise(m.m[0]);
    let o = dot(&r0, &m.m[1]);
    let r1 = normalise(std::array::from_fn(|k| m.m[1][k] - o * r0[k]));
    let r2 = [
        (r0[1] * r1[2] - r0[2] * r1[1]).conj(),
        (r0[2] * r1[0] - r0[0] * r1[2]).conj(),
        (r0[0] * r1[1] - r0[1] * r1[0]).conj(),
    ];
    ColorMatrix::new([r0, r1, r2])
}

/// A standard complex normal deviate (Box–Muller: independent real and imaginary parts).
pub fn gaussian_complex(r: &mut SmallRng) -> Complex<f64> {
    // 1 − u lies in (0, 1], so the logarithm is finite.
    let radius = (-2.0 * (1.0 - r.random::<f64>()).ln()).sqrt();
    let (sin, cos) = (std::f64::consts::TAU * r.random::<f64>()).sin_cos();
    Complex::new(radius * cos, radius * sin)
}

/// An SU(3) matrix from the Haar measure. Gram–Schmidt of rows of independent complex
/// normal entries is the QR decomposition with a positive diagonal of a Ginibre matrix,
/// whose unitary factor is Haar-distributed on U(3) (Mezzadri, Notices AMS 54 (2007) 592,
/// math-ph/0609050); its first two rows are then distributed as those of a Haar SU(3)
/// matrix (the invariant measure on pairs of orthonormal rows is unique), and the third row
/// `(r0 × r1)*` is the one that makes the determinant 1. (Rows of entries uniform in a
/// square, which this drew before, are not rotation-invariant: not Haar.)
pub fn random_su3(r: &mut SmallRng) -> ColorMatrix<f64> {
    let gaussian = ColorMatrix::new(std::array::from_fn(|_| {
        std::array::from_fn(|_| gaussian_complex(r))
    }));
    project_su3(&gaussian)
}

/// The largest deviation of `m` from SU(3): the entries of `m†m − 1` and `|det m − 1|`.
pub fn distance_from_su3(m: &ColorMatrix<f64>) -> f64 {
    let p = m.adj() * *m;
    let mut worst: f64 = 0.0;
    for i in 0..3 {
        for j in 0..3 {
            let want = if i == j { 1.0 } else { 0.0 };
            worst = worst.max((p[i][j] - Complex::new(want, 0.0)).norm());
        }
    }
    worst.max((determinant(m) - Complex::new(1.0, 0.0)).norm())
}

/// The determinant of a 3x3 complex matrix.
pub fn determinant(m: &ColorMatrix<f64>) -> Complex<f64> {
    m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
}
