//! How a kernel's Rust body (run by the CPU backend) reaches its arrays: the macro rewrites
//! `a[i]` into `a.load(i)`, `c[i] = v` into `c.store(i, v)` and `&mut c[i]` in atomics into
//! `c.at(i)`, on these views.
//!
//! Every thread of every block holds a copy of each view, and blocks run in parallel, so a
//! writable array is shared by threads on several OS threads: [`ArrayView`] reads and writes
//! each scalar component with a relaxed atomic access (a plain move on x86 and ARM), which
//! makes any interleaving of threads well defined (a racy kernel gets some interleaving's
//! result, never undefined behaviour). Read-only arrays ([`ReadView`]) are borrowed shared
//! for the whole launch, so nobody writes them and plain reads are sound. Indices of any
//! integer type are checked and an out-of-range one panics like Rust's slice indexing,
//! naming the kernel and the array.

mod slice_arg;
mod vector;

pub use slice_arg::{ArrayArg, ReadSlice};
pub use vector::{vector_row_dim, Vector4};

use super::call_site::KernelInfo;
use crate::element::{components, components_mut, Element};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// An integer that can index a kernel's arrays (CUDA code indexes with any integer type).
#[diagnostic::on_unimplemented(
    message = "arrays in a kernel are indexed by integers, not by `{Self}`",
    label = "this index",
    note = "use an integer index (usize, u32, i32, u64, ...); a negative one is out of range"
)]
pub trait KernelIndex: Copy {
    /// The index as `usize`, or its value when it cannot be one (negative or too large).
    fn to_index(self) -> Result<usize, i128>;
}

macro_rules! kernel_index {
    ($($t:ty),*) => {$(
        impl KernelIndex for $t {
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn to_index(self) -> Result<usize, i128> {
                usize::try_from(self).map_err(|_| self as i128)
            }
        }
    )*};
}
kernel_index!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

#[cold]
#[inline(never)]
#[track_caller]
fn out_of_range(info: &KernelInfo, id: u32, dim: usize, rank: usize, index: i128, len: usize) -> ! {
    let which = if rank > 1 {
        format!(" in dimension {} of {rank}", dim + 1)
    } else {
        String::new()
    };
    panic!(
        "index out of bounds: the len is {len} but the index is {index}{which} ({} of kernel `{}`)",
        info.array_name(id as usize),
        info.name
    )
}

/// `i` checked against `len`.
#[inline(always)]
#[track_caller]
fn checked<I: KernelIndex>(
    i: I,
    len: usize,
    info: &KernelInfo,
    id: u32,
    dim: usize,
    rank: usize,
) -> usize {
    match i.to_index() {
        Ok(k) if k < len => k,
        Ok(k) => out_of_range(info, id, dim, rank, k as i128, len),
        Err(v) => out_of_range(info, id, dim, rank, v, len),
    }
}

/// A `&[T]` parameter, as the CPU backend's threads see it.
#[derive(Debug)]
pub struct ReadView<T> {
    ptr: *const T,
    len: usize,
    info: &'static KernelInfo,
    id: u32,
}

impl<T> Clone for ReadView<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for ReadView<T> {}

// SAFETY: the view reads an array that the launch borrows shared (`&Field`) for its whole
// duration, so nothing writes it while any thread reads.
unsafe impl<T: Sync> Send for ReadView<T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Sync for ReadView<T> {}

impl<T: Element> ReadView<T> {
    /// # Safety
    /// `ptr` must be valid for reads of `len` elements, unwritten while the view is used.
    pub(crate) unsafe fn new(
        ptr: *const T,
        len: usize,
        info: &'static KernelInfo,
        id: u32,
    ) -> Self {
        ReadView { ptr, len, info, id }
    }

    /// Element `i` (panics if out of range).
    #[inline(always)]
    #[track_caller]
    pub fn load<I: KernelIndex>(self, i: I) -> T {
        let k = checked(i, self.len, self.info, self.id, 0, 1);
        // SAFETY: `k < len` and the storage is valid and unwritten (see `new`).
        unsafe { self.ptr.add(k).read() }
    }

    /// Number of elements.
    #[inline(always)]
    pub fn len(self) -> usize {
        self.len
    }

    /// True for an empty array.
    #[inline(always)]
    pub fn is_empty(self) -> bool {
        self.len == 0
    }
}

/// A `&mut [T]` parameter (`R` = 1) or a `shared!` array (`R` = 1 or 2), as the CPU
/// backend's threads see it: every scalar is read and written with a relaxed atomic access.
#[derive(Debug)]
pub struct ArrayView<T, const R: usize> {
    ptr: *mut T,
    dims: [usize; R],
    info: &'static KernelInfo,
    id: u32,
}

impl<T, const R: usize> Clone for ArrayView<T, R> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, const R: usize> Copy for ArrayView<T, R> {}

// SAFETY: all accesses through the view are atomic (see the module documentation), to
// storage that outlives every thread that holds the view (the launch borrows it `&mut`).
unsafe impl<T: Send, const R: usize> Send for ArrayView<T, R> {}
// SAFETY: as above.
unsafe impl<T: Send, const R: usize> Sync for ArrayView<T, R> {}

/// One scalar, read atomically.
///
/// # Safety
/// `p` must be valid and aligned, and every concurrent access to it atomic.
#[inline(always)]
unsafe fn load_scalar<S: bytemuck::Pod>(p: *const S) -> S {
    if std::mem::size_of::<S>() == 4 {
        let bits = AtomicU32::from_ptr(p as *mut u32).load(Ordering::Relaxed);
        std::mem::transmute_copy(&bits)
    } else {
        debug_assert_eq!(std::mem::size_of::<S>(), 8);
        let bits = AtomicU64::from_ptr(p as *mut u64).load(Ordering::Relaxed);
        std::mem::transmute_copy(&bits)
    }
}

/// One scalar, written atomically.
///
/// # Safety
/// As [`load_scalar`].
#[inline(always)]
unsafe fn store_scalar<S: bytemuck::Pod>(p: *mut S, v: S) {
    if std::mem::size_of::<S>() == 4 {
        AtomicU32::from_ptr(p as *mut u32).store(std::mem::transmute_copy(&v), Ordering::Relaxed)
    } else {
        AtomicU64::from_ptr(p as *mut u64).store(std::mem::transmute_copy(&v), Ordering::Relaxed)
    }
}

impl<T: Element, const R: usize> ArrayView<T, R> {
    /// # Safety
    /// `ptr` must be valid for reads and writes of `dims`' product of elements, for as long
    /// as the view is used, and accessed only atomically meanwhile.
    pub(crate) unsafe fn new(
        ptr: *mut T,
        dims: [usize; R],
        info: &'static KernelInfo,
        id: u32,
    ) -> Self {
        ArrayView {
            ptr,
            dims,
            info,
            id,
        }
    }

    #[inline(always)]
    fn read(self, k: usize) -> T {
        let mut v = T::zeroed();
        // SAFETY: `k` is in range (checked by the caller) and accesses are atomic (`new`).
        unsafe {
            let p = self.ptr.add(k) as *const T::Scalar;
            for (c, slot) in components_mut(&mut v).iter_mut().enumerate() {
                *slot = load_scalar(p.add(c));
            }
        }
        v
    }

    #[inline(always)]
    fn write(self, k: usize, v: T) {
        // SAFETY: as in `read`.
        unsafe {
            let p = self.ptr.add(k) as *mut T::Scalar;
            for (c, &s) in components(&v).iter().enumerate() {
                store_scalar(p.add(c), s);
            }
        }
    }

    /// Number of elements (rows, for a 2-D array), like a Rust array's `len()`.
    #[inline(always)]
    pub fn len(self) -> usize {
        self.dims[0]
    }

    /// True for an empty array.
    #[inline(always)]
    pub fn is_empty(self) -> bool {
        self.dims[0] == 0
    }
}

impl<T: Element> ArrayView<T, 1> {
    #[inline(always)]
    #[track_caller]
    fn offset<I: KernelIndex>(self, i: I) -> usize {
        checked(i, self.dims[0], self.info, self.id, 0, 1)
    }

    /// Element `i` (panics if out of range).
    #[inline(always)]
    #[track_caller]
    pub fn load<I: KernelIndex>(self, i: I) -> T {
        self.read(self.offset(i))
    }

    /// Sets element `i` (panics if out of range).
    #[inline(always)]
    #[track_caller]
    pub fn store<I: KernelIndex>(self, i: I, v: T) {
        self.write(self.offset(i), v)
    }

    /// Element `i` as the target of an atomic (panics if out of range).
    #[inline(always)]
    #[track_caller]
    pub fn at<I: KernelIndex>(self, i: I) -> AtomicPlace<T> {
        // SAFETY: in range, and the storage is accessed only atomically (`new`).
        AtomicPlace::new(unsafe { self.ptr.add(self.offset(i)) })
    }
}

impl<T: Element> ArrayView<T, 2> {
    #[inline(always)]
    #[track_caller]
    fn offset<I: KernelIndex, J: KernelIndex>(self, i: I, j: J) -> usize {
        let r = checked(i, self.dims[0], self.info, self.id, 0, 2);
        let c = checked(j, self.dims[1], self.info, self.id, 1, 2);
        r * self.dims[1] + c
    }

    /// Element `[i][j]` (panics if out of range).
    #[inline(always)]
    #[track_caller]
    pub fn load<I: KernelIndex, J: KernelIndex>(self, i: I, j: J) -> T {
        self.read(self.offset(i, j))
    }

    /// Sets element `[i][j]` (panics if out of range).
    #[inline(always)]
    #[track_caller]
    pub fn store<I: KernelIndex, J: KernelIndex>(self, i: I, j: J, v: T) {
        self.write(self.offset(i, j), v)
    }

    /// Element `[i][j]` as the target of an atomic (panics if out of range).
    #[inline(always)]
    #[track_caller]
    pub fn at<I: KernelIndex, J: KernelIndex>(self, i: I, j: J) -> AtomicPlace<T> {
        // SAFETY: in range, and the storage is accessed only atomically (`new`).
        AtomicPlace::new(unsafe { self.ptr.add(self.offset(i, j)) })
    }
}

/// An element of a writable array, as the first argument of an atomic operation.
#[derive(Debug)]
pub struct AtomicPlace<T> {
    pub(crate) ptr: *mut T,
}

impl<T> Clone for AtomicPlace<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for AtomicPlace<T> {}

impl<T> AtomicPlace<T> {
    fn new(ptr: *mut T) -> Self {
        AtomicPlace { ptr }
    }
}

/// A `shared!` array of a kernel: element type `T`, rank `R`, declaration `index` in
/// [`KernelInfo::shared`].
#[derive(Debug)]
pub struct SharedSpec<T, const R: usize> {
    index: usize,
    _t: PhantomData<fn() -> T>,
}

impl<T, const R: usize> Clone for SharedSpec<T, R> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, const R: usize> Copy for SharedSpec<T, R> {}

impl<T: Element, const R: usize> SharedSpec<T, R> {
    /// The `index`-th `shared!` declaration of the kernel.
    pub const fn new(index: usize) -> Self {
        SharedSpec {
            index,
            _t: PhantomData,
        }
    }
}

/// The `shared!` arrays of a kernel, as a tuple of [`SharedSpec`]: each block of the CPU
/// backend allocates them (zeroed) and hands views of them to its threads.
pub trait SharedSpecs: Copy + Sync {
    /// The storage of one block.
    type Bufs;
    /// The views of that storage.
    type Views: Copy;
    /// Allocates one block's storage.
    fn alloc(&self, info: &'static KernelInfo) -> Self::Bufs;
    /// Views of `bufs` (valid while `bufs` is neither dropped nor moved out of).
    fn views(&self, bufs: &mut Self::Bufs, info: &'static KernelInfo) -> Self::Views;
}

impl<T: Element, const R: usize> SharedSpec<T, R> {
    fn alloc(&self, info: &'static KernelInfo) -> Box<[T]> {
        bytemuck::zeroed_slice_box(info.shared[self.index].len())
    }

    fn view(&self, buf: &mut [T], info: &'static KernelInfo) -> ArrayView<T, R> {
        let dims: [usize; R] = info.shared[self.index]
            .dims
            .try_into()
            .expect("the macro gives each shared! array the rank of its declaration");
        debug_assert_eq!(buf.len(), dims.iter().product::<usize>());
        let id = (info.params.len() + self.index) as u32;
        // SAFETY: `buf` holds every element; the block's threads access it only through
        // views, and the block drops them before the storage.
        unsafe { ArrayView::new(buf.as_mut_ptr(), dims, info, id) }
    }
}

macro_rules! shared_specs {
    ($($t:ident $r:ident $i:tt),*) => {
        impl<$($t: Element, const $r: usize),*> SharedSpecs for ($(SharedSpec<$t, $r>,)*) {
            type Bufs = ($(Box<[$t]>,)*);
            type Views = ($(ArrayView<$t, $r>,)*);
            #[allow(unused_variables, clippy::unused_unit)]
            fn alloc(&self, info: &'static KernelInfo) -> Self::Bufs {
                ($(self.$i.alloc(info),)*)
            }
            #[allow(unused_variables, clippy::unused_unit)]
            fn views(&self, bufs: &mut Self::Bufs, info: &'static KernelInfo) -> Self::Views {
                ($(self.$i.view(&mut bufs.$i, info),)*)
            }
        }
    };
}

shared_specs!();
shared_specs!(A RA 0);
shared_specs!(A RA 0, B RB 1);
shared_specs!(A RA 0, B RB 1, C RC 2);
shared_specs!(A RA 0, B RB 1, C RC 2, D RD 3);
shared_specs!(A RA 0, B RB 1, C RC 2, D RD 3, E RE 4);
shared_specs!(A RA 0, B RB 1, C RC 2, D RD 3, E RE 4, F RF 5);
shared_specs!(A RA 0, B RB 1, C RC 2, D RD 3, E RE 4, F RF 5, G RG 6);
shared_specs!(A RA 0, B RB 1, C RC 2, D RD 3, E RE 4, F RF 5, G RG 6, H RH 7);
