//! The host facet: how the CPU backend reads and writes an argument's sites, one at a time
//! or a group of lanes at a time.

use crate::error::Result;
use std::ops::Range;

/// What the CPU backend reads and writes an argument's sites through.
pub trait HostFacet {
    /// The per-site value the body sees.
    type Site: Copy + Send;
    /// What the CPU backend reads and writes sites through.
    type HostView: Copy + Send + Sync;
    /// Sites stored together (the layout's block; 1 for values).
    const BLOCK: usize;

    /// Makes the host copy ready for a call over the sites `sites` and returns the view to it.
    fn host_view(&mut self, sites: &Range<usize>) -> Result<Self::HostView>;

    /// The value of site `s`.
    ///
    /// # Safety
    /// `view` comes from [`host_view`](HostFacet::host_view) for sites that hold `s`.
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
    ///
    /// [`Layout::SITES_CONTIGUOUS`]: crate::Layout::SITES_CONTIGUOUS
    const GROUPS_PAY: bool;

    /// True for a shifted field, whose sites read their neighbours: a call with one is a
    /// stencil, whose sites cost enough that the CPU backend hands out smaller tasks.
    const STENCIL: bool = false;

    /// Loads sites `s0 .. s0 + LANES` into a buffer.
    ///
    /// # Safety
    /// `view` comes from [`host_view`](HostFacet::host_view) for sites that hold
    /// `s0 .. s0 + LANES`.
    unsafe fn load_lanes(view: &Self::HostView, s0: usize) -> Self::Lanes;

    /// Where a group's lanes are read and written: pointers into the storage or into the
    /// buffer, taken once a group. (Read from the buffer at every lane, they would be
    /// reloaded after each lane's stores, which LLVM cannot prove leave them unchanged, and
    /// the lane loop would not be vectorised.)
    type LaneAccess: Copy;

    /// The access to a buffer's lanes, valid while the buffer is neither moved nor used
    /// otherwise.
    fn lane_access(lanes: &mut Self::Lanes) -> Self::LaneAccess;

    /// What the body sees at a lane of a group: the per-site value, except for a shifted
    /// field, whose lanes read their nearest neighbours from buffers gathered once a group
    /// (`lattice::shift_lanes`).
    type LaneSite: Copy + Send;

    /// The per-site value of a lane's: the same, except for a shifted field, whose lane view
    /// gives its whole view back. (A body that shifts nothing runs at the lanes as at lone
    /// sites, through this and [`site_to_lane`](HostFacet::site_to_lane).)
    fn lane_to_site(lane: Self::LaneSite) -> Self::Site;

    /// A lane's value from the per-site value a body returned for it (`lane`: the lane's
    /// value before).
    fn site_to_lane(site: Self::Site, lane: Self::LaneSite) -> Self::LaneSite;

    /// True when the group's buffer is ready for its lanes; false when a shifted field could
    /// not gather a neighbour (a hop beyond a split lattice's halo), and the group then runs
    /// site by site, where the failing shift reports its site.
    #[inline(always)]
    fn lanes_ready(_lanes: &Self::Lanes) -> bool {
        true
    }

    /// The value of lane `l` (a written field's old value, read from `out` until the lane
    /// is set, or zeros where the body assigns the field whole).
    ///
    /// # Safety
    /// `l < LANES`; the access comes from [`lane_access`](HostFacet::lane_access) of a live
    /// buffer from [`load_lanes`](HostFacet::load_lanes), and `out` from
    /// [`lane_out`](HostFacet::lane_out) for the same group.
    unsafe fn lane(access: &Self::LaneAccess, out: &Self::LaneOut, l: usize) -> Self::LaneSite;

    /// A group's written lanes (`()` for read-only arguments): collected in a buffer of
    /// their own, a local that nothing else points to, and stored after the group's last
    /// lane. The compiler then knows that the lanes' writes leave every read of the loop
    /// alone. (Written into the storage or the group's buffer, they needed a run-time check
    /// against each shifted neighbour's buffer: a Wilson hop needs more than LLVM makes, and
    /// its lanes stayed scalar.)
    type LaneOut;

    /// The written lanes of the group at `s0`, before any is set: the old values where the
    /// body reads them and the layout does not keep the group where a lane buffer would
    /// (the lanes read them here), else unset.
    ///
    /// # Safety
    /// As for [`load_lanes`](HostFacet::load_lanes).
    unsafe fn lane_out(view: &Self::HostView, s0: usize) -> Self::LaneOut;

    /// Sets lane `l` of the written lanes (nothing for read-only arguments).
    ///
    /// # Safety
    /// `l < LANES`.
    unsafe fn set_lane(out: &mut Self::LaneOut, l: usize, value: Self::LaneSite);

    /// Writes the written lanes to sites `s0 .. s0 + LANES` (nothing for read-only
    /// arguments).
    ///
    /// # Safety
    /// As for `load_lanes`; every lane was set; no other thread touches these sites meanwhile.
    unsafe fn store_lanes(view: &Self::HostView, s0: usize, out: &Self::LaneOut);
}

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
