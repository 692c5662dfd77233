//! The packed storage of a clover block and its algebra, as device functions (the same code
//! in CUDA kernels and on CPU threads).
//!
//! In the chiral basis the clover term is two Hermitian 6×6 blocks per site, one for the
//! upper spins (0, 1) and one for the lower (2, 3). A block in colour blocks is
//! `[[P, Q], [Q†, R]]` with `P`, `R` Hermitian 3×3 and `Q` any 3×3: 9 + 9 + 18 = 36 reals,
//! stored as six colour vectors (`CloverSite` holds the two blocks, upper first):
//!
//! | vector | holds |
//! |---|---|
//! | 0, 1, 2 | the rows of `Q` |
//! | 3 | the real diagonals: `(P00 + i R00, P11 + i R11, P22 + i R22)` |
//! | 4 | `P`'s lower triangle `(P10, P20, P21)` |
//! | 5 | `R`'s lower triangle `(R10, R20, R21)` |
//!
//! Applying a block to a half spinor `(a, b)` (two colour vectors) is `(P a + Q b,
//! Q† a + R b)`; inverting it goes through the Schur complement `S = R − Q† P⁻¹ Q`.

use ongpu::prelude::*;

/// The Hermitian matrix of real diagonal `(d0, d1, d2)` and lower triangle
/// `l = (m10, m20, m21)`.
#[ongpu::device]
pub fn hermitian<T: Real>(d0: T, d1: T, d2: T, l: ColorVector<T>) -> ColorMatrix<T> {
    ColorMatrix::new([
        [Complex::new(d0, 0.0), l[0].conj(), l[1].conj()],
        [l[0], Complex::new(d1, 0.0), l[2].conj()],
        [l[1], l[2], Complex::new(d2, 0.0)],
    ])
}

/// The matrix of rows `a`, `b`, `c`.
#[ongpu::device]
pub fn from_rows<T: Real>(
    a: ColorVector<T>,
    b: ColorVector<T>,
    c: ColorVector<T>,
) -> ColorMatrix<T> {
    ColorMatrix::new([[a[0], a[1], a[2]], [b[0], b[1], b[2]], [c[0], c[1], c[2]]])
}

/// Row `k` of `m`.
#[ongpu::device]
pub fn row<T: Real>(m: ColorMatrix<T>, k: usize) -> ColorVector<T> {
    ColorVector::new([m[k][0], m[k][1], m[k][2]])
}

/// The real diagonals of `p` and `r` as one vector, `(p00 + i r00, p11 + i r11, p22 + i r22)`.
#[ongpu::device]
pub fn diagonals<T: Real>(p: ColorMatrix<T>, r: ColorMatrix<T>) -> ColorVector<T> {
    ColorVector::new([
        Complex::new(p[0][0].re, r[0][0].re),
        Complex::new(p[1][1].re, r[1][1].re),
        Complex::new(p[2][2].re, r[2][2].re),
    ])
}

/// The lower triangle `(m10, m20, m21)`.
#[ongpu::device]
pub fn lower<T: Real>(m: ColorMatrix<T>) -> ColorVector<T> {
    ColorVector::new([m[1][0], m[2][0], m[2][1]])
}

/// The upper rows of a packed block (vectors `q0 q1 q2 d lp`) times `(a, b)`: `P a + Q b`.
#[ongpu::device]
#[allow(clippy::too_many_arguments)]
pub fn block_top<T: Real>(
    q0: ColorVector<T>,
    q1: ColorVector<T>,
    q2: ColorVector<T>,
    d: ColorVector<T>,
    lp: ColorVector<T>,
    a: ColorVector<T>,
    b: ColorVector<T>,
) -> ColorVector<T> {
    hermitian(d[0].re, d[1].re, d[2].re, lp) * a + from_rows(q0, q1, q2) * b
}

/// The lower rows of a packed block (vectors `q0 q1 q2 d lr`) times `(a, b)`: `Q† a + R b`.
#[ongpu::device]
#[allow(clippy::too_many_arguments)]
pub fn block_bottom<T: Real>(
    q0: ColorVector<T>,
    q1: ColorVector<T>,
    q2: ColorVector<T>,
    d: ColorVector<T>,
    lr: ColorVector<T>,
    a: ColorVector<T>,
    b: ColorVector<T>,
) -> ColorVector<T> {
    from_rows(q0, q1, q2).adj() * a + hermitian(d[0].im, d[1].im, d[2].im, lr) * b
}

/// The determinant of a 3×3 complex matrix (expansion along the first row).
#[ongpu::device]
pub fn det3(m: ColorMatrix<f64>) -> Complex<f64> {
    m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
}

/// The inverse of a 3×3 complex matrix (its adjugate over its determinant; not finite for a
/// singular one).
#[ongpu::device]
pub fn inverse3(m: ColorMatrix<f64>) -> ColorMatrix<f64> {
    let adjugate = ColorMatrix::new([
        [
            m[1][1] * m[2][2] - m[1][2] * m[2][1],
            m[0][2] * m[2][1] - m[0][1] * m[2][2],
            m[0][1] * m[1][2] - m[0][2] * m[1][1],
        ],
        [
            m[1][2] * m[2][0] - m[1][0] * m[2][2],
            m[0][0] * m[2][2] - m[0][2] * m[2][0],
            m[0][2] * m[1][0] - m[0][0] * m[1][2],
        ],
        [
            m[1][0] * m[2][1] - m[1][1] * m[2][0],
            m[0][1] * m[2][0] - m[0][0] * m[2][1],
            m[0][0] * m[1][1] - m[0][1] * m[1][0],
        ],
    ]);
    adjugate * (Complex::new(1.0, 0.0) / det3(m))
}

/// `|det P| · |det S|` of a packed block (vectors `q0 q1 q2 d lp lr`), `S = R − Q† P⁻¹ Q`:
/// the block's determinant in magnitude, zero (or not finite) where the inversion by the
/// Schur complement cannot go through.
#[ongpu::device]
#[allow(clippy::too_many_arguments)]
pub fn block_pivots(
    q0: ColorVector<f64>,
    q1: ColorVector<f64>,
    q2: ColorVector<f64>,
    d: ColorVector<f64>,
    lp: ColorVector<f64>,
    lr: ColorVector<f64>,
) -> f64 {
    let p = hermitian(d[0].re, d[1].re, d[2].re, lp);
    let q = from_rows(q0, q1, q2);
    let r = hermitian(d[0].im, d[1].im, d[2].im, lr);
    let s = r - q.adj() * inverse3(p) * q;
    det3(p).norm() * det3(s).norm()
}

/// An `on_gpu!` pass over `$sites` writing `$out = $a · s` for the spinor
/// `s = [$s0, $s1, $s2, $s3]` (expressions of the body, all evaluated before `$out` is
/// written) and the packed blocks `$a` of each site: the upper block on spins 0, 1, the lower
/// on spins 2, 3. The caller has `on_gpu`, `block_top` and `block_bottom` in scope; its
/// captures must not be spelled `s0` … `s3` (the macro sees names by their spelling).
macro_rules! apply_blocks {
    ($sites:expr, $a:ident, $out:ident, [$s0:expr, $s1:expr, $s2:expr, $s3:expr]) => {
        on_gpu!($sites, {
            let s0 = $s0;
            let s1 = $s1;
            let s2 = $s2;
            let s3 = $s3;
            $out[0] = block_top($a[0], $a[1], $a[2], $a[3], $a[4], s0, s1);
            $out[1] = block_bottom($a[0], $a[1], $a[2], $a[3], $a[5], s0, s1);
            $out[2] = block_top($a[6], $a[7], $a[8], $a[9], $a[10], s2, s3);
            $out[3] = block_bottom($a[6], $a[7], $a[8], $a[9], $a[11], s2, s3);
        })
    };
}
pub(crate) use apply_blocks;
