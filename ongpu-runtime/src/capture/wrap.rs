//! What the macro calls on each captured name: [`read`] and [`write`] (and the UPPERCASE
//! constant's `read_constant`, in `uniform.rs`) turn it into its argument, through
//! [`ReadCapture`] and [`WriteCapture`], which name the argument of each capturable type.

use super::CaptureArg;

/// Something an `on_gpu!` body can read: a [`Field`](crate::Field) (this site's element) or
/// a [`Uniform`](super::Uniform) value (the same for every site).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be captured by an on_gpu! body",
    label = "captured here",
    note = "a body can capture fields (Field<T, L>) and values of f32, f64, i32, u32, i64, u64, \
            usize, isize, bool, Complex<f32|f64>, ColorVector<f32|f64>, ColorMatrix<f32|f64>, \
            Lattice, Philox or arrays of these ([f64; N]); copy anything else into one of these \
            before the call"
)]
pub trait ReadCapture {
    /// What a body sees of it at a site (generic code names it: `F: ReadCapture<Site = T>`).
    type Site: Copy + Send;
    /// The argument that carries it to the backends.
    type Arg<'a>: CaptureArg<Site = Self::Site, LaneSite = Self::Site>
    where
        Self: 'a;
    /// Wraps a shared borrow.
    fn read_arg(&self) -> Self::Arg<'_>;
}

/// A capture held through `&mut` (a field or scalar destructured from a `&mut` struct)
/// reads as the value it points to.
impl<T: ReadCapture + ?Sized> ReadCapture for &mut T {
    type Site = T::Site;
    type Arg<'a>
        = T::Arg<'a>
    where
        Self: 'a;
    #[inline(always)]
    fn read_arg(&self) -> T::Arg<'_> {
        (**self).read_arg()
    }
}

/// Something an `on_gpu!` body can assign: only a [`Field`](crate::Field) (this site's
/// element).
#[diagnostic::on_unimplemented(
    message = "an on_gpu! body assigns this capture, but it is a `{Self}`, not a field",
    label = "assigned here",
    note = "only captured fields (Field<T, L>) can be written: they are this site's element; \
            for a per-site temporary declare it inside the body with `let mut`"
)]
pub trait WriteCapture {
    /// What a body sees of it at a site, and assigns.
    type Site: Copy + Send;
    /// The argument that carries it to the backends; `LOAD` tells whether the body reads
    /// the old value.
    type Arg<'a, const LOAD: bool>: CaptureArg<Site = Self::Site, LaneSite = Self::Site>
    where
        Self: 'a;
    /// Wraps an exclusive borrow.
    fn write_arg<const LOAD: bool>(&mut self) -> Self::Arg<'_, LOAD>;
}

/// Wraps a read capture (the macro calls this).
#[inline(always)]
pub fn read<C: ReadCapture + ?Sized>(c: &C) -> C::Arg<'_> {
    c.read_arg()
}

/// Wraps a written capture (the macro calls this); `LOAD` tells whether the body reads the
/// old value.
#[inline(always)]
pub fn write<const LOAD: bool, C: WriteCapture + ?Sized>(c: &mut C) -> C::Arg<'_, LOAD> {
    c.write_arg::<LOAD>()
}

/// Method-call reborrows, so that a capture named `x` works whether `x` is a value, a `&T`
/// or a `&mut T` (method calls auto-dereference; `&mut x` would need `x` to be `mut`).
pub trait CaptureRef {
    /// `&self`, through auto-dereference.
    #[inline(always)]
    fn __ongpu_ref(&self) -> &Self {
        self
    }
    /// `&mut self`, through auto-dereference and reborrow.
    #[inline(always)]
    fn __ongpu_mut(&mut self) -> &mut Self {
        self
    }
}
impl<T: ?Sized> CaptureRef for T {}
