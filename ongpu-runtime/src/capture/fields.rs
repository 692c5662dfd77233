//! Field arguments: a field the body reads ([`FieldRead`]) or writes ([`FieldWrite`]), each
//! site its own element. (A shifted field is `lattice::shift::FieldShifted`, over a read.)

use super::device::DeviceFacet;
use super::host::{HostFacet, HostPtr};
use super::parts::PartFacet;
use super::wrap::{ReadCapture, WriteCapture};
use super::{CaptureArg, CaptureKind};
use crate::element::{Element, Scalar};
use crate::error::Result;
use crate::field::{site_io, Field};
use crate::layout::Layout;
use std::marker::PhantomData;
use std::ops::Range;

/// A field the body reads.
pub struct FieldRead<'a, T: Element, L: Layout> {
    field: &'a Field<T, L>,
    #[cfg(feature = "cuda")]
    device_ptr: u64,
}

/// A field the body writes; `LOAD` tells whether its old value is read.
pub struct FieldWrite<'a, T: Element, L: Layout, const LOAD: bool> {
    field: &'a mut Field<T, L>,
    #[cfg(feature = "cuda")]
    device_ptr: u64,
}

impl<T: Element, L: Layout> FieldRead<'_, T, L> {
    /// The device address prepared by `device_prepare` (or `_on`).
    #[cfg(feature = "cuda")]
    #[inline(always)]
    pub(crate) fn device_ptr(&self) -> &u64 {
        &self.device_ptr
    }
}

impl<T: Element, L: Layout, const LOAD: bool> FieldWrite<'_, T, L, LOAD> {
    /// The device address prepared by `device_prepare` (or `_on`).
    #[cfg(feature = "cuda")]
    #[inline(always)]
    pub(crate) fn device_ptr(&self) -> &u64 {
        &self.device_ptr
    }

    /// True when a call over `sites` assigns every element without reading it, so that the
    /// old contents need not be made current.
    fn overwrites_all(&self, sites: &Range<usize>) -> bool {
        !LOAD && sites.start == 0 && sites.end == self.field.len()
    }
}

/// Key type of a [`FieldRead`] (see [`CaptureArg::Key`]).
pub struct FieldReadKey<T, L>(PhantomData<(T, L)>);
/// Key type of a [`FieldWrite`].
pub struct FieldWriteKey<T, L, const LOAD: bool>(PhantomData<(T, L)>);

impl<T: Element, L: Layout> CaptureArg for FieldRead<'_, T, L> {
    type Key = FieldReadKey<T, L>;

    fn push_kinds(out: &mut Vec<CaptureKind>) {
        out.push(field_kind::<T, L>(None))
    }

    #[inline(always)]
    fn for_each_len(&self, f: &mut impl FnMut(Option<usize>)) {
        f(Some(self.field.len()))
    }
}

impl<T: Element, L: Layout> HostFacet for FieldRead<'_, T, L> {
    type Site = T;
    type HostView = HostPtr<T::Scalar>;
    const BLOCK: usize = L::BLOCK;

    fn host_view(&mut self, _sites: &Range<usize>) -> Result<Self::HostView> {
        // While this call holds `&Field`, the host copy, once current, is never reallocated
        // or rewritten: that needs `&mut Field`.
        let mut sides = self.field.lock();
        let ptr = sides.host_for_read()?.as_mut_ptr();
        Ok(HostPtr {
            ptr,
            stride: *self.field.stride_ref() as usize,
        })
    }

    #[inline(always)]
    unsafe fn load(view: &Self::HostView, s: usize) -> T {
        site_io::load::<T, L>(view.ptr, s, view.stride)
    }

    #[inline(always)]
    unsafe fn store(_: &Self::HostView, _: usize, _: T) {}

    type Lanes = site_io::ReadLanes<T, L>;
    const GROUPS_PAY: bool = lane_groups_pay::<T, L>();

    #[inline(always)]
    unsafe fn load_lanes(view: &Self::HostView, s0: usize) -> Self::Lanes {
        site_io::ReadLanes::new(view.ptr, s0, view.stride)
    }

    type LaneAccess = *const T::Scalar;
    type LaneSite = T;

    #[inline(always)]
    fn lane_to_site(lane: T) -> T {
        lane
    }

    #[inline(always)]
    fn site_to_lane(site: T, _: T) -> T {
        site
    }

    #[inline(always)]
    fn lane_access(lanes: &mut Self::Lanes) -> Self::LaneAccess {
        lanes.access()
    }

    #[inline(always)]
    unsafe fn lane(access: &Self::LaneAccess, _: &(), l: usize) -> T {
        site_io::lane_at(*access, l)
    }

    type LaneOut = ();

    #[inline(always)]
    unsafe fn lane_out(_: &Self::HostView, _: usize) {}

    #[inline(always)]
    unsafe fn set_lane(_: &mut (), _: usize, _: T) {}

    #[inline(always)]
    unsafe fn store_lanes(_: &Self::HostView, _: usize, _: &()) {}
}

impl<T: Element, L: Layout> DeviceFacet for FieldRead<'_, T, L> {
    #[cfg(feature = "cuda")]
    fn device_prepare(
        &mut self,
        dev: &'static crate::cuda::Device,
        _sites: &Range<usize>,
    ) -> Result<()> {
        let what = self.field.what();
        self.device_ptr = self.field.lock().device_for_read(dev, &what)?;
        Ok(())
    }

    #[cfg(feature = "cuda")]
    #[inline(always)]
    fn push_params<'b>(&'b self, params: &mut crate::cuda::ParamList<'b>) {
        params.push(&self.device_ptr);
        params.push(self.field.stride_ref());
    }

    #[cfg(feature = "cuda")]
    fn device_prepare_on(
        &mut self,
        dev: &'static crate::cuda::Device,
        _sites: &Range<usize>,
        queue: crate::cuda::stream::Queue,
    ) -> Result<()> {
        let (len, stride) = (self.field.len(), *self.field.stride_ref());
        let what = || crate::field::describe::<T, L>(len, stride);
        self.device_ptr = self.field.lock().device_read_on(dev, queue, &what)?;
        Ok(())
    }

    #[cfg(feature = "cuda")]
    fn mark_queued(&mut self, mark: &crate::field::pending::Mark) {
        // A shared borrow: other users may only read the field meanwhile, which does not
        // conflict with this read, so recording it after the launch is in time.
        self.field.lock().mark_kernel_read(mark);
    }
}

impl<T: Element, L: Layout> PartFacet for FieldRead<'_, T, L> {}

impl<T: Element, L: Layout, const LOAD: bool> CaptureArg for FieldWrite<'_, T, L, LOAD> {
    type Key = FieldWriteKey<T, L, LOAD>;

    fn push_kinds(out: &mut Vec<CaptureKind>) {
        out.push(field_kind::<T, L>(Some(LOAD)))
    }

    #[inline(always)]
    fn for_each_len(&self, f: &mut impl FnMut(Option<usize>)) {
        f(Some(self.field.len()))
    }
}

impl<T: Element, L: Layout, const LOAD: bool> HostFacet for FieldWrite<'_, T, L, LOAD> {
    type Site = T;
    type HostView = HostPtr<T::Scalar>;
    const BLOCK: usize = L::BLOCK;

    fn host_view(&mut self, sites: &Range<usize>) -> Result<Self::HostView> {
        let overwrite_all = self.overwrites_all(sites);
        let stride = *self.field.stride_ref() as usize;
        let ptr = self
            .field
            .sides_mut()
            .host_for_write(overwrite_all)?
            .as_mut_ptr();
        Ok(HostPtr { ptr, stride })
    }

    #[inline(always)]
    unsafe fn load(view: &Self::HostView, s: usize) -> T {
        if LOAD {
            site_io::load::<T, L>(view.ptr, s, view.stride)
        } else {
            T::zeroed()
        }
    }

    #[inline(always)]
    unsafe fn store(view: &Self::HostView, s: usize, value: T) {
        site_io::store::<T, L>(view.ptr, s, view.stride, value)
    }

    type Lanes = site_io::WriteLanes<T, L, LOAD>;
    const GROUPS_PAY: bool = lane_groups_pay::<T, L>();

    #[inline(always)]
    unsafe fn load_lanes(view: &Self::HostView, s0: usize) -> Self::Lanes {
        site_io::WriteLanes::new(view.ptr, s0, view.stride)
    }

    type LaneAccess = site_io::WriteAccess<T, L, LOAD>;
    type LaneSite = T;

    #[inline(always)]
    fn lane_to_site(lane: T) -> T {
        lane
    }

    #[inline(always)]
    fn site_to_lane(site: T, _: T) -> T {
        site
    }

    #[inline(always)]
    fn lane_access(lanes: &mut Self::Lanes) -> Self::LaneAccess {
        lanes.access()
    }

    #[inline(always)]
    unsafe fn lane(access: &Self::LaneAccess, out: &Self::LaneOut, l: usize) -> T {
        access.get(out, l)
    }

    type LaneOut = site_io::Lanes<T>;

    #[inline(always)]
    unsafe fn lane_out(view: &Self::HostView, s0: usize) -> Self::LaneOut {
        site_io::WriteLanes::<T, L, LOAD>::old_values(view.ptr, s0, view.stride)
    }

    #[inline(always)]
    unsafe fn set_lane(out: &mut Self::LaneOut, l: usize, value: T) {
        site_io::set_lane_at(out.scalars_mut(), l, value)
    }

    #[inline(always)]
    unsafe fn store_lanes(view: &Self::HostView, s0: usize, out: &Self::LaneOut) {
        site_io::scatter::<T, L>(view.ptr, s0, view.stride, out)
    }
}

impl<T: Element, L: Layout, const LOAD: bool> DeviceFacet for FieldWrite<'_, T, L, LOAD> {
    #[cfg(feature = "cuda")]
    fn device_prepare(
        &mut self,
        dev: &'static crate::cuda::Device,
        sites: &Range<usize>,
    ) -> Result<()> {
        let overwrite_all = self.overwrites_all(sites);
        let what = self.field.what();
        let sides = self.field.sides_mut();
        self.device_ptr = sides.device_for_write(dev, overwrite_all, &what)?;
        sides.release_host_if_device_only()
    }

    #[cfg(feature = "cuda")]
    #[inline(always)]
    fn push_params<'b>(&'b self, params: &mut crate::cuda::ParamList<'b>) {
        params.push(&self.device_ptr);
        params.push(self.field.stride_ref());
    }

    #[cfg(feature = "cuda")]
    fn device_prepare_on(
        &mut self,
        dev: &'static crate::cuda::Device,
        sites: &Range<usize>,
        queue: crate::cuda::stream::Queue,
    ) -> Result<()> {
        let overwrite_all = self.overwrites_all(sites);
        let (len, stride) = (self.field.len(), *self.field.stride_ref());
        let what = || crate::field::describe::<T, L>(len, stride);
        let sides = self.field.sides_mut();
        self.device_ptr = sides.device_write_on(dev, queue, overwrite_all, &what)?;
        sides.release_host_if_device_only()
    }

    #[cfg(feature = "cuda")]
    fn mark_queued(&mut self, mark: &crate::field::pending::Mark) {
        self.field.sides_mut().mark_kernel_write(mark);
    }
}

impl<T: Element, L: Layout, const LOAD: bool> PartFacet for FieldWrite<'_, T, L, LOAD> {}

/// Whether the CPU backend runs a field's sites in groups of `LANES` (gathered into a
/// stack array of `LANES` elements): for layouts that keep a group's components together,
/// or scalars, and elements of at most 1 KiB — a group of the `Ls` spinors of a
/// domain-wall site (3 KiB each in f64) would put 96 KiB per field on a worker's stack.
const fn lane_groups_pay<T: Element, L: Layout>() -> bool {
    (L::SITES_CONTIGUOUS || T::COMPONENTS == 1) && std::mem::size_of::<T>() <= 1024
}

fn field_kind<T: Element, L: Layout>(write: Option<bool>) -> CaptureKind {
    CaptureKind::Field {
        scalar: <T::Scalar as Scalar>::CUDA_NAME,
        element: T::cuda_type(),
        layout: L::cuda_name(),
        components: T::COMPONENTS,
        real: <T::Scalar as Scalar>::REAL,
        write,
    }
}

impl<T: Element, L: Layout> ReadCapture for Field<T, L> {
    type Site = T;
    type Arg<'a> = FieldRead<'a, T, L>;
    #[inline(always)]
    fn read_arg(&self) -> FieldRead<'_, T, L> {
        FieldRead {
            field: self,
            #[cfg(feature = "cuda")]
            device_ptr: 0,
        }
    }
}

impl<T: Element, L: Layout> WriteCapture for Field<T, L> {
    type Site = T;
    type Arg<'a, const LOAD: bool> = FieldWrite<'a, T, L, LOAD>;
    #[inline(always)]
    fn write_arg<const LOAD: bool>(&mut self) -> FieldWrite<'_, T, L, LOAD> {
        FieldWrite {
            field: self,
            #[cfg(feature = "cuda")]
            device_ptr: 0,
        }
    }
}
