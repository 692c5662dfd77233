//! [`ColorMatrix`]: a 3x3 complex matrix, the gauge link of lattice QCD.

use super::color_vector::ColorVector;
use super::real::{Norm2, Real};
use crate::element::Element;
use num_complex::Complex;
use std::ops::{
    Add, AddAssign, Div, DivAssign, Index, IndexMut, Mul, MulAssign, Neg, Sub, SubAssign,
};

/// A 3x3 complex matrix, row-major. `#[repr(C)]`, 18 reals, matching
/// `ongpu::ColorMatrix<T>` of the CUDA prelude.
///
/// ```
/// use ongpu_runtime::{ColorMatrix, Complex};
/// let mut m = ColorMatrix::<f64>::identity() * 2.0;
/// m[0][1] = Complex::new(0.0, 1.0);
/// assert_eq!(m.trace(), Complex::new(6.0, 0.0));
/// assert_eq!(m.adj()[1][0], Complex::new(0.0, -1.0));
/// assert_eq!((m * ColorMatrix::identity()), m);
/// ```
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ColorMatrix<T> {
    /// The entries, `m[row][column]`.
    pub m: [[Complex<T>; 3]; 3],
}

// SAFETY: `#[repr(C)]` 3x3 array of `Complex<T>`: no padding, any bits valid for Pod `T`.
unsafe impl<T: bytemuck::Zeroable> bytemuck::Zeroable for ColorMatrix<T> {}
// SAFETY: as above.
unsafe impl<T: bytemuck::Pod> bytemuck::Pod for ColorMatrix<T> {}

impl<T> ColorMatrix<T> {
    /// A matrix from its rows (of any real, the 16-bit storage ones included).
    #[inline(always)]
    pub fn new(m: [[Complex<T>; 3]; 3]) -> Self {
        ColorMatrix { m }
    }
}

impl<T: Real> ColorMatrix<T> {
    /// The zero matrix.
    #[inline(always)]
    pub fn zero() -> Self {
        let z = Complex::new(T::zero(), T::zero());
        ColorMatrix { m: [[z; 3]; 3] }
    }

    /// The identity matrix.
    #[inline(always)]
    pub fn identity() -> Self {
        let mut r = Self::zero();
        for i in 0..3 {
            r.m[i][i] = Complex::new(T::one(), T::zero());
        }
        r
    }

    /// The Hermitian adjoint (conjugate transpose).
    #[inline(always)]
    pub fn adj(&self) -> Self {
        let mut r = *self;
        for i in 0..3 {
            for j in 0..3 {
                r.m[i][j] = self.m[j][i].conj();
            }
        }
        r
    }

    /// The transpose.
    #[inline(always)]
    pub fn transpose(&self) -> Self {
        let mut r = *self;
        for i in 0..3 {
            for j in 0..3 {
                r.m[i][j] = self.m[j][i];
            }
        }
        r
    }

    /// Complex conjugate of every entry.
    #[inline(always)]
    pub fn conj(&self) -> Self {
        ColorMatrix {
            m: self.m.map(|row| row.map(|z| z.conj())),
        }
    }

    /// The trace `Σ m_ii`.
    #[inline(always)]
    pub fn trace(&self) -> Complex<T> {
        self.m[0][0] + self.m[1][1] + self.m[2][2]
    }

    /// The squared Frobenius norm `Σ |m_ij|²`.
    #[inline(always)]
    pub fn norm2(&self) -> T {
        let mut acc = T::zero();
        for row in &self.m {
            for z in row {
                acc += z.norm2();
            }
        }
        acc
    }

    #[inline(always)]
    fn map(self, f: impl Fn(Complex<T>) -> Complex<T>) -> Self {
        ColorMatrix {
            m: self.m.map(|row| row.map(&f)),
        }
    }

    #[inline(always)]
    fn zip(self, o: Self, f: impl Fn(Complex<T>, Complex<T>) -> Complex<T>) -> Self {
        let mut r = self;
        for i in 0..3 {
            for j in 0..3 {
                r.m[i][j] = f(self.m[i][j], o.m[i][j]);
            }
        }
        r
    }
}

impl<T: Real> Norm2 for ColorMatrix<T> {
    type Output = T;
    fn norm2(&self) -> T {
        ColorMatrix::norm2(self)
    }
}

impl<T> Index<usize> for ColorMatrix<T> {
    type Output = [Complex<T>; 3];
    #[inline(always)]
    fn index(&self, row: usize) -> &[Complex<T>; 3] {
        &self.m[row]
    }
}

impl<T> IndexMut<usize> for ColorMatrix<T> {
    #[inline(always)]
    fn index_mut(&mut self, row: usize) -> &mut [Complex<T>; 3] {
        &mut self.m[row]
    }
}

impl<T: Real> Add for ColorMatrix<T> {
    type Output = Self;
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        self.zip(o, |a, b| a + b)
    }
}

impl<T: Real> Sub for ColorMatrix<T> {
    type Output = Self;
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        self.zip(o, |a, b| a - b)
    }
}

impl<T: Real> Neg for ColorMatrix<T> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        self.map(|z| -z)
    }
}

impl<T: Real> Mul for ColorMatrix<T> {
    type Output = Self;
    /// The matrix product; each entry sums `k = 0, 1, 2` in that order (the prelude does the
    /// same, so the backends round alike).
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        let mut r = Self::zero();
        for i in 0..3 {
            for j in 0..3 {
                let mut acc = self.m[i][0] * o.m[0][j];
                acc += self.m[i][1] * o.m[1][j];
                acc += self.m[i][2] * o.m[2][j];
                r.m[i][j] = acc;
            }
        }
        r
    }
}

impl<T: Real> Mul<ColorVector<T>> for ColorMatrix<T> {
    type Output = ColorVector<T>;
    #[inline(always)]
    fn mul(self, v: ColorVector<T>) -> ColorVector<T> {
        let mut r = ColorVector::zero();
        for i in 0..3 {
            let mut acc = self.m[i][0] * v.v[0];
            acc += self.m[i][1] * v.v[1];
            acc += self.m[i][2] * v.v[2];
            r.v[i] = acc;
        }
        r
    }
}

/// The matrix on each colour vector of an array (`u * h` for a Wilson half spinor
/// `[ColorVector<T>; 2]`: the link on both spin components of a projection).
impl<T: Real, const N: usize> Mul<[ColorVector<T>; N]> for ColorMatrix<T> {
    type Output = [ColorVector<T>; N];
    #[inline(always)]
    fn mul(self, v: [ColorVector<T>; N]) -> [ColorVector<T>; N] {
        v.map(|x| self * x)
    }
}

impl<T: Real> Mul<T> for ColorMatrix<T> {
    type Output = Self;
    #[inline(always)]
    fn mul(self, k: T) -> Self {
        self.map(|z| z * k)
    }
}

impl<T: Real> Div<T> for ColorMatrix<T> {
    type Output = Self;
    #[inline(always)]
    fn div(self, k: T) -> Self {
        self.map(|z| z / k)
    }
}

impl<T: Real> Mul<Complex<T>> for ColorMatrix<T> {
    type Output = Self;
    #[inline(always)]
    fn mul(self, k: Complex<T>) -> Self {
        self.map(|z| z * k)
    }
}

impl<T: Real> Mul<ColorMatrix<T>> for Complex<T> {
    type Output = ColorMatrix<T>;
    #[inline(always)]
    fn mul(self, m: ColorMatrix<T>) -> ColorMatrix<T> {
        m.map(|z| self * z)
    }
}

macro_rules! real_times_matrix {
    ($($t:ty),*) => {$(
        impl Mul<ColorMatrix<$t>> for $t {
            type Output = ColorMatrix<$t>;
            #[inline(always)]
            fn mul(self, m: ColorMatrix<$t>) -> ColorMatrix<$t> {
                m.map(|z| z * self)
            }
        }
    )*};
}
real_times_matrix!(f32, f64);

impl<T: Real> AddAssign for ColorMatrix<T> {
    #[inline(always)]
    fn add_assign(&mut self, o: Self) {
        *self = *self + o;
    }
}

impl<T: Real> SubAssign for ColorMatrix<T> {
    #[inline(always)]
    fn sub_assign(&mut self, o: Self) {
        *self = *self - o;
    }
}

impl<T: Real> MulAssign for ColorMatrix<T> {
    #[inline(always)]
    fn mul_assign(&mut self, o: Self) {
        *self = *self * o;
    }
}

impl<T: Real> MulAssign<T> for ColorMatrix<T> {
    #[inline(always)]
    fn mul_assign(&mut self, k: T) {
        *self = *self * k;
    }
}

impl<T: Real> MulAssign<Complex<T>> for ColorMatrix<T> {
    #[inline(always)]
    fn mul_assign(&mut self, k: Complex<T>) {
        *self = *self * k;
    }
}

impl<T: Real> DivAssign<T> for ColorMatrix<T> {
    #[inline(always)]
    fn div_assign(&mut self, k: T) {
        *self = *self / k;
    }
}

macro_rules! element {
    ($($t:ty => $cuda:literal),*) => {$(
        // SAFETY: 9 complex = 18 reals, `#[repr(C)]`, no padding; the prelude's
        // `ongpu::ColorMatrix` has the same layout.
        unsafe impl Element for ColorMatrix<$t> {
            type Scalar = $t;
            const COMPONENTS: usize = 18;
            fn cuda_type() -> String {
                $cuda.to_string()
            }
        }
    )*};
}
element!(
    f32 => "ongpu::ColorMatrix<float>",
    f64 => "ongpu::ColorMatrix<double>"
);

macro_rules! element_16 {
    ($($t:ty => $cuda:literal),*) => {$(
        // SAFETY: 9 complex numbers of 4 bytes each, `#[repr(C)]`, no padding; the prelude's
        // `ongpu::ColorMatrix` over `ongpu::f16`/`bf16` has the same layout, its complex numbers
        // the 4-byte components.
        unsafe impl Element for ColorMatrix<$t> {
            type Scalar = Complex<$t>;
            const COMPONENTS: usize = 9;
            fn cuda_type() -> String {
                $cuda.to_string()
            }
        }
    )*};
}
element_16!(
    super::f16 => "ongpu::ColorMatrix<ongpu::f16>",
    super::bf16 => "ongpu::ColorMatrix<ongpu::bf16>"
);
