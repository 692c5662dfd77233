//! The arguments of a kernel launch: `&Field<T, AoS>` for a `&[T]` parameter,
//! `&mut Field<T, AoS>` for a `&mut [T]` one, and values. A slice argument is the
//! `on_gpu!` field argument (`FieldRead`, `FieldWrite` that loads) with its length: the same
//! host/device coherence (a copy is made only when the side that is needed is stale) and the
//! same device facet; only the host view (a bounds-checked view for the kernel's threads)
//! and the kinds differ.

// The stream-path methods of the device facet take crate-private types: only this crate
// implements and calls them (expansions reach the traits through `__private` only).
#![allow(private_interfaces)]

use super::call_site::KernelInfo;
use super::views::{ArrayView, ReadView};
use crate::capture::{
    read, write, DeviceFacet, DeviceVia, FieldRead, FieldWrite, HostFacet, Uniform,
};
use crate::element::{Element, RealKind, Scalar};
use crate::error::Result;
use crate::field::Field;
use crate::layout::AoS;
#[cfg(feature = "cuda")]
use std::ops::Range;

/// What a kernel's source needs to know of one parameter's type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamKind {
    /// An array: `const T*` (read) or `T*` (written), and its length.
    Slice {
        /// CUDA C++ type of an element.
        element: String,
        /// Precision of its components, if floating point.
        real: Option<RealKind>,
        /// True for a `&mut [T]` parameter.
        write: bool,
    },
    /// A value passed to every thread.
    Value {
        /// CUDA C++ type.
        cuda_type: String,
    },
}

/// The sites an explicit kernel's arguments are prepared for: a kernel indexes its slices
/// itself, so every element (a written slice loads its old values whatever the range).
#[cfg(feature = "cuda")]
pub(crate) const EVERY_ELEMENT: Range<usize> = 0..usize::MAX;

/// One argument of a launch, or a tuple of them in parameter order, as the backends see it:
/// the device facet of `on_gpu!` arguments, a host view for the CPU's threads, the kinds.
pub trait KernelParam: DeviceFacet {
    /// What the CPU backend's threads get.
    type View: Copy + Send + Sync;
    /// Appends the parameters' kinds, in order.
    fn push_kinds(out: &mut Vec<ParamKind>);
    /// Makes the host copy current and returns the view of it (`id`: the parameter's index;
    /// a tuple numbers its own).
    fn host_view(&mut self, info: &'static KernelInfo, id: u32) -> Result<Self::View>;
    /// The parameters' kinds, in order.
    fn kinds() -> Vec<ParamKind> {
        let mut kinds = Vec::new();
        Self::push_kinds(&mut kinds);
        kinds
    }
}

/// A `&[T]` parameter's argument.
pub struct SliceRead<'a, T: Element> {
    field: FieldRead<'a, T, AoS>,
    len: u64,
}

/// A `&mut [T]` parameter's argument (a kernel may read what it writes: the old values are
/// loaded).
pub struct SliceWrite<'a, T: Element> {
    field: FieldWrite<'a, T, AoS, true>,
    len: u64,
}

/// A value parameter's argument.
#[derive(Debug, Clone, Copy)]
pub struct ValueArg<V> {
    value: V,
}

/// Wraps the field passed for a `&[T]` parameter (the macro calls this).
#[inline(always)]
pub fn slice_read<T: Element>(field: &Field<T, AoS>) -> SliceRead<'_, T> {
    SliceRead {
        len: field.len() as u64,
        field: read(field),
    }
}

/// Wraps the field passed for a `&mut [T]` parameter (the macro calls this).
#[inline(always)]
pub fn slice_write<T: Element>(field: &mut Field<T, AoS>) -> SliceWrite<'_, T> {
    SliceWrite {
        len: field.len() as u64,
        field: write::<true, _>(field),
    }
}

/// Wraps a value parameter (the macro calls this).
#[inline(always)]
pub fn value<V: Uniform>(value: V) -> ValueArg<V> {
    ValueArg { value }
}

fn slice_kind<T: Element>(write: bool) -> ParamKind {
    ParamKind::Slice {
        element: T::cuda_type(),
        real: <T::Scalar as Scalar>::REAL,
        write,
    }
}

/// The device side of a slice argument is its field argument's, with the length after the
/// pointer (in place of the stride: AoS has none).
macro_rules! slice_via {
    ($arg:ident, $via:ty) => {
        impl<'f, T: Element> DeviceVia for $arg<'f, T> {
            type Via = $via;
            #[inline(always)]
            fn via(&self) -> &$via {
                &self.field
            }
            #[inline(always)]
            fn via_mut(&mut self) -> &mut $via {
                &mut self.field
            }
            #[cfg(feature = "cuda")]
            #[inline(always)]
            fn via_params<'a>(&'a self, params: &mut crate::cuda::ParamList<'a>) {
                params.push(self.field.device_ptr());
                params.push(&self.len);
            }
        }
    };
}

slice_via!(SliceRead, FieldRead<'f, T, AoS>);
slice_via!(SliceWrite, FieldWrite<'f, T, AoS, true>);

impl<T: Element> KernelParam for SliceRead<'_, T> {
    type View = ReadView<T>;

    fn push_kinds(out: &mut Vec<ParamKind>) {
        out.push(slice_kind::<T>(false))
    }

    fn host_view(&mut self, info: &'static KernelInfo, id: u32) -> Result<ReadView<T>> {
        // While the launch holds `&Field`, a current host copy is neither reallocated nor
        // written: that needs `&mut Field`.
        let ptr = self.field.host_view(&(0..self.len as usize))?.ptr as *const T;
        // SAFETY: AoS storage is exactly `len` elements of `T` (plus nothing), aligned as
        // its scalars; it stays unwritten for the launch (see above).
        Ok(unsafe { ReadView::new(ptr, self.len as usize, info, id) })
    }
}

impl<T: Element> KernelParam for SliceWrite<'_, T> {
    type View = ArrayView<T, 1>;

    fn push_kinds(out: &mut Vec<ParamKind>) {
        out.push(slice_kind::<T>(true))
    }

    fn host_view(&mut self, info: &'static KernelInfo, id: u32) -> Result<ArrayView<T, 1>> {
        // A kernel may read what it writes: the host copy is made current first (the
        // argument loads).
        let ptr = self.field.host_view(&(0..self.len as usize))?.ptr as *mut T;
        // SAFETY: the launch borrows the field `&mut`, so only its threads touch the
        // storage, and they do so through views, atomically.
        Ok(unsafe { ArrayView::new(ptr, [self.len as usize], info, id) })
    }
}

impl<V: Uniform> DeviceFacet for ValueArg<V> {
    #[cfg(feature = "cuda")]
    fn device_prepare(&mut self, _: &'static crate::cuda::Device, _: &Range<usize>) -> Result<()> {
        Ok(())
    }

    #[cfg(feature = "cuda")]
    #[inline(always)]
    fn push_params<'a>(&'a self, params: &mut crate::cuda::ParamList<'a>) {
        params.push(&self.value);
    }

    #[cfg(feature = "cuda")]
    fn device_prepare_on(
        &mut self,
        _: &'static crate::cuda::Device,
        _: &Range<usize>,
        _: crate::cuda::stream::Queue,
    ) -> Result<()> {
        Ok(())
    }

    #[cfg(feature = "cuda")]
    fn mark_queued(&mut self, _: &crate::field::pending::Mark) {}
}

impl<V: Uniform> KernelParam for ValueArg<V> {
    type View = V;

    fn push_kinds(out: &mut Vec<ParamKind>) {
        out.push(ParamKind::Value {
            cuda_type: V::cuda_type(),
        })
    }

    fn host_view(&mut self, _: &'static KernelInfo, _: u32) -> Result<V> {
        Ok(self.value)
    }
}

/// The tuple of a launch's arguments (its device facet is the tuple one of `capture`).
macro_rules! launch_args {
    ($($a:ident $i:tt),*) => {
        impl<$($a: KernelParam),*> KernelParam for ($($a,)*) {
            type View = ($($a::View,)*);

            #[allow(unused_variables)]
            fn push_kinds(out: &mut Vec<ParamKind>) {
                $($a::push_kinds(out);)*
            }

            #[allow(unused_variables, clippy::unused_unit)]
            fn host_view(&mut self, info: &'static KernelInfo, _id: u32) -> Result<Self::View> {
                Ok(($(self.$i.host_view(info, $i)?,)*))
            }
        }
    };
}

for_each_tuple_arity!(launch_args);
