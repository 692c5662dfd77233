//! Shifted reads: a captured field that a body reads at other sites (`f.shift(mu, k)`).
//!
//! The macro wraps such a capture with [`read_shifted`]. On the GPU it is an ordinary
//! read-only field (the kernel reads neighbours through `ONGPU_AT`); on the CPU the body
//! gets a [`ShiftView`] of the whole host copy and reads `view.at(site)`. A field a call
//! writes cannot be shifted in it (the macro refuses it, and the borrows would conflict),
//! so the host copy does not change while views of it are read from several threads.

// The CUDA-side methods name crate-private types, as in `capture`.
#![allow(private_interfaces)]

use crate::capture::{
    CaptureArg, CaptureKind, DeviceVia, FieldRead, HostFacet, HostPtr, PartFacet, ReadCapture,
};
use crate::element::{Element, ElementArray};
use crate::error::Result;
use crate::field::{site_io, Field};
use crate::geometry::Lattice;
use crate::lattice::neighbours::{self, Hops, NeighbourTable};
use crate::lattice::shift_lanes::{GatheredLanes, Gathers, LaneShiftView, LaneSlots};
use crate::layout::Layout;
use std::marker::PhantomData;
use std::ops::Range;
use std::sync::Arc;

/// A field read at neighbouring sites.
pub struct FieldShifted<'a, T: Element, L: Layout> {
    read: FieldRead<'a, T, L>,
    lattice: Lattice,
    /// The lattice's neighbour table while the CPU backend's views use it.
    table: Option<Arc<NeighbourTable>>,
    /// The nearest neighbours the body reads, gathered once a group on the CPU.
    gathers: Gathers,
}

/// Key type of a [`FieldShifted`].
pub struct FieldShiftedKey<T, L>(PhantomData<(T, L)>);

/// Read access to every site of a field's host copy, for the CPU backend's shifts.
///
/// A body gets a copy of the view at every site, so it is kept small: the lattice (about
/// 200 bytes, needed only for shifts the neighbour table does not hold) is pointed to, not
/// copied. Copying it at every lane made the CPU Dslash 5–9% slower.
pub struct ShiftView<T: Element, L: Layout> {
    ptr: HostPtr<T::Scalar>,
    len: usize,
    /// The call's lattice, in the argument the view was made from ([`FieldShifted`]), which
    /// the backend keeps in place, unmoved, while any view of it exists (a call's views
    /// live only during the call, and a body cannot keep one).
    lattice: *const Lattice,
    hops: Hops,
    _layout: PhantomData<L>,
}

impl<T: Element, L: Layout> Clone for ShiftView<T, L> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Element, L: Layout> Copy for ShiftView<T, L> {}
// SAFETY: the lattice pointer is only read, and the lattice is not written while views of it
// exist (see the field); the host copy's pointer is `HostPtr`'s, which is `Send` and `Sync`.
unsafe impl<T: Element, L: Layout> Send for ShiftView<T, L> {}
// SAFETY: as above.
unsafe impl<T: Element, L: Layout> Sync for ShiftView<T, L> {}

impl<T: Element, L: Layout> ShiftView<T, L> {
    /// The neighbour table's view.
    #[inline(always)]
    pub(crate) fn hops(&self) -> Hops {
        self.hops
    }

    /// Sites of the field.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The host copy's first scalar and its stride.
    #[inline(always)]
    pub(crate) fn storage(&self) -> (*const T::Scalar, usize) {
        (self.ptr.ptr, self.ptr.stride)
    }

    /// The lattice whose neighbours the view's shifts step to.
    #[inline(always)]
    pub fn lattice(&self) -> &Lattice {
        // SAFETY: the argument holding the lattice outlives the view, unmoved (see the field).
        unsafe { &*self.lattice }
    }

    /// The site `k` steps from `site` along `mu` (the macro calls this for `f.shift(mu, k)`
    /// on the CPU backend): a nearest neighbour from the lattice's table, other distances
    /// computed.
    ///
    /// # Panics
    /// If `mu` is not a direction, or the shift leaves the halo of a split lattice's part:
    /// the call then fails with `Error::BodyPanicked`.
    #[inline(always)]
    pub fn hop(&self, site: usize, mu: impl ShiftArg, k: impl ShiftArg) -> usize {
        let (m, d) = (mu.to_i64(), k.to_i64());
        if d == 1 || d == -1 {
            if let Some(j) = self.hops.get(site, m as usize, d < 0) {
                return j;
            }
        }
        shift_site(self.lattice(), site, m, d)
    }

    /// The element of site `j`.
    ///
    /// # Panics
    /// If `j` is not a site of the field (a shift always gives one: the call checked that
    /// every field holds the lattice volume).
    #[inline(always)]
    pub fn at(&self, j: usize) -> T {
        assert!(j < self.len, "site {j} of a field of {} sites", self.len);
        // SAFETY: `j` is in bounds of the host copy the view was made for, which this call
        // borrows shared and nobody writes meanwhile (see the module documentation).
        unsafe { site_io::load::<T, L>(self.ptr.ptr, j, self.ptr.stride) }
    }
}

impl<A: ElementArray, L: Layout> ShiftView<A, L> {
    /// Entry `e` of the element array at site `j`, reading that entry's components only
    /// (`u.shift(mu, k)[nu]`).
    ///
    /// # Panics
    /// If `j` is not a site of the field or `e >= A::LEN`.
    #[inline(always)]
    pub fn entry(&self, j: usize, e: usize) -> A::Entry {
        type E<A> = <A as ElementArray>::Entry;
        const { assert!(A::LEN * E::<A>::COMPONENTS == A::COMPONENTS) };
        let n = A::LEN;
        assert!(j < self.len, "site {j} of a field of {} sites", self.len);
        assert!(e < n, "index {e} of an array of {n}");
        let mut v = <E<A> as bytemuck::Zeroable>::zeroed();
        let first = e * E::<A>::COMPONENTS;
        for (c, slot) in crate::element::components_mut(&mut v)
            .iter_mut()
            .enumerate()
        {
            let k = L::index(j, first + c, A::COMPONENTS, self.ptr.stride);
            // SAFETY: `j` and `first + c` are in bounds of the host copy (checked above), which
            // this call borrows shared and nobody writes meanwhile.
            *slot = unsafe { *self.ptr.ptr.add(k) };
        }
        v
    }
}

/// An integer a body gives as a shift's direction or distance.
pub trait ShiftArg: Copy {
    /// The value (a direction that does not fit is out of range, and panics there).
    fn to_i64(self) -> i64;
}

macro_rules! shift_arg {
    ($($t:ty),*) => {$(
        impl ShiftArg for $t {
            #[inline(always)]
            fn to_i64(self) -> i64 {
                i64::try_from(self).unwrap_or(i64::MAX)
            }
        }
    )*};
}
shift_arg!(usize, u64, u32, u16, u8, isize, i64, i32, i16, i8);

/// The site `k` steps from `site` along `mu`, computed from coordinates.
///
/// # Panics
/// If `mu` is not a direction: the call then fails with `Error::BodyPanicked`.
#[inline(always)]
fn shift_site(lat: &Lattice, site: usize, mu: impl ShiftArg, k: impl ShiftArg) -> usize {
    let mu = mu.to_i64();
    assert!(
        (0..4).contains(&mu),
        "direction {mu} of a shift is not one of 0..4"
    );
    lat.shift(site, mu as usize, k.to_i64())
}

/// An array index of a body as `usize` (the index of `u.shift(mu, k)[nu]`; a negative one
/// is out of range, and panics there).
#[inline(always)]
pub fn index(i: impl ShiftArg) -> usize {
    usize::try_from(i.to_i64()).unwrap_or(usize::MAX)
}

/// Something a body can shift: only a [`Field`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is shifted in an on_gpu! body, but only fields can be shifted",
    label = "shifted here",
    note = "`f.shift(mu, k)` reads the captured field `f` at the site k steps along mu; a value \
            is the same at every site and has no neighbours"
)]
pub trait ShiftCapture {
    /// What a body sees of it at a site: the view its shifts read through.
    type Site: Copy + Send;
    /// What a body sees of it at a lane of a group on the CPU (its gathered neighbours).
    type LaneSite: Copy + Send;
    /// The argument that carries it to the backends.
    type Arg<'a>: CaptureArg<Site = Self::Site, LaneSite = Self::LaneSite>
    where
        Self: 'a;
    /// Wraps a shared borrow; `lat` is the call's lattice (the CPU backend's neighbours),
    /// `gathers` the nearest neighbours the body reads.
    fn shifted_arg(&self, lat: Lattice, gathers: Gathers) -> Self::Arg<'_>;
}

impl<T: Element, L: Layout> ShiftCapture for Field<T, L> {
    type Site = ShiftView<T, L>;
    type LaneSite = LaneShiftView<T, L>;
    type Arg<'a> = FieldShifted<'a, T, L>;
    #[inline(always)]
    fn shifted_arg(&self, lat: Lattice, gathers: Gathers) -> FieldShifted<'_, T, L> {
        FieldShifted {
            read: self.read_arg(),
            lattice: lat,
            table: None,
            gathers,
        }
    }
}

/// A capture held through `&mut` shifts as the value it points to.
impl<C: ShiftCapture + ?Sized> ShiftCapture for &mut C {
    type Site = C::Site;
    type LaneSite = C::LaneSite;
    type Arg<'a>
        = C::Arg<'a>
    where
        Self: 'a;
    #[inline(always)]
    fn shifted_arg(&self, lat: Lattice, gathers: Gathers) -> C::Arg<'_> {
        (**self).shifted_arg(lat, gathers)
    }
}

/// Wraps a shifted capture (the macro calls this with the call's lattice and the nearest
/// neighbours the body reads).
#[inline(always)]
pub fn read_shifted<'a, C: ShiftCapture + ?Sized>(
    c: &'a C,
    lat: &Lattice,
    gathers: Gathers,
) -> C::Arg<'a> {
    c.shifted_arg(*lat, gathers)
}

/// The CPU backend's view of a shifted field: the whole host copy, and the neighbours its
/// groups gather.
#[derive(Clone, Copy)]
pub struct ShiftedHost<T: Element, L: Layout> {
    view: ShiftView<T, L>,
    gathers: Gathers,
}

impl<T: Element, L: Layout> HostFacet for FieldShifted<'_, T, L> {
    type Site = ShiftView<T, L>;
    type HostView = ShiftedHost<T, L>;
    const BLOCK: usize = 1;

    fn host_view(&mut self, sites: &Range<usize>) -> Result<ShiftedHost<T, L>> {
        let mut len = 0;
        self.read.for_each_len(&mut |l| len = l.unwrap_or(0));
        self.table = neighbours::table(&self.lattice);
        let view = ShiftView {
            ptr: self.read.host_view(sites)?,
            len,
            lattice: &self.lattice,
            hops: self.table.as_ref().map_or(Hops::NONE, |t| t.hops()),
            _layout: PhantomData,
        };
        Ok(ShiftedHost {
            view,
            gathers: self.gathers,
        })
    }

    #[inline(always)]
    unsafe fn load(view: &ShiftedHost<T, L>, _s: usize) -> ShiftView<T, L> {
        view.view
    }

    #[inline(always)]
    unsafe fn store(_: &ShiftedHost<T, L>, _: usize, _: ShiftView<T, L>) {}

    type Lanes = GatheredLanes<T, L>;
    // A shifted field alone does not make groups pay: its gathers do where some other
    // field's layout does (a call's fields are in one layout as a rule).
    const GROUPS_PAY: bool = false;
    const STENCIL: bool = true;

    #[inline(always)]
    unsafe fn load_lanes(view: &ShiftedHost<T, L>, s0: usize) -> GatheredLanes<T, L> {
        GatheredLanes::gather(view.view, view.gathers, s0)
    }

    type LaneAccess = LaneSlots<T, L>;
    type LaneSite = LaneShiftView<T, L>;

    #[inline(always)]
    fn lane_to_site(lane: LaneShiftView<T, L>) -> ShiftView<T, L> {
        lane.view()
    }

    #[inline(always)]
    fn site_to_lane(_: ShiftView<T, L>, lane: LaneShiftView<T, L>) -> LaneShiftView<T, L> {
        lane
    }

    #[inline(always)]
    fn lanes_ready(lanes: &GatheredLanes<T, L>) -> bool {
        lanes.ready()
    }

    #[inline(always)]
    fn lane_access(lanes: &mut GatheredLanes<T, L>) -> LaneSlots<T, L> {
        lanes.access()
    }

    #[inline(always)]
    unsafe fn lane(access: &LaneSlots<T, L>, _: &(), _l: usize) -> LaneShiftView<T, L> {
        access.view()
    }

    type LaneOut = ();

    #[inline(always)]
    unsafe fn lane_out(_: &ShiftedHost<T, L>, _: usize) {}

    #[inline(always)]
    unsafe fn set_lane(_: &mut (), _: usize, _: LaneShiftView<T, L>) {}

    #[inline(always)]
    unsafe fn store_lanes(_: &ShiftedHost<T, L>, _: usize, _: &()) {}
}

impl<T: Element, L: Layout> CaptureArg for FieldShifted<'_, T, L> {
    type Key = FieldShiftedKey<T, L>;

    fn push_kinds(out: &mut Vec<CaptureKind>) {
        FieldRead::<T, L>::push_kinds(out)
    }

    #[inline(always)]
    fn for_each_len(&self, f: &mut impl FnMut(Option<usize>)) {
        self.read.for_each_len(f)
    }
}

impl<'a, T: Element, L: Layout> DeviceVia for FieldShifted<'a, T, L> {
    type Via = FieldRead<'a, T, L>;
    #[inline(always)]
    fn via(&self) -> &FieldRead<'a, T, L> {
        &self.read
    }
    #[inline(always)]
    fn via_mut(&mut self) -> &mut FieldRead<'a, T, L> {
        &mut self.read
    }
}

impl<T: Element, L: Layout> PartFacet for FieldShifted<'_, T, L> {}
