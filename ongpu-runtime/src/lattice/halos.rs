//! Halos on demand, for both decompositions (a [`SplitField`](crate::SplitField) over the
//! devices of a process, a `RankField` over MPI ranks): a call that writes a field marks
//! the halos of the parity it wrote stale; a call that shifts a field refreshes the stale
//! parities before its boundary sites run, and nothing else. Calls that shift nothing (a
//! solver's linear algebra, reductions) exchange nothing, and a field written twice before
//! it is shifted is exchanged once.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

/// How many times halos were refreshed, per parity of the sites exchanged: the exchange
/// count of a field ([`SplitField::halo_refreshes`](crate::SplitField::halo_refreshes)) or
/// of every field of a decomposed lattice (`SplitLattice::halo_refreshes`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HaloRefreshes {
    /// Refreshes of the even sites' halos.
    pub even: u64,
    /// Refreshes of the odd sites' halos.
    pub odd: u64,
}

impl HaloRefreshes {
    /// Both parities' refreshes.
    pub fn total(&self) -> u64 {
        self.even + self.odd
    }

    /// The refreshes made after `earlier` was read.
    pub fn since(&self, earlier: HaloRefreshes) -> HaloRefreshes {
        HaloRefreshes {
            even: self.even - earlier.even,
            odd: self.odd - earlier.odd,
        }
    }
}

/// A refresh counter (one per field, one per lattice).
#[derive(Debug, Default)]
pub(crate) struct RefreshCount([AtomicU64; 2]);

impl RefreshCount {
    pub(crate) fn add(&self, parities: Parities) {
        for p in parities.iter() {
            self.0[p].fetch_add(1, Ordering::Relaxed);
        }
    }

    pub(crate) fn get(&self) -> HaloRefreshes {
        HaloRefreshes {
            even: self.0[0].load(Ordering::Relaxed),
            odd: self.0[1].load(Ordering::Relaxed),
        }
    }
}

/// A set of parities (bit `p` for parity `p`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Parities(u8);

impl Parities {
    pub(crate) const BOTH: Parities = Parities(0b11);

    /// The sites of a call over `parity` (both when `None`).
    pub(crate) fn of(parity: Option<usize>) -> Parities {
        parity.map_or(Parities::BOTH, |p| Parities(1 << p))
    }

    pub(crate) fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// As the exchanges take it: `Some(p)` for one parity, `None` for both (never empty).
    pub(crate) fn as_parity(self) -> Option<usize> {
        debug_assert!(!self.is_empty(), "an exchange of no parity");
        match self.0 {
            0b01 => Some(0),
            0b10 => Some(1),
            _ => None,
        }
    }

    fn iter(self) -> impl Iterator<Item = usize> {
        (0..2).filter(move |p| self.0 & (1 << p) != 0)
    }
}

/// One decomposed field's halo state: which parities' halos are stale, and how often they
/// were refreshed. Shared (`&`) by the calls that shift the field, so it is atomic.
#[derive(Debug, Default)]
pub(crate) struct HaloState {
    stale: AtomicU8,
    refreshes: RefreshCount,
}

impl HaloState {
    /// After a call over `parity` wrote the field: those sites' halos are stale.
    pub(crate) fn mark_written(&self, parity: Option<usize>) {
        self.stale
            .fetch_or(Parities::of(parity).0, Ordering::Relaxed);
    }

    /// The parities whose halos are stale (a call that shifts the field refreshes them).
    pub(crate) fn stale(&self) -> Parities {
        Parities(self.stale.load(Ordering::Relaxed))
    }

    /// After `parities` were refreshed: counted on the field and on its lattice's `count`.
    pub(crate) fn mark_refreshed(&self, parities: Parities, lattice: &RefreshCount) {
        self.stale.fetch_and(!parities.0, Ordering::Relaxed);
        self.refreshes.add(parities);
        lattice.add(parities);
    }

    /// The field's refreshes so far.
    pub(crate) fn refreshes(&self) -> HaloRefreshes {
        self.refreshes.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes accumulate stale parities; a refresh clears what it refreshed and counts it.
    #[test]
    fn writes_mark_and_refreshes_clear() {
        let (state, lattice) = (HaloState::default(), RefreshCount::default());
        assert!(state.stale().is_empty());
        state.mark_written(Some(1));
        state.mark_written(Some(1));
        assert_eq!(state.stale().as_parity(), Some(1));
        state.mark_written(Some(0));
        assert_eq!(state.stale(), Parities::BOTH);
        state.mark_refreshed(Parities::of(Some(0)), &lattice);
        assert_eq!(state.stale().as_parity(), Some(1));
        state.mark_refreshed(state.stale(), &lattice);
        assert!(state.stale().is_empty());
        assert_eq!(state.refreshes(), HaloRefreshes { even: 1, odd: 1 });
        state.mark_written(None);
        state.mark_refreshed(state.stale(), &lattice);
        assert_eq!(lattice.get(), HaloRefreshes { even: 2, odd: 2 });
        assert_eq!(
            lattice
                .get()
                .since(HaloRefreshes { even: 1, odd: 2 })
                .total(),
            1
        );
    }
}
