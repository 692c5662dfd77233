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

    #[inline(always)]
    fn scalars(&self) -> *const T::Scalar {
        self.0.as_ptr().cast()
    }

    #[inline(always)]
    fn scalars_mut(&mut self) -> *mut T::Scalar {
        self.0.as_mut_ptr().cast()
    }

    /// The element of lane `l`.
    ///
    /// # Safety
    /// Lane `l < LANES` was filled (by [`gather`] or [`Lanes::set`]).
    #[inline(always)]
    pub(crate) unsafe fn get(&self, l: usize) -> T {
        let mut v = T::zeroed();
        let p = self.scalars();
        for (c, slot) in components_mut(&mut v).iter_mut().enumerate() {
            *slot = *p.add(c * LANES + l);
        }
        v
    }

    /// Sets lane `l < LANES` (panics otherwise: a bounds check the compiler removes).
    #[inline(always)]
    pub(crate) fn set(&mut self, l: usize, v: T) {
        assert!(l < LANES);
        let p = self.scalars_mut();
        for (c, &x) in components(&v).iter().enumerate() {
            // SAFETY: c < COMPONENTS and l < LANES: inside the buffer.
            unsafe { *p.add(c * LANES + l) = x };
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
