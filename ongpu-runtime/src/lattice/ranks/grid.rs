//! [`ProcessGrid`]: a lattice cut into equal blocks, one per rank, along one to four
//! directions.

use crate::error::{Error, Result};
use crate::geometry::{Lattice, DIMS};

/// How a lattice is cut over ranks: `dims[mu]` blocks along direction `mu`, one block per
/// rank, every block of the same extents.
///
/// Ranks are numbered over the grid with direction 0 fastest (as sites are), so rank
/// `r` sits at grid coordinates `coords_of(r)` and owns the sites whose coordinate along
/// each `mu` lies in `origin(r)[mu]..origin(r)[mu] + local_extents()[mu]`. Every block's
/// extent along a cut direction is even and at least 2 (the even-odd order and one-site
/// halos need it), so a wrong grid is an error naming the extents before anything is
/// allocated.
///
/// ```
/// use ongpu_runtime::{Lattice, ProcessGrid};
/// let lat = Lattice::new([8, 8, 8, 16])?;
/// let grid = ProcessGrid::new(&lat, 4, [1, 1, 2, 2])?;
/// assert_eq!(grid.local_extents(), [8, 8, 4, 8]);
/// assert_eq!(grid.coords_of(3), [0, 0, 1, 1]);
/// assert_eq!(grid.neighbour(0, 3, -1), 2);              // periodic
/// assert!(ProcessGrid::new(&lat, 4, [1, 1, 1, 3]).is_err()); // 3 ranks, not 4
/// assert_eq!(ProcessGrid::auto(&lat, 2)?.dims(), [1, 1, 1, 2]);   // halve the longest
/// # Ok::<(), ongpu_runtime::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ProcessGrid {
    global: [usize; DIMS],
    dims: [usize; DIMS],
    local: [usize; DIMS],
}

impl ProcessGrid {
    /// `lat` cut into `dims[mu]` blocks along each direction, for a run of `ranks` ranks.
    ///
    /// An [`Error::InvalidLattice`] (naming the extents) when the grid does not have `ranks`
    /// blocks, when a direction's extent does not divide into its blocks, or when a block
    /// would be narrower than 2 sites or odd along a cut direction.
    pub fn new(lat: &Lattice, ranks: usize, dims: [usize; DIMS]) -> Result<ProcessGrid> {
        let global = lat.extents();
        let invalid = |reason: String| Error::InvalidLattice {
            extents: global,
            reason,
        };
        let blocks: usize = dims.iter().product();
        if dims.contains(&0) || blocks != ranks {
            return Err(invalid(format!(
                "a process grid of {} has {blocks} blocks, but the run has {ranks} ranks \
                 (the grid's extents must multiply to the number of ranks)",
                show(dims)
            )));
        }
        for mu in 0..DIMS {
            let (l, p) = (global[mu], dims[mu]);
            if l % p != 0 {
                return Err(invalid(format!(
                    "extent {l} in direction {mu} does not divide into {p} blocks of the \
                     process grid {}",
                    show(dims)
                )));
            }
            let b = l / p;
            if p > 1 && (b < 2 || b % 2 != 0) {
                return Err(invalid(format!(
                    "the process grid {} cuts extent {l} in direction {mu} into blocks of {b} \
                     sites; a cut direction needs blocks of an even number of sites, at least \
                     2 (use fewer ranks along it)",
                    show(dims)
                )));
            }
        }
        Ok(ProcessGrid {
            global,
            dims,
            local: std::array::from_fn(|mu| global[mu] / dims[mu]),
        })
    }

    /// The grid of `ranks` blocks over `lat` with the fewest halo sites per rank (the
    /// surface a rank exchanges), among all valid grids; of grids with equal surfaces, the
    /// one that cuts later directions more (the time direction first, as lattice codes
    /// usually do). An [`Error::InvalidLattice`] when no grid of `ranks` blocks is valid.
    pub fn auto(lat: &Lattice, ranks: usize) -> Result<ProcessGrid> {
        let mut best: Option<(usize, [usize; DIMS], ProcessGrid)> = None;
        for dims in factorisations(ranks) {
            let Ok(grid) = ProcessGrid::new(lat, ranks, dims) else {
                continue;
            };
            let surface = grid.halo_sites();
            // Ties: prefer more blocks along later directions (compare reversed dims).
            let key = [dims[3], dims[2], dims[1], dims[0]];
            let better = match &best {
                None => true,
                Some((s, k, _)) => surface < *s || (surface == *s && key > *k),
            };
            if better {
                best = Some((surface, key, grid));
            }
        }
        best.map(|(_, _, g)| g)
            .ok_or_else(|| Error::InvalidLattice {
                extents: lat.extents(),
                reason: format!(
                    "no process grid of {ranks} ranks cuts this lattice into blocks of an even \
                 number of sites (at least 2) along every cut direction"
                ),
            })
    }

    /// Blocks along each direction.
    pub fn dims(&self) -> [usize; DIMS] {
        self.dims
    }

    /// The number of ranks (blocks).
    pub fn ranks(&self) -> usize {
        self.dims.iter().product()
    }

    /// The whole lattice's extents.
    pub fn extents(&self) -> [usize; DIMS] {
        self.global
    }

    /// Each rank's block: its extents.
    pub fn local_extents(&self) -> [usize; DIMS] {
        self.local
    }

    /// Whether the grid cuts direction `mu` (then ranks exchange halos along it).
    pub fn is_cut(&self, mu: usize) -> bool {
        self.dims[mu] > 1
    }

    /// The grid coordinates of `rank` (direction 0 fastest).
    ///
    /// # Panics
    /// If `rank` is not below [`ranks`](Self::ranks).
    pub fn coords_of(&self, rank: usize) -> [usize; DIMS] {
        assert!(
            rank < self.ranks(),
            "rank {rank} is not in a process grid of {} ranks",
            self.ranks()
        );
        let mut r = rank;
        std::array::from_fn(|mu| {
            let c = r % self.dims[mu];
            r /= self.dims[mu];
            c
        })
    }

    /// The rank at grid coordinates `c` (each taken modulo the grid's extent).
    pub fn rank_of(&self, c: [usize; DIMS]) -> usize {
        (0..DIMS)
            .rev()
            .fold(0, |r, mu| r * self.dims[mu] + c[mu] % self.dims[mu])
    }

    /// The whole-lattice coordinates of the first site of `rank`'s block.
    pub fn origin(&self, rank: usize) -> [usize; DIMS] {
        let c = self.coords_of(rank);
        std::array::from_fn(|mu| c[mu] * self.local[mu])
    }

    /// The rank whose block is `step` blocks from `rank`'s along `mu` (periodically).
    pub fn neighbour(&self, rank: usize, mu: usize, step: isize) -> usize {
        let mut c = self.coords_of(rank);
        let p = self.dims[mu] as isize;
        c[mu] = (c[mu] as isize + step).rem_euclid(p) as usize;
        self.rank_of(c)
    }

    /// The rank that owns the site at whole-lattice coordinates `x`.
    pub fn owner(&self, x: [usize; DIMS]) -> usize {
        self.rank_of(std::array::from_fn(|mu| {
            x[mu] % self.global[mu] / self.local[mu]
        }))
    }

    /// Sites per rank that other ranks hold but its one-site-deep halos copy: two faces of
    /// the block per cut direction.
    pub fn halo_sites(&self) -> usize {
        let volume: usize = self.local.iter().product();
        (0..DIMS)
            .filter(|&mu| self.is_cut(mu))
            .map(|mu| 2 * volume / self.local[mu])
            .sum()
    }
}

impl std::fmt::Display for ProcessGrid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "process grid {} of blocks {}",
            show(self.dims),
            show(self.local)
        )
    }
}

/// `a x b x c x d`.
fn show(d: [usize; DIMS]) -> String {
    format!("{}x{}x{}x{}", d[0], d[1], d[2], d[3])
}

/// Every way to write `n` as an ordered product of four factors.
fn factorisations(n: usize) -> Vec<[usize; DIMS]> {
    let divisors = |m: usize| (1..=m).filter(move |d| m % d == 0);
    let mut out = Vec::new();
    for a in divisors(n) {
        for b in divisors(n / a) {
            for c in divisors(n / a / b) {
                out.push([a, b, c, n / a / b / c]);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lat(e: [usize; 4]) -> Lattice {
        Lattice::new(e).unwrap()
    }

    #[test]
    fn ranks_blocks_and_neighbours_agree() {
        let g = ProcessGrid::new(&lat([4, 8, 12, 16]), 24, [1, 2, 3, 4]).unwrap();
        assert_eq!(g.local_extents(), [4, 4, 4, 4]);
        for r in 0..24 {
            assert_eq!(g.rank_of(g.coords_of(r)), r);
            let o = g.origin(r);
            assert_eq!(g.owner(o), r);
            assert_eq!(g.owner(std::array::from_fn(|mu| o[mu] + 3)), r);
            for mu in 0..4 {
                let up = g.neighbour(r, mu, 1);
                assert_eq!(g.neighbour(up, mu, -1), r);
                let mut x = o;
                x[mu] += g.local_extents()[mu];
                assert_eq!(g.owner(x), up, "rank {r} direction {mu}");
            }
        }
        assert_eq!(g.halo_sites(), 3 * 2 * 64);
    }

    #[test]
    fn a_wrong_grid_names_the_extents() {
        let l = lat([8, 8, 8, 6]);
        let msg = |e: Error| e.to_string();
        let e = msg(ProcessGrid::new(&l, 4, [1, 1, 2, 1]).unwrap_err());
        assert!(e.contains("[8, 8, 8, 6]") && e.contains("4 ranks"), "{e}");
        let e = msg(ProcessGrid::new(&l, 4, [1, 1, 1, 4]).unwrap_err());
        assert!(e.contains("extent 6 in direction 3"), "{e}");
        assert!(
            ProcessGrid::new(&l, 3, [1, 1, 1, 3]).is_ok(),
            "blocks of 2 are fine"
        );
        let e = msg(ProcessGrid::new(&lat([8, 8, 8, 12]), 4, [1, 1, 1, 4]).unwrap_err());
        assert!(
            e.contains("blocks of 3 sites") && e.contains("[8, 8, 8, 12]"),
            "{e}"
        );
        let e = msg(ProcessGrid::new(&l, 8, [1, 1, 8, 1]).unwrap_err());
        assert!(e.contains("blocks of 1 sites"), "{e}");
        assert!(ProcessGrid::new(&l, 0, [0, 1, 1, 1]).is_err());
        let e = msg(ProcessGrid::auto(&lat([2, 2, 2, 2]), 32).unwrap_err());
        assert!(e.contains("no process grid of 32 ranks"), "{e}");
    }

    #[test]
    fn auto_minimises_the_surface() {
        for (e, ranks) in [
            ([16; 4], 16),
            ([8, 8, 8, 16], 4),
            ([4, 8, 12, 16], 24),
            ([8; 4], 8),
        ] {
            let l = lat(e);
            let best = factorisations(ranks)
                .into_iter()
                .filter_map(|d| ProcessGrid::new(&l, ranks, d).ok())
                .map(|g| g.halo_sites())
                .min()
                .unwrap();
            let g = ProcessGrid::auto(&l, ranks).unwrap();
            assert_eq!(g.halo_sites(), best, "{e:?} over {ranks}: {g}");
        }
        // One rank: no cut. Two: the direction with the smallest face, time on a tie.
        assert_eq!(
            ProcessGrid::auto(&lat([8; 4]), 1).unwrap().dims(),
            [1, 1, 1, 1]
        );
        assert_eq!(
            ProcessGrid::auto(&lat([8; 4]), 2).unwrap().dims(),
            [1, 1, 1, 2]
        );
        assert_eq!(
            ProcessGrid::auto(&lat([16, 8, 8, 8]), 2).unwrap().dims(),
            [2, 1, 1, 1]
        );
        // 8x8x8x16 over 4: quarters of t (faces of 8^3) beat halves of z and t.
        let g = ProcessGrid::auto(&lat([8, 8, 8, 16]), 4).unwrap();
        assert_eq!((g.dims(), g.halo_sites()), ([1, 1, 1, 4], 1024));
    }
}
