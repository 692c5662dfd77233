//! `a.load4(q)` and `c.store4(q, v)` on the CPU backend: elements 4q..4q+3 of an array, as
//! the GPU moves them in one 16-byte access. Vector indices keep every access aligned on
//! the GPU; here they are checked like element indices, and an out-of-range vector panics
//! with the index of its last element, as the GPU's bounds checks report it.

use super::{out_of_range, ArrayView, KernelIndex, ReadView};
use crate::element::Element;
use crate::kernel::call_site::KernelInfo;

/// An element type that `load4`/`store4` move: CUDA has vector accesses of four of them.
#[diagnostic::on_unimplemented(
    message = "`load4`/`store4` move f32, f64, i32 or u32 elements, not `{Self}`",
    label = "an array of `{Self}`",
    note = "index other arrays element by element"
)]
pub trait Vector4: Element {}

impl Vector4 for f32 {}
impl Vector4 for f64 {}
impl Vector4 for i32 {}
impl Vector4 for u32 {}

/// The first element of vector `q` of an array (or a dimension) of `len` elements.
#[inline(always)]
#[track_caller]
fn first<Q: KernelIndex>(
    q: Q,
    len: usize,
    info: &KernelInfo,
    id: u32,
    dim: usize,
    rank: usize,
) -> usize {
    match q.to_index() {
        Ok(k) if k < len / 4 => 4 * k,
        Ok(k) => out_of_range(info, id, dim, rank, 4 * k as i128 + 3, len),
        Err(v) => out_of_range(info, id, dim, rank, 4 * v + 3, len),
    }
}

impl<T: Vector4> ReadView<T> {
    /// Elements 4q..4q+3 (panics if they are not all in range).
    #[inline(always)]
    #[track_caller]
    pub fn load4<Q: KernelIndex>(self, q: Q) -> [T; 4] {
        let k = first(q, self.len, self.info, self.id, 0, 1);
        [0, 1, 2, 3].map(|e| self.load(k + e))
    }
}

impl<T: Vector4> ArrayView<T, 1> {
    /// Elements 4q..4q+3 (panics if they are not all in range).
    #[inline(always)]
    #[track_caller]
    pub fn load4<Q: KernelIndex>(self, q: Q) -> [T; 4] {
        let k = first(q, self.dims[0], self.info, self.id, 0, 1);
        [0, 1, 2, 3].map(|e| self.read(k + e))
    }

    /// Sets elements 4q..4q+3 (panics if they are not all in range).
    #[inline(always)]
    #[track_caller]
    pub fn store4<Q: KernelIndex>(self, q: Q, v: [T; 4]) {
        let k = first(q, self.dims[0], self.info, self.id, 0, 1);
        for (e, x) in v.into_iter().enumerate() {
            self.write(k + e, x);
        }
    }
}

impl<T: Vector4> ArrayView<T, 2> {
    /// The offset of elements 4q..4q+3 of row `i`.
    #[inline(always)]
    #[track_caller]
    fn offset4<I: KernelIndex, Q: KernelIndex>(self, i: I, q: Q) -> usize {
        let r = super::checked(i, self.dims[0], self.info, self.id, 0, 2);
        r * self.dims[1] + first(q, self.dims[1], self.info, self.id, 1, 2)
    }

    /// Elements 4q..4q+3 of row `i` (panics if they are not all in range).
    #[inline(always)]
    #[track_caller]
    pub fn load4<I: KernelIndex, Q: KernelIndex>(self, i: I, q: Q) -> [T; 4] {
        let k = self.offset4(i, q);
        [0, 1, 2, 3].map(|e| self.read(k + e))
    }

    /// Sets elements 4q..4q+3 of row `i` (panics if they are not all in range).
    #[inline(always)]
    #[track_caller]
    pub fn store4<I: KernelIndex, Q: KernelIndex>(self, i: I, q: Q, v: [T; 4]) {
        let k = self.offset4(i, q);
        for (e, x) in v.into_iter().enumerate() {
            self.write(k + e, x);
        }
    }
}

/// A `shared!` dimension whose rows `load4`/`store4` move, checked at compile time: a
/// multiple of 4, so that every row starts aligned on the GPU.
pub const fn vector_row_dim(n: usize) -> usize {
    assert!(
        n > 0 && n % 4 == 0,
        "the rows of a shared! array that load4/store4 move hold a multiple of 4 elements"
    );
    n
}
