//! [`ColorVector`]: three complex numbers, the colour index of a quark field.

use super::real::{Norm2, Real};
use crate::element::Element;
use num_complex::Complex;
use std::ops::{
    Add, AddAssign, Div, DivAssign, Index, IndexMut, Mul, MulAssign, Neg, Sub, SubAssign,
};

/// A colour vector: 3 complex components. `#[repr(C)]`, 6 reals, matching
/// `ongpu::ColorVector<T>` of the CUDA prelude.
///
/// ```
/// use ongpu_runtime::{ColorVector, Complex};
/// let v = ColorVector::new([Complex::new(1.0f32, 0.0), Complex::new(0.0, 1.0), Complex::new(2.0, 0.0)]);
/// assert_eq!(v[1].im, 1.0);
/// assert_eq!(v.norm2(), 6.0);
/// ```
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ColorVector<T> {
    /// The components.
    pub v: [Complex<T>; 3],
}

// SAFETY: `#[repr(C)]` array of `Complex<T>` (itself Pod for Pod `T`): no padding, any bits valid.
unsafe impl<T: bytemuck::Zeroable> bytemuck::Zeroable for ColorVector<T> {}
// SAFETY: as above.
unsafe impl<T: bytemuck::Pod> bytemuck::Pod for ColorVector<T> {}

impl<T> ColorVector<T> {
    /// A vector from its components (of any real, the 16-bit storage ones included).
    #[inline(always)]
    pub fn new(v: [Complex<T>; 3]) -> Self {
        ColorVector { v }
    }
}

impl<T: Real> ColorVector<T> {
    /// The zero vector.
    #[inline(always)]
    pub fn zero() -> Self {
        let z = Complex::new(T::zero(), T::zero());
        ColorVector { v: [z; 3] }
    }

    /// Complex conjugate of every component.
    #[inline(always)]
    pub fn conj(&self) -> Self {
        ColorVector {
            v: self.v.map(|z| z.conj()),
        }
    }

    /// `Σ |v_i|²`, summed `i = 0, 1, 2` in that order (as the prelude's `norm2`).
    #[inline(always)]
    pub fn norm2(&self) -> T {
        self.v[0].norm2() + self.v[1].norm2() + self.v[2].norm2()
    }

    /// The Hermitian inner product `Σ conj(self_i) · other_i`, summed `i = 0, 1, 2` in that
    /// order (as the prelude's `dot`). Takes its operands by value, so that bodies can call
    /// `u.dot(v)`.
    #[inline(always)]
    pub fn dot(self, other: Self) -> Complex<T> {
        let mut acc = Complex::new(T::zero(), T::zero());
        for i in 0..3 {
            acc += self.v[i].conj() * other.v[i];
        }
        acc
    }
}

impl<T: Real> Norm2 for ColorVector<T> {
    type Output = T;
    fn norm2(&self) -> T {
        ColorVector::norm2(self)
    }
}

impl<T> Index<usize> for ColorVector<T> {
    type Output = Complex<T>;
    #[inline(always)]
    fn index(&self, i: usize) -> &Complex<T> {
        &self.v[i]
    }
}

impl<T> IndexMut<usize> for ColorVector<T> {
    #[inline(always)]
    fn index_mut(&mut self, i: usize) -> &mut Complex<T> {
        &mut self.v[i]
    }
}

impl<T: Real> Add for ColorVector<T> {
    type Output = Self;
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        ColorVector {
            v: [self.v[0] + o.v[0], self.v[1] + o.v[1], self.v[2] + o.v[2]],
        }
    }
}

impl<T: Real> Sub for ColorVector<T> {
    type Output = Self;
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        ColorVector {
            v: [self.v[0] - o.v[0], self.v[1] - o.v[1], self.v[2] - o.v[2]],
        }
    }
}

impl<T: Real> Neg for ColorVector<T> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        ColorVector {
            v: self.v.map(|z| -z),
        }
    }
}

impl<T: Real> AddAssign for ColorVector<T> {
    #[inline(always)]
    fn add_assign(&mut self, o: Self) {
        *self = *self + o;
    }
}

impl<T: Real> SubAssign for ColorVector<T> {
    #[inline(always)]
    fn sub_assign(&mut self, o: Self) {
        *self = *self - o;
    }
}

impl<T: Real> Mul<T> for ColorVector<T> {
    type Output = Self;
    #[inline(always)]
    fn mul(self, k: T) -> Self {
        ColorVector {
            v: self.v.map(|z| z * k),
        }
    }
}

impl<T: Real> Mul<Complex<T>> for ColorVector<T> {
    type Output = Self;
    #[inline(always)]
    fn mul(self, k: Complex<T>) -> Self {
        ColorVector {
            v: self.v.map(|z| z * k),
        }
    }
}

impl<T: Real> Div<T> for ColorVector<T> {
    type Output = Self;
    #[inline(always)]
    fn div(self, k: T) -> Self {
        ColorVector {
            v: self.v.map(|z| z / k),
        }
    }
}

impl<T: Real> MulAssign<T> for ColorVector<T> {
    #[inline(always)]
    fn mul_assign(&mut self, k: T) {
        *self = *self * k;
    }
}

impl<T: Real> MulAssign<Complex<T>> for ColorVector<T> {
    #[inline(always)]
    fn mul_assign(&mut self, k: Complex<T>) {
        *self = *self * k;
    }
}

impl<T: Real> DivAssign<T> for ColorVector<T> {
    #[inline(always)]
    fn div_assign(&mut self, k: T) {
        *self = *self / k;
    }
}

impl<T: Real> Mul<ColorVector<T>> for Complex<T> {
    type Output = ColorVector<T>;
    #[inline(always)]
    fn mul(self, v: ColorVector<T>) -> ColorVector<T> {
        v * self
    }
}

macro_rules! real_times_vector {
    ($($t:ty),*) => {$(
        impl Mul<ColorVector<$t>> for $t {
            type Output = ColorVector<$t>;
            #[inline(always)]
            fn mul(self, v: ColorVector<$t>) -> ColorVector<$t> {
                v * self
            }
        }
    )*};
}
real_times_vector!(f32, f64);

macro_rules! element {
    ($($t:ty => $cuda:literal),*) => {$(
        // SAFETY: 3 complex = 6 reals, `#[repr(C)]`, no padding; the prelude's
        // `ongpu::ColorVector` has the same layout.
        unsafe impl Element for ColorVector<$t> {
            type Scalar = $t;
            const COMPONENTS: usize = 6;
            fn cuda_type() -> String {
                $cuda.to_string()
            }
        }
    )*};
}
element!(
    f32 => "ongpu::ColorVector<float>",
    f64 => "ongpu::ColorVector<double>"
);

macro_rules! element_16 {
    ($($t:ty => $cuda:literal),*) => {$(
        // SAFETY: 3 complex numbers of 4 bytes each, `#[repr(C)]`, no padding; the prelude's
        // `ongpu::ColorVector` over `ongpu::f16`/`bf16` has the same layout, its complex numbers
        // the 4-byte components.
        unsafe impl Element for ColorVector<$t> {
            type Scalar = Complex<$t>;
            const COMPONENTS: usize = 3;
            fn cuda_type() -> String {
                $cuda.to_string()
            }
        }
    )*};
}
element_16!(
    super::f16 => "ongpu::ColorVector<ongpu::f16>",
    super::bf16 => "ongpu::ColorVector<ongpu::bf16>"
);
