//! The device facet: how the CUDA backend makes an argument's device copy ready, passes it
//! to the kernel and records the kernel's access. `on_gpu!` captures and the arguments of
//! explicit kernels (`#[ongpu::kernel]`) share it.

#[cfg(feature = "cuda")]
use crate::error::Result;
#[cfg(feature = "cuda")]
use std::ops::Range;

/// What the CUDA backend does with an argument around a launch (nothing without `cuda`).
pub trait DeviceFacet {
    /// Makes the device copy ready for a kernel over the sites `sites` (an explicit
    /// kernel's arguments get every element).
    #[cfg(feature = "cuda")]
    fn device_prepare(
        &mut self,
        dev: &'static crate::cuda::Device,
        sites: &Range<usize>,
    ) -> Result<()>;

    /// Pushes the kernel parameters of this argument, in the order the source declares them.
    #[cfg(feature = "cuda")]
    fn push_params<'a>(&'a self, params: &mut crate::cuda::ParamList<'a>);

    /// Makes the device copy ready for a kernel over `sites` queued on a stream: copies
    /// go to that stream, after the queued work of other streams on the same field.
    #[cfg(feature = "cuda")]
    #[doc(hidden)]
    fn device_prepare_on(
        &mut self,
        dev: &'static crate::cuda::Device,
        sites: &Range<usize>,
        queue: crate::cuda::stream::Queue,
    ) -> Result<()>;

    /// Records the queued kernel's access to the field, so that later work waits for it.
    #[cfg(feature = "cuda")]
    #[doc(hidden)]
    fn mark_queued(&mut self, mark: &crate::field::pending::Mark);
}

/// An argument whose device side is another argument's: a shifted field's read, a decomposed
/// field's selected part, a kernel's slice, a device scalar's one-element field. Its device
/// facet is that argument's (written once, below), but for the kernel parameters where they
/// differ.
pub trait DeviceVia {
    /// The argument whose device side this one is.
    type Via: DeviceFacet;
    /// That argument.
    fn via(&self) -> &Self::Via;
    /// That argument, to prepare.
    fn via_mut(&mut self) -> &mut Self::Via;
    /// The kernel parameters (those of [`via`](DeviceVia::via) unless said otherwise).
    #[cfg(feature = "cuda")]
    #[inline(always)]
    fn via_params<'a>(&'a self, params: &mut crate::cuda::ParamList<'a>) {
        self.via().push_params(params)
    }
}

impl<D: DeviceVia> DeviceFacet for D {
    #[cfg(feature = "cuda")]
    fn device_prepare(
        &mut self,
        dev: &'static crate::cuda::Device,
        sites: &Range<usize>,
    ) -> Result<()> {
        self.via_mut().device_prepare(dev, sites)
    }

    #[cfg(feature = "cuda")]
    #[inline(always)]
    fn push_params<'a>(&'a self, params: &mut crate::cuda::ParamList<'a>) {
        self.via_params(params)
    }

    #[cfg(feature = "cuda")]
    fn device_prepare_on(
        &mut self,
        dev: &'static crate::cuda::Device,
        sites: &Range<usize>,
        queue: crate::cuda::stream::Queue,
    ) -> Result<()> {
        self.via_mut().device_prepare_on(dev, sites, queue)
    }

    #[cfg(feature = "cuda")]
    fn mark_queued(&mut self, mark: &crate::field::pending::Mark) {
        self.via_mut().mark_queued(mark)
    }
}
