//! The element of a 5-D field: the `Ls` spinors of one 4-D site, as one flat array of
//! `4 Ls` colour vectors (entry `4 s + spin`).
//!
//! Flat, not `[Spinor; Ls]`, because a body reaches it one entry at a time: `psi[4 * s + 1]`
//! is one entry of the site's element (read in the field itself, see docs/semantics.md),
//! where `psi[s][1]` would be below an entry and make the site hold all `4 Ls` colour
//! vectors in a local array.

use crate::wilson::Spinor;
use ongpu::prelude::*;
use ongpu::Element;
use std::ops::{Index, IndexMut};

/// The `LS` spinors of one 4-D site, indexed flat: `v[4 * s + spin]` is spin `spin` of the
/// spinor at `s` (`0 ≤ s < LS`).
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(transparent)]
pub struct FiveSpinor<T, const LS: usize>(pub [Spinor<T>; LS]);

// SAFETY: `[Spinor<T>; LS]` of plain reals, transparent: no padding, any bit pattern valid.
unsafe impl<T: Real, const LS: usize> bytemuck::Zeroable for FiveSpinor<T, LS> where
    ColorVector<T>: bytemuck::Zeroable
{
}
// SAFETY: as above.
unsafe impl<T: Real, const LS: usize> bytemuck::Pod for FiveSpinor<T, LS> where
    ColorVector<T>: bytemuck::Pod
{
}

// SAFETY: `4 LS` colour vectors in a row, as `ongpu::array<ColorVector<T>, 4 LS>` is.
unsafe impl<T: Real, const LS: usize> Element for FiveSpinor<T, LS>
where
    ColorVector<T>: Element + bytemuck::Pod,
{
    type Scalar = <ColorVector<T> as Element>::Scalar;
    const COMPONENTS: usize = 4 * LS * <ColorVector<T> as Element>::COMPONENTS;
    fn cuda_type() -> String {
        format!(
            "ongpu::array<{}, {}>",
            ColorVector::<T>::cuda_type(),
            4 * LS
        )
    }
}

// SAFETY: `4 LS` colour vectors in a row; `cuda_type` is `ongpu::array<ColorVector<T>, 4 LS>`.
unsafe impl<T: Real, const LS: usize> ongpu_runtime::ElementArray for FiveSpinor<T, LS>
where
    ColorVector<T>: Element + bytemuck::Pod,
{
    type Entry = ColorVector<T>;
    const LEN: usize = 4 * LS;
}

impl<T, const LS: usize> FiveSpinor<T, LS> {
    /// The spinors, `[s][spin]`.
    pub fn spinors(&self) -> &[Spinor<T>; LS] {
        &self.0
    }
}

impl<T: Real, const LS: usize> Default for FiveSpinor<T, LS> {
    fn default() -> Self {
        FiveSpinor([[ColorVector::zero(); 4]; LS])
    }
}

impl<T, const LS: usize> Index<usize> for FiveSpinor<T, LS> {
    type Output = ColorVector<T>;
    #[inline(always)]
    fn index(&self, k: usize) -> &ColorVector<T> {
        &self.0[k / 4][k % 4]
    }
}

impl<T, const LS: usize> IndexMut<usize> for FiveSpinor<T, LS> {
    #[inline(always)]
    fn index_mut(&mut self, k: usize) -> &mut ColorVector<T> {
        &mut self.0[k / 4][k % 4]
    }
}
