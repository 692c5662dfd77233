//! The part facet: what a decomposed lattice asks of the arguments of a call over it, and
//! [`Parted`], the one argument of a decomposed field whatever the decomposition.
//!
//! A decomposition (the split over the GPUs of a process, `lattice/split`, or over MPI
//! ranks, `lattice/ranks`) runs a call part by part with the kernels a whole-lattice field
//! gets: it checks that every field belongs to its lattice ([`PartFacet::part_of`]), points
//! each argument at the part it runs ([`PartFacet::select_part`]), refreshes the stale halos
//! of the fields the call shifts (by copies, or face by face for an exchange between ranks)
//! and marks the halos of the fields it writes stale ([`PartFacet::mark_written`]). Its own
//! argument types are [`Parted`] over hooks that implement the part facet for what the
//! decomposition adds; the other facets are forwarded once here. Nothing here knows how faces travel: the rank layer
//! hands out its buffers as [`FaceBuffers`].

use super::device::{DeviceFacet, DeviceVia};
use super::host::HostFacet;
use crate::error::Result;
use std::ops::Range;

/// Which decomposition a field belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decomposition {
    /// A lattice split over the devices of this process (`SplitLattice`).
    Devices,
    /// A lattice cut over MPI ranks (`RankLattice`).
    Ranks,
}

/// The decomposed lattice a field belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartOf {
    /// The kind of decomposition.
    pub decomposition: Decomposition,
    /// The identity of the decomposed lattice.
    pub id: u64,
}

/// Where a part of a call over a split lattice stands, for [`PartFacet::part_wait`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartStage {
    /// Before any of the part's sites run.
    Start,
    /// Before the sites next to the halos run (after the interior).
    Boundary,
}

/// One face's buffer in a halo exchange: host bytes, or device memory the face kernels pack
/// into and unpack from (the rank layer's staging).
pub trait FaceBuffer {
    /// The face's bytes in host memory, to read.
    fn bytes(&self) -> &[u8];
    /// The face's bytes in host memory, to fill.
    fn bytes_mut(&mut self) -> &mut [u8];
    /// The device address the face kernels use (`None`: the face lives on the host).
    #[cfg(feature = "cuda")]
    fn device_ptr(&self) -> Option<u64>;
    /// Queues the copy from the device buffer to the host memory (after a pack).
    ///
    /// # Safety
    /// Nothing reads the host memory until the face kernels' stream has been waited for.
    #[cfg(feature = "cuda")]
    unsafe fn queue_to_host(&mut self) -> Result<()>;
    /// Queues the copy from the host memory to the device buffer (before an unpack).
    ///
    /// # Safety
    /// Nothing writes the host memory until the face kernels' stream has been waited for.
    #[cfg(feature = "cuda")]
    unsafe fn queue_to_device(&mut self) -> Result<()>;
}

/// The buffers a round of a halo exchange hands out for the faces it sends.
pub trait FaceBuffers {
    /// The next face's buffer, of `len` bytes.
    fn take(&mut self, len: usize) -> Result<&mut dyn FaceBuffer>;
    /// The next two faces' buffers, of `len0` and `len1` bytes, held together so that one
    /// kernel packs both.
    fn take_two(&mut self, len0: usize, len1: usize) -> Result<[&mut dyn FaceBuffer; 2]>;
}

/// What a decomposition asks of a call's arguments (each method does nothing for an
/// argument of a whole lattice; a tuple asks each of its arguments in order).
pub trait PartFacet {
    /// Calls `f` with the decomposed lattice of each capture, in order (`None` for a field
    /// of a whole lattice, and for values).
    #[inline(always)]
    fn part_of(&self, f: &mut impl FnMut(Option<PartOf>)) {
        f(None)
    }

    /// Points a decomposed field's argument at part `part`.
    #[inline(always)]
    fn select_part(&mut self, _part: usize) {}

    /// After a call over a decomposed lattice (over sites of `parity`, or all): a written
    /// field's halos of that parity are stale (`lattice::halos`).
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
    /// GPU: at [`PartStage::Start`] a written split field waits for the copies that read the
    /// part's boundary; at [`PartStage::Boundary`] a shifted one for the part's halos.
    #[inline(always)]
    fn part_wait(&self, _part: usize, _stage: PartStage) -> Result<()> {
        Ok(())
    }

    /// Whether the argument is a shifted rank field whose halos are stale (the call
    /// refreshes them before its boundary runs).
    #[inline(always)]
    fn stale_halos(&self) -> bool {
        false
    }

    /// A shifted rank field's faces of exchange round `round`, when its halos are stale: the
    /// one sent down, then the one sent up, packed into the next two buffers of `faces` (on
    /// the GPU by kernels queued on the face stream, which the caller waits for before
    /// sending).
    #[inline(always)]
    fn halo_send(&mut self, _round: usize, _faces: &mut dyn FaceBuffers) -> Result<()> {
        Ok(())
    }

    /// A shifted rank field's stale halos of round `round` from the next two of `halos`
    /// (from below, from above); on the GPU unpacked by kernels queued on the face stream.
    #[inline(always)]
    fn halo_receive(
        &mut self,
        _round: usize,
        _halos: &mut dyn Iterator<Item = &mut dyn FaceBuffer>,
    ) -> Result<()> {
        Ok(())
    }
}

/// The argument of a decomposed field (or lattice): one argument per part it stores (read,
/// written, shifted or a value, as for a whole lattice's field), of which the runner
/// selects the part it runs, and the decomposition's hooks (its part facet: which lattice,
/// halos marked, refreshed, exchanged).
pub struct Parted<A, H> {
    parts: Parts<A>,
    current: usize,
    hooks: H,
}

/// One argument (a rank's block) or one per part (a split over devices), without a
/// vector for the one.
enum Parts<A> {
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    One(A),
    Many(Vec<A>),
}

impl<A, H> Parted<A, H> {
    /// The argument of a field stored as one part (a rank's block).
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    #[inline(always)]
    pub(crate) fn one(arg: A, hooks: H) -> Self {
        Parted {
            parts: Parts::One(arg),
            current: 0,
            hooks,
        }
    }

    /// The argument of a field stored in parts, in part order.
    pub(crate) fn many(parts: Vec<A>, hooks: H) -> Self {
        Parted {
            parts: Parts::Many(parts),
            current: 0,
            hooks,
        }
    }

    #[inline(always)]
    fn part(&self) -> &A {
        match &self.parts {
            Parts::One(a) => a,
            Parts::Many(v) => &v[self.current],
        }
    }

    #[inline(always)]
    fn part_mut(&mut self) -> &mut A {
        match &mut self.parts {
            Parts::One(a) => a,
            Parts::Many(v) => &mut v[self.current],
        }
    }
}

impl<A: super::CaptureArg, H> super::CaptureArg for Parted<A, H>
where
    Self: PartFacet,
{
    type Key = A::Key;

    fn push_kinds(out: &mut Vec<super::CaptureKind>) {
        A::push_kinds(out)
    }

    fn for_each_len(&self, f: &mut impl FnMut(Option<usize>)) {
        self.part().for_each_len(f)
    }
}

impl<A: HostFacet, H> HostFacet for Parted<A, H> {
    type Site = A::Site;
    type HostView = A::HostView;
    const BLOCK: usize = A::BLOCK;

    fn host_view(&mut self, sites: &Range<usize>) -> Result<Self::HostView> {
        self.part_mut().host_view(sites)
    }

    #[inline(always)]
    unsafe fn load(view: &Self::HostView, s: usize) -> Self::Site {
        A::load(view, s)
    }

    #[inline(always)]
    unsafe fn store(view: &Self::HostView, s: usize, value: Self::Site) {
        A::store(view, s, value)
    }

    type Lanes = A::Lanes;
    const GROUPS_PAY: bool = A::GROUPS_PAY;
    const STENCIL: bool = A::STENCIL;

    #[inline(always)]
    unsafe fn load_lanes(view: &Self::HostView, s0: usize) -> Self::Lanes {
        A::load_lanes(view, s0)
    }

    type LaneAccess = A::LaneAccess;
    type LaneSite = A::LaneSite;

    #[inline(always)]
    fn lane_to_site(lane: A::LaneSite) -> A::Site {
        A::lane_to_site(lane)
    }

    #[inline(always)]
    fn site_to_lane(site: A::Site, lane: A::LaneSite) -> A::LaneSite {
        A::site_to_lane(site, lane)
    }

    #[inline(always)]
    fn lanes_ready(lanes: &Self::Lanes) -> bool {
        A::lanes_ready(lanes)
    }

    #[inline(always)]
    fn lane_access(lanes: &mut Self::Lanes) -> Self::LaneAccess {
        A::lane_access(lanes)
    }

    #[inline(always)]
    unsafe fn lane(access: &Self::LaneAccess, out: &Self::LaneOut, l: usize) -> Self::LaneSite {
        A::lane(access, out, l)
    }

    type LaneOut = A::LaneOut;

    #[inline(always)]
    unsafe fn lane_out(view: &Self::HostView, s0: usize) -> Self::LaneOut {
        A::lane_out(view, s0)
    }

    #[inline(always)]
    unsafe fn set_lane(out: &mut Self::LaneOut, l: usize, value: Self::LaneSite) {
        A::set_lane(out, l, value)
    }

    #[inline(always)]
    unsafe fn store_lanes(view: &Self::HostView, s0: usize, out: &Self::LaneOut) {
        A::store_lanes(view, s0, out)
    }
}

impl<A: DeviceFacet, H> DeviceVia for Parted<A, H> {
    type Via = A;
    #[inline(always)]
    fn via(&self) -> &A {
        self.part()
    }
    #[inline(always)]
    fn via_mut(&mut self) -> &mut A {
        self.part_mut()
    }
}

impl<A, H: PartFacet> PartFacet for Parted<A, H> {
    fn part_of(&self, f: &mut impl FnMut(Option<PartOf>)) {
        self.hooks.part_of(f)
    }

    #[inline(always)]
    fn select_part(&mut self, part: usize) {
        self.current = part;
    }

    fn mark_written(&mut self, parity: Option<usize>) {
        self.hooks.mark_written(parity)
    }

    fn reads_halos(&self) -> bool {
        self.hooks.reads_halos()
    }

    fn refresh_halos(&mut self) -> Result<()> {
        self.hooks.refresh_halos()
    }

    fn part_wait(&self, part: usize, stage: PartStage) -> Result<()> {
        self.hooks.part_wait(part, stage)
    }

    fn stale_halos(&self) -> bool {
        self.hooks.stale_halos()
    }

    fn halo_send(&mut self, round: usize, faces: &mut dyn FaceBuffers) -> Result<()> {
        self.hooks.halo_send(round, faces)
    }

    fn halo_receive(
        &mut self,
        round: usize,
        halos: &mut dyn Iterator<Item = &mut dyn FaceBuffer>,
    ) -> Result<()> {
        self.hooks.halo_receive(round, halos)
    }
}

/// The hooks of a decomposed lattice captured as a value (`lat.coord(i, mu)`): each part
/// sees its part lattice; nothing is checked, marked or exchanged.
pub struct LatticeParts;

impl PartFacet for LatticeParts {}
