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

/// The elements of a group of [`LANES`] sites of a field the call writes (`LOAD`: it also
/// reads their old values). A field written whole (`!LOAD`) whose layout stores a group as a
/// lane buffer ([`groups_in_place`]) is written where it lies: no lane reads it, so a body
/// that panics in the group and is run again to find the site meets the same inputs. Other
/// fields go through a copy, scattered after the group.
pub struct WriteLanes<T: Element, L: Layout, const LOAD: bool> {
    copy: Lanes<T>,
    /// The group's first scalar in the storage (in place), or null (the copy).
    at: *mut T::Scalar,
    _layout: std::marker::PhantomData<L>,
}

impl<T: Element, L: Layout, const LOAD: bool> WriteLanes<T, L, LOAD> {
    /// Written in place.
    #[inline(always)]
    fn in_place() -> bool {
        !LOAD && groups_in_place::<T, L>()
    }

    /// Sites `s0 .. s0 + LANES` of `storage`.
    ///
    /// # Safety
    /// As for [`gather`], `s0` a multiple of `LANES`, and no other thread accesses these
    /// sites meanwhile.
    #[inline(always)]
    pub(crate) unsafe fn new(storage: *mut T::Scalar, s0: usize, stride: usize) -> Self {
        let (copy, at) = if Self::in_place() {
            let at = storage.add(L::index(s0, 0, T::COMPONENTS, stride));
            (Lanes::uninit(), at)
        } else if LOAD {
            (gather::<T, L>(storage, s0, stride), std::ptr::null_mut())
        } else {
            // Never read: the body assigns the element whole first.
            (Lanes::uninit(), std::ptr::null_mut())
        };
        WriteLanes {
            copy,
            at,
            _layout: std::marker::PhantomData,
        }
    }

    /// Where the group's lanes are read and written ([`WriteAccess`]): the block in the
    /// storage, or the copy.
    #[inline(always)]
    pub(crate) fn access(&mut self) -> WriteAccess<T, LOAD> {
        let write = if Self::in_place() {
            self.at
        } else {
            self.copy.scalars_mut()
        };
        WriteAccess { write }
    }

    /// Writes the copy back to sites `s0 .. s0 + LANES` (nothing when written in place).
    ///
    /// # Safety
    /// As for [`scatter`].
    #[inline(always)]
    pub(crate) unsafe fn store(&self, storage: *mut T::Scalar, s0: usize, stride: usize) {
        if !Self::in_place() {
            scatter::<T, L>(storage, s0, stride, &self.copy);
        }
    }
}

/// Where the lanes of a written field's group are read (`LOAD`: its old values) and
/// written: a pointer taken once a group, so that the lane loop holds it in a register.
pub struct WriteAccess<T: Element, const LOAD: bool> {
    write: *mut T::Scalar,
}

impl<T: Element, const LOAD: bool> Clone for WriteAccess<T, LOAD> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Element, const LOAD: bool> Copy for WriteAccess<T, LOAD> {}

impl<T: Element, const LOAD: bool> WriteAccess<T, LOAD> {
    /// The old element of lane `l` (`LOAD`), or zeros (never read: the body assigns the
    /// element whole first).
    ///
    /// # Safety
    /// `l < LANES`; the access comes from a live [`WriteLanes`].
    #[inline(always)]
    pub(crate) unsafe fn get(&self, l: usize) -> T {
        if LOAD {
            lane_at(self.write, l)
        } else {
            T::zeroed()
        }
    }

    /// Sets lane `l`.
    ///
    /// # Safety
    /// As for [`get`](WriteAccess::get).
    #[inline(always)]
    pub(crate) unsafe fn set(&self, l: usize, v: T) {
        set_lane_at(self.write, l, v)
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
    fn a_group_written_in_place_or_through_its_copy_lands_on_its_sites() {
        type T = ColorVector<f64>;
        fn write<L: Layout, const LOAD: bool>() {
            let sites = 64;
            let stride = L::padded_len(sites);
            let mut storage = vec![-1.0f64; stride * T::COMPONENTS];
            let value =
                |s: usize| T::new(std::array::from_fn(|c| Complex::new(s as f64, c as f64)));
            // SAFETY: 64 sites of storage, groups from multiples of 32, one thread.
            unsafe {
                let mut lanes = WriteLanes::<T, L, LOAD>::new(storage.as_mut_ptr(), 32, stride);
                let access = lanes.access();
                for l in 0..LANES {
                    access.set(l, value(32 + l));
                }
                lanes.store(storage.as_mut_ptr(), 32, stride);
            }
            for s in 0..sites {
                let got: T = get::<T, L>(&storage, s, stride);
                let want = if s < 32 {
                    T::new([Complex::new(-1.0, -1.0); 3])
                } else {
                    value(s)
                };
                assert_eq!(got, want, "site {s}");
            }
        }
        write::<AoSoA<32>, false>(); // in place
        write::<AoSoA<32>, true>();
        write::<SoA, false>();
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
