//! Reading and writing one site's element in layout-ordered storage (the host twin of the
//! prelude's `ongpu::load`/`ongpu::store`), and a group of sites at once for the CPU backend.

use crate::element::{components, components_mut, Element};
use crate::layout::Layout;
use std::mem::MaybeUninit;

/// Gathers the element of site `s` from `storage` (`stride` = the field's padded length).
///
/// # Safety
/// `storage` must hold `stride * T::COMPONENTS` scalars and `s < stride`.
#[inline(always)]
pub(crate) unsafe fn load<T: Element, L: Layout>(
    storage: *const T::Scalar,
    s: usize,
    stride: usize,
) -> T {
    let mut v = T::zeroed();
    let comps = components_mut(&mut v);
    for (c, slot) in comps.iter_mut().enumerate() {
        *slot = *storage.add(L::index(s, c, T::COMPONENTS, stride));
    }
    v
}

/// Scatters `v` into site `s` of `storage`.
///
/// # Safety
/// As for [`load`], and no other thread may access site `s` at the same time.
#[inline(always)]
pub(crate) unsafe fn store<T: Element, L: Layout>(
    storage: *mut T::Scalar,
    s: usize,
    stride: usize,
    v: T,
) {
    for (c, &x) in components(&v).iter().enumerate() {
        *storage.add(L::index(s, c, T::COMPONENTS, stride)) = x;
    }
}

/// Safe gather from a storage slice.
#[inline]
pub(crate) fn get<T: Element, L: Layout>(storage: &[T::Scalar], s: usize, stride: usize) -> T {
    assert!(s < stride && storage.len() / T::COMPONENTS >= stride); // no overflow
                                                                    // SAFETY: bounds checked above.
    unsafe { load::<T, L>(storage.as_ptr(), s, stride) }
}

/// Safe scatter into a storage slice.
#[inline]
pub(crate) fn set<T: Element, L: Layout>(storage: &mut [T::Scalar], s: usize, stride: usize, v: T) {
    assert!(s < stride && storage.len() / T::COMPONENTS >= stride); // no overflow
                                                                    // SAFETY: bounds checked above; `&mut` excludes other access.
    unsafe { store::<T, L>(storage.as_mut_ptr(), s, stride, v) }
}

/// Sites the CPU backend runs as one group: their elements are gathered into a [`Lanes`]
/// buffer, the body runs lane by lane (a loop the compiler can vectorise, since one
/// component of consecutive lanes is contiguous and the buffer is private), and written
/// fields are scattered back. 32 is one `AoSoA<32>` block, and a multiple of every SIMD width.
pub(crate) const LANES: usize = 32;

/// The elements of [`LANES`] consecutive sites, component-major: component `c` of lane `l`
/// is scalar `c * LANES + l` (the layout of one `AoSoA<32>` block).
#[derive(Clone, Copy)]
pub struct Lanes<T: Element>(MaybeUninit<[T; LANES]>);

impl<T: Element> Lanes<T> {
    /// A buffer whose lanes are all unset.
    #[inline(always)]
    pub(crate) fn uninit() -> Self {
        Lanes(MaybeUninit::uninit())
    }

    /// The buffer's first scalar, for reading lanes ([`lane_at`]).
    #[inline(always)]
    pub(crate) fn scalars(&self) -> *const T::Scalar {
        self.0.as_ptr().cast()
    }

    /// The buffer's first scalar, for writing lanes ([`set_lane_at`]).
    #[inline(always)]
    pub(crate) fn scalars_mut(&mut self) -> *mut T::Scalar {
        self.0.as_mut_ptr().cast()
    }
}

/// The element of lane `l` of the group of [`LANES`] sites stored component-major from `at`
/// (component `c` at `at + c * LANES + l`).
///
/// # Safety
/// `at` holds `T::COMPONENTS * LANES` scalars, lane `l < LANES` of which are set.
#[inline(always)]
pub(crate) unsafe fn lane_at<T: Element>(at: *const T::Scalar, l: usize) -> T {
    let mut v = std::mem::MaybeUninit::<T>::uninit();
    let to = v.as_mut_ptr().cast::<T::Scalar>();
    for c in 0..T::COMPONENTS {
        *to.add(c) = *at.add(c * LANES + l);
    }
    // SAFETY: every component is set, and any bits are a valid `T` (`Pod`).
    v.assume_init()
}

/// Sets lane `l` of the group stored component-major from `at`.
///
/// # Safety
/// As for [`lane_at`], `at` writable, and no other thread accesses the group meanwhile.
#[inline(always)]
pub(crate) unsafe fn set_lane_at<T: Element>(at: *mut T::Scalar, l: usize, v: T) {
    for (c, &x) in components(&v).iter().enumerate() {
        *at.add(c * LANES + l) = x;
    }
}

/// True when the layout stores each group of [`LANES`] sites (from a multiple of `LANES`)
/// exactly as a [`Lanes`] buffer holds them: `AoSoA<32>`, and any layout for elements of one
/// component. A read-only field's group is then read where it lies, without a copy. (Checked
/// on the layout's own index, which the compiler folds to a constant.)
#[inline(always)]
pub(crate) fn groups_in_place<T: Element, L: Layout>() -> bool {
    let comps = T::COMPONENTS;
    let stride = 2 * LANES;
    [0, 1, LANES - 1].iter().all(|&l| {
        [0, comps - 1].iter().all(|&c| {
            (0..2).all(|b| {
                L::index(b * LANES + l, c, comps, stride) == b * LANES * comps + c * LANES + l
            })
        })
    })
}

/// The elements of a group of [`LANES`] sites of a field the call only reads: the storage's
/// own block where the layout keeps it as a buffer would ([`groups_in_place`]), a gathered
/// copy otherwise.
pub struct ReadLanes<T: Element, L: Layout> {
    copy: Lanes<T>,
    /// The group's first scalar in the storage (in place), or null (the copy).
    at: *const T::Scalar,
    _layout: std::marker::PhantomData<L>,
}

impl<T: Element, L: Layout> ReadLanes<T, L> {
    /// Sites `s0 .. s0 + LANES` of `storage`.
    ///
    /// # Safety
    /// As for [`gather`], `s0` a multiple of `LANES`, and the storage unwritten while the
    /// group is read.
    #[inline(always)]
    pub(crate) unsafe fn new(storage: *const T::Scalar, s0: usize, stride: usize) -> Self {
        if groups_in_place::<T, L>() {
            ReadLanes {
                copy: Lanes::uninit(),
                at: storage.add(L::index(s0, 0, T::COMPONENTS, stride)),
                _layout: std::marker::PhantomData,
            }
        } else {
            ReadLanes {
                copy: gather::<T, L>(storage, s0, stride),
                at: std::ptr::null(),
                _layout: std::marker::PhantomData,
            }
        }
    }

    /// Where the group's lanes are read ([`lane_at`]): the block in the storage, or the copy.
    #[inline(always)]
    pub(crate) fn access(&self) -> *const T::Scalar {
        if groups_in_place::<T, L>() {
            self.at
        } else {
            self.copy.scalars()
        }
    }
}

/// Where the lanes of a group of [`LANES`] sites of a field the call writes find their old
/// elements, for a body that reads them (`LOAD`): the storage's own block where the layout
/// keeps it as a lane buffer would ([`groups_in_place`]), else the group's written lanes,
/// which start as a gathered copy ([`old_values`](WriteLanes::old_values)). The new elements
/// go to the written lanes, stored after the group's last lane, so a body that panics in the
/// group and is run again to find the site meets the same inputs.
pub struct WriteLanes<T: Element, L: Layout, const LOAD: bool> {
    /// The group's first scalar in the storage (in place), or null.
    at: *const T::Scalar,
    _layout: std::marker::PhantomData<L>,
}

impl<T: Element, L: Layout, const LOAD: bool> WriteLanes<T, L, LOAD> {
    /// Old elements read where they lie.
    #[inline(always)]
    fn in_place() -> bool {
        LOAD && groups_in_place::<T, L>()
    }

    /// Sites `s0 .. s0 + LANES` of `storage`.
    ///
    /// # Safety
    /// As for [`gather`], `s0` a multiple of `LANES`, and no other thread accesses these
    /// sites meanwhile.
    #[inline(always)]
    pub(crate) unsafe fn new(storage: *const T::Scalar, s0: usize, stride: usize) -> Self {
        let at = if Self::in_place() {
            storage.add(L::index(s0, 0, T::COMPONENTS, stride))
        } else {
            std::ptr::null()
        };
        WriteLanes {
            at,
            _layout: std::marker::PhantomData,
        }
    }

    /// The written lanes of the group, before any is set: a copy of the old elements where
    /// the body reads them from there (`LOAD`, not in place), else unset.
    ///
    /// # Safety
    /// As for [`new`](WriteLanes::new).
    #[inline(always)]
    pub(crate) unsafe fn old_values(
        storage: *const T::Scalar,
        s0: usize,
        stride: usize,
    ) -> Lanes<T> {
        if LOAD && !Self::in_place() {
            gather::<T, L>(storage, s0, stride)
        } else {
            Lanes::uninit()
        }
    }

    /// Where the group's old elements are read ([`WriteAccess`]).
    #[inline(always)]
    pub(crate) fn access(&self) -> WriteAccess<T, L, LOAD> {
        WriteAccess {
            at: self.at,
            _layout: std::marker::PhantomData,
        }
    }
}

/// Where the old elements of a written field's group are read (`LOAD`): a pointer taken
/// once a group, so that the lane loop holds it in a register, or the written lanes.
pub struct WriteAccess<T: Element, L: Layout, const LOAD: bool> {
    at: *const T::Scalar,
    _layout: std::marker::PhantomData<L>,
}

impl<T: Element, L: Layout, const LOAD: bool> Clone for WriteAccess<T, L, LOAD> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Element, L: Layout, const LOAD: bool> Copy for WriteAccess<T, L, LOAD> {}

impl<T: Element, L: Layout, const LOAD: bool> WriteAccess<T, L, LOAD> {
    /// The old element of lane `l` (`LOAD`), from the storage or from `out` (not yet set
    /// there), or zeros (never read: the body assigns the element whole first).
    ///
    /// # Safety
    /// `l < LANES`; the access comes from a live [`WriteLanes`], `out` from its
    /// [`old_values`](WriteLanes::old_values).
    #[inline(always)]
    pub(crate) unsafe fn get(&self, out: &Lanes<T>, l: usize) -> T {
        if !LOAD {
            T::zeroed()
        } else if WriteLanes::<T, L, LOAD>::in_place() {
            lane_at(self.at, l)
        } else {
            lane_at(out.scalars(), l)
        }
    }
}

/// Gathers sites `s0 .. s0 + LANES` of `storage` into a buffer.
///
/// # Safety
/// `storage` holds `stride * T::COMPONENTS` scalars and `s0 + LANES <= stride`.
#[inline(always)]
pub(crate) unsafe fn gather<T: Element, L: Layout>(
    storage: *const T::Scalar,
    s0: usize,
    stride: usize,
) -> Lanes<T> {
    let mut lanes = Lanes::uninit();
    L::gather(
        storage,
        s0,
        T::COMPONENTS,
        stride,
        lanes.scalars_mut(),
        LANES,
    );
    lanes
}

/// Scatters a buffer back to sites `s0 .. s0 + LANES`.
///
/// # Safety
/// As for [`gather`]; every lane is set; no other thread accesses these sites meanwhile.
#[inline(always)]
pub(crate) unsafe fn scatter<T: Element, L: Layout>(
    storage: *mut T::Scalar,
    s0: usize,
    stride: usize,
    lanes: &Lanes<T>,
) {
    L::scatter(storage, s0, T::COMPONENTS, stride, lanes.scalars(), LANES);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{AoS, AoSoA, SoA};
    use crate::types::{ColorMatrix, ColorVector};
    use num_complex::Complex;

    #[test]
    fn groups_are_read_in_place_exactly_where_a_block_is_a_lane_buffer() {
        assert!(groups_in_place::<ColorMatrix<f32>, AoSoA<32>>());
        assert!(groups_in_place::<ColorVector<f64>, AoSoA<32>>());
        assert!(!groups_in_place::<ColorVector<f64>, AoSoA<16>>());
        assert!(!groups_in_place::<ColorVector<f64>, AoSoA<64>>());
        assert!(!groups_in_place::<ColorVector<f64>, SoA>());
        assert!(!groups_in_place::<ColorVector<f64>, AoS>());
        for one in [
            groups_in_place::<f32, AoS>(),
            groups_in_place::<f32, SoA>(),
            groups_in_place::<f64, AoSoA<8>>(),
        ] {
            assert!(one);
        }
    }

    #[test]
    fn a_group_reads_its_old_elements_and_its_written_lanes_land_on_its_sites() {
        type T = ColorVector<f64>;
        fn write<L: Layout, const LOAD: bool>() {
            let sites = 64;
            let stride = L::padded_len(sites);
            let old =
                |s: usize| T::new(std::array::from_fn(|c| Complex::new(-(s as f64), c as f64)));
            let value =
                |s: usize| T::new(std::array::from_fn(|c| Complex::new(s as f64, c as f64)));
            let mut storage = vec![0.0f64; stride * T::COMPONENTS];
            for s in 0..sites {
                set::<T, L>(&mut storage, s, stride, old(s));
            }
            // SAFETY: 64 sites of storage, groups from multiples of 32, one thread.
            unsafe {
                let lanes = WriteLanes::<T, L, LOAD>::new(storage.as_ptr(), 32, stride);
                let mut out = WriteLanes::<T, L, LOAD>::old_values(storage.as_ptr(), 32, stride);
                let access = lanes.access();
                for l in 0..LANES {
                    let want = if LOAD { old(32 + l) } else { T::zero() };
                    assert_eq!(access.get(&out, l), want, "lane {l}");
                    set_lane_at(out.scalars_mut(), l, value(32 + l));
                }
                scatter::<T, L>(storage.as_mut_ptr(), 32, stride, &out);
            }
            for s in 0..sites {
                let got: T = get::<T, L>(&storage, s, stride);
                let want = if s < 32 { old(s) } else { value(s) };
                assert_eq!(got, want, "site {s}");
            }
        }
        write::<AoSoA<32>, false>();
        write::<AoSoA<32>, true>(); // old elements read in place
        write::<SoA, false>();
        write::<SoA, true>();
        write::<AoS, true>(); // old elements read from the copy
        write::<AoS, false>();
    }

    #[test]
    fn a_group_read_in_place_gives_the_gathered_elements() {
        type T = ColorVector<f32>;
        let sites = 96;
        let stride = AoSoA::<32>::padded_len(sites);
        let storage: Vec<f32> = (0..stride * T::COMPONENTS).map(|i| i as f32).collect();
        for s0 in [0, 32, 64] {
            // SAFETY: 96 sites of storage, groups from multiples of 32.
            let (in_place, copied) = unsafe {
                (
                    ReadLanes::<T, AoSoA<32>>::new(storage.as_ptr(), s0, stride),
                    gather::<T, AoSoA<32>>(storage.as_ptr(), s0, stride),
                )
            };
            for l in 0..LANES {
                // SAFETY: l < LANES; every lane of the copy was gathered.
                let (a, b): (T, T) =
                    unsafe { (lane_at(in_place.access(), l), lane_at(copied.scalars(), l)) };
                let want: T = get::<T, AoSoA<32>>(&storage, s0 + l, stride);
                assert_eq!(a, want);
                assert_eq!(b, want);
            }
        }
    }
}
