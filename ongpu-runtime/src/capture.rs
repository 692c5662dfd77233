//! Captures: how each free identifier of an `on_gpu!` body reaches a site.
//!
//! The macro wraps each capture in one of three arguments: [`FieldRead`] (a field the body
//! only reads), [`FieldWrite`] (a field it assigns; `LOAD = false` when the body assigns it
//! whole before reading it, so its old value is never loaded) and [`Value`] (anything else,
//! passed by value to every site). A tuple of arguments is a [`Captures`].

// The stream-path methods of `CaptureArg` and `Captures` take crate-private types: only this
// crate implements and calls them (expansions reach the traits through `__private` only).
#![allow(private_interfaces)]

use crate::element::{Element, RealKind, Scalar};
use crate::error::Result;
use crate::field::{site_io, Field};
use crate::geometry::Lattice;
use crate::layout::Layout;
use crate::random::Philox;
use crate::types::{ColorMatrix, ColorVector};
use num_complex::Complex;
use std::marker::PhantomData;
use std::ops::Range;

/// What a kernel's source needs to know about one capture's type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CaptureKind {
    /// A field, indexed by the site.
    Field {
        /// CUDA name of the storage scalar (`float`).
        scalar: &'static str,
        /// CUDA type of an element (`ongpu::ColorMatrix<float>`).
        element: String,
        /// CUDA type of the layout (`ongpu::AoSoA<32>`).
        layout: String,
        /// Scalars per element.
        components: usize,
        /// Precision of the components, if they are floating point.
        real: Option<RealKind>,
        /// `None` if read only; `Some(load)` if written, `load` telling whether the old value
        /// is read first.
        write: Option<bool>,
    },
    /// A value passed to every site.
    Value {
        /// CUDA type of the value.
        cuda_type: String,
    },
    /// A [`DeviceScalar`](crate::DeviceScalar) read by every site: the kernel gets its
    /// device address and each site loads the value.
    Scalar {
        /// CUDA type of the value.
        cuda_type: String,
    },
}

/// One capture as a backend sees it.
pub trait CaptureArg {
    /// The per-site value the body sees.
    type Site: Copy + Send;
    /// A `'static` stand-in for the argument's type, to key compiled kernels.
    type Key: 'static;
    /// What the CPU backend reads and writes sites through.
    type HostView: Copy + Send + Sync;
    /// Sites stored together (the layout's block; 1 for values).
    const BLOCK: usize;

    /// The type facts the kernel source depends on.
    fn kind() -> CaptureKind;

    /// The field's length, or `None` for a value.
    fn field_len(&self) -> Option<usize>;

    /// Makes the host copy ready for a call over the sites `sites` and returns the view to it.
    fn host_view(&mut self, sites: &Range<usize>) -> Result<Self::HostView>;

    /// The value of site `s`.
    ///
    /// # Safety
    /// `view` comes from [`host_view`](CaptureArg::host_view) for sites that hold `s`.
    unsafe fn load(view: &Self::HostView, s: usize) -> Self::Site;

    /// Writes back the value of site `s` (nothing for read-only arguments).
    ///
    /// # Safety
    /// As for `load`, and no other thread touches site `s` meanwhile.
    unsafe fn store(view: &Self::HostView, s: usize, value: Self::Site);

    /// The CPU backend's buffer for a group of sites (32, one `AoSoA<32>` block).
    type Lanes;

    /// True for a field whose layout stores one component of consecutive sites contiguously,
    /// so that running groups of sites pays (see [`Layout::SITES_CONTIGUOUS`]).
    const GROUPS_PAY: bool;

    /// Loads sites `s0 .. s0 + LANES` into a buffer.
    ///
    /// # Safety
    /// `view` comes from [`host_view`](CaptureArg::host_view) for sites that hold `s0 .. s0 + LANES`.
    unsafe fn load_lanes(view: &Self::HostView, s0: usize) -> Self::Lanes;

    /// Where a group's lanes are read and written: pointers into the storage or into the
    /// buffer, taken once a group. (Read from the buffer at every lane, they would be
    /// reloaded after each lane's stores, which LLVM cannot prove leave them unchanged, and
    /// the lane loop would not be vectorised.)
    type LaneAccess: Copy;

    /// The access to a buffer's lanes, valid while the buffer is neither moved nor used
    /// otherwise.
    fn lane_access(lanes: &mut Self::Lanes) -> Self::LaneAccess;

    /// The value of lane `l`.
    ///
    /// # Safety
    /// `l < LANES`; the access comes from [`lane_access`](CaptureArg::lane_access) of a live
    /// buffer from [`load_lanes`](CaptureArg::load_lanes).
    unsafe fn lane(access: &Self::LaneAccess, l: usize) -> Self::Site;

    /// Sets lane `l` (nothing for read-only arguments).
    ///
    /// # Safety
    /// As for [`lane`](CaptureArg::lane).
    unsafe fn set_lane(access: &Self::LaneAccess, l: usize, value: Self::Site);

    /// Writes a buffer back to sites `s0 .. s0 + LANES` (nothing for read-only arguments).
    ///
    /// # Safety
    /// As for `load_lanes`; every lane was set; no other thread touches these sites meanwhile.
    unsafe fn store_lanes(view: &Self::HostView, s0: usize, lanes: &Self::Lanes);

    /// Makes the device copy ready for a kernel over the sites `sites`.
    #[cfg(feature = "cuda")]
    fn device_prepare(
        &mut self,
        dev: &'static crate::cuda::Device,
        sites: &Range<usize>,
    ) -> Result<()>;

    /// Pushes the kernel parameters of this capture, in the order the source declares them.
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

    /// The identity of the split lattice whose field this is (`None` for a field of a
    /// whole lattice, and for values).
    #[inline(always)]
    fn split_id(&self) -> Option<u64> {
        None
    }

    /// Points a split field's argument at part `part` (nothing for other arguments).
    #[inline(always)]
    fn select_part(&mut self, _part: usize) {}

    /// After a call over a split or rank lattice (over sites of `parity`, or all): a
    /// written field's halos of that parity are stale (`lattice::halos`).
    #[inline(always)]
    fn mark_written(&mut self, _parity: Option<usize>) {}

    /// Whether the argument reads a split field's halos (a split field the body shifts).
    #[inline(always)]
    fn reads_halos(&self) -> bool {
        false
    }

    /// Before the parts of a call over a split lattice run: a shifted split field refreshes
    /// its stale halos (on the GPU, copies queued on the halo streams).
    #[inline(always)]
    fn refresh_halos(&mut self) -> Result<()> {
        Ok(())
    }

    /// Orders a part's kernels of a call over a split lattice with the halo copies on the
    /// GPU: at [`SplitStage::Start`] a written split field waits for the copies that read the
    /// part's boundary; at [`SplitStage::Boundary`] a shifted one for the part's halos.
    #[inline(always)]
    fn split_wait(&self, _part: usize, _stage: SplitStage) -> Result<()> {
        Ok(())
    }

    /// The identity of the rank lattice whose field this is (`None` for other arguments).
    #[cfg(feature = "mpi")]
    #[inline(always)]
    fn rank_id(&self) -> Option<u64> {
        None
    }

    /// Whether the argument is a shifted rank field whose halos are stale (the call
    /// refreshes them before its boundary runs).
    #[cfg(feature = "mpi")]
    #[inline(always)]
    fn stale_halos(&self) -> bool {
        false
    }

    /// A shifted rank field's faces of exchange round `round`, when its halos are stale: the
    /// one sent down, then the one sent up, packed into the next two buffers of `faces` (on
    /// the GPU by kernels queued on the default stream, which the caller waits for before
    /// sending).
    #[cfg(feature = "mpi")]
    #[inline(always)]
    fn halo_send(&mut self, _round: usize, _faces: &mut crate::mpi::staging::Faces) -> Result<()> {
        Ok(())
    }

    /// A shifted rank field's stale halos of round `round` from the next two of `faces`
    /// (from below, from above); on the GPU unpacked by kernels queued on the default stream.
    #[cfg(feature = "mpi")]
    #[inline(always)]
    fn halo_receive(
        &mut self,
        _round: usize,
        _faces: &mut dyn Iterator<Item = &mut crate::mpi::staging::Slot>,
    ) -> Result<()> {
        Ok(())
    }
}

/// Where a part of a call over a split lattice stands, for [`CaptureArg::split_wait`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitStage {
    /// Before any of the part's sites run.
    Start,
    /// Before the sites next to the halos run (after the interior).
    Boundary,
}

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

/// A value passed to every site.
pub struct Value<'a, V> {
    value: &'a V,
}

/// Key type of a [`FieldRead`] (see [`CaptureArg::Key`]).
pub struct FieldReadKey<T, L>(PhantomData<(T, L)>);
/// Key type of a [`FieldWrite`].
pub struct FieldWriteKey<T, L, const LOAD: bool>(PhantomData<(T, L)>);
/// Key type of a [`Value`].
pub struct ValueKey<V>(PhantomData<V>);

/// A host pointer that may cross to rayon threads.
///
/// The CPU backend splits the sites of a call into disjoint ranges, one per task; a site's
/// components are touched only by the task that owns the site, so no two threads ever access
/// the same scalar, and a field written by the call is borrowed `&mut` by it (no one else
/// can read it meanwhile).
#[derive(Clone, Copy)]
pub struct HostPtr<S> {
    pub(crate) ptr: *mut S,
    pub(crate) stride: usize,
}
// SAFETY: see the type's documentation: accesses through it are to disjoint sites.
unsafe impl<S: Send> Send for HostPtr<S> {}
// SAFETY: as above.
unsafe impl<S: Sync> Sync for HostPtr<S> {}

impl<'a, T: Element, L: Layout> CaptureArg for FieldRead<'a, T, L> {
    type Site = T;
    type Key = FieldReadKey<T, L>;
    type HostView = HostPtr<T::Scalar>;
    const BLOCK: usize = L::BLOCK;

    fn kind() -> CaptureKind {
        field_kind::<T, L>(None)
    }

    fn field_len(&self) -> Option<usize> {
        Some(self.field.len())
    }

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
    const GROUPS_PAY: bool = L::SITES_CONTIGUOUS || T::COMPONENTS == 1;

    #[inline(always)]
    unsafe fn load_lanes(view: &Self::HostView, s0: usize) -> Self::Lanes {
        site_io::ReadLanes::new(view.ptr, s0, view.stride)
    }

    type LaneAccess = *const T::Scalar;

    #[inline(always)]
    fn lane_access(lanes: &mut Self::Lanes) -> Self::LaneAccess {
        lanes.access()
    }

    #[inline(always)]
    unsafe fn lane(access: &Self::LaneAccess, l: usize) -> T {
        site_io::lane_at(*access, l)
    }

    #[inline(always)]
    unsafe fn set_lane(_: &Self::LaneAccess, _: usize, _: T) {}

    #[inline(always)]
    unsafe fn store_lanes(_: &Self::HostView, _: usize, _: &Self::Lanes) {}

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

impl<'a, T: Element, L: Layout, const LOAD: bool> CaptureArg for FieldWrite<'a, T, L, LOAD> {
    type Site = T;
    type Key = FieldWriteKey<T, L, LOAD>;
    type HostView = HostPtr<T::Scalar>;
    const BLOCK: usize = L::BLOCK;

    fn kind() -> CaptureKind {
        field_kind::<T, L>(Some(LOAD))
    }

    fn field_len(&self) -> Option<usize> {
        Some(self.field.len())
    }

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
    const GROUPS_PAY: bool = L::SITES_CONTIGUOUS || T::COMPONENTS == 1;

    #[inline(always)]
    unsafe fn load_lanes(view: &Self::HostView, s0: usize) -> Self::Lanes {
        site_io::WriteLanes::new(view.ptr, s0, view.stride)
    }

    type LaneAccess = site_io::WriteAccess<T, LOAD>;

    #[inline(always)]
    fn lane_access(lanes: &mut Self::Lanes) -> Self::LaneAccess {
        lanes.access()
    }

    #[inline(always)]
    unsafe fn lane(access: &Self::LaneAccess, l: usize) -> T {
        access.get(l)
    }

    #[inline(always)]
    unsafe fn set_lane(access: &Self::LaneAccess, l: usize, value: T) {
        access.set(l, value)
    }

    #[inline(always)]
    unsafe fn store_lanes(view: &Self::HostView, s0: usize, lanes: &Self::Lanes) {
        lanes.store(view.ptr, s0, view.stride)
    }

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

/// A type whose values can be captured by value (passed to every site).
///
/// # Safety
/// `cuda_type()` must name a CUDA C++ type with the same size and layout, since the value is
/// passed to the kernel as raw bytes.
pub unsafe trait Uniform: Copy + Send + Sync + 'static {
    /// The CUDA C++ type.
    fn cuda_type() -> String;
}

macro_rules! uniform {
    ($($t:ty => $cuda:expr;)*) => {$(
        // SAFETY: the named CUDA type has the same layout (scalars, or the prelude's
        // `#[repr(C)]` twins).
        unsafe impl Uniform for $t {
            fn cuda_type() -> String {
                ($cuda).to_string()
            }
        }
        impl ReadCapture for $t {
            type Site = $t;
            type Arg<'a> = Value<'a, $t>;
            #[inline(always)]
            fn read_arg(&self) -> Value<'_, $t> {
                Value { value: self }
            }
        }
    )*};
}

uniform! {
    f32 => "float";
    f64 => "double";
    i32 => "int";
    u32 => "unsigned int";
    i64 => "long long";
    u64 => "unsigned long long";
    usize => "unsigned long long";
    isize => "long long";
    bool => "bool";
    Complex<f32> => <Complex<f32> as Element>::cuda_type();
    Complex<f64> => <Complex<f64> as Element>::cuda_type();
    ColorVector<f32> => <ColorVector<f32> as Element>::cuda_type();
    ColorVector<f64> => <ColorVector<f64> as Element>::cuda_type();
    ColorMatrix<f32> => <ColorMatrix<f32> as Element>::cuda_type();
    ColorMatrix<f64> => <ColorMatrix<f64> as Element>::cuda_type();
    Lattice => "ongpu::Lattice";
    Philox => "ongpu::Philox";
}

const _: () = assert!(
    std::mem::size_of::<usize>() == 8,
    "ongpu needs a 64-bit host"
);

impl<'a, V: Uniform> CaptureArg for Value<'a, V> {
    type Site = V;
    type Key = ValueKey<V>;
    type HostView = V;
    const BLOCK: usize = 1;

    fn kind() -> CaptureKind {
        CaptureKind::Value {
            cuda_type: V::cuda_type(),
        }
    }

    fn field_len(&self) -> Option<usize> {
        None
    }

    fn host_view(&mut self, _sites: &Range<usize>) -> Result<V> {
        Ok(*self.value)
    }

    #[inline(always)]
    unsafe fn load(view: &V, _s: usize) -> V {
        *view
    }

    #[inline(always)]
    unsafe fn store(_: &V, _: usize, _: V) {}

    type Lanes = V;
    const GROUPS_PAY: bool = false;

    #[inline(always)]
    unsafe fn load_lanes(view: &V, _s0: usize) -> V {
        *view
    }

    type LaneAccess = V;

    #[inline(always)]
    fn lane_access(lanes: &mut V) -> V {
        *lanes
    }

    #[inline(always)]
    unsafe fn lane(access: &V, _l: usize) -> V {
        *access
    }

    #[inline(always)]
    unsafe fn set_lane(_: &V, _: usize, _: V) {}

    #[inline(always)]
    unsafe fn store_lanes(_: &V, _: usize, _: &V) {}

    #[cfg(feature = "cuda")]
    fn device_prepare(
        &mut self,
        _dev: &'static crate::cuda::Device,
        _sites: &Range<usize>,
    ) -> Result<()> {
        Ok(())
    }

    #[cfg(feature = "cuda")]
    #[inline(always)]
    fn push_params<'b>(&'b self, params: &mut crate::cuda::ParamList<'b>) {
        params.push(self.value);
    }

    #[cfg(feature = "cuda")]
    fn device_prepare_on(
        &mut self,
        _dev: &'static crate::cuda::Device,
        _sites: &Range<usize>,
        _queue: crate::cuda::stream::Queue,
    ) -> Result<()> {
        Ok(())
    }

    #[cfg(feature = "cuda")]
    fn mark_queued(&mut self, _mark: &crate::field::pending::Mark) {}
}

/// Something an `on_gpu!` body can read: a [`Field`] (this site's element) or a [`Uniform`]
/// value (the same for every site).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be captured by an on_gpu! body",
    label = "captured here",
    note = "a body can capture fields (Field<T, L>) and values of f32, f64, i32, u32, i64, u64, \
            usize, isize, bool, Complex<f32|f64>, ColorVector<f32|f64>, ColorMatrix<f32|f64>, \
            Lattice or Philox; copy anything else into one of these before the call"
)]
pub trait ReadCapture {
    /// What a body sees of it at a site (generic code names it: `F: ReadCapture<Site = T>`).
    type Site: Copy + Send;
    /// The argument that carries it to the backends.
    type Arg<'a>: CaptureArg<Site = Self::Site>
    where
        Self: 'a;
    /// Wraps a shared borrow.
    fn read_arg(&self) -> Self::Arg<'_>;
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

/// Something an `on_gpu!` body can assign: only a [`Field`] (this site's element).
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
    type Arg<'a, const LOAD: bool>: CaptureArg<Site = Self::Site>
    where
        Self: 'a;
    /// Wraps an exclusive borrow.
    fn write_arg<const LOAD: bool>(&mut self) -> Self::Arg<'_, LOAD>;
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

/// Wraps a read capture (the macro calls this).
#[inline(always)]
pub fn read<C: ReadCapture + ?Sized>(c: &C) -> C::Arg<'_> {
    c.read_arg()
}

/// A value captured under an UPPERCASE name: a body treats such a name as a constant (a
/// `const` item cannot be rebound in the body's closure, so the body reads it directly).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is captured under an UPPERCASE name, which an on_gpu! body treats as a constant",
    label = "an UPPERCASE name is passed by value",
    note = "constants and values can be f32, f64, i32, u32, i64, u64, usize, isize, bool, \
            Complex<f32|f64>, ColorVector<f32|f64>, ColorMatrix<f32|f64>, Lattice or Philox; name \
            fields in lowercase"
)]
pub trait Constant: Uniform {}
impl<V: Uniform> Constant for V {}

/// Wraps a capture whose name is UPPERCASE (a constant, the macro calls this).
#[inline(always)]
pub fn read_constant<V: Constant>(c: &V) -> Value<'_, V> {
    Value { value: c }
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

/// `CaptureArg` for an argument that wraps another (`$inner`): every method is the wrapped
/// one's, reached as `self.inner` (`inner`) or as the selected part of a split field
/// (`part`: `self.parts[self.current]`).
macro_rules! forward_capture_arg {
    (@at $s:ident, inner) => {
        $s.inner
    };
    (@at $s:ident, part) => {
        $s.parts[$s.current]
    };
    ($inner:ty, $at:ident) => {
        type Site = <$inner as CaptureArg>::Site;
        type Key = <$inner as CaptureArg>::Key;
        type HostView = <$inner as CaptureArg>::HostView;
        const BLOCK: usize = <$inner as CaptureArg>::BLOCK;

        fn kind() -> CaptureKind {
            <$inner>::kind()
        }

        fn field_len(&self) -> Option<usize> {
            forward_capture_arg!(@at self, $at).field_len()
        }

        fn host_view(&mut self, sites: &Range<usize>) -> Result<Self::HostView> {
            forward_capture_arg!(@at self, $at).host_view(sites)
        }

        #[inline(always)]
        unsafe fn load(view: &Self::HostView, s: usize) -> Self::Site {
            <$inner>::load(view, s)
        }

        #[inline(always)]
        unsafe fn store(view: &Self::HostView, s: usize, value: Self::Site) {
            <$inner>::store(view, s, value)
        }

        type Lanes = <$inner as CaptureArg>::Lanes;
        const GROUPS_PAY: bool = <$inner as CaptureArg>::GROUPS_PAY;

        #[inline(always)]
        unsafe fn load_lanes(view: &Self::HostView, s0: usize) -> Self::Lanes {
            <$inner>::load_lanes(view, s0)
        }

        type LaneAccess = <$inner as CaptureArg>::LaneAccess;

        #[inline(always)]
        fn lane_access(lanes: &mut Self::Lanes) -> Self::LaneAccess {
            <$inner>::lane_access(lanes)
        }

        #[inline(always)]
        unsafe fn lane(access: &Self::LaneAccess, l: usize) -> Self::Site {
            <$inner>::lane(access, l)
        }

        #[inline(always)]
        unsafe fn set_lane(access: &Self::LaneAccess, l: usize, value: Self::Site) {
            <$inner>::set_lane(access, l, value)
        }

        #[inline(always)]
        unsafe fn store_lanes(view: &Self::HostView, s0: usize, lanes: &Self::Lanes) {
            <$inner>::store_lanes(view, s0, lanes)
        }

        #[cfg(feature = "cuda")]
        fn device_prepare(
            &mut self,
            dev: &'static crate::cuda::Device,
            sites: &Range<usize>,
        ) -> Result<()> {
            forward_capture_arg!(@at self, $at).device_prepare(dev, sites)
        }

        #[cfg(feature = "cuda")]
        fn push_params<'b>(&'b self, params: &mut crate::cuda::ParamList<'b>) {
            forward_capture_arg!(@at self, $at).push_params(params)
        }

        #[cfg(feature = "cuda")]
        fn device_prepare_on(
            &mut self,
            dev: &'static crate::cuda::Device,
            sites: &Range<usize>,
            queue: crate::cuda::stream::Queue,
        ) -> Result<()> {
            forward_capture_arg!(@at self, $at).device_prepare_on(dev, sites, queue)
        }

        #[cfg(feature = "cuda")]
        fn mark_queued(&mut self, mark: &crate::field::pending::Mark) {
            forward_capture_arg!(@at self, $at).mark_queued(mark)
        }
    };
}
pub(crate) use forward_capture_arg;

/// A tuple of captures, as one call passes them.
pub trait Captures {
    /// The per-site values, in capture order.
    type Sites: Copy + Send;
    /// `'static` key of the tuple's types.
    type Key: 'static;
    /// The CPU backend's views.
    type HostViews: Copy + Send + Sync;
    /// Least common multiple of the captures' layout blocks.
    const BLOCK: usize;

    /// The kinds, in order.
    fn kinds() -> Vec<CaptureKind>;
    /// `f(index, length)` for each capture (`None` for values).
    fn for_each_len(&self, f: impl FnMut(usize, Option<usize>));
    /// Host views for a call over `sites`.
    fn host_views(&mut self, sites: &Range<usize>) -> Result<Self::HostViews>;
    /// Loads site `s`.
    ///
    /// # Safety
    /// As [`CaptureArg::load`].
    unsafe fn load(views: &Self::HostViews, s: usize) -> Self::Sites;
    /// Stores site `s`.
    ///
    /// # Safety
    /// As [`CaptureArg::store`].
    unsafe fn store(views: &Self::HostViews, s: usize, sites: Self::Sites);
    /// The buffers of a group of sites.
    type Lanes;
    /// True if some captured field gains from running groups of sites.
    const GROUPS_PAY: bool;
    /// Loads a group of sites from `s0`.
    ///
    /// # Safety
    /// As [`CaptureArg::load_lanes`].
    unsafe fn load_lanes(views: &Self::HostViews, s0: usize) -> Self::Lanes;
    /// Where the lanes of a group are read and written.
    type LaneAccess: Copy;
    /// As [`CaptureArg::lane_access`].
    fn lane_access(lanes: &mut Self::Lanes) -> Self::LaneAccess;
    /// The values of lane `l`.
    ///
    /// # Safety
    /// As [`CaptureArg::lane`].
    unsafe fn lane(access: &Self::LaneAccess, l: usize) -> Self::Sites;
    /// Sets lane `l`.
    ///
    /// # Safety
    /// As [`CaptureArg::set_lane`].
    unsafe fn set_lane(access: &Self::LaneAccess, l: usize, sites: Self::Sites);
    /// Stores a group of sites from `s0`.
    ///
    /// # Safety
    /// As [`CaptureArg::store_lanes`].
    unsafe fn store_lanes(views: &Self::HostViews, s0: usize, lanes: &Self::Lanes);
    /// Device copies ready for a kernel over `sites`.
    #[cfg(feature = "cuda")]
    fn device_prepare(
        &mut self,
        dev: &'static crate::cuda::Device,
        sites: &Range<usize>,
    ) -> Result<()>;
    /// Kernel parameters, in order.
    #[cfg(feature = "cuda")]
    fn push_params<'a>(&'a self, params: &mut crate::cuda::ParamList<'a>);
    /// Device copies ready for a kernel over `sites`, queued on a stream.
    #[cfg(feature = "cuda")]
    #[doc(hidden)]
    fn device_prepare_on(
        &mut self,
        dev: &'static crate::cuda::Device,
        sites: &Range<usize>,
        queue: crate::cuda::stream::Queue,
    ) -> Result<()>;
    /// Records the queued kernel's accesses.
    #[cfg(feature = "cuda")]
    #[doc(hidden)]
    fn mark_queued(&mut self, mark: &crate::field::pending::Mark);
    /// `f(index, split id)` for each capture (see [`CaptureArg::split_id`]).
    fn for_each_split_id(&self, f: impl FnMut(usize, Option<u64>));
    /// Points the split fields' arguments at part `part`.
    fn select_part(&mut self, part: usize);
    /// Marks the halos (of `parity`, or all) of the decomposed fields the call wrote stale.
    fn mark_written(&mut self, parity: Option<usize>);
    /// Whether any capture reads a split field's halos.
    fn reads_halos(&self) -> bool;
    /// Refreshes the stale halos of the split fields the call shifts.
    fn refresh_halos(&mut self) -> Result<()>;
    /// Each capture's [`CaptureArg::split_wait`].
    fn split_wait(&self, part: usize, stage: SplitStage) -> Result<()>;
    /// `f(index, rank lattice id)` for each capture (see [`CaptureArg::rank_id`]).
    #[cfg(feature = "mpi")]
    fn for_each_rank_id(&self, f: impl FnMut(usize, Option<u64>));
    /// Whether any shifted rank field has stale halos.
    #[cfg(feature = "mpi")]
    fn stale_halos(&self) -> bool;
    /// Every stale shifted rank field's faces of a round, in capture order (two each).
    #[cfg(feature = "mpi")]
    fn halo_send(&mut self, round: usize, faces: &mut crate::mpi::staging::Faces) -> Result<()>;
    /// Every stale shifted rank field's halos of a round from `faces`, in capture order.
    #[cfg(feature = "mpi")]
    fn halo_receive(
        &mut self,
        round: usize,
        faces: &mut dyn Iterator<Item = &mut crate::mpi::staging::Slot>,
    ) -> Result<()>;
}

const fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Least common multiple (of layout blocks).
pub const fn lcm(a: usize, b: usize) -> usize {
    a / gcd(a, b) * b
}

macro_rules! captures_tuple {
    ($($a:ident $i:tt),*) => {
        impl<$($a: CaptureArg),*> Captures for ($($a,)*) {
            type Sites = ($($a::Site,)*);
            type Key = ($($a::Key,)*);
            type HostViews = ($($a::HostView,)*);
            const BLOCK: usize = {
                #[allow(unused_mut)]
                let mut block = 1;
                $(block = lcm(block, $a::BLOCK);)*
                block
            };

            fn kinds() -> Vec<CaptureKind> {
                vec![$($a::kind()),*]
            }

            #[allow(unused_variables, unused_mut)]
            fn for_each_len(&self, mut f: impl FnMut(usize, Option<usize>)) {
                $(f($i, self.$i.field_len());)*
            }

            #[allow(unused_variables, clippy::unused_unit)]
            fn host_views(&mut self, sites: &Range<usize>) -> Result<Self::HostViews> {
                Ok(($(self.$i.host_view(sites)?,)*))
            }

            #[inline(always)]
            #[allow(unused_variables, clippy::unused_unit)]
            unsafe fn load(views: &Self::HostViews, s: usize) -> Self::Sites {
                ($($a::load(&views.$i, s),)*)
            }

            #[inline(always)]
            #[allow(unused_variables)]
            unsafe fn store(views: &Self::HostViews, s: usize, sites: Self::Sites) {
                $($a::store(&views.$i, s, sites.$i);)*
            }

            type Lanes = ($($a::Lanes,)*);
            const GROUPS_PAY: bool = false $(|| $a::GROUPS_PAY)*;

            #[inline(always)]
            #[allow(unused_variables, clippy::unused_unit)]
            unsafe fn load_lanes(views: &Self::HostViews, s0: usize) -> Self::Lanes {
                ($($a::load_lanes(&views.$i, s0),)*)
            }

            type LaneAccess = ($($a::LaneAccess,)*);

            #[inline(always)]
            #[allow(unused_variables, clippy::unused_unit)]
            fn lane_access(lanes: &mut Self::Lanes) -> Self::LaneAccess {
                ($($a::lane_access(&mut lanes.$i),)*)
            }

            #[inline(always)]
            #[allow(unused_variables, clippy::unused_unit)]
            unsafe fn lane(access: &Self::LaneAccess, l: usize) -> Self::Sites {
                ($($a::lane(&access.$i, l),)*)
            }

            #[inline(always)]
            #[allow(unused_variables)]
            unsafe fn set_lane(access: &Self::LaneAccess, l: usize, sites: Self::Sites) {
                $($a::set_lane(&access.$i, l, sites.$i);)*
            }

            #[inline(always)]
            #[allow(unused_variables)]
            unsafe fn store_lanes(views: &Self::HostViews, s0: usize, lanes: &Self::Lanes) {
                $($a::store_lanes(&views.$i, s0, &lanes.$i);)*
            }

            #[cfg(feature = "cuda")]
            #[allow(unused_variables)]
            fn device_prepare(
                &mut self,
                dev: &'static crate::cuda::Device,
                sites: &Range<usize>,
            ) -> Result<()> {
                $(self.$i.device_prepare(dev, sites)?;)*
                Ok(())
            }

            #[cfg(feature = "cuda")]
            #[inline(always)]
            #[allow(unused_variables)]
            fn push_params<'p>(&'p self, params: &mut crate::cuda::ParamList<'p>) {
                $(self.$i.push_params(params);)*
            }

            #[cfg(feature = "cuda")]
            #[allow(unused_variables)]
            fn device_prepare_on(
                &mut self,
                dev: &'static crate::cuda::Device,
                sites: &Range<usize>,
                queue: crate::cuda::stream::Queue,
            ) -> Result<()> {
                $(self.$i.device_prepare_on(dev, sites, queue)?;)*
                Ok(())
            }

            #[cfg(feature = "cuda")]
            #[allow(unused_variables)]
            fn mark_queued(&mut self, mark: &crate::field::pending::Mark) {
                $(self.$i.mark_queued(mark);)*
            }

            #[allow(unused_variables, unused_mut)]
            fn for_each_split_id(&self, mut f: impl FnMut(usize, Option<u64>)) {
                $(f($i, self.$i.split_id());)*
            }

            #[inline(always)]
            #[allow(unused_variables)]
            fn select_part(&mut self, part: usize) {
                $(self.$i.select_part(part);)*
            }

            #[allow(unused_variables)]
            fn mark_written(&mut self, parity: Option<usize>) {
                $(self.$i.mark_written(parity);)*
            }

            fn reads_halos(&self) -> bool {
                false $(|| self.$i.reads_halos())*
            }

            fn refresh_halos(&mut self) -> Result<()> {
                $(self.$i.refresh_halos()?;)*
                Ok(())
            }

            #[allow(unused_variables)]
            fn split_wait(&self, part: usize, stage: SplitStage) -> Result<()> {
                $(self.$i.split_wait(part, stage)?;)*
                Ok(())
            }

            #[cfg(feature = "mpi")]
            #[allow(unused_variables, unused_mut)]
            fn for_each_rank_id(&self, mut f: impl FnMut(usize, Option<u64>)) {
                $(f($i, self.$i.rank_id());)*
            }

            #[cfg(feature = "mpi")]
            fn stale_halos(&self) -> bool {
                false $(|| self.$i.stale_halos())*
            }

            #[cfg(feature = "mpi")]
            #[allow(unused_variables)]
            fn halo_send(
                &mut self,
                round: usize,
                faces: &mut crate::mpi::staging::Faces,
            ) -> Result<()> {
                $(self.$i.halo_send(round, faces)?;)*
                Ok(())
            }

            #[cfg(feature = "mpi")]
            #[allow(unused_variables)]
            fn halo_receive(
                &mut self,
                round: usize,
                faces: &mut dyn Iterator<Item = &mut crate::mpi::staging::Slot>,
            ) -> Result<()> {
                $(self.$i.halo_receive(round, faces)?;)*
                Ok(())
            }
        }
    };
}

for_each_tuple_arity!(captures_tuple);
