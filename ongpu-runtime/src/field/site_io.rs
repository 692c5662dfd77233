//! Reading and writing one site's element in layout-ordered storage: the host twin of the
//! prelude's `ongpu::load`/`ongpu::store`.

use crate::element::{components, components_mut, Element};
use crate::layout::Layout;

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
    assert!(s < stride && storage.len() >= stride * T::COMPONENTS);
    // SAFETY: bounds checked above.
    unsafe { load::<T, L>(storage.as_ptr(), s, stride) }
}

/// Safe scatter into a storage slice.
#[inline]
pub(crate) fn set<T: Element, L: Layout>(storage: &mut [T::Scalar], s: usize, stride: usize, v: T) {
    assert!(s < stride && storage.len() >= stride * T::COMPONENTS);
    // SAFETY: bounds checked above; `&mut` excludes other access.
    unsafe { store::<T, L>(storage.as_mut_ptr(), s, stride, v) }
}
