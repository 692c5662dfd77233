//! Nearest-neighbour tables for the CPU backend's shifted reads.
//!
//! A shift computed from coordinates decomposes the site's index (three divisions by the
//! extents) every time a body reads `f.shift(mu, k)`: eight times a site for a Dslash,
//! which made the decomposition, not memory, the CPU Dslash's bound. As CPU lattice codes do
//! (MILC's and QDP++'s neighbour arrays), the first call that shifts on a lattice builds a
//! table of every site's eight nearest neighbours, once, and shifts by ±1 look them up; other
//! distances are still computed. Tables are kept for the lattices used last.
//!
//! Beside the sites' hops, the table says for every group of [`LANES`] sites (the CPU
//! backend's lane groups) and hop whether the group's neighbours are consecutive sites, and
//! from which: a group then gathers them as one run (or reads them where they lie) without
//! looking up its lanes one by one and checking that they follow each other (which made the
//! f32 staggered Dslash at 16^4 up to 1.6× slower on two cores).

use crate::field::site_io::LANES;
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

/// Every site's nearest neighbours on one lattice: `hops[(2 mu + back) · V + site]`; and
/// per group of [`LANES`] sites, `runs[(2 mu + back) · groups + group]`: the first of the
/// group's neighbours where they are consecutive sites, else `NO_SITE`.
pub struct NeighbourTable {
    sites: usize,
    hops: Box<[u32]>,
    runs: Box<[u32]>,
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
        let runs = Self::runs(&hops, sites);
        NeighbourTable { sites, hops, runs }
    }

    /// For every hop and whole group of [`LANES`] sites, the first neighbour where the
    /// group's neighbours are consecutive sites, else `NO_SITE`.
    fn runs(hops: &[u32], sites: usize) -> Box<[u32]> {
        let groups = sites / LANES;
        let mut runs = vec![NO_SITE; 8 * groups].into_boxed_slice();
        if groups == 0 {
            return runs;
        }
        for (d, row) in runs.chunks_mut(groups).enumerate() {
            for (g, run) in row.iter_mut().enumerate() {
                let lanes = &hops[d * sites + g * LANES..][..LANES];
                let first = lanes[0];
                let consecutive = first != NO_SITE
                    && (first as usize) + LANES <= sites
                    && lanes.iter().zip(first..).all(|(&j, f)| j == f);
                if consecutive {
                    *run = first;
                }
            }
        }
        runs
    }

    /// A pointer to the table for a [`Hops`], valid while `self` lives.
    pub(crate) fn hops(&self) -> Hops {
        Hops {
            ptr: self.hops.as_ptr(),
            runs: self.runs.as_ptr(),
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
    runs: *const u32,
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
        runs: std::ptr::null(),
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

    /// The first of the neighbours one step along `mu` (forward, or backward if `back`) of
    /// the [`LANES`] sites from `s0`, where the table holds them all and they are
    /// consecutive sites (neighbour of `s0 + l` = first + l); `None` otherwise, and for an
    /// `s0` that does not start a whole group.
    #[inline(always)]
    pub(crate) fn run(&self, s0: usize, mu: usize, back: bool) -> Option<usize> {
        let groups = self.sites / LANES;
        if self.runs.is_null() || s0 % LANES != 0 || s0 / LANES >= groups || mu >= 4 {
            return None;
        }
        let at = (2 * mu + back as usize) * groups + s0 / LANES;
        // SAFETY: `mu < 4` and `s0 / LANES < groups`: in bounds of the 8 × groups runs,
        // alive while the view is (see `Hops`).
        let j = unsafe { *self.runs.add(at) };
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
        // The groups' runs: exactly where every lane's neighbour follows the first's.
        let mut found = 0;
        for s0 in (0..lat.volume()).step_by(LANES) {
            for (mu, back) in (0..4).flat_map(|mu| [(mu, false), (mu, true)]) {
                let k = if back { -1 } else { 1 };
                let first = lat.shift(s0, mu, k);
                let consecutive = (0..LANES).all(|l| lat.shift(s0 + l, mu, k) == first + l);
                assert_eq!(hops.run(s0, mu, back), consecutive.then_some(first));
                found += consecutive as usize;
            }
        }
        assert!(found > 0, "some groups' neighbours are runs");
        assert_eq!(hops.run(1, 0, false), None, "not a group's start");
        assert!(
            Arc::ptr_eq(&t, &table(&lat).unwrap()),
            "kept, not built again"
        );
    }
}
