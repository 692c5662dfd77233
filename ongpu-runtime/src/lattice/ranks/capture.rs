//! How `on_gpu!` captures a [`RankField`]: as the [`Field`](crate::Field) of its stored
//! part (read, written, shifted: the kernel is the one a whole-lattice field gets), tagged
//! with its rank lattice; a written one packs and unpacks its faces for the halo exchange.

// The stream-path methods name crate-private types, as in `capture`.
#![allow(private_interfaces)]

#[cfg(feature = "cuda")]
use super::face_kernels::{self, FaceMove};
use super::field::RankField;
#[cfg(feature = "cuda")]
use super::lattice::Inner;
use super::lattice::RankLattice;
use crate::capture::{
    forward_capture_arg, read_constant, CaptureArg, CaptureKind, FieldRead, FieldWrite,
    ReadCapture, Value, WriteCapture,
};
use crate::element::Element;
use crate::error::Result;
#[cfg(feature = "cuda")]
use crate::field::Field;
use crate::geometry::Lattice;
use crate::lattice::shift::{FieldShifted, ShiftCapture, ShiftView};
use crate::layout::Layout;
use crate::mpi::staging::{Faces, Slot};
use std::ops::Range;

/// A rank field the body reads.
pub struct RankRead<'a, T: Element, L: Layout> {
    inner: FieldRead<'a, T, L>,
    id: u64,
}

/// A rank field the body shifts (its halos are current: every write refreshes them).
pub struct RankShifted<'a, T: Element, L: Layout> {
    inner: FieldShifted<'a, T, L>,
    id: u64,
}

/// A rank field the body writes; its halos are refreshed during the call.
pub struct RankWrite<'a, T: Element, L: Layout, const LOAD: bool> {
    inner: FieldWrite<'a, T, L, LOAD>,
    lattice: RankLattice,
}

impl<T: Element, L: Layout> ReadCapture for RankField<T, L> {
    type Site = T;
    type Arg<'a> = RankRead<'a, T, L>;
    fn read_arg(&self) -> RankRead<'_, T, L> {
        RankRead {
            inner: self.part.read_arg(),
            id: self.lattice.id(),
        }
    }
}

impl<T: Element, L: Layout> ShiftCapture for RankField<T, L> {
    type Site = ShiftView<T, L>;
    type Arg<'a> = RankShifted<'a, T, L>;
    fn shifted_arg(&self, _whole: Lattice) -> RankShifted<'_, T, L> {
        RankShifted {
            inner: self.part.shifted_arg(self.lattice.inner().part),
            id: self.lattice.id(),
        }
    }
}

impl<T: Element, L: Layout> WriteCapture for RankField<T, L> {
    type Site = T;
    type Arg<'a, const LOAD: bool> = RankWrite<'a, T, L, LOAD>;
    fn write_arg<const LOAD: bool>(&mut self) -> RankWrite<'_, T, L, LOAD> {
        RankWrite {
            inner: self.part.write_arg::<LOAD>(),
            lattice: self.lattice,
        }
    }
}

impl<'a, T: Element, L: Layout> CaptureArg for RankRead<'a, T, L> {
    forward_capture_arg!(FieldRead<'a, T, L>, inner);

    fn rank_id(&self) -> Option<u64> {
        Some(self.id)
    }
}

impl<'a, T: Element, L: Layout> CaptureArg for RankShifted<'a, T, L> {
    forward_capture_arg!(FieldShifted<'a, T, L>, inner);

    fn rank_id(&self) -> Option<u64> {
        Some(self.id)
    }
}

impl<'a, T: Element, L: Layout, const LOAD: bool> CaptureArg for RankWrite<'a, T, L, LOAD> {
    forward_capture_arg!(FieldWrite<'a, T, L, LOAD>, inner);

    fn rank_id(&self) -> Option<u64> {
        Some(self.lattice.id())
    }

    fn halo_send(&mut self, round: usize, parity: Option<usize>, faces: &mut Faces) -> Result<()> {
        let inner = self.lattice.inner();
        let r = &inner.rounds[round];
        let size = std::mem::size_of::<T>();
        let field = self.inner.field_mut();
        #[cfg(feature = "cuda")]
        let device = FaceDevice::of(field, false)?;
        #[cfg(not(feature = "cuda"))]
        let device: Option<std::convert::Infallible> = None;
        if device.is_none() {
            // Read through the host copy, brought up to date first.
            field.sync_host()?;
        }
        for b in [r.send_low, r.send_high] {
            let slot = faces.take(inner.box_range(b, parity).len() * size)?;
            #[cfg(feature = "cuda")]
            if let Some(d) = &device {
                // SAFETY: the field's device copy, the site list and the staging buffers
                // live until the caller has waited for the default stream (before sending).
                unsafe { d.queue::<T>(inner, b, parity, slot, false)? };
                continue;
            }
            let mut out = slot.bytes_mut().chunks_exact_mut(size);
            for run in inner.runs(b, parity) {
                for s in run {
                    let dst = out.next().expect("a face as long as its box");
                    dst.copy_from_slice(bytemuck::bytes_of(&field.get(s)?));
                }
            }
        }
        Ok(())
    }

    fn halo_receive(
        &mut self,
        round: usize,
        parity: Option<usize>,
        faces: &mut dyn Iterator<Item = &mut Slot>,
    ) -> Result<()> {
        let inner = self.lattice.inner();
        let r = &inner.rounds[round];
        let field = self.inner.field_mut();
        #[cfg(feature = "cuda")]
        if let Some(d) = FaceDevice::of(field, true)? {
            for b in [r.recv_low, r.recv_high] {
                let slot = faces.next().expect("one face per halo");
                // SAFETY: as for the pack; the staging buffers are refilled only after the
                // next pack has been waited for, which the stream orders after this.
                unsafe { d.queue::<T>(inner, b, parity, slot, true)? };
            }
            return Ok(());
        }
        let mut host = field.as_host_mut()?;
        for b in [r.recv_low, r.recv_high] {
            let slot = faces.next().expect("one face per halo");
            let mut values = slot.bytes().chunks_exact(std::mem::size_of::<T>());
            for run in inner.runs(b, parity) {
                for s in run {
                    let v = values.next().expect("a face as long as its halo");
                    host.set(s, bytemuck::pod_read_unaligned(v));
                }
            }
        }
        Ok(())
    }
}

/// A rank field's device storage as the face kernels see it: on the CUDA backend, for a
/// layout they know (otherwise faces go through the host copy).
#[cfg(feature = "cuda")]
struct FaceDevice {
    dev: &'static crate::cuda::Device,
    field: u64,
    stride: u64,
    storage: (u64, bool),
}

#[cfg(feature = "cuda")]
impl FaceDevice {
    /// `field`'s device copy, made current for the pack kernels to read, or, when
    /// `unpack`, for the unpack kernels to write (the host copy then stale).
    fn of<T: Element, L: Layout>(field: &mut Field<T, L>, unpack: bool) -> Result<Option<Self>> {
        if crate::backend::current()? != crate::backend::Backend::Cuda {
            return Ok(None);
        }
        let Some(storage) = face_kernels::storage_of::<L>() else {
            return Ok(None);
        };
        let dev = crate::cuda::device()?;
        let what = field.what();
        let stride = *field.stride_ref();
        let sides = field.sides_mut();
        let ptr = if unpack {
            sides.device_for_write(dev, false, &what)?
        } else {
            sides.device_for_read(dev, &what)?
        };
        Ok(Some(FaceDevice {
            dev,
            field: ptr,
            stride,
            storage,
        }))
    }

    /// Queues on the default stream the pack of box `b`'s face into `slot` and its copy to
    /// the slot's host memory, or (`unpack`) the copy of the slot's host memory to the
    /// device and its unpack into the halo box `b`.
    ///
    /// # Safety
    /// The field, the site list and `slot`'s buffers live, and the slot's host memory is
    /// neither read (pack) nor written (unpack), until the default stream has been waited
    /// for.
    unsafe fn queue<T: Element>(
        &self,
        inner: &Inner,
        b: usize,
        parity: Option<usize>,
        slot: &mut Slot,
        unpack: bool,
    ) -> Result<()> {
        let (sites, n) = inner.device_sites(self.dev, b, parity)?;
        let mv = FaceMove {
            field: self.field,
            stride: self.stride,
            face: slot.device_ptr().expect("staged faces on the GPU"),
            sites,
            n,
        };
        if unpack {
            slot.queue_to_device()?;
            face_kernels::queue::<T>(self.dev, true, &mv, self.storage)
        } else {
            face_kernels::queue::<T>(self.dev, false, &mv, self.storage)?;
            slot.queue_to_host()
        }
    }
}

/// A rank lattice captured by a body (`lat.coord(i, mu)`, `lat.parity(i)`): the stored
/// part, whose coordinates are those of the whole lattice.
pub struct RankLatticeValue {
    inner: Value<'static, Lattice>,
}

impl ReadCapture for RankLattice {
    type Site = Lattice;
    type Arg<'a> = RankLatticeValue;
    fn read_arg(&self) -> RankLatticeValue {
        RankLatticeValue {
            inner: read_constant(&self.inner().part),
        }
    }
}

impl CaptureArg for RankLatticeValue {
    forward_capture_arg!(Value<'static, Lattice>, inner);
}
