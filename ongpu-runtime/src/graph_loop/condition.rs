//! The test that decides whether a [`GraphLoop`](crate::GraphLoop) goes on: a
//! [`DeviceScalar`] compared with a bound (`|r|² > tol²`), evaluated on the device by the
//! loop's test kernel and on the host by the CPU backend, with the same comparison.

use crate::element::Scalar;
use crate::scalar::DeviceScalar;
use crate::{capture::Uniform, element::Element};
use num_complex::Complex;

mod sealed {
    pub trait Sealed {}
}

/// A value a loop can test: the real scalars, and complex ones by their real part (a sum
/// that packs `|r|²` with another number, as `(|r|², Re⟨r, A r⟩)`).
pub trait LoopValue: Element + Uniform + sealed::Sealed {
    /// The type compared with the bound.
    type Real: Scalar + PartialOrd;
    /// The compared part of a value.
    fn real(self) -> Self::Real;
}

macro_rules! loop_value {
    ($($t:ty => $r:ty, |$v:ident| $e:expr;)*) => {$(
        impl sealed::Sealed for $t {}
        impl LoopValue for $t {
            type Real = $r;
            #[inline]
            fn real(self) -> $r {
                let $v = self;
                $e
            }
        }
    )*};
}

loop_value! {
    f64 => f64, |v| v;
    f32 => f32, |v| v;
    i32 => i32, |v| v;
    u32 => u32, |v| v;
    Complex<f64> => f64, |v| v.re;
    Complex<f32> => f32, |v| v.re;
}

/// Whether a loop goes on: `scalar > bound` ([`above`](LoopTest::above)) or
/// `scalar < bound` ([`below`](LoopTest::below)). A NaN compares false, so a loop whose
/// residual becomes NaN stops.
#[derive(Debug, Clone, Copy)]
pub struct LoopTest<'a, T: LoopValue> {
    pub(crate) scalar: &'a DeviceScalar<T>,
    pub(crate) bound: T::Real,
    pub(crate) below: bool,
}

impl<'a, T: LoopValue> LoopTest<'a, T> {
    /// Go on while `scalar > bound` (a residual above its tolerance).
    pub fn above(scalar: &'a DeviceScalar<T>, bound: T::Real) -> Self {
        LoopTest {
            scalar,
            bound,
            below: false,
        }
    }

    /// Go on while `scalar < bound`.
    pub fn below(scalar: &'a DeviceScalar<T>, bound: T::Real) -> Self {
        LoopTest {
            scalar,
            bound,
            below: true,
        }
    }

    /// The comparison for `value`, as the test kernel makes it.
    pub(crate) fn holds_for(&self, value: T) -> bool {
        let v = value.real();
        if self.below {
            v < self.bound
        } else {
            v > self.bound
        }
    }

    /// The comparison on the host (the CPU backend's loop).
    pub(crate) fn holds(&self) -> crate::Result<bool> {
        Ok(self.holds_for(self.scalar.get()?))
    }

    /// The loop's limits as the test kernel reads them: the bound in the first 8 bytes,
    /// then the largest iteration count and whether the test is `below` (`u32` each).
    #[cfg(feature = "cuda")]
    pub(crate) fn limits(&self, max_iterations: u32) -> [u8; 16] {
        let mut bytes = [0u8; 16];
        let bound = bytemuck::bytes_of(&self.bound);
        bytes[..bound.len()].copy_from_slice(bound);
        bytes[8..12].copy_from_slice(&max_iterations.to_ne_bytes());
        bytes[12..16].copy_from_slice(&u32::from(self.below).to_ne_bytes());
        bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compares_the_real_part_and_stops_on_nan() {
        let s = DeviceScalar::new(Complex::new(2.0, 100.0));
        assert!(LoopTest::above(&s, 1.0).holds().unwrap());
        assert!(!LoopTest::above(&s, 3.0).holds().unwrap());
        assert!(LoopTest::below(&s, 3.0).holds().unwrap());
        let nan = DeviceScalar::new(f64::NAN);
        assert!(!LoopTest::above(&nan, 0.0).holds().unwrap());
        assert!(!LoopTest::below(&nan, 0.0).holds().unwrap());
    }

    #[cfg(feature = "cuda")]
    #[test]
    fn limits_put_the_bound_first() {
        let s: DeviceScalar<f32> = DeviceScalar::zero();
        let l = LoopTest::below(&s, 1.5f32).limits(7);
        assert_eq!(&l[..4], &1.5f32.to_ne_bytes());
        assert_eq!(&l[4..8], &[0; 4]);
        assert_eq!(&l[8..12], &7u32.to_ne_bytes());
        assert_eq!(&l[12..], &1u32.to_ne_bytes());
    }
}
