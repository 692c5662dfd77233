//! Atomic operations of kernel bodies on the CPU backend: real atomics on the array's
//! storage (blocks run in parallel on several OS threads). Each returns the old value, like
//! CUDA's `atomicAdd` and friends, and is defined for the element types CUDA defines it for;
//! any other type is a compile error that says which types work.
//!
//! Read-modify-write operations are acquire-release on the CPU (CUDA's are relaxed): that
//! is stronger than the GPU guarantees, so a kernel that works on the GPU works here.
//! Visibility of ordinary writes between blocks on the GPU needs [`thread_fence`].

use super::views::AtomicPlace;
use crate::element::Element;
use std::sync::atomic::{AtomicI32, AtomicU32, AtomicU64, Ordering};

const RMW: Ordering = Ordering::AcqRel;

/// Types with `atomic_add` (CUDA's `atomicAdd`).
#[diagnostic::on_unimplemented(
    message = "atomic_add is not available for elements of type `{Self}`",
    label = "atomic_add on a `{Self}` element",
    note = "atomic_add works on arrays of i32, u32, f32 and f64 (CUDA's atomicAdd); integers wrap"
)]
pub trait AtomicAdd: Element {
    #[doc(hidden)]
    /// # Safety
    /// `p` valid, aligned, and accessed only atomically meanwhile.
    unsafe fn fetch_add(p: *mut Self, v: Self) -> Self;
}

/// Types with `atomic_sub` (CUDA's `atomicSub`).
#[diagnostic::on_unimplemented(
    message = "atomic_sub is not available for elements of type `{Self}`",
    label = "atomic_sub on a `{Self}` element",
    note = "atomic_sub works on arrays of i32 and u32 (CUDA's atomicSub); for floats add the negated value with atomic_add"
)]
pub trait AtomicSub: Element {
    #[doc(hidden)]
    /// # Safety
    /// As [`AtomicAdd::fetch_add`].
    unsafe fn fetch_sub(p: *mut Self, v: Self) -> Self;
}

/// Types with `atomic_min` and `atomic_max` (CUDA's `atomicMin`/`atomicMax`).
#[diagnostic::on_unimplemented(
    message = "atomic_min and atomic_max are not available for elements of type `{Self}`",
    label = "atomic_min/atomic_max on a `{Self}` element",
    note = "atomic_min and atomic_max work on arrays of i32 and u32 (CUDA's atomicMin/atomicMax)"
)]
pub trait AtomicMinMax: Element {
    #[doc(hidden)]
    /// # Safety
    /// As [`AtomicAdd::fetch_add`].
    unsafe fn fetch_min(p: *mut Self, v: Self) -> Self;
    #[doc(hidden)]
    /// # Safety
    /// As [`AtomicAdd::fetch_add`].
    unsafe fn fetch_max(p: *mut Self, v: Self) -> Self;
}

/// Types with `atomic_exch` (CUDA's `atomicExch`).
#[diagnostic::on_unimplemented(
    message = "atomic_exch is not available for elements of type `{Self}`",
    label = "atomic_exch on a `{Self}` element",
    note = "atomic_exch works on arrays of i32, u32 and f32 (CUDA's atomicExch)"
)]
pub trait AtomicExch: Element {
    #[doc(hidden)]
    /// # Safety
    /// As [`AtomicAdd::fetch_add`].
    unsafe fn swap(p: *mut Self, v: Self) -> Self;
}

/// Types with `atomic_cas` (CUDA's `atomicCAS`).
#[diagnostic::on_unimplemented(
    message = "atomic_cas is not available for elements of type `{Self}`",
    label = "atomic_cas on a `{Self}` element",
    note = "atomic_cas works on arrays of i32 and u32 (CUDA's atomicCAS)"
)]
pub trait AtomicCas: Element {
    #[doc(hidden)]
    /// # Safety
    /// As [`AtomicAdd::fetch_add`].
    unsafe fn compare_and_swap(p: *mut Self, compare: Self, v: Self) -> Self;
}

macro_rules! int_atomics {
    ($($t:ty => $atomic:ty),*) => {$(
        impl AtomicAdd for $t {
            #[inline(always)]
            unsafe fn fetch_add(p: *mut Self, v: Self) -> Self {
                <$atomic>::from_ptr(p).fetch_add(v, RMW)
            }
        }
        impl AtomicSub for $t {
            #[inline(always)]
            unsafe fn fetch_sub(p: *mut Self, v: Self) -> Self {
                <$atomic>::from_ptr(p).fetch_sub(v, RMW)
            }
        }
        impl AtomicMinMax for $t {
            #[inline(always)]
            unsafe fn fetch_min(p: *mut Self, v: Self) -> Self {
                <$atomic>::from_ptr(p).fetch_min(v, RMW)
            }
            #[inline(always)]
            unsafe fn fetch_max(p: *mut Self, v: Self) -> Self {
                <$atomic>::from_ptr(p).fetch_max(v, RMW)
            }
        }
        impl AtomicExch for $t {
            #[inline(always)]
            unsafe fn swap(p: *mut Self, v: Self) -> Self {
                <$atomic>::from_ptr(p).swap(v, RMW)
            }
        }
        impl AtomicCas for $t {
            #[inline(always)]
            unsafe fn compare_and_swap(p: *mut Self, compare: Self, v: Self) -> Self {
                match <$atomic>::from_ptr(p).compare_exchange(compare, v, RMW, Ordering::Acquire) {
                    Ok(old) | Err(old) => old,
                }
            }
        }
    )*};
}
int_atomics!(i32 => AtomicI32, u32 => AtomicU32);

/// `*p = f(*p)` for a float stored as bits, with a compare-and-swap loop (CUDA's float
/// atomicAdd is one instruction; the CPU has none).
macro_rules! float_add {
    ($($t:ty => $atomic:ty),*) => {$(
        impl AtomicAdd for $t {
            #[inline(always)]
            unsafe fn fetch_add(p: *mut Self, v: Self) -> Self {
                let a = <$atomic>::from_ptr(p.cast());
                let mut old = a.load(Ordering::Relaxed);
                loop {
                    let new = (<$t>::from_bits(old) + v).to_bits();
                    match a.compare_exchange_weak(old, new, RMW, Ordering::Relaxed) {
                        Ok(_) => return <$t>::from_bits(old),
                        Err(seen) => old = seen,
                    }
                }
            }
        }
    )*};
}
float_add!(f32 => AtomicU32, f64 => AtomicU64);

impl AtomicExch for f32 {
    #[inline(always)]
    unsafe fn swap(p: *mut Self, v: Self) -> Self {
        f32::from_bits(AtomicU32::from_ptr(p.cast()).swap(v.to_bits(), RMW))
    }
}

/// `atomic_add(&mut a[i], v)`: adds `v` to the element and returns its old value.
#[inline(always)]
pub fn atomic_add<T: AtomicAdd>(place: AtomicPlace<T>, v: T) -> T {
    // SAFETY: places come from bounds-checked views whose storage is accessed atomically.
    unsafe { T::fetch_add(place.ptr, v) }
}

/// `atomic_sub(&mut a[i], v)`: subtracts `v` and returns the old value.
#[inline(always)]
pub fn atomic_sub<T: AtomicSub>(place: AtomicPlace<T>, v: T) -> T {
    // SAFETY: as in `atomic_add`.
    unsafe { T::fetch_sub(place.ptr, v) }
}

/// `atomic_min(&mut a[i], v)`: stores the smaller of the element and `v`, returns the old value.
#[inline(always)]
pub fn atomic_min<T: AtomicMinMax>(place: AtomicPlace<T>, v: T) -> T {
    // SAFETY: as in `atomic_add`.
    unsafe { T::fetch_min(place.ptr, v) }
}

/// `atomic_max(&mut a[i], v)`: stores the larger of the element and `v`, returns the old value.
#[inline(always)]
pub fn atomic_max<T: AtomicMinMax>(place: AtomicPlace<T>, v: T) -> T {
    // SAFETY: as in `atomic_add`.
    unsafe { T::fetch_max(place.ptr, v) }
}

/// `atomic_exch(&mut a[i], v)`: stores `v` and returns the old value.
#[inline(always)]
pub fn atomic_exch<T: AtomicExch>(place: AtomicPlace<T>, v: T) -> T {
    // SAFETY: as in `atomic_add`.
    unsafe { T::swap(place.ptr, v) }
}

/// `atomic_cas(&mut a[i], compare, v)`: stores `v` if the element equals `compare`; returns
/// the old value either way.
#[inline(always)]
pub fn atomic_cas<T: AtomicCas>(place: AtomicPlace<T>, compare: T, v: T) -> T {
    // SAFETY: as in `atomic_add`.
    unsafe { T::compare_and_swap(place.ptr, compare, v) }
}

/// `thread_fence()`: orders this thread's memory accesses before and after it for every
/// other thread (CUDA's `__threadfence()`; a sequentially consistent fence on the CPU).
#[inline(always)]
pub fn thread_fence() {
    std::sync::atomic::fence(Ordering::SeqCst);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place<T>(x: &mut T) -> AtomicPlace<T> {
        AtomicPlace { ptr: x }
    }

    #[test]
    fn each_operation_returns_the_old_value() {
        let mut i = 5i32;
        assert_eq!(atomic_add(place(&mut i), 3), 5);
        assert_eq!(atomic_sub(place(&mut i), 10), 8);
        assert_eq!(i, -2);
        assert_eq!(atomic_min(place(&mut i), -7), -2);
        assert_eq!(atomic_max(place(&mut i), 4), -7);
        assert_eq!(atomic_exch(place(&mut i), 9), 4);
        assert_eq!(atomic_cas(place(&mut i), 1, 2), 9);
        assert_eq!(atomic_cas(place(&mut i), 9, 2), 9);
        assert_eq!(i, 2);
        let mut u = 0u32;
        assert_eq!(atomic_sub(place(&mut u), 1), 0);
        assert_eq!(u, u32::MAX, "unsigned subtraction wraps, as in CUDA");
        let mut f = 1.5f32;
        assert_eq!(atomic_add(place(&mut f), 0.25), 1.5);
        assert_eq!(atomic_exch(place(&mut f), -1.0), 1.75);
        let mut d = 1.0f64;
        assert_eq!(atomic_add(place(&mut d), 1e-3), 1.0);
        assert_eq!(d, 1.001);
    }

    #[test]
    fn float_add_is_atomic_across_threads() {
        let mut total = 0.0f64;
        let p = place(&mut total);
        struct Shared<T>(AtomicPlace<T>);
        // SAFETY: the test only uses the place atomically, while `total` is alive.
        unsafe impl<T> Sync for Shared<T> {}
        let shared = &Shared(p);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(move || {
                    let place = shared.0;
                    for _ in 0..10_000 {
                        atomic_add(place, 1.0);
                    }
                });
            }
        });
        assert_eq!(total, 40_000.0);
    }
}
