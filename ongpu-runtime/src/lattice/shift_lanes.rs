//! Shifted reads of a group of lanes: a shifted field's nearest neighbours gathered once a
//! group into component-major lane buffers, so that the body's lanes read them as they read
//! any other field's group (unit stride across the lanes, no table lookup or check per lane)
//! and the compiler vectorises the body across the lanes.
//!
//! The macro says which neighbours a body reads ([`Gathers`]: per direction and sign, the
//! whole element or only the entry of the same direction, as `u.shift(mu, -1)[mu]` reads),
//! and reads them through [`LaneShiftView`]'s `near*` methods. Longer shifts whose hops are
//! all constants (two steps, chains of hops: a staple's `u.shift(mu, 1).shift(nu, -1)[nu]`)
//! are gathered into slots of their own ([`FarShift`], read through `far*`), only the entries
//! the body reads; shifts of a distance or direction set at run time beyond those read the
//! field through the table as at a lone site.

use crate::element::{Element, ElementArray};
use crate::field::site_io::{self, LANES};
use crate::lattice::shift::{ShiftArg, ShiftView};
use crate::layout::Layout;
use std::cell::RefCell;

/// Which neighbours of a group a body reads: bit `2 * mu + back + 8 * (steps == 3)` of
/// `whole` for the whole element one or three steps along `mu` (backward if `back`; three
/// steps are the Naik term's), of `diagonal` for only its entry `mu` (an element array
/// read as `f.shift(mu, ±1)[mu]`), and the longer shifts in `far`, whose directions and
/// distances are constants or `values` the call site read from its captures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Gathers {
    /// Neighbours read whole.
    pub whole: u16,
    /// Neighbours of which only the entry of the shift's direction is read.
    pub diagonal: u16,
    /// Longer shifts, each gathered into a slot of its own (at most `MAX_FAR`).
    pub far: &'static [FarShift],
    /// The values of the call's captures that `far` names ([`HopArg::Value`]).
    pub values: [i64; MAX_VALUES],
    /// Bit `i`: value `i` is not a number the call could read (a field's, say): the shifts
    /// that name it are not gathered, and the groups run site by site.
    pub unknown: u8,
}

/// The most longer shifts of one field that a body's lanes gather (the macro lets a body
/// with more fall back).
pub const MAX_FAR: usize = 16;

/// The most hops of a longer shift that a group gathers.
pub const MAX_HOPS: usize = 8;

/// The most captured values the longer shifts of one field name.
pub const MAX_VALUES: usize = 8;

/// A hop's direction or distance in a [`FarShift`]: a constant, or value `i` of the call's
/// [`Gathers::values`] (a captured `mu` or `k`, the same at every site of the call).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HopArg {
    /// A constant.
    Const(i64),
    /// The call's value `i`.
    Value(u8),
}

/// A longer shift the lanes read gathered: its hops, `(direction, steps)` taken in order as
/// `f.shift(mu, k).shift(nu, l)` takes them, and what is read there: the whole element, or
/// entries of an element array (bit `e` of `entries` for entry `e`, and the entry the
/// call's value `entry_value` names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FarShift {
    /// The hops, in order (at most `MAX_HOPS`).
    pub hops: &'static [(HopArg, HopArg)],
    /// Read whole.
    pub whole: bool,
    /// The constant entries read.
    pub entries: u32,
    /// The entry read that a captured value names.
    pub entry_value: Option<u8>,
}

impl FarShift {
    /// The shift of `hops`, read whole.
    pub const fn whole(hops: &'static [(HopArg, HopArg)]) -> Self {
        FarShift {
            hops,
            whole: true,
            entries: 0,
            entry_value: None,
        }
    }

    /// The shift of `hops`, read at the entries `entries` and `entry_value`.
    pub const fn entries(
        hops: &'static [(HopArg, HopArg)],
        entries: u32,
        entry_value: Option<u8>,
    ) -> Self {
        FarShift {
            hops,
            whole: false,
            entries,
            entry_value,
        }
    }
}

impl Gathers {
    /// No neighbour gathered: every shift reads through the table.
    pub const NONE: Gathers = Gathers::new(0, 0);

    /// The neighbours the macro found a body to read.
    pub const fn new(whole: u16, diagonal: u16) -> Self {
        Gathers {
            whole,
            diagonal,
            far: &[],
            values: [0; MAX_VALUES],
            unknown: 0,
        }
    }

    /// These neighbours and the longer shifts `far`.
    ///
    /// # Panics
    /// If there are more than `MAX_FAR`, or a shift of more than `MAX_HOPS` hops (at
    /// compile time, where the macro calls it).
    pub const fn with_far(self, far: &'static [FarShift]) -> Self {
        assert!(
            far.len() <= MAX_FAR,
            "more longer shifts than a group gathers"
        );
        let mut i = 0;
        while i < far.len() {
            assert!(
                far[i].hops.len() <= MAX_HOPS,
                "a shift of more hops than a group gathers"
            );
            i += 1;
        }
        Gathers { far, ..self }
    }

    /// These neighbours, with the values the call read from its captures (`None` for a
    /// capture that is not a number).
    ///
    /// # Panics
    /// If there are more than `MAX_VALUES`.
    pub fn with_values<const N: usize>(mut self, values: [Option<i64>; N]) -> Self {
        assert!(N <= MAX_VALUES, "more values than a group's shifts name");
        for (i, v) in values.into_iter().enumerate() {
            match v {
                Some(v) => self.values[i] = v,
                None => self.unknown |= 1 << i,
            }
        }
        self
    }

    /// The number `a` stands for, if known.
    fn resolve(&self, a: HopArg) -> Option<i64> {
        match a {
            HopArg::Const(v) => Some(v),
            HopArg::Value(i) => {
                let i = i as usize;
                (i < MAX_VALUES && self.unknown >> i & 1 == 0).then(|| self.values[i])
            }
        }
    }

    /// The hops of `far` as numbers, and how many; `None` if one is not known.
    fn far_hops(&self, far: &FarShift) -> Option<([(i64, i64); MAX_HOPS], usize)> {
        let mut hops = [(0, 0); MAX_HOPS];
        if far.hops.len() > MAX_HOPS {
            return None;
        }
        for (h, &(mu, k)) in hops.iter_mut().zip(far.hops) {
            *h = (self.resolve(mu)?, self.resolve(k)?);
        }
        Some((hops, far.hops.len()))
    }

    /// The entries of `far` to gather (bit `e`), or `None` for the whole element.
    fn far_entries(&self, far: &FarShift) -> Option<u32> {
        if far.whole {
            return None;
        }
        let Some(i) = far.entry_value else {
            return Some(far.entries);
        };
        match self.resolve(HopArg::Value(i)) {
            Some(e) if (0..32).contains(&e) => Some(far.entries | 1 << e),
            // An entry the call could not read (a field's value at each site) or past 32:
            // the whole element, which holds whatever entry the body reads.
            _ => None,
        }
    }
}

/// A captured value as a shift's direction or distance at the call site: `Some` for a
/// number (`(&&CapturedValue(&mu)).captured_value()` picks [`NumberValue`] for one), `None` for
/// anything else ([`NotANumber`]), whose shifts the lanes then do not gather.
pub struct CapturedValue<'a, T: ?Sized>(pub &'a T);

/// The value of a captured number.
pub trait NumberValue {
    /// The number.
    fn captured_value(&self) -> Option<i64>;
}

impl<T: ShiftArg> NumberValue for &CapturedValue<'_, T> {
    #[inline(always)]
    fn captured_value(&self) -> Option<i64> {
        Some(self.0.to_i64())
    }
}

/// A capture that is not a number (a field, say).
pub trait NotANumber {
    /// `None`.
    fn captured_value(&self) -> Option<i64> {
        None
    }
}

impl<T: ?Sized> NotANumber for CapturedValue<'_, T> {}

/// The neighbours' slots: one and three steps along each direction and sign
/// (`2 * mu + back + 8 * (steps == 3)`).
const SLOTS: usize = 16;

/// One cache line of a gather buffer (so that the scalars of every slot are aligned).
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u8; 64]);

thread_local! {
    /// Gather buffers not in use on this thread, kept for the next group.
    static SPARE: RefCell<Vec<Vec<Line>>> = const { RefCell::new(Vec::new()) };
}

/// A gather buffer of at least `bytes`, from this thread's spares.
fn take_buffer(bytes: usize) -> Vec<Line> {
    let lines = bytes.div_ceil(64);
    let mut buf = SPARE.with(|s| s.borrow_mut().pop()).unwrap_or_default();
    if buf.len() < lines {
        buf.resize(lines, Line([0; 64]));
    }
    buf
}

/// The neighbour `site_of` finds for each lane of the group at `s0`; `None` if one has none.
#[inline(always)]
fn lane_sites(s0: usize, site_of: impl Fn(usize) -> Option<usize>) -> Option<[usize; LANES]> {
    let mut sites = [0usize; LANES];
    for (l, j) in sites.iter_mut().enumerate() {
        *j = site_of(s0 + l)?;
    }
    Some(sites)
}

/// The first of `sites` where they are consecutive (lane `l` at `sites[0] + l`).
#[inline(always)]
fn run_start(sites: &[usize; LANES]) -> Option<usize> {
    let j = sites[0];
    sites
        .iter()
        .enumerate()
        .all(|(l, &s)| s == j + l)
        .then_some(j)
}

/// True when `sites` are one whole block that the layout stores as a lane buffer (the lanes
/// then read it where it lies).
#[inline(always)]
fn block_in_place<T: Element, L: Layout>(sites: &[usize; LANES]) -> bool {
    run_start(sites).is_some_and(|j| j % LANES == 0) && site_io::groups_in_place::<T, L>()
}

/// The gathered neighbours of one group of a shifted field.
pub struct GatheredLanes<T: Element, L: Layout> {
    buf: Vec<Line>,
    slots: Slots<T, L>,
    ready: bool,
}

/// Where a group's lanes read a shifted field.
struct Slots<T: Element, L: Layout> {
    view: ShiftView<T, L>,
    /// The group's first site (a multiple of [`LANES`]).
    s0: usize,
    /// The group's own block in the storage, where the layout stores it as a lane buffer.
    centre: *const T::Scalar,
    /// Where each slot's whole neighbours lie, component-major (`[component][lane]`): in
    /// the buffer, or in the field's own storage where the neighbours are one whole block
    /// stored as a lane buffer is (`AoSoA<32>` along most directions: no copy).
    whole: [*const T::Scalar; SLOTS],
    /// Where each slot's diagonal entries lie, the same way.
    diagonal: [*const T::Scalar; SLOTS],
    /// Where each longer shift's neighbours lie, the same way as `whole` (of an element
    /// array, only the entries read were gathered).
    far: [*const T::Scalar; MAX_FAR],
}

impl<T: Element, L: Layout> Drop for GatheredLanes<T, L> {
    fn drop(&mut self) {
        let buf = std::mem::take(&mut self.buf);
        if !buf.is_empty() {
            // A thread that is exiting keeps no spares.
            let _ = SPARE.try_with(|s| s.borrow_mut().push(buf));
        }
    }
}

impl<T: Element, L: Layout> GatheredLanes<T, L> {
    /// Scalars of the whole-element slots in the buffer: `[slot][component][lane]`.
    const WHOLE: usize = SLOTS * T::COMPONENTS * LANES;

    /// Scalars of one entry (the diagonal slots hold one).
    const ENTRY: usize = T::COMPONENTS / T::ENTRIES;

    /// Gathers the neighbours `gathers` names of sites `s0 .. s0 + LANES`.
    ///
    /// # Safety
    /// `view` reads a live host copy holding every site of the lattice it steps on.
    #[inline(always)]
    pub(crate) unsafe fn gather(view: ShiftView<T, L>, gathers: Gathers, s0: usize) -> Self {
        let entry = Self::ENTRY;
        // Room for every slot, gathered or not, so that a lane's read is in bounds whatever
        // it reads (and needs no check that would keep the lane loop scalar).
        let near = Self::WHOLE + SLOTS * entry * LANES;
        let far_slot = T::COMPONENTS * LANES;
        let nfar = gathers.far.len().min(MAX_FAR);
        let bytes = (near + nfar * far_slot) * std::mem::size_of::<T::Scalar>();
        let buf = take_buffer(bytes);
        let at = buf.as_ptr().cast::<T::Scalar>().cast_mut();
        let (storage, stride) = view.storage();
        let slots = Slots {
            view,
            s0,
            centre: if s0 + LANES <= view.len() && site_io::groups_in_place::<T, L>() {
                storage.add(L::index(s0, 0, T::COMPONENTS, stride))
            } else {
                storage
            },
            whole: std::array::from_fn(|slot| at.add(slot * T::COMPONENTS * LANES).cast_const()),
            diagonal: std::array::from_fn(|slot| {
                at.add(Self::WHOLE + slot * entry * LANES).cast_const()
            }),
            // Slots past the body's read nothing; they point to the buffer's first whole
            // slot all the same (`T::COMPONENTS * LANES` scalars, as a far slot holds).
            far: std::array::from_fn(|k| {
                let offset = if k < nfar { near + k * far_slot } else { 0 };
                at.add(offset).cast_const()
            }),
        };
        let mut lanes = GatheredLanes {
            buf,
            slots,
            // The group's own sites are read unchecked (`centre`).
            ready: s0 % LANES == 0 && s0 + LANES <= view.len(),
        };
        if !lanes.ready {
            return lanes;
        }
        for slot in 0..SLOTS {
            let (whole, diagonal) = (
                gathers.whole >> slot & 1 != 0,
                // An element of fewer entries than directions has no entry `mu` for some:
                // those diagonal reads fail in the body (`near_diagonal` checks the entry).
                gathers.diagonal >> slot & 1 != 0 && slot % 8 / 2 < T::ENTRIES,
            );
            if !(whole || diagonal) {
                continue;
            }
            let (mu, back, steps) = (slot % 8 / 2, slot % 2 == 1, 1 + 2 * (slot / 8));
            let first = mu * entry..(mu + 1) * entry;
            // One step whose neighbours are consecutive sites: the table says so once a
            // group; otherwise the lanes' neighbours are found one by one.
            let table_run = (steps == 1)
                .then(|| view.hops().run(s0, mu, back))
                .flatten()
                .filter(|&j| j + LANES <= view.len());
            let j = match table_run {
                Some(j) => j,
                None => {
                    let Some(sites) = lane_sites(s0, |s| view.near_site(s, mu, back, steps)) else {
                        lanes.ready = false;
                        return lanes;
                    };
                    let Some(j) = run_start(&sites) else {
                        if whole {
                            let to = lanes.slots.whole[slot].cast_mut();
                            view.gather_components(&sites, 0..T::COMPONENTS, to);
                        }
                        if diagonal {
                            let to = lanes.slots.diagonal[slot].cast_mut();
                            view.gather_components(&sites, first, to);
                        }
                        continue;
                    };
                    j
                }
            };
            // The neighbours are the run of sites from `j`: read where they lie if they are a
            // block stored as a lane buffer, else copied as one run.
            let index = |c| L::index(j, c, T::COMPONENTS, stride);
            if j % LANES == 0 && site_io::groups_in_place::<T, L>() {
                lanes.slots.whole[slot] = storage.add(index(0));
                if diagonal {
                    lanes.slots.diagonal[slot] = storage.add(index(first.start));
                }
                continue;
            }
            if whole {
                let to = lanes.slots.whole[slot].cast_mut();
                view.gather_run(j, 0..T::COMPONENTS, to);
            }
            if diagonal {
                let to = lanes.slots.diagonal[slot].cast_mut();
                view.gather_run(j, first, to);
            }
        }
        for (k, far) in gathers.far.iter().take(MAX_FAR).enumerate() {
            let Some((hops, n)) = gathers.far_hops(far) else {
                lanes.ready = false;
                return lanes;
            };
            let Some(sites) = lane_sites(s0, |s| view.far_site(s, &hops[..n])) else {
                lanes.ready = false;
                return lanes;
            };
            if block_in_place::<T, L>(&sites) {
                lanes.slots.far[k] = storage.add(L::index(sites[0], 0, T::COMPONENTS, stride));
                continue;
            }
            let to = lanes.slots.far[k].cast_mut();
            let Some(entries) = gathers.far_entries(far) else {
                view.gather_components(&sites, 0..T::COMPONENTS, to);
                continue;
            };
            // Only the entries read, each where it lies in a whole element's slot.
            for e in (0..T::ENTRIES.min(32)).filter(|&e| entries >> e & 1 != 0) {
                view.gather_components(
                    &sites,
                    e * entry..(e + 1) * entry,
                    to.add(e * entry * LANES),
                );
            }
        }
        lanes
    }

    /// True when every neighbour was gathered.
    #[inline(always)]
    pub(crate) fn ready(&self) -> bool {
        self.ready
    }

    /// The group's slots, for the lane loop ([`LaneSlots`]): valid while the group's lanes
    /// are neither moved nor dropped.
    #[inline(always)]
    pub(crate) fn access(&self) -> LaneSlots<T, L> {
        LaneSlots(self.slots)
    }
}

/// A group's slots as its lane loop reads them: a copy in a local of its own, which nothing
/// in the loop writes. Read from the group itself, next to the lane buffers the loop writes,
/// the slots' addresses had to be loaded again at every lane (the compiler could not tell
/// the writes from them), and the lanes stayed scalar.
pub struct LaneSlots<T: Element, L: Layout>(Slots<T, L>);

impl<T: Element, L: Layout> LaneSlots<T, L> {
    /// What a lane sees, valid while these slots are neither moved nor dropped.
    #[inline(always)]
    pub(crate) fn view(&self) -> LaneShiftView<T, L> {
        LaneShiftView { slots: &self.0 }
    }
}

impl<T: Element, L: Layout> Clone for Slots<T, L> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Element, L: Layout> Copy for Slots<T, L> {}

impl<T: Element, L: Layout> Clone for LaneSlots<T, L> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Element, L: Layout> Copy for LaneSlots<T, L> {}

/// What a body's lane sees of a shifted field: the field's view, and the group's gathered
/// neighbours. One pointer, to the group's [`LaneSlots`] (a lane's arguments are copied
/// in and out of the body at every lane, and a larger copy became a `memcpy` call that kept
/// the lane loop scalar).
pub struct LaneShiftView<T: Element, L: Layout> {
    slots: *const Slots<T, L>,
}

impl<T: Element, L: Layout> Clone for LaneShiftView<T, L> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Element, L: Layout> Copy for LaneShiftView<T, L> {}
// SAFETY: as for `ShiftView`; the group's slots and buffer are read only, while the group
// runs (the backend keeps its `GatheredLanes` and `LaneSlots` in place meanwhile).
unsafe impl<T: Element, L: Layout> Send for LaneShiftView<T, L> {}
// SAFETY: as above.
unsafe impl<T: Element, L: Layout> Sync for LaneShiftView<T, L> {}

/// The lane of `site` in its group (groups start on multiples of [`LANES`]; masked, so that
/// no site reads outside its group). Written from the site alone, so that the compiler sees
/// the lane loop's index in it and keeps every read of the lanes contiguous.
#[inline(always)]
fn lane_of(site: usize) -> usize {
    site & (LANES - 1)
}

/// The slot of a shift `steps` (1 or 3) along `mu`.
///
/// # Panics
/// If `mu` is not a direction, as a shift at a lone site does.
#[inline(always)]
fn slot(mu: impl ShiftArg, back: bool, steps: usize) -> usize {
    let m = mu.to_i64();
    assert!(
        (0..4).contains(&m),
        "direction {m} of a shift is not one of 0..4"
    );
    debug_assert!(
        steps == 1 || steps == 3,
        "gathered shifts are of 1 or 3 steps"
    );
    2 * m as usize + back as usize + 8 * (steps == 3) as usize
}

impl<T: Element, L: Layout> LaneShiftView<T, L> {
    #[inline(always)]
    fn slots(&self) -> &Slots<T, L> {
        // SAFETY: the group's lanes and slots outlive every view of them, unmoved (see
        // `LaneSlots::view`).
        unsafe { &*self.slots }
    }

    /// The whole field's view.
    #[inline(always)]
    pub(crate) fn view(&self) -> ShiftView<T, L> {
        self.slots().view
    }

    /// The element at `site` itself (a lane of the group: read where the field stores it).
    #[inline(always)]
    pub fn centre(&self, site: usize) -> T {
        let g = self.slots();
        // SAFETY: the group's sites are sites of the field (checked when it was gathered),
        // and the lane is one of them; where the layout stores the group as a lane buffer,
        // `centre` points to it.
        unsafe {
            if site_io::groups_in_place::<T, L>() {
                site_io::lane_at(g.centre, lane_of(site))
            } else {
                let (ptr, stride) = g.view.storage();
                site_io::load::<T, L>(ptr, g.s0 + lane_of(site), stride)
            }
        }
    }

    /// As [`ShiftView::hop`]: for shifts the group did not gather.
    #[inline(always)]
    pub fn hop(&self, site: usize, mu: impl ShiftArg, k: impl ShiftArg) -> usize {
        self.slots().view.hop(site, mu, k)
    }

    /// As [`ShiftView::at`].
    #[inline(always)]
    pub fn at(&self, j: usize) -> T {
        self.slots().view.at(j)
    }

    /// The gathered neighbour of `site` `steps` (1 or 3) along `mu` (backward if `back`).
    ///
    /// # Panics
    /// If `mu` is not a direction.
    #[inline(always)]
    pub fn near(&self, site: usize, mu: impl ShiftArg, back: bool, steps: usize) -> T {
        let slot = slot(mu, back, steps);
        let g = self.slots();
        // SAFETY: the buffer holds every slot's `T::COMPONENTS * LANES` scalars (those the
        // body reads were gathered: the macro names them in `Gathers`), and the lane is one
        // of the group's.
        unsafe { site_io::lane_at(g.whole[slot], lane_of(site)) }
    }

    /// The gathered neighbour of `site` at the group's longer shift `k` ([`FarShift`]).
    #[inline(always)]
    pub fn far(&self, site: usize, k: usize) -> T {
        let g = self.slots();
        // SAFETY: every one of the `MAX_FAR` slots points to `T::COMPONENTS * LANES` scalars
        // of the buffer or the field, unused ones included (the body's slots were gathered
        // whole: the macro names them in `Gathers`), and the lane is one of the group's.
        unsafe { site_io::lane_at(g.far[k % MAX_FAR], lane_of(site)) }
    }
}

impl<A: ElementArray, L: Layout> LaneShiftView<A, L> {
    /// Entry `e` of the element at `site` itself (`u[mu]` of a shifted `u`).
    ///
    /// # Panics
    /// If `e >= A::LEN`.
    #[inline(always)]
    pub fn centre_entry(&self, site: usize, e: usize) -> A::Entry {
        assert!(e < A::LEN, "index {e} of an array of {}", A::LEN);
        let g = self.slots();
        let entry = GatheredLanes::<A, L>::ENTRY;
        // SAFETY: as for `centre`; entry `e`'s components are the element's from
        // `e * entry`.
        unsafe {
            if site_io::groups_in_place::<A, L>() {
                site_io::lane_at(g.centre.add(e * entry * LANES), lane_of(site))
            } else {
                let (ptr, stride) = g.view.storage();
                let j = g.s0 + lane_of(site);
                let mut v = std::mem::MaybeUninit::<A::Entry>::uninit();
                let to = v.as_mut_ptr().cast::<A::Scalar>();
                for c in 0..entry {
                    *to.add(c) = *ptr.add(L::index(j, e * entry + c, A::COMPONENTS, stride));
                }
                v.assume_init()
            }
        }
    }

    /// As [`ShiftView::entry`]: for shifts the group did not gather.
    #[inline(always)]
    pub fn entry(&self, j: usize, e: usize) -> A::Entry {
        self.slots().view.entry(j, e)
    }

    /// Entry `e` of the gathered neighbour of `site` `steps` along `mu`.
    ///
    /// # Panics
    /// If `mu` is not a direction or `e >= A::LEN`.
    #[inline(always)]
    pub fn near_entry(
        &self,
        site: usize,
        mu: impl ShiftArg,
        back: bool,
        steps: usize,
        e: usize,
    ) -> A::Entry {
        let slot = slot(mu, back, steps);
        assert!(e < A::LEN, "index {e} of an array of {}", A::LEN);
        let entry = GatheredLanes::<A, L>::ENTRY;
        let g = self.slots();
        // SAFETY: as for `near`; entry `e`'s components are the slot's from `e * entry`.
        unsafe { site_io::lane_at(g.whole[slot].add(e * entry * LANES), lane_of(site)) }
    }

    /// Entry `e` of the gathered neighbour of `site` at the group's longer shift `k`.
    ///
    /// # Panics
    /// If `e >= A::LEN`.
    #[inline(always)]
    pub fn far_entry(&self, site: usize, k: usize, e: usize) -> A::Entry {
        const {
            assert!(
                A::ENTRIES == A::LEN,
                "Element::ENTRIES must be ElementArray::LEN"
            )
        };
        assert!(e < A::LEN, "index {e} of an array of {}", A::LEN);
        let entry = GatheredLanes::<A, L>::ENTRY;
        let g = self.slots();
        // SAFETY: as for `far`; entry `e`'s components are the slot's from `e * entry` (the
        // macro names every entry the body reads in the shift's `FarShift`).
        unsafe { site_io::lane_at(g.far[k % MAX_FAR].add(e * entry * LANES), lane_of(site)) }
    }

    /// Entry `mu` of the neighbour of `site` `steps` along `mu` (`f.shift(mu, ±1)[mu]`),
    /// gathered alone.
    ///
    /// # Panics
    /// If `mu` is not a direction or not an entry.
    #[inline(always)]
    pub fn near_diagonal(
        &self,
        site: usize,
        mu: impl ShiftArg,
        back: bool,
        steps: usize,
    ) -> A::Entry {
        const {
            assert!(
                A::ENTRIES == A::LEN,
                "Element::ENTRIES must be ElementArray::LEN"
            )
        };
        let slot = slot(mu, back, steps);
        let e = slot % 8 / 2;
        assert!(e < A::LEN, "index {e} of an array of {}", A::LEN);
        let g = self.slots();
        // SAFETY: as for `near`.
        unsafe { site_io::lane_at(g.diagonal[slot], lane_of(site)) }
    }
}

impl<T: Element, L: Layout> ShiftView<T, L> {
    /// The neighbour `steps` along `mu` from `site` (backward if `back`), from the table
    /// or computed; `None` beyond a split lattice's halo.
    #[inline(always)]
    pub(crate) fn near_site(
        &self,
        site: usize,
        mu: usize,
        back: bool,
        steps: usize,
    ) -> Option<usize> {
        let mut j = site;
        for _ in 0..steps {
            match self.hops().get(j, mu, back) {
                Some(n) => j = n,
                None => {
                    let k = if back { -(steps as i64) } else { steps as i64 };
                    return self
                        .lattice()
                        .checked_shift(site, mu, k)
                        .filter(|&j| j < self.len());
                }
            }
        }
        Some(j).filter(|&j| j < self.len())
    }

    /// The site that the hops `(direction, steps)` lead to from `site`, taken in order as
    /// [`ShiftView::hop`] takes them; `None` beyond a split lattice's halo.
    #[inline(always)]
    pub(crate) fn far_site(&self, site: usize, hops: &[(i64, i64)]) -> Option<usize> {
        let mut j = site;
        for &(mu, k) in hops {
            // A direction out of range: the group runs site by site, where the shift reports.
            let mu = usize::try_from(mu).ok().filter(|&m| m < 4)?;
            let table = if k == 1 || k == -1 {
                self.hops().get(j, mu, k < 0)
            } else {
                None
            };
            j = match table {
                Some(n) => n,
                None => self.lattice().checked_shift(j, mu, k)?,
            };
        }
        Some(j).filter(|&j| j < self.len())
    }

    /// Copies the components `comps` of the elements at sites `j .. j + LANES` into `to`,
    /// component-major (`to[(c - comps.start) * LANES + l]`): all of them through the
    /// layout's copy of a group, a subset component by component.
    ///
    /// # Safety
    /// `j + LANES` is at most the view's length; `to` has room for `comps.len() * LANES`
    /// scalars.
    #[inline(always)]
    pub(crate) unsafe fn gather_run(
        &self,
        j: usize,
        comps: std::ops::Range<usize>,
        to: *mut T::Scalar,
    ) {
        let (ptr, stride) = self.storage();
        if comps.len() == T::COMPONENTS {
            L::gather(ptr, j, T::COMPONENTS, stride, to, LANES);
            return;
        }
        for (k, c) in comps.enumerate() {
            for l in 0..LANES {
                *to.add(k * LANES + l) = *ptr.add(L::index(j + l, c, T::COMPONENTS, stride));
            }
        }
    }

    /// Copies the components `comps` of the elements at `sites` into `to`, component-major
    /// (`to[(c - comps.start) * LANES + l]`), in whole runs where the sites are consecutive.
    ///
    /// # Safety
    /// Every site is below the view's length; `to` has room for `comps.len() * LANES`
    /// scalars.
    #[inline(always)]
    pub(crate) unsafe fn gather_components(
        &self,
        sites: &[usize; LANES],
        comps: std::ops::Range<usize>,
        to: *mut T::Scalar,
    ) {
        if let Some(j) = run_start(sites) {
            return self.gather_run(j, comps, to);
        }
        let (ptr, stride) = self.storage();
        // Lane by lane: a site's components are found from its first (the layouts' index is
        // computed once a site, not once a component).
        for (l, &j) in sites.iter().enumerate() {
            for (k, c) in comps.clone().enumerate() {
                *to.add(k * LANES + l) = *ptr.add(L::index(j, c, T::COMPONENTS, stride));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    // The macro's form: the borrows pick the trait.
    #[allow(clippy::needless_borrow)]
    fn a_captured_number_is_a_value_and_anything_else_is_not() {
        let (mu, k, field) = (2usize, -3i64, vec![1.0f64]);
        assert_eq!((&&CapturedValue(&mu)).captured_value(), Some(2));
        assert_eq!((&&CapturedValue(&k)).captured_value(), Some(-3));
        assert_eq!((&&CapturedValue(&field)).captured_value(), None);
    }

    #[test]
    fn far_shifts_resolve_their_values_and_entries() {
        const HOPS: &[(HopArg, HopArg)] = &[
            (HopArg::Value(1), HopArg::Const(-1)),
            (HopArg::Const(3), HopArg::Value(0)),
        ];
        const FAR: &[FarShift] = &[FarShift::entries(HOPS, 0b1, Some(1)), FarShift::whole(HOPS)];
        let g = Gathers::new(0, 0)
            .with_far(FAR)
            .with_values([Some(2), Some(2)]);
        let (hops, n) = g.far_hops(&g.far[0]).unwrap();
        assert_eq!(&hops[..n], &[(2, -1), (3, 2)]);
        assert_eq!(g.far_entries(&g.far[0]), Some(0b101));
        assert_eq!(g.far_entries(&g.far[1]), None);
        // A value the call could not read: the shift is not gathered.
        let unknown = Gathers::new(0, 0)
            .with_far(FAR)
            .with_values([Some(1), None]);
        assert!(unknown.far_hops(&unknown.far[0]).is_none());
        // An entry the call could not read, or past 32: the whole element is gathered.
        for entry in [None, Some(40)] {
            let g = Gathers::new(0, 0)
                .with_far(FAR)
                .with_values([Some(2), entry]);
            assert_eq!(g.far_entries(&g.far[0]), None, "{entry:?}");
        }
    }
}
