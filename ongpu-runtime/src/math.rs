//! The maths functions an `on_gpu!` body may call as free functions (`sqrt(x)`); the macro
//! routes those calls here on the CPU and to the prelude's `ongpu::sqrt` etc. in CUDA. They
//! follow the `f32`/`f64` methods of the same names (`ln` is the natural logarithm).

use num_traits::Float;

macro_rules! unary {
    ($($name:ident => $method:ident, $doc:literal;)*) => {$(
        #[doc = $doc]
        #[inline(always)]
        pub fn $name<T: Float>(x: T) -> T {
            x.$method()
        }
    )*};
}

unary! {
    sqrt => sqrt, "Square root.";
    exp => exp, "`e^x`.";
    ln => ln, "Natural logarithm.";
    sin => sin, "Sine (radians).";
    cos => cos, "Cosine (radians).";
    tan => tan, "Tangent (radians).";
    floor => floor, "Largest integer not above `x`.";
    ceil => ceil, "Smallest integer not below `x`.";
    round => round, "Nearest integer, halves away from zero.";
    trunc => trunc, "Integer part, towards zero.";
}

/// `x^y`.
#[inline(always)]
pub fn powf<T: Float>(x: T, y: T) -> T {
    x.powf(y)
}

/// `x^n` for an integer `n`.
#[inline(always)]
pub fn powi<T: Float>(x: T, n: i32) -> T {
    x.powi(n)
}

/// The angle of `(x, y)`: `y.atan2(x)`, as Rust's method.
#[inline(always)]
pub fn atan2<T: Float>(y: T, x: T) -> T {
    y.atan2(x)
}

/// `sqrt(x² + y²)` without undue overflow.
#[inline(always)]
pub fn hypot<T: Float>(x: T, y: T) -> T {
    x.hypot(y)
}

/// Absolute value, minimum and maximum for the numeric types of a body.
pub trait Numeric: Copy {
    /// `|x|`.
    fn abs_(self) -> Self;
    /// The smaller (for floats, a NaN argument yields the other one).
    fn min_(self, o: Self) -> Self;
    /// The larger (for floats, a NaN argument yields the other one).
    fn max_(self, o: Self) -> Self;
}

macro_rules! numeric_float {
    ($($t:ty),*) => {$(
        impl Numeric for $t {
            #[inline(always)] fn abs_(self) -> Self { self.abs() }
            #[inline(always)] fn min_(self, o: Self) -> Self { self.min(o) }
            #[inline(always)] fn max_(self, o: Self) -> Self { self.max(o) }
        }
    )*};
}
macro_rules! numeric_int {
    ($($t:ty => $abs:expr),*) => {$(
        impl Numeric for $t {
            #[inline(always)] fn abs_(self) -> Self { ($abs)(self) }
            #[inline(always)] fn min_(self, o: Self) -> Self { Ord::min(self, o) }
            #[inline(always)] fn max_(self, o: Self) -> Self { Ord::max(self, o) }
        }
    )*};
}
numeric_float!(f32, f64);
numeric_int!(
    i8 => i8::wrapping_abs, i16 => i16::wrapping_abs, i32 => i32::wrapping_abs,
    i64 => i64::wrapping_abs, isize => isize::wrapping_abs,
    u8 => |x| x, u16 => |x| x, u32 => |x| x, u64 => |x| x, usize => |x| x
);

/// `|x|` (integers wrap at the minimum, as on the GPU).
#[inline(always)]
pub fn abs<T: Numeric>(x: T) -> T {
    x.abs_()
}

/// The smaller of `a` and `b`.
#[inline(always)]
pub fn min<T: Numeric>(a: T, b: T) -> T {
    a.min_(b)
}

/// The larger of `a` and `b`.
#[inline(always)]
pub fn max<T: Numeric>(a: T, b: T) -> T {
    a.max_(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_functions_follow_the_methods() {
        assert_eq!(sqrt(4.0f32), 2.0);
        assert_eq!(ln(1.0f64), 0.0);
        assert_eq!(min(3, -2), -2);
        assert_eq!(max(1.0f32, f32::NAN), 1.0);
        assert_eq!(abs(-3i32), 3);
        assert_eq!(atan2(1.0f64, 1.0), std::f64::consts::FRAC_PI_4);
        assert_eq!(powi(2.0f32, 10), 1024.0);
    }
}
