//! The boxes of one rank's block of a lattice cut over ranks: the stored part (block plus
//! halos), the owned block, its interior and boundary, and the faces each exchange round
//! sends and receives. A box is a [`Lattice`] of its own extents whose origin is in the whole
//! lattice, so its sites have their own even-odd order (the same on the rank that sends a
//! face and the rank that receives it) and map to the part's indices by their coordinates.

use super::grid::ProcessGrid;
use crate::error::Result;
use crate::geometry::{Lattice, DIMS};
use std::ops::Range;

/// One exchange round: the faces along one cut direction.
#[derive(Debug, Clone)]
pub(crate) struct Round {
    /// The direction.
    #[allow(dead_code)] // read by the tests and kept for errors
    pub dir: usize,
    /// The ranks below and above along it (the same rank when the grid has two blocks).
    pub lower: usize,
    pub upper: usize,
    /// Boxes (indices into the layout's boxes): the owned layers sent down and up, and the
    /// halo layers received from below and from above.
    pub send_low: usize,
    pub send_high: usize,
    pub recv_low: usize,
    pub recv_high: usize,
}

/// Everything about one rank's block.
#[derive(Debug)]
pub(crate) struct Layout {
    pub part: Lattice,
    pub boxes: Vec<Lattice>,
    pub interior: Vec<usize>,
    pub boundary: Vec<usize>,
    pub rounds: Vec<Round>,
}

impl Layout {
    /// The layout of `grid`'s block `rank` of `whole`, halos `depth` deep along cut
    /// directions. Exchange rounds go in direction order, each face spanning the part's full
    /// extent in the other directions, so that later rounds carry the halos earlier ones
    /// filled and the corners (diagonal shifts) arrive too.
    pub fn new(whole: &Lattice, grid: &ProcessGrid, rank: usize, depth: usize) -> Result<Self> {
        let global = whole.extents();
        let local = grid.local_extents();
        let cut: Vec<usize> = (0..DIMS).filter(|&mu| grid.is_cut(mu)).collect();
        let start = grid.origin(rank);
        let h = |mu: usize| if grid.is_cut(mu) { depth } else { 0 };
        let dims: [usize; DIMS] = std::array::from_fn(|mu| local[mu] + 2 * h(mu));
        let origin: [usize; DIMS] =
            std::array::from_fn(|mu| (start[mu] + global[mu] - h(mu)) % global[mu]);
        let mask = cut.iter().fold(0u64, |m, &mu| m | 1 << mu);
        let part = Lattice::stored(
            dims.map(|l| l as u64),
            DIMS - 1,
            origin.map(|x| x as u64),
            global.map(|l| l as u64),
            mask,
        );
        // A box at `offset` (part coordinates) of extents `ext`, `slow` slowest in storage.
        let make = |offset: [usize; DIMS], ext: [usize; DIMS], slow: usize| {
            Lattice::stored(
                ext.map(|l| l as u64),
                slow,
                std::array::from_fn(|mu| ((origin[mu] + offset[mu]) % global[mu]) as u64),
                global.map(|l| l as u64),
                0,
            )
        };
        let own_offset: [usize; DIMS] = std::array::from_fn(h);
        let mut boxes = vec![make(own_offset, local, DIMS - 1)];
        // The boundary is as deep as the halos: an interior exists when each cut block is
        // wider than two such layers. A box's even-odd order needs an even extent only
        // along its fastest direction, so each boundary box is stored with its cut
        // direction slowest: its fastest extent is then a block's (even) or an interior's
        // (a block less two depths: even too), whatever the depth.
        let b = depth;
        let (mut interior, mut boundary) = (Vec::new(), Vec::new());
        if cut.is_empty() {
            interior.push(0);
        } else if cut.iter().all(|&mu| local[mu] > 2 * b) {
            let mut inner_off = own_offset;
            let mut inner_ext = local;
            for &mu in &cut {
                inner_off[mu] += b;
                inner_ext[mu] -= 2 * b;
            }
            interior.push(boxes.len());
            boxes.push(make(inner_off, inner_ext, DIMS - 1));
            for (k, &mu) in cut.iter().enumerate() {
                let (mut off, mut ext) = (own_offset, local);
                for &nu in &cut[..k] {
                    off[nu] = inner_off[nu];
                    ext[nu] = inner_ext[nu];
                }
                ext[mu] = b;
                for at in [own_offset[mu], own_offset[mu] + local[mu] - b] {
                    off[mu] = at;
                    boundary.push(boxes.len());
                    boxes.push(make(off, ext, mu));
                }
            }
        } else {
            boundary.push(0);
        }
        let mut rounds = Vec::with_capacity(cut.len());
        for &mu in &cut {
            let mut ext = dims;
            ext[mu] = depth;
            let mut face = |at: usize| {
                let mut off = [0; DIMS];
                off[mu] = at;
                boxes.push(make(off, ext, mu));
                boxes.len() - 1
            };
            let send_low = face(depth);
            let send_high = face(local[mu]);
            let recv_low = face(0);
            let recv_high = face(depth + local[mu]);
            rounds.push(Round {
                dir: mu,
                lower: grid.neighbour(rank, mu, -1),
                upper: grid.neighbour(rank, mu, 1),
                send_low,
                send_high,
                recv_low,
                recv_high,
            });
        }
        Ok(Layout {
            part,
            boxes,
            interior,
            boundary,
            rounds,
        })
    }
}

/// The sites of parity `parity` of `bx` as runs of consecutive `part` indices, in the box's
/// order.
pub(crate) fn runs(part: &Lattice, bx: &Lattice, parity: usize) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    for j in bx.subset_range(parity) {
        let s = part.index(bx.coords(j));
        match out.last_mut() {
            Some(r) if r.end == s => r.end += 1,
            _ => out.push(s..s + 1),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The part's indices of `bx`'s sites, both parities; each site of parity p is one
    /// of the part's parity-p sites (the box's even-odd order is the part's).
    fn sites(part: &Lattice, bx: &Lattice) -> Vec<usize> {
        let half = part.volume() / 2;
        (0..2)
            .flat_map(|p| {
                let r = runs(part, bx, p);
                for s in r.iter().flat_map(Clone::clone) {
                    assert_eq!(usize::from(s >= half), p, "site {s} of a box's parity {p}");
                }
                r
            })
            .flatten()
            .collect::<Vec<_>>()
    }

    /// The interior and boundary boxes hold each owned site once; the faces received are
    /// exactly the halo sites, and each face sent is the neighbour's face received.
    #[test]
    fn boxes_partition_the_block_and_faces_match() {
        let small = [4, 8, 4, 8];
        for (whole, dims, depth) in [
            (small, [1, 1, 1, 2], 1),
            (small, [1, 2, 1, 2], 1),
            (small, [2, 2, 2, 2], 1),
            (small, [1, 1, 1, 2], 2),
            (small, [1, 1, 1, 4], 2),
            (small, [1, 2, 1, 1], 2),
            // Boundary boxes one layer deep along x (their fastest direction is then y),
            // and three deep (HISQ's Naik term).
            ([8, 8, 4, 8], [2, 1, 1, 1], 1),
            ([8, 8, 4, 8], [2, 2, 1, 2], 1),
            ([4, 4, 4, 16], [1, 1, 1, 2], 3),
            ([16, 4, 4, 4], [2, 1, 1, 1], 3),
        ] {
            let whole = Lattice::new(whole).unwrap();
            let ranks = dims.iter().product();
            let grid = ProcessGrid::new(&whole, ranks, dims).unwrap();
            let layouts: Vec<Layout> = (0..ranks)
                .map(|r| Layout::new(&whole, &grid, r, depth).unwrap())
                .collect();
            for (r, l) in layouts.iter().enumerate() {
                let wide = (0..DIMS)
                    .filter(|&mu| grid.is_cut(mu))
                    .all(|mu| grid.local_extents()[mu] > 2 * depth);
                assert_eq!(
                    !l.interior.is_empty(),
                    wide,
                    "{dims:?} rank {r}: an interior"
                );
                // The boundary comes in pairs of one shape (a cut direction's low and high
                // boxes, which the GPU runs as one launch), or is the whole block.
                if wide {
                    assert_eq!(l.boundary.len() % 2, 0, "{dims:?} rank {r}");
                    for pair in l.boundary.chunks(2) {
                        let (a, b) = (&l.boxes[pair[0]], &l.boxes[pair[1]]);
                        assert_eq!(a.extents(), b.extents(), "{dims:?} rank {r}");
                        assert_eq!(a.slowest(), b.slowest(), "{dims:?} rank {r}");
                    }
                } else {
                    assert_eq!(l.boundary, [0], "{dims:?} rank {r}");
                }
                let mut owned = sites(&l.part, &l.boxes[0]);
                owned.sort_unstable();
                let mut split: Vec<usize> = l
                    .interior
                    .iter()
                    .chain(&l.boundary)
                    .flat_map(|&b| sites(&l.part, &l.boxes[b]))
                    .collect();
                split.sort_unstable();
                assert_eq!(owned, split, "{dims:?} rank {r}");
                for s in &owned {
                    assert_eq!(grid.owner(l.part.coords(*s)), r);
                }
                let mut all = owned.clone();
                for round in &l.rounds {
                    let face = |other: &Layout, pick: fn(&Round) -> usize| {
                        let q = other.rounds.iter().find(|q| q.dir == round.dir).unwrap();
                        other.boxes[pick(q)]
                    };
                    let lower = &layouts[round.lower];
                    let upper = &layouts[round.upper];
                    assert_eq!(l.boxes[round.recv_low], face(lower, |q| q.send_high));
                    assert_eq!(l.boxes[round.recv_high], face(upper, |q| q.send_low));
                    all.extend(sites(&l.part, &l.boxes[round.recv_low]));
                    all.extend(sites(&l.part, &l.boxes[round.recv_high]));
                }
                all.sort_unstable();
                all.dedup();
                let missing: Vec<_> = (0..l.part.volume())
                    .filter(|s| all.binary_search(s).is_err())
                    .map(|s| l.part.coords(s))
                    .collect();
                assert!(missing.is_empty(), "{dims:?} rank {r}: {missing:?}");
            }
        }
    }
}
