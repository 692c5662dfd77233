//! What a field can hold: [`Element`] types made of a fixed number of [`Scalar`] components,
//! with their CUDA C++ twins named for kernel generation.

use bytemuck::Pod;
use num_complex::Complex;
use std::fmt::Debug;

/// The precision of a floating-point component; decides the type of unsuffixed float literals
/// in a generated kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RealKind {
    /// `f32` (`float`).
    F32,
    /// `f64` (`double`).
    F64,
}

impl RealKind {
    /// The CUDA C++ name of the type.
    pub fn cuda_name(self) -> &'static str {
        match self {
            RealKind::F32 => "float",
            RealKind::F64 => "double",
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A component of field storage: fields store their elements as arrays of these, in the
/// order their [`Layout`](crate::Layout) gives.
pub trait Scalar: Pod + Send + Sync + PartialEq + Debug + Default + sealed::Sealed {
    /// The CUDA C++ type name (`float`, `double`, `int`, `unsigned int`).
    const CUDA_NAME: &'static str;
    /// `Some` for floating-point scalars.
    const REAL: Option<RealKind>;
}

macro_rules! scalar {
    ($($t:ty => $cuda:literal, $real:expr;)*) => {$(
        impl sealed::Sealed for $t {}
        impl Scalar for $t {
            const CUDA_NAME: &'static str = $cuda;
            const REAL: Option<RealKind> = $real;
        }
        // SAFETY: a scalar is its own single component.
        unsafe impl Element for $t {
            type Scalar = $t;
            const COMPONENTS: usize = 1;
            fn cuda_type() -> String { $cuda.to_string() }
        }
    )*};
}

scalar! {
    f32 => "float", Some(RealKind::F32);
    f64 => "double", Some(RealKind::F64);
    i32 => "int", None;
    u32 => "unsigned int", None;
    // 16-bit storage: a body widens it to f32 and computes there (`types::precision`).
    half::f16 => "ongpu::f16", Some(RealKind::F32);
    half::bf16 => "ongpu::bf16", Some(RealKind::F32);
    // A 16-bit complex number is one 4-byte component: the layouts keep its two halves
    // together, so a warp reads a component of 32 sites in one 128-byte access (two 2-byte
    // ones would halve what each load instruction moves).
    Complex<half::f16> => "ongpu::complex<ongpu::f16>", Some(RealKind::F32);
    Complex<half::bf16> => "ongpu::complex<ongpu::bf16>", Some(RealKind::F32);
}

/// A type a [`Field`](crate::Field) can hold: `f32 f64 i32 u32 Complex<f32|f64>
/// ColorVector<f32|f64> ColorMatrix<f32|f64>`, the same over the 16-bit storage reals
/// `f16 bf16`, and arrays of them.
///
/// # Safety
/// `Self` must be exactly `COMPONENTS` values of `Self::Scalar` with no padding (so that a
/// value can be viewed as `[Self::Scalar; COMPONENTS]`), and `cuda_type()` must name a CUDA
/// C++ type of the prelude with the same layout.
pub unsafe trait Element: Pod + Send + Sync + Debug + 'static {
    /// The component type.
    type Scalar: Scalar;
    /// Number of components (1 for scalars, 2 for complex, 6 for a colour vector, 18 for a
    /// colour matrix).
    const COMPONENTS: usize;
    /// Entries of an element that is an array (`N` for `[T; N]`, and
    /// [`ElementArray::LEN`] wherever that is implemented); 1 otherwise. The CPU backend
    /// gathers one entry of a shifted field's neighbours by it (`f.shift(mu, 1)[mu]`).
    const ENTRIES: usize = 1;
    /// The CUDA C++ type of an element (e.g. `ongpu::ColorMatrix<float>`).
    fn cuda_type() -> String;
}

/// Components of an element, as a slice (no copy).
#[inline(always)]
pub(crate) fn components<T: Element>(value: &T) -> &[T::Scalar] {
    bytemuck::cast_slice(std::slice::from_ref(value))
}

/// Mutable components of an element.
#[inline(always)]
pub(crate) fn components_mut<T: Element>(value: &mut T) -> &mut [T::Scalar] {
    bytemuck::cast_slice_mut(std::slice::from_mut(value))
}

// SAFETY: `Complex<T>` is `#[repr(C)] { re: T, im: T }`, two components of a scalar.
unsafe impl Element for Complex<f32> {
    type Scalar = f32;
    const COMPONENTS: usize = 2;
    fn cuda_type() -> String {
        "ongpu::complex<float>".to_string()
    }
}

// SAFETY: as above.
unsafe impl Element for Complex<f64> {
    type Scalar = f64;
    const COMPONENTS: usize = 2;
    fn cuda_type() -> String {
        "ongpu::complex<double>".to_string()
    }
}

// SAFETY: an array of N elements is N * COMPONENTS scalars with no padding (each element
// has none, and arrays add none); `ongpu::array<T, N>` is the same in the prelude.
unsafe impl<T: Element, const N: usize> Element for [T; N]
where
    [T; N]: Pod,
{
    type Scalar = T::Scalar;
    const COMPONENTS: usize = N * T::COMPONENTS;
    const ENTRIES: usize = N;
    fn cuda_type() -> String {
        format!("ongpu::array<{}, {N}>", T::cuda_type())
    }
}

/// An element that is an array of entries (`[T; N]`, or a type laid out as one, such as
/// the `Ls` spinors of a domain-wall site): a body reads `x[k]` and `x.shift(mu, d)[k]`
/// one entry at a time, and a field the body uses only through entries is read and written
/// entry by entry (docs/semantics.md).
///
/// # Safety
/// `Self` must be exactly `LEN` values of `Entry` in a row (`COMPONENTS = LEN ·
/// Entry::COMPONENTS`), and its `cuda_type()` must be `ongpu::array<Entry's CUDA type,
/// LEN>`.
pub unsafe trait ElementArray: Element {
    /// The type of an entry.
    type Entry: Element<Scalar = Self::Scalar>;
    /// Entries per element.
    const LEN: usize;
}

// SAFETY: an array is its entries in a row, and its CUDA type is `ongpu::array<T, N>`.
unsafe impl<T: Element, const N: usize> ElementArray for [T; N]
where
    [T; N]: Pod,
{
    type Entry = T;
    const LEN: usize = N;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complex_is_two_components_in_order() {
        let z = Complex::new(1.5f32, -2.0);
        assert_eq!(components(&z), &[1.5, -2.0]);
        assert_eq!(std::mem::size_of::<Complex<f64>>(), 2 * 8);
    }

    #[test]
    fn components_mut_writes_through() {
        let mut z = Complex::new(0.0f64, 0.0);
        components_mut(&mut z)[1] = 3.0;
        assert_eq!(z.im, 3.0);
    }
}
