//! [`SplitLattice`]: a lattice cut into slabs along one direction, one slab per device, each
//! stored as a part lattice with halo layers on either side.

use super::devices::Devices;
use crate::error::{Error, Result};
use crate::geometry::{Lattice, DIMS};
use crate::lattice::halos::{HaloRefreshes, RefreshCount};
use std::ops::Range;
use std::sync::{Mutex, PoisonError};

/// A [`Lattice`] split over devices: slabs of the sites along one direction, one per device.
///
/// Fields of a split lattice ([`SplitField`](crate::SplitField)) hold one slab per device
/// plus its halo layers on each side, and `on_gpu!` runs unchanged over `split.even()`,
/// `split.odd()` or the split lattice itself: each device runs its slab, and shifts across
/// a slab boundary read the halo, which the first call that shifts the field after a write
/// refreshes (calls that do not shift it exchange nothing).
/// `docs/multi-gpu.md` gives the design and its reasons.
///
/// ```
/// use ongpu_runtime::{Devices, Lattice};
/// # ongpu_runtime::with_backend(ongpu_runtime::Backend::Cpu, || {
/// let lat = Lattice::new([4, 4, 4, 8]).unwrap();
/// let split = lat.split_over(&Devices::first(2)?)?;
/// assert_eq!(split.direction(), 3);
/// assert_eq!(split.slab(1), 4..8);
/// # Ok::<(), ongpu_runtime::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, Copy)]
pub struct SplitLattice {
    inner: &'static Inner,
}

/// A split's geometry. Splits are interned (one per lattice, direction, devices and slabs, kept for
/// the life of the process), so that a `SplitLattice` is `Copy` like a [`Lattice`] and two
/// equal splits are the same.
#[derive(Debug)]
struct Inner {
    whole: Lattice,
    direction: usize,
    devices: Devices,
    parts: Vec<Part>,
    /// Halo refreshes of every field of the split.
    refreshes: RefreshCount,
}

/// One device's slab.
#[derive(Debug, Clone)]
pub(crate) struct Part {
    /// The part lattice: the slab plus `halo` layers on each side (none for one part).
    pub lattice: Lattice,
    /// The slab's coordinates along the split direction.
    pub slab: Range<usize>,
    /// Halo layers on each side (0 for one part; 1 unless the split was made deeper).
    pub halo: usize,
}

/// Which sites of a split lattice a call runs.
#[derive(Debug, Clone, Copy)]
pub struct SplitSubset {
    split: SplitLattice,
    parity: Option<usize>,
}

impl Lattice {
    /// This lattice split over `devices` along the slowest direction whose extent has at
    /// least two sites per device (so each slab has an even width, as the even-odd order
    /// needs).
    pub fn split_over(&self, devices: &Devices) -> Result<SplitLattice> {
        let ext = self.extents();
        let direction = (0..DIMS)
            .rev()
            .find(|&mu| ext[mu] >= 2 * devices.len())
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "the {self} cannot be split over {} devices: every extent is below two \
                     sites per device",
                    devices.len()
                ))
            })?;
        self.split_along(devices, direction)
    }

    /// This lattice split over `devices` into slabs along `direction`: widths even and as
    /// equal as that allows.
    pub fn split_along(&self, devices: &Devices, direction: usize) -> Result<SplitLattice> {
        let n = devices.len();
        let l = self.split_extent(devices, direction)?;
        let (pairs, extra) = (l / 2 / n, l / 2 % n);
        let widths: Vec<usize> = (0..n)
            .map(|p| 2 * (pairs + usize::from(p < extra)))
            .collect();
        self.split_into(devices, direction, &widths)
    }

    /// This lattice split over `devices` along `direction` into slabs whose widths follow
    /// `weights`, one per part: each device's measured throughput (sites per second, in
    /// any unit), so that every part takes about as long. Widths are even and at least two
    /// sites; what rounding leaves goes to the parts furthest below their share. This is how
    /// a host part ([`Devices::with_host`]) is given the small slab its speed deserves.
    pub fn split_weighted(
        &self,
        devices: &Devices,
        direction: usize,
        weights: &[f64],
    ) -> Result<SplitLattice> {
        let n = devices.len();
        let l = self.split_extent(devices, direction)?;
        if weights.len() != n || weights.iter().any(|w| !(w.is_finite() && *w > 0.0)) {
            return Err(Error::InvalidArgument(format!(
                "a split over {n} devices needs {n} finite positive weights, not {weights:?}"
            )));
        }
        let widths = weighted_widths(l / 2, weights)
            .into_iter()
            .map(|pairs| 2 * pairs)
            .collect::<Vec<_>>();
        self.split_into(devices, direction, &widths)
    }

    /// The extent along `direction`, checked to give every device two sites.
    fn split_extent(&self, devices: &Devices, direction: usize) -> Result<usize> {
        let n = devices.len();
        if direction >= DIMS {
            return Err(Error::InvalidArgument(format!(
                "direction {direction} is not one of 0..{DIMS}"
            )));
        }
        let l = self.extents()[direction];
        if l < 2 * n {
            return Err(Error::InvalidArgument(format!(
                "the {self} cannot be split over {n} devices along direction {direction}: \
                 its extent {l} gives fewer than two sites per device"
            )));
        }
        Ok(l)
    }

    /// The split into slabs of `widths` (even, summing to the extent) along `direction`.
    fn split_into(
        &self,
        devices: &Devices,
        direction: usize,
        widths: &[usize],
    ) -> Result<SplitLattice> {
        let n = devices.len();
        let mut start = 0;
        let mut parts = Vec::with_capacity(n);
        for &width in widths {
            parts.push(part(
                self,
                direction,
                start..start + width,
                usize::from(n > 1),
            )?);
            start += width;
        }
        debug_assert_eq!(start, self.extents()[direction]);
        Ok(SplitLattice {
            inner: intern(Inner {
                whole: *self,
                direction,
                devices: devices.clone(),
                parts,
                refreshes: RefreshCount::default(),
            }),
        })
    }
}

/// `pairs` layer pairs shared in proportion to `weights`, at least one each: the floor of
/// each share (at least one), then single pairs moved to or from the parts furthest from
/// their share until the sum is right.
fn weighted_widths(pairs: usize, weights: &[f64]) -> Vec<usize> {
    let total: f64 = weights.iter().sum();
    let ideal: Vec<f64> = weights.iter().map(|w| pairs as f64 * w / total).collect();
    let mut got: Vec<usize> = ideal.iter().map(|x| (x.floor() as usize).max(1)).collect();
    let gap = |got: &[usize], p: usize| ideal[p] - got[p] as f64;
    loop {
        let sum: usize = got.iter().sum();
        let by_gap = |a: &usize, b: &usize| gap(&got, *a).total_cmp(&gap(&got, *b));
        if sum < pairs {
            // (`max_by` keeps the last of equals: reversed, ties go to the first part.)
            let p = (0..got.len())
                .rev()
                .max_by(by_gap)
                .expect("at least one part");
            got[p] += 1;
        } else if sum > pairs {
            let p = (0..got.len())
                .filter(|&p| got[p] > 1)
                .min_by(by_gap)
                .expect("the extent gives every part one pair");
            got[p] -= 1;
        } else {
            return got;
        }
    }
}

/// The interned copy of `inner`.
fn intern(inner: Inner) -> &'static Inner {
    static SPLITS: Mutex<Vec<&'static Inner>> = Mutex::new(Vec::new());
    let mut splits = SPLITS.lock().unwrap_or_else(PoisonError::into_inner);
    let same = |s: &&&'static Inner| {
        s.whole == inner.whole
            && s.direction == inner.direction
            && s.devices == inner.devices
            && s.parts
                .iter()
                .map(|p| (&p.slab, p.halo))
                .eq(inner.parts.iter().map(|p| (&p.slab, p.halo)))
    };
    if let Some(s) = splits.iter().find(same) {
        return s;
    }
    let leaked: &'static Inner = Box::leak(Box::new(inner));
    splits.push(leaked);
    leaked
}

/// The part lattice of the slab `slab` along `direction` with `depth` halo layers on each
/// side (0 for the only part).
fn part(whole: &Lattice, direction: usize, slab: Range<usize>, depth: usize) -> Result<Part> {
    let global = whole.extents().map(|l| l as u64);
    if depth == 0 {
        return Ok(Part {
            lattice: *whole,
            slab,
            halo: 0,
        });
    }
    let mut dims = global;
    dims[direction] = (slab.len() + 2 * depth) as u64;
    let volume: u64 = dims.iter().product();
    if volume > u32::MAX as u64 {
        return Err(Error::InvalidLattice {
            extents: whole.extents(),
            reason: "a part with its halos exceeds 2^32 - 1 sites".to_string(),
        });
    }
    let mut origin = [0u64; DIMS];
    let l = global[direction];
    origin[direction] = (slab.start as u64 + l - depth as u64) % l;
    Ok(Part {
        lattice: Lattice::stored(dims, direction, origin, global, 1 << direction),
        slab,
        halo: depth,
    })
}

impl SplitLattice {
    /// The whole lattice.
    pub fn lattice(&self) -> Lattice {
        self.inner.whole
    }

    /// The direction of the cuts.
    pub fn direction(&self) -> usize {
        self.inner.direction
    }

    /// Number of parts (devices).
    pub fn parts(&self) -> usize {
        self.inner.parts.len()
    }

    /// The devices of the parts.
    pub fn devices(&self) -> &Devices {
        &self.inner.devices
    }

    /// Coordinates along the split direction of part `p`'s slab.
    pub fn slab(&self, p: usize) -> Range<usize> {
        self.inner.parts[p].slab.clone()
    }

    /// Waits until the work queued on every part's device has finished (and reports an
    /// error it raised): what a timing of calls over the split lattice ends with.
    pub fn synchronize(&self) -> Result<()> {
        #[cfg(feature = "cuda")]
        if crate::backend::current()? == crate::backend::Backend::Cuda {
            for p in 0..self.parts() {
                super::run::on_part_device(self, p, || crate::cuda::device()?.synchronize())?;
            }
        }
        Ok(())
    }

    /// Number of sites of the whole lattice.
    pub fn volume(&self) -> usize {
        self.inner.whole.volume()
    }

    /// The even sites, as the index space of a call.
    pub fn even(&self) -> SplitSubset {
        self.subset(Some(0))
    }

    /// The odd sites, as the index space of a call.
    pub fn odd(&self) -> SplitSubset {
        self.subset(Some(1))
    }

    /// All sites, as the index space of a call.
    pub fn all(&self) -> SplitSubset {
        self.subset(None)
    }

    fn subset(&self, parity: Option<usize>) -> SplitSubset {
        SplitSubset {
            split: *self,
            parity,
        }
    }

    /// How many times the halos of this split's fields were refreshed, per parity: every
    /// field of every split equal to this one, since the process began (take differences).
    pub fn halo_refreshes(&self) -> HaloRefreshes {
        self.inner.refreshes.get()
    }

    /// The counter of [`halo_refreshes`](Self::halo_refreshes).
    pub(crate) fn refresh_count(&self) -> &'static RefreshCount {
        &self.inner.refreshes
    }

    /// How many layers deep each part's halos are along the split direction (0 for a split
    /// into one part, which has none).
    pub fn halo_depth(&self) -> usize {
        self.inner.parts[0].halo
    }

    /// This split with halos `depth` layers deep, for calls whose shifts reach further than
    /// the nearest neighbour along the split direction (HISQ's Naik term and smearing reach
    /// three sites). Deeper halos cost memory (`2 · depth` layers per part) and exchange
    /// traffic, so a split starts with one. An error if `depth` is 0 or exceeds a slab's
    /// width (a halo holds the neighbour's own layers only). A split into one part has no
    /// halos and is returned as it is.
    pub fn with_halo_depth(&self, depth: usize) -> Result<SplitLattice> {
        if self.parts() == 1 {
            return Ok(*self);
        }
        let narrowest = self.inner.parts.iter().map(|p| p.slab.len()).min();
        if depth == 0 || narrowest.is_some_and(|w| depth > w) {
            return Err(Error::InvalidArgument(format!(
                "halos {depth} layers deep on {self}: the depth must lie between 1 and the \
                 narrowest slab's width, {}",
                narrowest.unwrap_or(0)
            )));
        }
        let inner = &self.inner;
        let parts = inner
            .parts
            .iter()
            .map(|p| part(&inner.whole, inner.direction, p.slab.clone(), depth))
            .collect::<Result<Vec<_>>>()?;
        Ok(SplitLattice {
            inner: intern(Inner {
                whole: inner.whole,
                direction: inner.direction,
                devices: inner.devices.clone(),
                parts,
                refreshes: RefreshCount::default(),
            }),
        })
    }

    /// Part `p` (interned: it lives as long as the process).
    pub(crate) fn part(&self, p: usize) -> &'static Part {
        &self.inner.parts[p]
    }

    /// The split's identity (equal splits are one, see `Inner`): fields of the same split
    /// have the same parts.
    pub(crate) fn id(&self) -> u64 {
        self.inner as *const Inner as u64
    }
}

/// Split lattices are equal when they are one split (the same parts on the same devices).
impl PartialEq for SplitLattice {
    fn eq(&self, other: &SplitLattice) -> bool {
        self.id() == other.id()
    }
}
impl Eq for SplitLattice {}

impl std::fmt::Display for SplitLattice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the {} split over {} devices{} along direction {}",
            self.inner.whole,
            self.parts(),
            if self.inner.devices.has_host() {
                " (the last the host's CPU threads)"
            } else {
                ""
            },
            self.inner.direction
        )
    }
}

impl SplitSubset {
    /// The split lattice.
    pub fn split(&self) -> &SplitLattice {
        &self.split
    }

    /// `Some(0)` for the even sites, `Some(1)` for the odd ones, `None` for all.
    pub fn parity(&self) -> Option<usize> {
        self.parity
    }
}

impl std::fmt::Display for SplitSubset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.parity {
            None => write!(f, "{}", self.split),
            Some(0) => write!(f, "the even sites of {}", self.split),
            Some(_) => write!(f, "the odd sites of {}", self.split),
        }
    }
}

impl Part {
    /// Sites of one layer of one parity (the split direction's cross-section / 2).
    pub(crate) fn layer_half(&self) -> usize {
        let ext = self.lattice.extents();
        let section: usize = ext.iter().product::<usize>() / ext[self.direction()];
        section / 2
    }

    fn direction(&self) -> usize {
        // The halo mask names the direction; a part without halos is the whole lattice,
        // whose layers are along the slowest storage direction.
        self.lattice.slowest()
    }

    /// The part's own sites (not its halos) of parity `parity` (both when `None`), as
    /// ranges of part-lattice indices; with halos, layer 0 and the last layer are left out.
    pub(crate) fn owned(&self, parity: Option<usize>) -> Vec<Range<usize>> {
        let half = self.lattice.volume() / 2;
        let skip = self.halo * self.layer_half();
        let one = |p: usize| p * half + skip..(p + 1) * half - skip;
        match parity {
            Some(p) => vec![one(p)],
            None => vec![one(0), one(1)],
        }
    }

    /// The part's own sites of parity `parity` (both when `None`) split in two: the interior,
    /// whose neighbours within the halo depth are all the part's own, and the boundary
    /// layers next to the halos, whose shifted reads need the halos. Empty ranges are left
    /// out (a slab of two layers has no interior).
    pub(crate) fn interior_and_boundary(
        &self,
        parity: Option<usize>,
    ) -> (Vec<Range<usize>>, Vec<Range<usize>>) {
        let parities = parity.map_or(vec![0, 1], |p| vec![p]);
        let h = self.halo;
        debug_assert!(h > 0, "a part without halos has no boundary");
        let layers = self.layers();
        let (mut interior, mut boundary) = (Vec::new(), Vec::new());
        for par in parities {
            // Layers a..b of this parity as one range of sites (empty when b <= a).
            let span =
                |a: usize, b: usize| self.layer(a, par).start..self.layer(b.max(a), par).start;
            // Own layers are h..layers-h; those within h of a halo are the boundary.
            let inner = span(2 * h, layers - 2 * h);
            let lo = span(h, (2 * h).min(layers - h));
            let hi = span((layers - 2 * h).max(2 * h), layers - h);
            interior.extend([inner].into_iter().filter(|r| !r.is_empty()));
            boundary.extend([lo, hi].into_iter().filter(|r| !r.is_empty()));
        }
        (interior, boundary)
    }

    /// Layer `layer` (0 = the lower halo) of parity `parity`, as a range of indices.
    pub(crate) fn layer(&self, layer: usize, parity: usize) -> Range<usize> {
        let half = self.lattice.volume() / 2;
        let lh = self.layer_half();
        parity * half + layer * lh..parity * half + (layer + 1) * lh
    }

    /// Number of layers along the split direction (slab plus halos).
    pub(crate) fn layers(&self) -> usize {
        self.slab.len() + 2 * self.halo
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Interior and boundary together are the owned sites, each once, and the boundary is
    /// exactly the own layers within the halo depth of a halo, for halos 1 to 3 deep.
    #[test]
    fn interior_and_boundary_partition_the_owned_sites() {
        for (t, parts) in [(4, 2), (6, 2), (8, 2), (12, 4), (6, 3), (12, 3), (16, 2)] {
            let lat = Lattice::new([2, 2, 2, t]).unwrap();
            let shallow = lat
                .split_along(&Devices::emulated(parts).unwrap(), 3)
                .unwrap();
            for depth in 1..=3 {
                let Ok(split) = shallow.with_halo_depth(depth) else {
                    assert!(
                        depth > t / parts - 1,
                        "t = {t}, {parts} parts, depth {depth}"
                    );
                    continue;
                };
                for p in 0..parts {
                    let part = split.part(p);
                    assert_eq!(part.halo, depth);
                    for parity in [None, Some(0), Some(1)] {
                        let (interior, boundary) = part.interior_and_boundary(parity);
                        let mut got: Vec<usize> = interior
                            .iter()
                            .chain(&boundary)
                            .flat_map(|r| r.clone())
                            .collect();
                        got.sort_unstable();
                        let want: Vec<usize> = part.owned(parity).into_iter().flatten().collect();
                        assert_eq!(got, want, "t = {t}, {parts} parts, part {p}, {parity:?}");
                        let layers = part.layers();
                        for par in parity.map_or(vec![0, 1], |q| vec![q]) {
                            for l in [depth, layers - 1 - depth] {
                                for s in part.layer(l, par) {
                                    assert!(boundary.iter().any(|r| r.contains(&s)));
                                }
                            }
                        }
                        let n_boundary: usize = boundary.iter().map(|r| r.len()).sum();
                        let sides = parity.map_or(2, |_| 1) * part.layer_half();
                        let own_layers = part.layers() - 2 * depth;
                        assert_eq!(n_boundary, sides * own_layers.min(2 * depth));
                    }
                }
            }
        }
    }
}
