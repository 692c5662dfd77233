//! Precisions and 16-bit storage: [`f16`] and [`bf16`] (the `half` crate's types) as field
//! components, and [`Precision`], the conversions a body writes between them and `f32`/`f64`.
//!
//! A 16-bit real is storage only: a `Field<ColorVector<f16>>` moves half the bytes of an
//! `f32` one, and a body computes in `f32`. Loads and stores convert explicitly, as Rust
//! itself never converts numbers implicitly: `x.widen()` (or `x.to_f32()`) after a load,
//! `y = r.narrow()` (or `r.to_f16()`) before a store. `widen`/`narrow` name no precision, so
//! one body serves `f32`, `f16` and `bf16` storage (for `f32` both are the identity).
//! Narrowing rounds to nearest, ties to even, as IEEE 754 and the `half` crate do; the CUDA
//! prelude's twins (`cuda/precision.cuh`) give the same bits, NaN payloads included.

use super::{ColorMatrix, ColorVector, Real};
use crate::element::Scalar;
pub use half::{bf16, f16};
use num_complex::Complex;

/// One real converted to another: exact where it widens, rounded to nearest even where it
/// narrows. 16-bit reals convert from and to `f32` (and to `f64`, exactly); an `f64` goes
/// to 16 bits through an explicit `to_f32()` first, so its two roundings are visible.
pub trait CastReal<To>: Copy {
    /// The converted value.
    fn cast_real(self) -> To;
}

macro_rules! cast_real {
    ($($from:ty => $to:ty: |$x:ident| $e:expr;)*) => {$(
        impl CastReal<$to> for $from {
            #[inline(always)]
            fn cast_real(self) -> $to {
                let $x = self;
                $e
            }
        }
    )*};
}

cast_real! {
    f32 => f32: |x| x;
    f64 => f32: |x| x as f32;
    f16 => f32: |x| x.to_f32();
    bf16 => f32: |x| x.to_f32();
    f32 => f64: |x| x as f64;
    f64 => f64: |x| x;
    f16 => f64: |x| x.to_f64();
    bf16 => f64: |x| x.to_f64();
    f32 => f16: |x| f16::from_f32(x);
    f16 => f16: |x| x;
    f32 => bf16: |x| bf16::from_f32(x);
    bf16 => bf16: |x| x;
}

/// A real a field can store, with the type its arithmetic is done in.
pub trait StorageReal: Scalar + Copy + CastReal<Self::Compute> {
    /// `f32` for the 16-bit reals, the real itself for `f32` and `f64`.
    type Compute: Real + CastReal<Self>;
}

impl StorageReal for f32 {
    type Compute = f32;
}
impl StorageReal for f64 {
    type Compute = f64;
}
impl StorageReal for f16 {
    type Compute = f32;
}
impl StorageReal for bf16 {
    type Compute = f32;
}

/// Values made of reals (reals, complex numbers, colour vectors and matrices, arrays of
/// them) in another precision: every component converted by [`CastReal`].
///
/// ```
/// use ongpu_runtime::{f16, ColorVector, Complex, Precision};
/// let v = ColorVector::new([Complex::new(1.0f32 / 3.0, 2.0); 3]);
/// let stored: ColorVector<f16> = v.narrow();           // rounded to 11 significant bits
/// assert_eq!(stored, v.to_f16());
/// let back = stored.widen();                            // a ColorVector<f32> again
/// assert!((back[0].re - 1.0 / 3.0).abs() <= 1.0 / 3.0 * 2f32.powi(-11));
/// assert_eq!(back[0].im, 2.0);                          // 2 is exact in 16 bits
/// ```
pub trait Precision: Sized {
    /// The real of the components.
    type Real: Scalar;
    /// The same shape over the real `R`.
    type With<R: Scalar>;

    /// Every component converted by `f`.
    fn map_reals<R: Scalar>(self, f: impl Fn(Self::Real) -> R + Copy) -> Self::With<R>;

    /// In `f32` (16-bit and `f32` values exactly, `f64` ones rounded).
    #[inline(always)]
    fn to_f32(self) -> Self::With<f32>
    where
        Self::Real: CastReal<f32>,
    {
        self.map_reals(CastReal::cast_real)
    }

    /// In `f64` (exactly).
    #[inline(always)]
    fn to_f64(self) -> Self::With<f64>
    where
        Self::Real: CastReal<f64>,
    {
        self.map_reals(CastReal::cast_real)
    }

    /// In IEEE half precision, rounded (from `f32` values).
    #[inline(always)]
    fn to_f16(self) -> Self::With<f16>
    where
        Self::Real: CastReal<f16>,
    {
        self.map_reals(CastReal::cast_real)
    }

    /// In bfloat16, rounded (from `f32` values).
    #[inline(always)]
    fn to_bf16(self) -> Self::With<bf16>
    where
        Self::Real: CastReal<bf16>,
    {
        self.map_reals(CastReal::cast_real)
    }

    /// In the precision arithmetic on the stored value is done in: `f32` for 16-bit
    /// storage, unchanged otherwise.
    #[inline(always)]
    fn widen(self) -> Self::With<<Self::Real as StorageReal>::Compute>
    where
        Self::Real: StorageReal,
    {
        self.map_reals(CastReal::cast_real)
    }

    /// In the real `R` (any conversion [`CastReal`] allows), usually inferred from where the
    /// result is stored: one body converts between any two storages
    /// (`on_gpu!({ dst = src.convert(); })`).
    #[inline(always)]
    fn convert<R: Scalar>(self) -> Self::With<R>
    where
        Self::Real: CastReal<R>,
    {
        self.map_reals(CastReal::cast_real)
    }

    /// Rounded to the storage real `R` whose arithmetic is done in this value's precision
    /// (the inverse of [`widen`](Precision::widen)); `R` is usually inferred from where the
    /// result is stored.
    #[inline(always)]
    fn narrow<R>(self) -> Self::With<R>
    where
        R: StorageReal<Compute = Self::Real>,
        Self::Real: CastReal<R>,
    {
        self.map_reals(CastReal::cast_real)
    }
}

macro_rules! scalar_precision {
    ($($t:ty),*) => {$(
        impl Precision for $t {
            type Real = $t;
            type With<R: Scalar> = R;
            #[inline(always)]
            fn map_reals<R: Scalar>(self, f: impl Fn($t) -> R + Copy) -> R {
                f(self)
            }
        }
    )*};
}
scalar_precision!(f32, f64, f16, bf16);

impl<T: Scalar> Precision for Complex<T> {
    type Real = T;
    type With<R: Scalar> = Complex<R>;
    #[inline(always)]
    fn map_reals<R: Scalar>(self, f: impl Fn(T) -> R + Copy) -> Complex<R> {
        Complex::new(f(self.re), f(self.im))
    }
}

impl<T: Scalar> Precision for ColorVector<T> {
    type Real = T;
    type With<R: Scalar> = ColorVector<R>;
    #[inline(always)]
    fn map_reals<R: Scalar>(self, f: impl Fn(T) -> R + Copy) -> ColorVector<R> {
        ColorVector {
            v: self.v.map(|z| z.map_reals(f)),
        }
    }
}

impl<T: Scalar> Precision for ColorMatrix<T> {
    type Real = T;
    type With<R: Scalar> = ColorMatrix<R>;
    #[inline(always)]
    fn map_reals<R: Scalar>(self, f: impl Fn(T) -> R + Copy) -> ColorMatrix<R> {
        ColorMatrix {
            m: self.m.map(|row| row.map(|z| z.map_reals(f))),
        }
    }
}

impl<V: Precision, const N: usize> Precision for [V; N] {
    type Real = V::Real;
    type With<R: Scalar> = [V::With<R>; N];
    #[inline(always)]
    fn map_reals<R: Scalar>(self, f: impl Fn(V::Real) -> R + Copy) -> [V::With<R>; N] {
        self.map(|v| v.map_reals(f))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrowing_rounds_to_nearest_even_and_widening_is_exact() {
        // 1 + 2^-11 lies halfway between two f16 neighbours: ties go to the even one (1).
        let tie = 1.0f32 + 2f32.powi(-11);
        assert_eq!(tie.to_f16(), f16::ONE);
        let above = 1.0f32 + 3.0 * 2f32.powi(-12);
        assert_eq!(above.to_f16().to_f32(), 1.0 + 2f32.powi(-10));
        let z = Complex::new(65504.0f32, -1e-8);
        assert_eq!(z.to_f16().widen(), Complex::new(65504.0, -0.0));
        assert_eq!(
            f16::from_f32(0.1).to_f64(),
            f16::from_f32(0.1).to_f32() as f64
        );
    }

    #[test]
    fn arrays_and_matrices_convert_componentwise() {
        let mut m = ColorMatrix::<f64>::identity();
        m.m[1][2] = Complex::new(1.0 / 3.0, 0.25);
        let s = [m, m].to_f32();
        assert_eq!(s[1].m[1][2], Complex::new((1.0f64 / 3.0) as f32, 0.25));
        let b: [ColorMatrix<bf16>; 2] = s.narrow();
        assert_eq!(b[0].m[0][0].re, bf16::ONE);
        assert_eq!(b.widen()[0].m[1][2].im, 0.25);
    }
}
