//! The reductions every lattice code calls each solver iteration, as field methods:
//! [`Field::norm2`], [`Field::dot`] and [`Field::sum`]. Each is a reduction call site of its
//! own (kernels for every element type and layout hang off it), and works in `f64` from the
//! components up, so f32 fields lose no precision to the reduction.

use super::{run, run_into, ReduceSite, Sum, Summable};
use crate::capture::read;
use crate::capture::Uniform;
use crate::element::Element;
use crate::error::{Error, Location, Result};
use crate::field::Field;
use crate::lattice::space::SiteCount;
use crate::launch::call_site::SiteInfo;
use crate::layout::Layout;
use crate::scalar::DeviceScalar;
use crate::types::{ColorMatrix, ColorVector};
use num_complex::Complex;

/// Element types with a norm and an inner product over their components, computed in `f64`:
/// `f32 f64` (real; [`Dot`](InnerProduct::Dot) is `f64`) and `Complex<T> ColorVector<T>
/// ColorMatrix<T>` for `T = f32, f64` (complex; `Dot` is `Complex<f64>`).
///
/// ```
/// use ongpu_runtime::{Complex, InnerProduct};
/// let (a, b) = (Complex::new(1.0f32, 2.0), Complex::new(3.0f32, -1.0));
/// assert_eq!(a.norm2_wide(), 5.0);
/// assert_eq!(a.dot_wide(&b), Complex::new(1.0, -7.0)); // conj(a) * b
/// ```
pub trait InnerProduct: Element {
    /// The inner product's type: `f64` or `Complex<f64>`.
    type Dot: Summable<Total = Self::Dot>;
    /// `Σ |c|²` over the components, in `f64`.
    fn norm2_wide(&self) -> f64;
    /// `Σ conj(self_k) · other_k` over the (complex) components, in `f64`.
    fn dot_wide(&self, other: &Self) -> Self::Dot;
}

#[inline(always)]
fn norm2_of<S: Copy + Into<f64>>(c: &[S]) -> f64 {
    c.iter().fold(0.0, |acc, &x| {
        let x: f64 = x.into();
        acc + x * x
    })
}

/// `Σ conj(a_k) b_k` over components stored as (re, im) pairs, in the order of the CUDA
/// twin `ongpu::dot_wide`.
#[inline(always)]
fn dot_of<S: Copy + Into<f64>>(a: &[S], b: &[S]) -> Complex<f64> {
    let (mut re, mut im) = (0.0, 0.0);
    for (x, y) in a.chunks_exact(2).zip(b.chunks_exact(2)) {
        let (xr, xi, yr, yi): (f64, f64, f64, f64) =
            (x[0].into(), x[1].into(), y[0].into(), y[1].into());
        re += xr * yr + xi * yi;
        im += xr * yi - xi * yr;
    }
    Complex::new(re, im)
}

macro_rules! real_inner {
    ($($t:ty),*) => {$(
        impl InnerProduct for $t {
            type Dot = f64;
            #[inline(always)]
            fn norm2_wide(&self) -> f64 {
                norm2_of(&[*self])
            }
            #[inline(always)]
            fn dot_wide(&self, other: &Self) -> f64 {
                f64::from(*self) * f64::from(*other)
            }
        }
    )*};
}
real_inner!(f32, f64);

macro_rules! complex_inner {
    ($($t:ty),*) => {$(
        impl InnerProduct for $t {
            type Dot = Complex<f64>;
            #[inline(always)]
            fn norm2_wide(&self) -> f64 {
                norm2_of(crate::element::components(self))
            }
            #[inline(always)]
            fn dot_wide(&self, other: &Self) -> Complex<f64> {
                dot_of(crate::element::components(self), crate::element::components(other))
            }
        }
    )*};
}
complex_inner!(
    Complex<f32>,
    Complex<f64>,
    ColorVector<f32>,
    ColorVector<f64>,
    ColorMatrix<f32>,
    ColorMatrix<f64>
);

/// The facts of a field method's reduction site, whose body is `body` (C++) over the
/// captures `x` (and `y`).
const fn method_site(captures: &'static [&'static str], body: &'static str) -> ReduceSite {
    ReduceSite::new(SiteInfo {
        location: Location {
            file: file!(),
            line: line!(),
            column: column!(),
        },
        captures,
        cuda_names: captures,
        entry_stores: &[],
        site_index: None,
        body,
        device_fns: &[],
        prints: None,
        lowering: crate::Lowering::LaneMajor,
    })
}

impl<T: Element, L: Layout> Field<T, L> {
    /// `Σ |x|²` over all sites and components, in `f64` (on the GPU or CPU threads, like
    /// `on_gpu!`; the field is uploaded only if the device copy is stale).
    ///
    /// ```
    /// use ongpu_runtime::{ColorMatrix, Field};
    /// let x: Field<ColorMatrix<f32>> = Field::filled(10, ColorMatrix::identity() * 2.0);
    /// assert_eq!(x.norm2()?, 10.0 * 3.0 * 4.0);
    /// # Ok::<(), ongpu_runtime::Error>(())
    /// ```
    pub fn norm2(&self) -> Result<f64>
    where
        T: InnerProduct,
    {
        static SITE: ReduceSite = method_site(&["x"], "return ongpu::norm2_wide(x);");
        run(
            &SITE,
            Sum,
            SiteCount::FromFields,
            None,
            (read(self),),
            #[inline(always)]
            |_, (x,)| ((x,), x.norm2_wide()),
        )
    }

    /// The inner product `Σ conj(x)·y` over all sites and components, in `f64`: a
    /// `Complex<f64>` for complex elements, an `f64` for real ones. The fields may have
    /// different layouts but must have the same length.
    ///
    /// ```
    /// use ongpu_runtime::{Complex, Field, SoA};
    /// let x: Field<Complex<f64>> = Field::filled(4, Complex::new(0.0, 1.0));
    /// let y: Field<Complex<f64>, SoA> = Field::filled(4, Complex::new(2.0, 0.0));
    /// assert_eq!(x.dot(&y)?, Complex::new(0.0, -8.0));
    /// # Ok::<(), ongpu_runtime::Error>(())
    /// ```
    #[track_caller]
    pub fn dot<L2: Layout>(&self, other: &Field<T, L2>) -> Result<T::Dot>
    where
        T: InnerProduct,
    {
        check_same_length(self.len(), other.len())?;
        static SITE: ReduceSite = method_site(&["x", "y"], "return ongpu::dot_wide(x, y);");
        run(
            &SITE,
            Sum,
            SiteCount::FromFields,
            None,
            (read(self), read(other)),
            #[inline(always)]
            |_, (x, y)| ((x, y), x.dot_wide(&y)),
        )
    }

    /// [`norm2`](Self::norm2) into a [`DeviceScalar`]: on the GPU the result stays on the
    /// device and the call returns once the kernel is queued, so solvers can use it without
    /// a wait and a [`Graph`](crate::Graph) can record it. Same kernel, same bits.
    ///
    /// ```
    /// use ongpu_runtime::{ColorMatrix, DeviceScalar, Field};
    /// let x: Field<ColorMatrix<f32>> = Field::filled(10, ColorMatrix::identity() * 2.0);
    /// let mut s = DeviceScalar::zero();
    /// x.norm2_into(&mut s)?;
    /// assert_eq!(s.get()?, 10.0 * 3.0 * 4.0);
    /// # Ok::<(), ongpu_runtime::Error>(())
    /// ```
    pub fn norm2_into(&self, dest: &mut DeviceScalar<f64>) -> Result<()>
    where
        T: InnerProduct,
    {
        // The site of `norm2`'s twin: its own kernels, which differ only in the result's
        // address.
        static SITE: ReduceSite = method_site(&["x"], "return ongpu::norm2_wide(x);");
        run_into(
            &SITE,
            Sum,
            SiteCount::FromFields,
            None,
            (read(self),),
            #[inline(always)]
            |_, (x,)| ((x,), x.norm2_wide()),
            dest,
        )
    }

    /// [`dot`](Self::dot) into a [`DeviceScalar`], as [`norm2_into`](Self::norm2_into) is
    /// to [`norm2`](Self::norm2).
    ///
    /// ```
    /// use ongpu_runtime::{Complex, DeviceScalar, Field};
    /// let x: Field<Complex<f64>> = Field::filled(4, Complex::new(0.0, 1.0));
    /// let y: Field<Complex<f64>> = Field::filled(4, Complex::new(2.0, 0.0));
    /// let mut s = DeviceScalar::zero();
    /// x.dot_into(&y, &mut s)?;
    /// assert_eq!(s.get()?, Complex::new(0.0, -8.0));
    /// # Ok::<(), ongpu_runtime::Error>(())
    /// ```
    #[track_caller]
    pub fn dot_into<L2: Layout>(
        &self,
        other: &Field<T, L2>,
        dest: &mut DeviceScalar<T::Dot>,
    ) -> Result<()>
    where
        T: InnerProduct,
        T::Dot: Element + Uniform,
    {
        check_same_length(self.len(), other.len())?;
        static SITE: ReduceSite = method_site(&["x", "y"], "return ongpu::dot_wide(x, y);");
        run_into(
            &SITE,
            Sum,
            SiteCount::FromFields,
            None,
            (read(self), read(other)),
            #[inline(always)]
            |_, (x, y)| ((x, y), x.dot_wide(&y)),
            dest,
        )
    }

    /// The sum of all elements, in the widened type of [`Summable`] (`f64` for `f32` and
    /// `f64` fields, `i64`/`u64` for `i32`/`u32`, `Complex<f64>` for complex fields).
    ///
    /// ```
    /// use ongpu_runtime::Field;
    /// let x: Field<u32> = Field::filled(3, u32::MAX);
    /// assert_eq!(x.sum()?, 3 * u32::MAX as u64);
    /// # Ok::<(), ongpu_runtime::Error>(())
    /// ```
    pub fn sum(&self) -> Result<T::Total>
    where
        T: Summable,
    {
        static SITE: ReduceSite = method_site(&["x"], "return x;");
        run(
            &SITE,
            Sum,
            SiteCount::FromFields,
            None,
            (read(self),),
            #[inline(always)]
            |_, (x,)| ((x,), x),
        )
    }
}

/// Refuses `x.dot(&y)` of fields of different lengths, at the caller's location.
#[track_caller]
fn check_same_length(x: usize, y: usize) -> Result<()> {
    if x == y {
        return Ok(());
    }
    let at = std::panic::Location::caller();
    Err(Error::InvalidArgument(format!(
        "{}:{}:{}: x.dot(&y) needs fields of one length; x has {x} sites and y {y}",
        at.file(),
        at.line(),
        at.column(),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_norm_and_dot_follow_the_definitions() {
        let m = ColorMatrix::new([[Complex::new(1.0f32, -2.0); 3]; 3]);
        assert_eq!(m.norm2_wide(), 9.0 * 5.0);
        let v = ColorVector::new([
            Complex::new(1.0f64, 1.0),
            Complex::new(0.0, 2.0),
            Complex::new(3.0, 0.0),
        ]);
        let w = ColorVector::new([Complex::new(2.0f64, 0.0); 3]);
        assert_eq!(v.dot_wide(&w), v.dot(w));
        assert_eq!(v.dot_wide(&v), Complex::new(v.norm2(), 0.0));
        assert_eq!(3.0f32.dot_wide(&-2.0), -6.0);
    }
}
