//! A periodic 4-D lattice in even-odd site order, its even and odd subsets, and the
//! neighbour map that shifts use on both backends.
//!
//! Site order: even sites first (indices `0..V/2`), then odd ones, each half in
//! lexicographic order with the first coordinate fastest. With the first extent even, the
//! site with lexicographic index `lex` and parity `p` is at `p * V/2 + lex / 2`. The CUDA
//! twin (`ongpu::Lattice` in `cuda/lattice.cuh`) computes the same map with the same
//! arithmetic, so a shift is an index computation, not a table.
//!
//! The same type describes one part of a lattice split over devices
//! ([`SplitLattice`](crate::SplitLattice)): a slab along one direction plus a halo layer on
//! each side, stored with that direction slowest, whose coordinates and parities are those
//! of the whole lattice (an origin and the whole extents), and whose shifts may not wrap
//! around the split direction (they would leave the halo).

use crate::error::{Error, Result};

/// Number of dimensions of a [`Lattice`].
pub const DIMS: usize = 4;

/// A periodic 4-D lattice: its extents and the even-odd site order.
///
/// `Copy`, and capturable by value in `on_gpu!` bodies, where `lat.coord(i, mu)` and
/// `lat.parity(i)` work as on the host.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Lattice {
    /// Extents per direction (as `u64`, the layout the CUDA twin reads).
    dims: [u64; DIMS],
    /// Lexicographic stride of each direction (1, L0, L0*L1, L0*L1*L2 for a whole lattice).
    strides: [u64; DIMS],
    /// Sites per parity (V/2).
    half: u64,
    /// Extents in storage order, fastest first (the directions in order, `slow` last).
    sdims: [u64; DIMS],
    /// The slowest direction in storage (3 for a whole lattice).
    slow: u64,
    /// Coordinates, in the whole lattice, of the site at local coordinates 0.
    origin: [u64; DIMS],
    /// Extents of the whole lattice.
    global: [u64; DIMS],
    /// Bit `mu` set: direction `mu` ends in halos (a shift may not wrap around it).
    halo: u64,
    /// Parity of the origin (added to local coordinate sums).
    origin_parity: u64,
}

// The kernel parameter `const ongpu::Lattice` has this size; raw launches pass it as bytes.
const _: () = assert!(std::mem::size_of::<Lattice>() == 24 * 8);

// SAFETY: only `u64` fields, no padding: plain data in every bit pattern the fields can
// hold; `cuda/lattice.cuh` declares the same struct.
unsafe impl bytemuck::Zeroable for Lattice {}
// SAFETY: as above.
unsafe impl bytemuck::Pod for Lattice {}

/// Which sites of a lattice a call runs: all, or one parity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Subset {
    lattice: Lattice,
    parity: Option<usize>,
}

/// The position of direction `mu` in the storage order whose slowest direction is `slow`.
#[inline(always)]
fn storage_position(mu: usize, slow: usize) -> usize {
    if mu == slow {
        DIMS - 1
    } else if mu > slow {
        mu - 1
    } else {
        mu
    }
}

impl Lattice {
    /// A lattice of the given extents. Every extent must be even and at least 2 (even-odd
    /// order needs it), and the volume must fit 32-bit site arithmetic on the GPU.
    ///
    /// ```
    /// use ongpu_runtime::Lattice;
    /// let lat = Lattice::new([8, 8, 8, 16]).unwrap();
    /// assert_eq!(lat.volume(), 8192);
    /// assert!(Lattice::new([8, 7, 8, 8]).is_err());
    /// ```
    pub fn new(extents: [usize; DIMS]) -> Result<Lattice> {
        let invalid = |reason: String| Error::InvalidLattice { extents, reason };
        for (mu, &l) in extents.iter().enumerate() {
            if l < 2 || l % 2 != 0 {
                return Err(invalid(format!(
                    "extent {l} in direction {mu} must be even and at least 2"
                )));
            }
        }
        extents
            .iter()
            .try_fold(1u64, |v, &l| v.checked_mul(l as u64))
            .filter(|&v| v <= u32::MAX as u64)
            .ok_or_else(|| {
                invalid("the volume must be at most 2^32 - 1 sites (per device)".to_string())
            })?;
        let dims = extents.map(|l| l as u64);
        Ok(Lattice::stored(dims, DIMS - 1, [0; DIMS], dims, 0))
    }

    /// A lattice of extents `dims` stored with direction `slow` slowest, whose local site 0
    /// is at `origin` in a whole lattice of extents `global`, with halos at the ends of the
    /// directions in the mask `halo`. The caller has checked the extents.
    pub(crate) fn stored(
        dims: [u64; DIMS],
        slow: usize,
        origin: [u64; DIMS],
        global: [u64; DIMS],
        halo: u64,
    ) -> Lattice {
        let mut sdims = [0u64; DIMS];
        for mu in 0..DIMS {
            sdims[storage_position(mu, slow)] = dims[mu];
        }
        let strides: [u64; DIMS] =
            std::array::from_fn(|mu| sdims[..storage_position(mu, slow)].iter().product());
        Lattice {
            dims,
            strides,
            half: dims.iter().product::<u64>() / 2,
            sdims,
            slow: slow as u64,
            origin,
            global,
            halo,
            origin_parity: origin.iter().sum::<u64>() & 1,
        }
    }

    /// Indices of the sites of parity `p` (`p * V/2 .. (p + 1) * V/2`).
    #[cfg(any(feature = "mpi", test))]
    pub(crate) fn subset_range(&self, p: usize) -> std::ops::Range<usize> {
        let half = self.half as usize;
        p * half..(p + 1) * half
    }

    /// True when `other` has the same extents and storage order (so the same even-odd
    /// order of its own sites, wherever it lies).
    #[cfg(all(feature = "mpi", feature = "cuda"))]
    pub(crate) fn same_shape(&self, other: &Lattice) -> bool {
        self.dims == other.dims && self.slow == other.slow
    }

    /// The slowest direction of the storage order (3, except in a part of a lattice split
    /// along another direction).
    pub(crate) fn slowest(&self) -> usize {
        self.slow as usize
    }

    /// The extents.
    pub fn extents(&self) -> [usize; DIMS] {
        self.dims.map(|l| l as usize)
    }

    /// Number of sites.
    pub fn volume(&self) -> usize {
        2 * self.half as usize
    }

    /// The even sites (indices `0..V/2`), as the index space of a call.
    pub fn even(&self) -> Subset {
        Subset {
            lattice: *self,
            parity: Some(0),
        }
    }

    /// The odd sites (indices `V/2..V`), as the index space of a call.
    pub fn odd(&self) -> Subset {
        Subset {
            lattice: *self,
            parity: Some(1),
        }
    }

    /// All sites, as a [`Subset`].
    pub fn all(&self) -> Subset {
        Subset {
            lattice: *self,
            parity: None,
        }
    }

    /// The coordinates of site `i` (in the whole lattice, for a part of a split one).
    #[inline]
    pub fn coords(&self, i: usize) -> [usize; DIMS] {
        let (_, _, c) = self.decompose(i);
        std::array::from_fn(|mu| {
            let x = c[mu] + self.origin[mu];
            (if x >= self.global[mu] {
                x - self.global[mu]
            } else {
                x
            }) as usize
        })
    }

    /// Coordinate `mu` of site `i` (in the whole lattice, for a part of a split one).
    #[inline]
    pub fn coord(&self, i: usize, mu: usize) -> usize {
        self.coords(i)[mu]
    }

    /// The index of the site at coordinates `c` (each taken modulo its extent; for a part of
    /// a split lattice, coordinates in the whole lattice, which must fall in the part).
    ///
    /// # Panics
    /// If `c` is not a site of a part.
    #[inline]
    pub fn index(&self, c: [usize; DIMS]) -> usize {
        let mut lex = 0u64;
        let mut parity = self.origin_parity;
        for mu in 0..DIMS {
            let g = self.global[mu];
            let x = (c[mu] as u64 % g + g - self.origin[mu]) % g;
            assert!(
                x < self.dims[mu],
                "coordinates {c:?} are not in this part of the lattice"
            );
            lex += x * self.strides[mu];
            parity += x;
        }
        ((parity & 1) * self.half + lex / 2) as usize
    }

    /// The parity of site `i`: 0 even, 1 odd (the sum of its coordinates modulo 2).
    #[inline]
    pub fn parity(&self, i: usize) -> usize {
        (i as u64 >= self.half) as usize
    }

    /// The index of site `i` in the whole lattice's site order: `i` itself for a whole
    /// lattice; for a part of a split lattice or of one cut over ranks, where its site sits
    /// in the whole. Keying a site's random numbers by it (`rng.uniform_f64(lat.whole_index(i),
    /// k)`) makes a part draw exactly what the whole lattice draws there.
    #[inline]
    pub fn whole_index(&self, i: usize) -> usize {
        let (mut lex, mut stride) = (0u64, 1u64);
        for (&x, &g) in self.coords(i).iter().zip(&self.global) {
            lex += x as u64 * stride;
            stride *= g;
        }
        (self.parity(i) as u64 * (stride / 2) + lex / 2) as usize
    }

    /// The site `k` steps from site `i` along direction `mu`, periodically.
    ///
    /// # Panics
    /// If `mu` is not a direction (`0..4`), or, in a part of a split lattice, if the step
    /// leaves the part's halo; a body that does so fails with `Error::BodyPanicked` on the
    /// CPU.
    #[inline]
    pub fn shift(&self, i: usize, mu: usize, k: i64) -> usize {
        assert!(
            mu < DIMS,
            "direction {mu} of a shift is not one of 0..{DIMS}"
        );
        self.checked_shift(i, mu, k).unwrap_or_else(|| {
            panic!(
                "a shift of {k} along direction {mu} reaches beyond the halo of this part of a \
                 split lattice (deeper halos: `SplitLattice::with_halo_depth`)"
            )
        })
    }

    /// [`shift`](Self::shift), or `None` where it would leave the halo of a split
    /// lattice's part. `mu` must be a direction.
    #[inline]
    pub(crate) fn checked_shift(&self, i: usize, mu: usize, k: i64) -> Option<usize> {
        let (p, lex, c) = self.decompose(i);
        let l = self.dims[mu] as i64;
        let x = c[mu] as i64;
        let y = (x + k).rem_euclid(l);
        if self.halo >> mu & 1 != 0 && y != x + k {
            return None;
        }
        let lex = (lex as i64 + (y - x) * self.strides[mu] as i64) as u64;
        let p = (p + (k.rem_euclid(2)) as u64) & 1;
        Some((p * self.half + lex / 2) as usize)
    }

    /// (parity, lexicographic index, local coordinates per direction) of site `i`.
    #[inline]
    fn decompose(&self, i: usize) -> (u64, u64, [u64; DIMS]) {
        let i = i as u64;
        let p = (i >= self.half) as u64;
        let even_lex = 2 * (i - p * self.half);
        let mut d = [0u64; DIMS];
        let mut r = even_lex;
        for (x, &l) in d.iter_mut().zip(&self.sdims[..DIMS - 1]) {
            *x = r % l;
            r /= l;
        }
        d[DIMS - 1] = r;
        // The fastest extent is even: lex and lex + 1 share the other coordinates and
        // differ in parity, so the site of parity p is the one whose coordinates (with the
        // origin's) sum to p.
        let odd = (p + self.origin_parity + d.iter().sum::<u64>()) & 1;
        d[0] += odd;
        let slow = self.slow as usize;
        let c = std::array::from_fn(|mu| d[storage_position(mu, slow)]);
        (p, even_lex + odd, c)
    }
}

impl std::fmt::Display for Lattice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let d = self.dims;
        write!(f, "{}x{}x{}x{} lattice", d[0], d[1], d[2], d[3])
    }
}

impl Subset {
    /// The lattice.
    pub fn lattice(&self) -> Lattice {
        self.lattice
    }

    /// `Some(0)` for the even sites, `Some(1)` for the odd ones, `None` for all.
    pub fn parity(&self) -> Option<usize> {
        self.parity
    }

    /// The site indices of the subset (contiguous in the even-odd order).
    pub fn range(&self) -> std::ops::Range<usize> {
        let half = self.lattice.half as usize;
        match self.parity {
            None => 0..2 * half,
            Some(p) => p * half..(p + 1) * half,
        }
    }
}

impl std::fmt::Display for Subset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.parity {
            None => write!(f, "{}", self.lattice),
            Some(0) => write!(f, "the even sites of the {}", self.lattice),
            Some(_) => write!(f, "the odd sites of the {}", self.lattice),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The contract's order, enumerated independently: even sites in lexicographic order,
    /// then odd ones.
    fn enumerate(l: [usize; 4]) -> Vec<[usize; 4]> {
        let mut even = Vec::new();
        let mut odd = Vec::new();
        for t in 0..l[3] {
            for z in 0..l[2] {
                for y in 0..l[1] {
                    for x in 0..l[0] {
                        let c = [x, y, z, t];
                        if (x + y + z + t) % 2 == 0 {
                            even.push(c)
                        } else {
                            odd.push(c)
                        }
                    }
                }
            }
        }
        even.extend(odd);
        even
    }

    #[test]
    fn site_order_matches_an_independent_enumeration() {
        for l in [[2, 2, 2, 2], [4, 2, 6, 8], [6, 4, 2, 2]] {
            let lat = Lattice::new(l).unwrap();
            let sites = enumerate(l);
            assert_eq!(sites.len(), lat.volume());
            for (i, c) in sites.iter().enumerate() {
                assert_eq!(lat.coords(i), *c, "site {i} of {l:?}");
                assert_eq!(lat.index(*c), i);
                assert_eq!(lat.parity(i), c.iter().sum::<usize>() % 2);
            }
        }
    }

    #[test]
    fn every_direction_and_distance_matches_host_neighbours() {
        let l = [4, 6, 2, 8];
        let lat = Lattice::new(l).unwrap();
        for i in 0..lat.volume() {
            let c = lat.coords(i);
            for mu in 0..4 {
                for k in [-9i64, -3, -2, -1, 0, 1, 2, 5, 16] {
                    let mut d = c;
                    d[mu] = (c[mu] as i64 + k).rem_euclid(l[mu] as i64) as usize;
                    assert_eq!(lat.shift(i, mu, k), lat.index(d), "site {i} mu {mu} k {k}");
                }
            }
        }
    }

    #[test]
    fn invalid_extents_are_errors_naming_them() {
        let e = Lattice::new([4, 3, 4, 4]).unwrap_err().to_string();
        assert!(e.contains("extent 3 in direction 1"), "{e}");
        assert!(Lattice::new([0, 4, 4, 4]).is_err());
        assert!(Lattice::new([1 << 20, 1 << 20, 2, 2]).is_err());
    }

    #[test]
    fn subsets_are_the_two_halves() {
        let lat = Lattice::new([4, 4, 4, 4]).unwrap();
        assert_eq!(lat.even().range(), 0..128);
        assert_eq!(lat.odd().range(), 128..256);
        assert_eq!(lat.all().range(), 0..256);
    }
}
