//! Nearest-neighbour tables for the CPU backend's shifted reads.
//!
//! A shift computed from coordinates decomposes the site's index (three divisions by the
//! extents) every time a body reads `f.shift(mu, k)`: eight times a site for a Dslash,
//! which made the decomposition, not memory, the CPU Dslash's bound. As CPU lattice codes do
//! (MILC's and QDP++'s neighbour arrays), the first call that shifts on a lattice builds a
//! table of every site's eight nearest neighbours, once, and shifts by ±1 look them up; other
//! distances are still computed. Tables are kept for the lattices used last.

use crate::geometry::Lattice;
use std::sync::{Arc, Mutex, PoisonError};

/// Lattices of more sites than this get no table (8 × 4 bytes a site: 1 GiB at the limit),
/// and their shifts are computed from coordinates.
const MAX_TABLE_SITES: usize = 1 << 25;

/// Tables kept, for the lattices used most recently (a split lattice's parts each have
/// one), and the entries they may hold together (512 MiB).
const KEPT: usize = 16;
const KEPT_ENTRIES: usize = 1 << 27;

/// A hop the table does not hold (one beyond the halo of a split lattice's part): computed
/// instead, which reports it.
const NO_SITE: u32 = u32::MAX;

/// Every site's nearest neighbours on one lattice: `hops[(2 mu + back) · V + site]`.
pub struct NeighbourTable {
    sites: usize,
    hops: Box<[u32]>,
}

impl NeighbourTable {
    /// The table of `lat` (in parallel over pieces of its rows where rayon is on).
    fn build(lat: &Lattice) -> Self {
        let sites = lat.volume();
        let mut hops = vec![NO_SITE; 8 * sites].into_boxed_slice();
        const PIECE: usize = 1 << 14;
        let pieces = hops.chunks_mut(sites).enumerate().flat_map(|(d, row)| {
            row.chunks_mut(PIECE)
                .enumerate()
                .map(move |(p, part)| (d, p * PIECE, part))
        });
        let fill = |(d, first, part): (usize, usize, &mut [u32])| {
            let (mu, k) = (d / 2, if d % 2 == 0 { 1 } else { -1 });
            for (i, o) in part.iter_mut().enumerate() {
                if let Some(j) = lat.checked_shift(first + i, mu, k) {
                    *o = j as u32;
                }
            }
        };
        #[cfg(feature = "rayon")]
        {
            use rayon::prelude::*;
            pieces.collect::<Vec<_>>().into_par_iter().for_each(fill);
        }
        #[cfg(not(feature = "rayon"))]
        pieces.for_each(fill);
        NeighbourTable { sites, hops }
    }

    /// A pointer to the table for a [`Hops`], valid while `self` lives.
    pub(crate) fn hops(&self) -> Hops {
        Hops {
            ptr: self.hops.as_ptr(),
            sites: self.sites,
        }
    }
}

/// The table of `lat`, built on first use, or `None` for a lattice too large for one.
pub(crate) fn table(lat: &Lattice) -> Option<Arc<NeighbourTable>> {
    if lat.volume() > MAX_TABLE_SITES || lat.volume() == 0 {
        return None;
    }
    static TABLES: Mutex<Vec<(Lattice, Arc<NeighbourTable>)>> = Mutex::new(Vec::new());
    let mut tables = TABLES.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(k) = tables.iter().position(|(l, _)| l == lat) {
        let entry = tables.remove(k);
        let t = entry.1.clone();
        tables.push(entry);
        return Some(t);
    }
    let t = Arc::new(NeighbourTable::build(lat));
    while !tables.is_empty()
        && (tables.len() >= KEPT
            || tables.iter().map(|(_, t)| t.hops.len()).sum::<usize>() + t.hops.len()
                > KEPT_ENTRIES)
    {
        tables.remove(0);
    }
    tables.push((*lat, t.clone()));
    Some(t)
}

/// A borrowed view of a [`NeighbourTable`] that a `Copy` shift view carries (null: none);
/// the call's argument holds the table alive.
#[derive(Clone, Copy)]
pub struct Hops {
    ptr: *const u32,
    sites: usize,
}

// SAFETY: a read-only pointer into a table that is never written after it is built, and
// that the call's argument keeps alive while any view of it exists.
unsafe impl Send for Hops {}
// SAFETY: as above.
unsafe impl Sync for Hops {}

impl Hops {
    /// No table: every shift is computed.
    pub(crate) const NONE: Hops = Hops {
        ptr: std::ptr::null(),
        sites: 0,
    };

    /// The neighbour of `site` one step along `mu` (forward, or backward if `back`), if the
    /// table holds it.
    #[inline(always)]
    pub(crate) fn get(&self, site: usize, mu: usize, back: bool) -> Option<usize> {
        if self.ptr.is_null() || site >= self.sites || mu >= 4 {
            return None;
        }
        // SAFETY: `mu < 4` and `site < sites`: in bounds of the 8 × sites table, alive while
        // the view is (see `Hops`).
        let j = unsafe { *self.ptr.add((2 * mu + back as usize) * self.sites + site) };
        (j != NO_SITE).then_some(j as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_holds_the_computed_neighbours() {
        let lat = Lattice::new([4, 6, 2, 8]).unwrap();
        let t = table(&lat).unwrap();
        let hops = t.hops();
        for i in 0..lat.volume() {
            for mu in 0..4 {
                assert_eq!(hops.get(i, mu, false), Some(lat.shift(i, mu, 1)));
                assert_eq!(hops.get(i, mu, true), Some(lat.shift(i, mu, -1)));
            }
        }
        assert_eq!(hops.get(lat.volume(), 0, false), None);
        assert!(
            Arc::ptr_eq(&t, &table(&lat).unwrap()),
            "kept, not built again"
        );
    }
}
