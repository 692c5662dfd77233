//! [`SplitField`]: a field of a split lattice, one part field per device (its slab and
//! halos), with the halos refreshed when a call reads them.

use super::exchange;
use super::lattice::SplitLattice;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::field::Field;
use crate::lattice::halos::{HaloRefreshes, HaloState};
use crate::layout::{AoS, Layout};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// A field over a [`SplitLattice`]: on each device, the elements of its slab and of the halo
/// layers on either side, in the part lattice's site order.
///
/// `on_gpu!` captures it as it captures a [`Field`] (read, written, shifted), in calls over
/// the split lattice. A call that writes it marks the halos of the sites it wrote stale; a
/// later call that shifts it refreshes them from the neighbouring slabs first (beside its
/// interior sites), so shifts read current neighbours and calls that only read or write the
/// field exchange nothing. Host access goes
/// through whole-lattice fields: [`from_field`](SplitField::from_field) and
/// [`to_field`](SplitField::to_field).
#[derive(Debug)]
pub struct SplitField<T: Element, L: Layout = AoS> {
    pub(crate) split: SplitLattice,
    pub(crate) parts: Vec<Field<T, L>>,
    /// The events that order halo copies with kernels.
    pub(crate) halos: Mutex<exchange::Halos>,
    /// Which parities' halos are stale.
    pub(crate) state: HaloState,
}

impl<T: Element, L: Layout> SplitField<T, L> {
    /// A field whose element at whole-lattice site `i` is `f(i)` (halos included).
    pub fn from_fn(split: &SplitLattice, mut f: impl FnMut(usize) -> T) -> Result<Self> {
        let whole = split.lattice();
        let parts = (0..split.parts())
            .map(|p| {
                let part = split.part(p).lattice;
                Field::from_fn(part.volume(), |j| f(whole.index(part.coords(j))))
            })
            .collect();
        Self::new(split, parts)
    }

    /// A field of zeros.
    pub fn zeros(split: &SplitLattice) -> Result<Self> {
        let parts = (0..split.parts())
            .map(|p| Field::zeros(split.part(p).lattice.volume()))
            .collect();
        Self::new(split, parts)
    }

    /// A field of copies of `value`.
    pub fn filled(split: &SplitLattice, value: T) -> Result<Self> {
        Self::from_fn(split, |_| value)
    }

    /// The slabs of a whole-lattice field (which must hold the lattice volume).
    pub fn from_field<M: Layout>(split: &SplitLattice, field: &Field<T, M>) -> Result<Self> {
        if field.len() != split.volume() {
            return Err(Error::InvalidArgument(format!(
                "a field of {} elements cannot be split over {}: it needs {} elements",
                field.len(),
                split,
                split.volume()
            )));
        }
        let values = field.to_vec()?;
        Self::from_fn(split, |i| values[i])
    }

    /// The whole-lattice field (its elements gathered from the slabs).
    pub fn to_field<M: Layout>(&self) -> Result<Field<T, M>> {
        Ok(Field::from_vec(self.to_vec()?))
    }

    /// The elements in the whole lattice's site order.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        self.halos().finish()?;
        let whole = self.split.lattice();
        let mut out = vec![T::zeroed(); whole.volume()];
        for (p, field) in self.parts.iter().enumerate() {
            let part = self.split.part(p);
            let values = field.to_vec()?;
            for range in part.owned(None) {
                for j in range {
                    out[whole.index(part.lattice.coords(j))] = values[j];
                }
            }
        }
        Ok(out)
    }

    /// The split lattice.
    pub fn split(&self) -> &SplitLattice {
        &self.split
    }

    /// Number of sites of the whole lattice.
    pub fn len(&self) -> usize {
        self.split.volume()
    }

    /// True for a field of no sites (never: a lattice has sites).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many times this field's halos were refreshed (by calls that shifted it after it
    /// was written), per parity: what the exchange tests count.
    pub fn halo_refreshes(&self) -> HaloRefreshes {
        self.state.refreshes()
    }

    /// Refreshes the stale halos (a call that shifts the field, before its parts run); on
    /// the GPU the copies are queued on the halo streams after the kernels that wrote it.
    pub(crate) fn refresh_halos(&self) -> Result<()> {
        let stale = self.state.stale();
        if stale.is_empty() {
            return Ok(());
        }
        let parts: Vec<&Field<T, L>> = self.parts.iter().collect();
        exchange::exchange(&self.split, &parts, &mut self.halos(), stale.as_parity())?;
        self.state.mark_refreshed(stale, self.split.refresh_count());
        Ok(())
    }

    pub(crate) fn halos(&self) -> MutexGuard<'_, exchange::Halos> {
        // No user code runs under the lock: a poisoned lock still holds consistent events.
        self.halos.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A field whose halos are current (its constructors fill them).
    fn new(split: &SplitLattice, parts: Vec<Field<T, L>>) -> Result<Self> {
        exchange::check_layout::<L>(split)?;
        Ok(SplitField {
            split: *split,
            parts,
            halos: Mutex::new(exchange::Halos::new(split.parts())),
            state: HaloState::default(),
        })
    }
}

impl<T: Element, L: Layout> Drop for SplitField<T, L> {
    /// Halo copies still queued read and write the parts' device memory: they finish before
    /// the parts are freed.
    fn drop(&mut self) {
        let _ = self.halos().finish();
    }
}
