//! Arrays passed to device functions on the CPU backend. A device function's `&mut [T]`
//! parameter is an [`ArrayView`] (what a kernel's `&mut [T]` parameters and 1-D `shared!`
//! arrays already are); its `&[T]` parameter is a [`ReadSlice`], which takes either a
//! read-only parameter (read plainly: nobody writes it during the launch) or a writable
//! array (read atomically: other threads may write it). [`ArrayArg`] converts the kernel's
//! view into the parameter's.

use super::vector::Vector4;
use super::{ArrayView, KernelIndex, ReadView};
use crate::element::Element;

/// A device function's `&[T]` parameter, as the CPU backend's threads see it.
#[derive(Debug)]
pub enum ReadSlice<T> {
    /// A kernel's `&[T]` parameter.
    Read(ReadView<T>),
    /// A kernel's `&mut [T]` parameter or a 1-D `shared!` array, read atomically.
    Shared(ArrayView<T, 1>),
}

impl<T> Clone for ReadSlice<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for ReadSlice<T> {}

impl<T: Element> ReadSlice<T> {
    /// Element `i` (panics if out of range, naming the kernel's array).
    #[inline(always)]
    #[track_caller]
    pub fn load<I: KernelIndex>(self, i: I) -> T {
        match self {
            ReadSlice::Read(v) => v.load(i),
            ReadSlice::Shared(v) => v.load(i),
        }
    }

    /// Number of elements.
    #[inline(always)]
    pub fn len(self) -> usize {
        match self {
            ReadSlice::Read(v) => v.len(),
            ReadSlice::Shared(v) => v.len(),
        }
    }

    /// True for an empty array.
    #[inline(always)]
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }
}

impl<T: Vector4> ReadSlice<T> {
    /// Elements 4q..4q+3 (panics if they are not all in range).
    #[inline(always)]
    #[track_caller]
    pub fn load4<Q: KernelIndex>(self, q: Q) -> [T; 4] {
        match self {
            ReadSlice::Read(v) => v.load4(q),
            ReadSlice::Shared(v) => v.load4(q),
        }
    }
}

/// A kernel array passed to a device function's array parameter of view type `V`.
#[diagnostic::on_unimplemented(
    message = "this array cannot be passed as the device function's `{V}` parameter",
    label = "a read-only array",
    note = "a `&[T]` parameter of a kernel cannot be passed to a device function's `&mut [T]` \
            parameter; declare it `&mut [T]` in the kernel, or take `&[T]` in the function"
)]
pub trait ArrayArg<V> {
    /// The view the function's parameter takes.
    fn array_arg(self) -> V;
}

impl<T> ArrayArg<ReadSlice<T>> for ReadView<T> {
    #[inline(always)]
    fn array_arg(self) -> ReadSlice<T> {
        ReadSlice::Read(self)
    }
}

impl<T> ArrayArg<ReadSlice<T>> for ArrayView<T, 1> {
    #[inline(always)]
    fn array_arg(self) -> ReadSlice<T> {
        ReadSlice::Shared(self)
    }
}

impl<T> ArrayArg<ReadSlice<T>> for ReadSlice<T> {
    #[inline(always)]
    fn array_arg(self) -> ReadSlice<T> {
        self
    }
}

impl<T> ArrayArg<ArrayView<T, 1>> for ArrayView<T, 1> {
    #[inline(always)]
    fn array_arg(self) -> ArrayView<T, 1> {
        self
    }
}
