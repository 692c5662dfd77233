//! How `on_gpu!` captures a [`RankField`]: as the [`Field`](crate::Field) of its stored
//! part (read, written, shifted: the kernel is the one a whole-lattice field gets), in a
//! [`Parted`] of one part whose hooks are what the ranks add: the rank lattice, checked
//! against the call's; a written field marks its halos stale; a shifted one with stale halos
//! packs and unpacks its faces for the halo exchange (`lattice::halos`) in the buffers the
//! exchange hands it.

#[cfg(feature = "cuda")]
use super::face_kernels::{self, FaceMove};
use super::field::RankField;
#[cfg(feature = "cuda")]
use super::lattice::Inner;
use super::lattice::RankLattice;
use crate::capture::{
    read_constant, Decomposition, FaceBuffer, FaceBuffers, FieldRead, FieldWrite, LatticeParts,
    PartFacet, PartOf, Parted, ReadCapture, Value, WriteCapture,
};
use crate::element::Element;
use crate::error::Result;
#[cfg(feature = "cuda")]
use crate::field::Field;
use crate::geometry::Lattice;
use crate::lattice::halos::{HaloState, Parities};
use crate::lattice::shift::{FieldShifted, ShiftCapture, ShiftView};
use crate::lattice::shift_lanes::{Gathers, LaneShiftView};
use crate::layout::Layout;

/// A rank field the body reads.
pub type RankRead<'a, T, L> = Parted<FieldRead<'a, T, L>, ReadHooks>;

/// A rank field the body shifts: the call refreshes its stale halos (packing its faces and
/// unpacking its neighbours') before its boundary runs.
pub type RankShifted<'a, T, L> = Parted<FieldShifted<'a, T, L>, ShiftHooks<'a, T, L>>;

/// A rank field the body writes; the halos of the sites it writes become stale.
pub type RankWrite<'a, T, L, const LOAD: bool> = Parted<FieldWrite<'a, T, L, LOAD>, WriteHooks<'a>>;

/// The rank lattice a field belongs to.
fn part_of(lattice: &RankLattice) -> Option<PartOf> {
    Some(PartOf {
        decomposition: Decomposition::Ranks,
        id: lattice.id(),
    })
}

/// The hooks of a read rank field: its rank lattice.
pub struct ReadHooks {
    lattice: RankLattice,
}

impl PartFacet for ReadHooks {
    fn part_of(&self, f: &mut impl FnMut(Option<PartOf>)) {
        f(part_of(&self.lattice))
    }
}

/// The hooks of a written rank field.
pub struct WriteHooks<'a> {
    lattice: RankLattice,
    state: &'a HaloState,
}

impl PartFacet for WriteHooks<'_> {
    fn part_of(&self, f: &mut impl FnMut(Option<PartOf>)) {
        f(part_of(&self.lattice))
    }

    fn mark_written(&mut self, parity: Option<usize>) {
        self.state.mark_written(parity);
    }
}

/// The hooks of a shifted rank field: its faces and halos.
pub struct ShiftHooks<'a, T: Element, L: Layout> {
    field: &'a RankField<T, L>,
    /// The parities whose halos were stale when the call began.
    refreshing: Parities,
}

impl<T: Element, L: Layout> ReadCapture for RankField<T, L> {
    type Site = T;
    type Arg<'a> = RankRead<'a, T, L>;
    fn read_arg(&self) -> RankRead<'_, T, L> {
        let hooks = ReadHooks {
            lattice: self.lattice,
        };
        Parted::one(self.part.read_arg(), hooks)
    }
}

impl<T: Element, L: Layout> ShiftCapture for RankField<T, L> {
    type Site = ShiftView<T, L>;
    type LaneSite = LaneShiftView<T, L>;
    type Arg<'a> = RankShifted<'a, T, L>;
    fn shifted_arg(&self, _whole: Lattice, gathers: Gathers) -> RankShifted<'_, T, L> {
        let hooks = ShiftHooks {
            field: self,
            refreshing: self.state.stale(),
        };
        Parted::one(
            self.part.shifted_arg(self.lattice.inner().part, gathers),
            hooks,
        )
    }
}

impl<T: Element, L: Layout> WriteCapture for RankField<T, L> {
    type Site = T;
    type Arg<'a, const LOAD: bool> = RankWrite<'a, T, L, LOAD>;
    fn write_arg<const LOAD: bool>(&mut self) -> RankWrite<'_, T, L, LOAD> {
        let hooks = WriteHooks {
            lattice: self.lattice,
            state: &self.state,
        };
        Parted::one(self.part.write_arg::<LOAD>(), hooks)
    }
}

impl<T: Element, L: Layout> ShiftHooks<'_, T, L> {
    /// The sites whose halos this call refreshes (`None`: both parities).
    fn parity(&self) -> Option<usize> {
        self.refreshing.as_parity()
    }
}

impl<T: Element, L: Layout> PartFacet for ShiftHooks<'_, T, L> {
    fn part_of(&self, f: &mut impl FnMut(Option<PartOf>)) {
        f(part_of(&self.field.lattice))
    }

    fn stale_halos(&self) -> bool {
        !self.refreshing.is_empty()
    }

    fn halo_send(&mut self, round: usize, faces: &mut dyn FaceBuffers) -> Result<()> {
        if self.refreshing.is_empty() {
            return Ok(());
        }
        let parity = self.parity();
        let inner = self.field.lattice.inner();
        let r = &inner.rounds[round];
        let size = std::mem::size_of::<T>();
        let field = &self.field.part;
        #[cfg(feature = "cuda")]
        let device = FaceDevice::of(field, false)?;
        #[cfg(not(feature = "cuda"))]
        let device: Option<std::convert::Infallible> = None;
        let boxes = [r.send_low, r.send_high];
        let slots = faces.take_two(
            inner.box_range(boxes[0], parity).len() * size,
            inner.box_range(boxes[1], parity).len() * size,
        )?;
        #[cfg(feature = "cuda")]
        if let Some(d) = &device {
            // SAFETY: the field's device copy, the site list and the staging buffers
            // live until the caller has waited for the face stream (before sending).
            return unsafe { d.queue::<T>(inner, boxes, parity, slots, false) };
        }
        let _ = &device;
        for (b, slot) in boxes.into_iter().zip(slots) {
            field.with_host_values(|get| {
                let mut out = slot.bytes_mut().chunks_exact_mut(size);
                for run in inner.runs(b, parity) {
                    for s in run {
                        let dst = out.next().expect("a face as long as its box");
                        dst.copy_from_slice(bytemuck::bytes_of(&get(s)));
                    }
                }
            })?;
        }
        Ok(())
    }

    fn halo_receive(
        &mut self,
        round: usize,
        halos: &mut dyn Iterator<Item = &mut dyn FaceBuffer>,
    ) -> Result<()> {
        if self.refreshing.is_empty() {
            return Ok(());
        }
        let parity = self.parity();
        let inner = self.field.lattice.inner();
        let r = &inner.rounds[round];
        let field = &self.field.part;
        #[cfg_attr(not(feature = "cuda"), allow(unused_mut))]
        let mut unpacked = false;
        #[cfg(feature = "cuda")]
        if let Some(d) = FaceDevice::of(field, true)? {
            let slots = [(); 2].map(|()| halos.next().expect("one face per halo"));
            // SAFETY: as for the pack; the staging buffers are refilled only after the
            // next pack has been waited for, which the stream orders after this.
            unsafe { d.queue::<T>(inner, [r.recv_low, r.recv_high], parity, slots, true)? };
            unpacked = true;
        }
        if !unpacked {
            field.with_host_mut(|host| {
                for b in [r.recv_low, r.recv_high] {
                    let slot = halos.next().expect("one face per halo");
                    let mut values = slot.bytes().chunks_exact(std::mem::size_of::<T>());
                    for run in inner.runs(b, parity) {
                        for s in run {
                            let v = values.next().expect("a face as long as its halo");
                            host.set(s, bytemuck::pod_read_unaligned(v));
                        }
                    }
                }
            })?;
        }
        if round + 1 == inner.rounds.len() {
            let lattice = self.field.lattice.refresh_count();
            self.field.state.mark_refreshed(self.refreshing, lattice);
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
    fn of<T: Element, L: Layout>(field: &Field<T, L>, unpack: bool) -> Result<Option<Self>> {
        if crate::backend::current()? != crate::backend::Backend::Cuda {
            return Ok(None);
        }
        let Some(storage) = face_kernels::storage_of::<L>() else {
            return Ok(None);
        };
        let dev = crate::cuda::device()?;
        let what = field.what();
        let stride = *field.stride_ref();
        let mut sides = field.lock();
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

    /// Queues on the face stream the pack of boxes `boxes`' faces into `slots` (one
    /// launch) and their copies to the slots' host memory, or (`unpack`) the copies of the
    /// slots' host memory to the device and the unpack into the halo boxes `boxes`.
    ///
    /// # Safety
    /// The field, the site lists and the slots' buffers live, and the slots' host memory is
    /// neither read (pack) nor written (unpack), until the face stream has been waited
    /// for.
    unsafe fn queue<T: Element>(
        &self,
        inner: &Inner,
        boxes: [usize; 2],
        parity: Option<usize>,
        mut slots: [&mut dyn FaceBuffer; 2],
        unpack: bool,
    ) -> Result<()> {
        let mut moves = Vec::with_capacity(2);
        for (&b, slot) in boxes.iter().zip(&slots) {
            let (sites, n) = inner.device_sites(self.dev, b, parity)?;
            moves.push(FaceMove {
                face: slot.device_ptr().expect("staged faces on the GPU"),
                sites,
                n,
            });
        }
        let field = (self.field, self.stride);
        if unpack {
            for slot in &mut slots {
                slot.queue_to_device()?;
            }
            face_kernels::queue::<T>(self.dev, true, field, &moves, self.storage)
        } else {
            face_kernels::queue::<T>(self.dev, false, field, &moves, self.storage)?;
            slots.iter_mut().try_for_each(|slot| slot.queue_to_host())
        }
    }
}

/// A rank lattice captured by a body (`lat.coord(i, mu)`, `lat.parity(i)`): the stored
/// part, whose coordinates are those of the whole lattice.
impl ReadCapture for RankLattice {
    type Site = Lattice;
    type Arg<'a> = Parted<Value<'static, Lattice>, LatticeParts>;
    fn read_arg(&self) -> Self::Arg<'_> {
        Parted::one(read_constant(&self.inner().part), LatticeParts)
    }
}
