//! [`Real`]: the floating-point types colour vectors and matrices are built from.

use crate::element::Scalar;
use num_traits::Float;

/// `f32` or `f64`: the precision of a [`ColorMatrix`](crate::ColorMatrix) or
/// [`ColorVector`](crate::ColorVector).
pub trait Real:
    Float + Scalar + std::iter::Sum + std::ops::AddAssign + std::ops::SubAssign
{
    /// The CUDA C++ name (`float` or `double`).
    const CUDA_REAL: &'static str;
}

impl Real for f32 {
    const CUDA_REAL: &'static str = "float";
}

impl Real for f64 {
    const CUDA_REAL: &'static str = "double";
}

/// `|z|²` summed over all components: the squared Frobenius norm of a matrix, the squared
/// length of a vector, `re² + im²` of a complex number, `x²` of a real.
///
/// ```
/// use ongpu_runtime::{Complex, Norm2};
/// assert_eq!(Complex::new(3.0f64, 4.0).norm2(), 25.0);
/// ```
pub trait Norm2 {
    /// The real type of the result.
    type Output;
    /// The sum of squared magnitudes of the components.
    fn norm2(&self) -> Self::Output;
}

impl<T: Real> Norm2 for num_complex::Complex<T> {
    type Output = T;
    #[inline(always)]
    fn norm2(&self) -> T {
        self.re * self.re + self.im * self.im
    }
}

impl Norm2 for f32 {
    type Output = f32;
    #[inline(always)]
    fn norm2(&self) -> f32 {
        self * self
    }
}

impl Norm2 for f64 {
    type Output = f64;
    #[inline(always)]
    fn norm2(&self) -> f64 {
        self * self
    }
}
