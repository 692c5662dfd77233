//! The arguments of a kernel launch: `&Field<T, AoS>` for a `&[T]` parameter,
//! `&mut Field<T, AoS>` for a `&mut [T]` one (with the same host/device coherence as
//! `on_gpu!`: a copy is made only when the side that is needed is stale), and values.

// The stream-path methods of `KernelParam` and `KernelParams` take crate-private types:
// only this crate implements and calls them (expansions reach the traits through
// `__private` only).
#![allow(private_interfaces)]

use super::call_site::KernelInfo;
use super::views::{ArrayView, ReadView};
use crate::capture::Uniform;
use crate::element::{Element, RealKind, Scalar};
use crate::error::Result;
use crate::field::Field;
use crate::layout::AoS;

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

/// One argument of a launch, as the backends see it.
pub trait KernelParam {
    /// What the CPU backend's threads get.
    type View: Copy + Send + Sync;
    /// The parameter's kind.
    fn kind() -> ParamKind;
    /// Makes the host copy current and returns the view of it (`id`: the parameter's index).
    fn host_view(&mut self, info: &'static KernelInfo, id: u32) -> Result<Self::View>;
    /// Makes the device copy current.
    #[cfg(feature = "cuda")]
    fn device_prepare(&mut self, dev: &'static crate::cuda::Device) -> Result<()>;
    /// Makes the device copy current for a launch queued on a stream: copies go to that
    /// stream, after the queued work of other queues on the same field.
    #[cfg(feature = "cuda")]
    #[doc(hidden)]
    fn device_prepare_on(
        &mut self,
        dev: &'static crate::cuda::Device,
        queue: crate::cuda::stream::Queue,
    ) -> Result<()>;
    /// Records the queued launch's access to the field, so that later work waits for it.
    #[cfg(feature = "cuda")]
    #[doc(hidden)]
    fn mark_queued(&mut self, mark: &crate::field::pending::Mark);
    /// Pushes the kernel parameters (pointer and length, or the value).
    #[cfg(feature = "cuda")]
    fn push_params<'a>(&'a self, params: &mut crate::cuda::ParamList<'a>);
}

/// A `&[T]` parameter's argument.
#[derive(Debug)]
pub struct SliceRead<'a, T: Element> {
    field: &'a Field<T, AoS>,
    len: u64,
    #[cfg(feature = "cuda")]
    device_ptr: u64,
}

/// A `&mut [T]` parameter's argument.
#[derive(Debug)]
pub struct SliceWrite<'a, T: Element> {
    field: &'a mut Field<T, AoS>,
    len: u64,
    #[cfg(feature = "cuda")]
    device_ptr: u64,
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
        field,
        #[cfg(feature = "cuda")]
        device_ptr: 0,
    }
}

/// Wraps the field passed for a `&mut [T]` parameter (the macro calls this).
#[inline(always)]
pub fn slice_write<T: Element>(field: &mut Field<T, AoS>) -> SliceWrite<'_, T> {
    SliceWrite {
        len: field.len() as u64,
        field,
        #[cfg(feature = "cuda")]
        device_ptr: 0,
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

impl<T: Element> KernelParam for SliceRead<'_, T> {
    type View = ReadView<T>;

    fn kind() -> ParamKind {
        slice_kind::<T>(false)
    }

    fn host_view(&mut self, info: &'static KernelInfo, id: u32) -> Result<ReadView<T>> {
        // While the launch holds `&Field`, a current host copy is neither reallocated nor
        // written: that needs `&mut Field`.
        let ptr = self.field.lock().host_for_read()?.as_ptr() as *const T;
        // SAFETY: AoS storage is exactly `len` elements of `T` (plus nothing), aligned as
        // its scalars; it stays unwritten for the launch (see above).
        Ok(unsafe { ReadView::new(ptr, self.len as usize, info, id) })
    }

    #[cfg(feature = "cuda")]
    fn device_prepare(&mut self, dev: &'static crate::cuda::Device) -> Result<()> {
        let what = self.field.what();
        self.device_ptr = self.field.lock().device_for_read(dev, &what)?;
        Ok(())
    }

    #[cfg(feature = "cuda")]
    fn device_prepare_on(
        &mut self,
        dev: &'static crate::cuda::Device,
        queue: crate::cuda::stream::Queue,
    ) -> Result<()> {
        let what = self.field.what();
        self.device_ptr = self.field.lock().device_read_on(dev, queue, &what)?;
        Ok(())
    }

    #[cfg(feature = "cuda")]
    fn mark_queued(&mut self, mark: &crate::field::pending::Mark) {
        // A shared borrow: other users may only read the field meanwhile, which does not
        // conflict with this read, so recording it after the launch is in time.
        self.field.lock().mark_kernel_read(mark);
    }

    #[cfg(feature = "cuda")]
    #[inline(always)]
    fn push_params<'a>(&'a self, params: &mut crate::cuda::ParamList<'a>) {
        params.push(&self.device_ptr);
        params.push(&self.len);
    }
}

impl<T: Element> KernelParam for SliceWrite<'_, T> {
    type View = ArrayView<T, 1>;

    fn kind() -> ParamKind {
        slice_kind::<T>(true)
    }

    fn host_view(&mut self, info: &'static KernelInfo, id: u32) -> Result<ArrayView<T, 1>> {
        // A kernel may read what it writes: the host copy is made current first.
        let ptr = self.field.sides_mut().host_for_write(false)?.as_mut_ptr() as *mut T;
        // SAFETY: the launch borrows the field `&mut`, so only its threads touch the
        // storage, and they do so through views, atomically.
        Ok(unsafe { ArrayView::new(ptr, [self.len as usize], info, id) })
    }

    #[cfg(feature = "cuda")]
    fn device_prepare(&mut self, dev: &'static crate::cuda::Device) -> Result<()> {
        let what = self.field.what();
        self.device_ptr = self.field.sides_mut().device_for_write(dev, false, &what)?;
        Ok(())
    }

    #[cfg(feature = "cuda")]
    fn device_prepare_on(
        &mut self,
        dev: &'static crate::cuda::Device,
        queue: crate::cuda::stream::Queue,
    ) -> Result<()> {
        let what = self.field.what();
        self.device_ptr = self
            .field
            .sides_mut()
            .device_write_on(dev, queue, false, &what)?;
        Ok(())
    }

    #[cfg(feature = "cuda")]
    fn mark_queued(&mut self, mark: &crate::field::pending::Mark) {
        self.field.sides_mut().mark_kernel_write(mark);
    }

    #[cfg(feature = "cuda")]
    #[inline(always)]
    fn push_params<'a>(&'a self, params: &mut crate::cuda::ParamList<'a>) {
        params.push(&self.device_ptr);
        params.push(&self.len);
    }
}

impl<V: Uniform> KernelParam for ValueArg<V> {
    type View = V;

    fn kind() -> ParamKind {
        ParamKind::Value {
            cuda_type: V::cuda_type(),
        }
    }

    fn host_view(&mut self, _: &'static KernelInfo, _: u32) -> Result<V> {
        Ok(self.value)
    }

    #[cfg(feature = "cuda")]
    fn device_prepare(&mut self, _: &'static crate::cuda::Device) -> Result<()> {
        Ok(())
    }

    #[cfg(feature = "cuda")]
    fn device_prepare_on(
        &mut self,
        _: &'static crate::cuda::Device,
        _: crate::cuda::stream::Queue,
    ) -> Result<()> {
        Ok(())
    }

    #[cfg(feature = "cuda")]
    fn mark_queued(&mut self, _: &crate::field::pending::Mark) {}

    #[cfg(feature = "cuda")]
    #[inline(always)]
    fn push_params<'a>(&'a self, params: &mut crate::cuda::ParamList<'a>) {
        params.push(&self.value);
    }
}

/// The arguments of one launch, as a tuple of [`KernelParam`]s in parameter order.
pub trait KernelParams {
    /// The views, in order.
    type Views: Copy + Send + Sync;
    /// The parameters' kinds, in order.
    fn kinds() -> Vec<ParamKind>;
    /// Host views of every argument.
    fn host_views(&mut self, info: &'static KernelInfo) -> Result<Self::Views>;
    /// Device copies of every argument.
    #[cfg(feature = "cuda")]
    fn device_prepare(&mut self, dev: &'static crate::cuda::Device) -> Result<()>;
    /// Device copies of every argument, for a launch queued on `queue`.
    #[cfg(feature = "cuda")]
    #[doc(hidden)]
    fn device_prepare_on(
        &mut self,
        dev: &'static crate::cuda::Device,
        queue: crate::cuda::stream::Queue,
    ) -> Result<()>;
    /// Records the queued launch's access to every field argument.
    #[cfg(feature = "cuda")]
    #[doc(hidden)]
    fn mark_queued(&mut self, mark: &crate::field::pending::Mark);
    /// Kernel parameters, in order.
    #[cfg(feature = "cuda")]
    fn push_params<'a>(&'a self, params: &mut crate::cuda::ParamList<'a>);
}

macro_rules! launch_args {
    ($($a:ident $i:tt),*) => {
        impl<$($a: KernelParam),*> KernelParams for ($($a,)*) {
            type Views = ($($a::View,)*);

            fn kinds() -> Vec<ParamKind> {
                vec![$($a::kind()),*]
            }

            #[allow(unused_variables, clippy::unused_unit)]
            fn host_views(&mut self, info: &'static KernelInfo) -> Result<Self::Views> {
                Ok(($(self.$i.host_view(info, $i)?,)*))
            }

            #[cfg(feature = "cuda")]
            #[allow(unused_variables)]
            fn device_prepare(&mut self, dev: &'static crate::cuda::Device) -> Result<()> {
                $(self.$i.device_prepare(dev)?;)*
                Ok(())
            }

            #[cfg(feature = "cuda")]
            #[allow(unused_variables)]
            fn device_prepare_on(
                &mut self,
                dev: &'static crate::cuda::Device,
                queue: crate::cuda::stream::Queue,
            ) -> Result<()> {
                $(self.$i.device_prepare_on(dev, queue)?;)*
                Ok(())
            }

            #[cfg(feature = "cuda")]
            #[allow(unused_variables)]
            fn mark_queued(&mut self, mark: &crate::field::pending::Mark) {
                $(self.$i.mark_queued(mark);)*
            }

            #[cfg(feature = "cuda")]
            #[inline(always)]
            #[allow(unused_variables)]
            fn push_params<'p>(&'p self, params: &mut crate::cuda::ParamList<'p>) {
                $(self.$i.push_params(params);)*
            }
        }
    };
}

for_each_tuple_arity!(launch_args);
