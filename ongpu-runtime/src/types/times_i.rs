//! Multiplication by `±i` as a swap and a sign, with no multiplication: what the γ matrices
//! of Dirac spinors do to colour vectors (`ongpu::times_i` in the CUDA prelude, so a body
//! costs the same on both backends). `x.times_i()` is exactly `i·x` (no rounding), which a
//! complex product by `Complex::new(0, 1)` is not for infinities and NaN and costs four
//! multiplications.

use super::{ColorMatrix, ColorVector, Real};
use num_complex::Complex;

/// `i·x` and `−i·x` of complex numbers, colour vectors and colour matrices.
///
/// ```
/// use ongpu_runtime::{ColorVector, Complex, TimesI};
/// let z = Complex::new(1.0f64, 2.0);
/// assert_eq!(z.times_i(), Complex::new(-2.0, 1.0));
/// assert_eq!(z.times_minus_i(), Complex::new(2.0, -1.0));
/// let v = ColorVector::new([z; 3]);
/// assert_eq!(v.times_i()[2], Complex::new(-2.0, 1.0));
/// ```
pub trait TimesI: Sized {
    /// `i·self`.
    fn times_i(self) -> Self;
    /// `−i·self`.
    fn times_minus_i(self) -> Self;
}

impl<T: Real> TimesI for Complex<T> {
    #[inline(always)]
    fn times_i(self) -> Self {
        Complex::new(-self.im, self.re)
    }

    #[inline(always)]
    fn times_minus_i(self) -> Self {
        Complex::new(self.im, -self.re)
    }
}

impl<T: Real> TimesI for ColorVector<T> {
    #[inline(always)]
    fn times_i(self) -> Self {
        ColorVector::new(std::array::from_fn(|k| self[k].times_i()))
    }

    #[inline(always)]
    fn times_minus_i(self) -> Self {
        ColorVector::new(std::array::from_fn(|k| self[k].times_minus_i()))
    }
}

impl<T: Real> TimesI for ColorMatrix<T> {
    #[inline(always)]
    fn times_i(self) -> Self {
        let mut m = self;
        for r in 0..3 {
            for c in 0..3 {
                m[r][c] = self[r][c].times_i();
            }
        }
        m
    }

    #[inline(always)]
    fn times_minus_i(self) -> Self {
        let mut m = self;
        for r in 0..3 {
            for c in 0..3 {
                m[r][c] = self[r][c].times_minus_i();
            }
        }
        m
    }
}
