//! A body lowered in chunks on the CPU backend: the macro splits a long body (a Wilson hop's
//! eight neighbours) into runs of statements, each run over the whole group of lanes before
//! the next, with the locals that cross from one run to a later one kept per lane in
//! [`LaneVar`]s. A lane loop over a whole long body reads more distinct addresses than LLVM's
//! alias analysis tracks (it then gives up, and the lanes stay scalar); each run's loop reads
//! few, and vectorises.
//!
//! Every lane still runs the same operations in the same order, so the results are the bits
//! the lone sites give.

use crate::capture::CaptureArg;
use crate::field::site_io::LANES;
use std::mem::{align_of, size_of, MaybeUninit};

/// The lanes of one group as a chunked body reads and writes them.
pub struct LaneGroup<'a, C: CaptureArg> {
    pub(crate) access: &'a C::LaneAccess,
    pub(crate) written: &'a mut C::LaneOut,
}

impl<C: CaptureArg> LaneGroup<'_, C> {
    /// What the body sees at lane `l`: the captures' values (the written ones' values
    /// before the call, or zeros where the body assigns them whole).
    #[inline(always)]
    pub fn lane(&self, l: usize) -> C::LaneSite {
        // SAFETY: the access comes from a live group (`run_group`), and the lane is masked
        // into the group.
        unsafe { C::lane(self.access, self.written, l & (LANES - 1)) }
    }

    /// Sets the written captures of lane `l` (stored after the group).
    #[inline(always)]
    pub fn set(&mut self, l: usize, values: C::LaneSite) {
        // SAFETY: the lane is masked into the group.
        unsafe { C::set_lane(self.written, l & (LANES - 1), values) }
    }
}

/// The group's lanes, a count the macro's loops run to.
pub const GROUP_LANES: usize = LANES;

/// A local of a chunked body, one value per lane of the group, stored component-major (word
/// `w` of lane `l` at `w * LANES + l`, in words of the value's alignment), so that a run's
/// loop reads and writes one component of consecutive lanes contiguously.
pub struct LaneVar<T: Copy> {
    words: MaybeUninit<[T; LANES]>,
}

impl<T: Copy + Default> LaneVar<T> {
    /// Every lane the type's default (a chunked body sets every lane before it reads one).
    #[inline(always)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        let mut v = LaneVar {
            words: MaybeUninit::uninit(),
        };
        for l in 0..LANES {
            v.set(l, T::default());
        }
        v
    }
}

impl<T: Copy> LaneVar<T> {
    /// Bytes of one word: the largest of 8, 4, 2 and 1 that divides the value's size and
    /// alignment (a number type's own size for the body's values).
    const WORD: usize = {
        let (size, align) = (size_of::<T>(), align_of::<T>());
        if size % 8 == 0 && align >= 8 {
            8
        } else if size % 4 == 0 && align >= 4 {
            4
        } else if size % 2 == 0 && align >= 2 {
            2
        } else {
            1
        }
    };

    /// The value of lane `l` (masked into the group).
    #[inline(always)]
    pub fn get(&self, l: usize) -> T {
        let l = l & (LANES - 1);
        let mut v = MaybeUninit::<T>::uninit();
        // SAFETY: every lane was set (by `new`, then by the body), word by word as read here;
        // the words are copied as `MaybeUninit`, so padding bytes stay what they were.
        unsafe {
            match Self::WORD {
                8 => copy_in::<T, u64>(self.words.as_ptr().cast(), l, v.as_mut_ptr().cast()),
                4 => copy_in::<T, u32>(self.words.as_ptr().cast(), l, v.as_mut_ptr().cast()),
                2 => copy_in::<T, u16>(self.words.as_ptr().cast(), l, v.as_mut_ptr().cast()),
                _ => copy_in::<T, u8>(self.words.as_ptr().cast(), l, v.as_mut_ptr().cast()),
            }
            v.assume_init()
        }
    }

    /// Sets lane `l` (masked into the group).
    #[inline(always)]
    pub fn set(&mut self, l: usize, value: T) {
        let l = l & (LANES - 1);
        let from = &value as *const T;
        let to = self.words.as_mut_ptr();
        // SAFETY: the buffer holds `LANES` values of `T`, as many words of each size.
        unsafe {
            match Self::WORD {
                8 => copy_out::<T, u64>(from.cast(), l, to.cast()),
                4 => copy_out::<T, u32>(from.cast(), l, to.cast()),
                2 => copy_out::<T, u16>(from.cast(), l, to.cast()),
                _ => copy_out::<T, u8>(from.cast(), l, to.cast()),
            }
        }
    }
}

/// Copies lane `l`'s words of a component-major buffer into one value.
///
/// # Safety
/// `words` holds `LANES` values of `T` as words `W` (`size_of::<T>()` a multiple of `W`'s);
/// `to` has room for one `T`.
#[inline(always)]
unsafe fn copy_in<T, W: Copy>(words: *const MaybeUninit<W>, l: usize, to: *mut MaybeUninit<W>) {
    for w in 0..size_of::<T>() / size_of::<W>() {
        *to.add(w) = *words.add(w * LANES + l);
    }
}

/// Copies one value's words into lane `l` of a component-major buffer.
///
/// # Safety
/// As for [`copy_in`], the other way.
#[inline(always)]
unsafe fn copy_out<T, W: Copy>(from: *const MaybeUninit<W>, l: usize, words: *mut MaybeUninit<W>) {
    for w in 0..size_of::<T>() / size_of::<W>() {
        *words.add(w * LANES + l) = *from.add(w);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ColorVector, Complex};

    #[test]
    fn lanes_keep_their_values_for_every_word_size() {
        let mut a: LaneVar<ColorVector<f64>> = LaneVar::new();
        let mut b: LaneVar<(bool, u8)> = LaneVar::new();
        let mut c: LaneVar<Complex<f32>> = LaneVar::new();
        let mut d: LaneVar<u16> = LaneVar::new();
        assert_eq!(a.get(5), ColorVector::zero());
        for l in 0..LANES {
            let x = l as f64;
            a.set(l, ColorVector::new([Complex::new(x, -x); 3]));
            b.set(l, (l % 2 == 0, l as u8));
            c.set(l, Complex::new(x as f32, 2.0));
            d.set(l, 1000 + l as u16);
        }
        for l in 0..LANES {
            let x = l as f64;
            assert_eq!(a.get(l), ColorVector::new([Complex::new(x, -x); 3]));
            assert_eq!(b.get(l), (l % 2 == 0, l as u8));
            assert_eq!(c.get(l), Complex::new(x as f32, 2.0));
            assert_eq!(d.get(l), 1000 + l as u16);
        }
        assert_eq!(LaneVar::<ColorVector<f64>>::WORD, 8);
        assert_eq!(LaneVar::<Complex<f32>>::WORD, 4);
        assert_eq!(LaneVar::<u16>::WORD, 2);
        assert_eq!(LaneVar::<(bool, u8)>::WORD, 1);
    }
}
