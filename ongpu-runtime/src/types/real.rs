//! [`Real`]: the floating-point types colour vectors and matrices are built from.

use crate::element::{Element, Scalar};
use crate::math::Numeric;
use num_traits::Float;

/// `f32` or `f64`: the precision of a [`ColorMatrix`](crate::ColorMatrix) or
/// [`ColorVector`](crate::ColorVector), and the bound of a generic `#[ongpu::device]`
/// function's type parameter (`fn f<T: Real>(a: &[T], x: T) -> T`), which each use
/// instantiates for one of the two (a C++ template on the GPU).
///
/// Its supertraits are what a generic function's body may do with a `T`: arithmetic and
/// compound assignments, comparisons, the maths functions and methods of the body language.
/// ([`RealValue`](crate::RealValue) adds that an `on_gpu!` body can capture one.)
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a real type: `Real` is `f32` or `f64`",
    label = "`{Self}` is not `f32` or `f64`",
    note = "a generic #[ongpu::device] function `fn f<T: Real>` is instantiated for f32 or f64; \
            write complex and colour types around the parameter in its signature \
            (`&[Complex<T>]`, `ColorMatrix<T>`), and write a separate function for integers"
)]
pub trait Real:
    Float
    + Scalar
    + Element
    + Numeric
    + Norm2<Output = Self>
    + std::iter::Sum
    + std::ops::AddAssign
    + std::ops::SubAssign
    + std::ops::MulAssign
    + std::ops::DivAssign
    + std::ops::RemAssign
{
    /// The CUDA C++ name (`float` or `double`).
    const CUDA_REAL: &'static str;

    /// An unsuffixed float literal of a generic device function, given as its `f64` and
    /// its `f32` value (each correctly rounded from the digits, as rustc rounds a suffixed
    /// literal): the one of this precision.
    #[doc(hidden)]
    fn from_literal(double: f64, single: f32) -> Self;
}

impl Real for f32 {
    const CUDA_REAL: &'static str = "float";

    #[inline(always)]
    fn from_literal(_: f64, single: f32) -> f32 {
        single
    }
}

impl Real for f64 {
    const CUDA_REAL: &'static str = "double";

    #[inline(always)]
    fn from_literal(double: f64, _: f32) -> f64 {
        double
    }
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
