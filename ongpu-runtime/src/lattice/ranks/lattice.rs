//! [`RankLattice`]: this rank's block of a lattice cut over the ranks of an MPI run, stored
//! with halos along the cut directions, and the boxes its calls and exchanges run over.

use super::boxes::{self, Round};
use super::grid::ProcessGrid;
use crate::error::{Error, Result};
use crate::geometry::{Lattice, DIMS};
use crate::lattice::halos::{HaloRefreshes, RefreshCount};
use crate::mpi::World;
use std::ops::Range;
use std::sync::{Mutex, OnceLock, PoisonError};

/// A [`Lattice`] cut over the ranks of an MPI run on a [`ProcessGrid`]: this rank holds its
/// block plus halos `depth` sites deep along every cut direction.
///
/// Fields of it ([`RankField`](crate::RankField)) hold only this rank's block and halos;
/// `on_gpu!` runs unchanged over `lat.even()`, `lat.odd()` or the rank lattice itself: each
/// rank runs its own sites, and a call that shifts a field written since its last exchange
/// refreshes that field's halos from the neighbouring ranks first (MPI `Isend`/`Irecv`, or
/// CUDA IPC, under the call's interior). Like a
/// `Lattice` it is `Copy`: rank lattices are interned. `docs/multi-node.md` gives the
/// design.
///
/// ```no_run
/// use ongpu_runtime::{mpi::World, Lattice};
/// let world = World::init()?;
/// let lat = Lattice::new([16, 16, 16, 32])?.over_ranks(&world, [1, 1, 2, 2])?;
/// assert_eq!(lat.local_extents(), [16, 16, 8, 16]);
/// # Ok::<(), ongpu_runtime::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct RankLattice {
    inner: &'static Inner,
}

/// A rank lattice's geometry, interned (one per lattice, grid, rank and depth).
pub(crate) struct Inner {
    whole: Lattice,
    grid: ProcessGrid,
    rank: usize,
    depth: usize,
    /// The block plus its halos, with the whole lattice's coordinates and parities.
    pub(crate) part: Lattice,
    /// Boxes of `part`: 0 is the owned block; then the interior (when there is one) and the
    /// boundary boxes; the faces of the exchange rounds follow.
    pub(crate) boxes: Vec<Lattice>,
    /// The owned block split as interior boxes and boundary boxes (indices into `boxes`).
    pub(crate) interior: Vec<usize>,
    pub(crate) boundary: Vec<usize>,
    /// One exchange round per cut direction, in direction order.
    pub(crate) rounds: Vec<Round>,
    /// Per box and parity (0, 1), the box's sites as runs of `part` indices.
    runs: Vec<[OnceLock<Vec<Range<usize>>>; 2]>,
    /// Per box and parity (0, 1, both), the same indices on the device, for the face
    /// kernels (made when first needed).
    #[cfg(feature = "cuda")]
    device_sites: Vec<[OnceLock<crate::cuda::DeviceBuffer>; 3]>,
    /// Halo refreshes of every field of the rank lattice.
    refreshes: RefreshCount,
}

/// Which sites of a rank lattice a call runs.
#[derive(Debug, Clone, Copy)]
pub struct RankSubset {
    lattice: RankLattice,
    parity: Option<usize>,
}

impl Lattice {
    /// This lattice cut over the ranks of `world` on a process grid of `dims[mu]` blocks
    /// along each direction, with one-site halos (what nearest-neighbour stencils need).
    ///
    /// A grid that does not fit (blocks that do not multiply to the rank count, extents
    /// that do not divide, blocks narrower than 2 sites) is an [`Error::InvalidLattice`]
    /// naming the extents, on every rank, before anything is allocated.
    pub fn over_ranks(&self, world: &World, dims: [usize; DIMS]) -> Result<RankLattice> {
        RankLattice::new(world, &ProcessGrid::new(self, world.size(), dims)?, 1)
    }

    /// This lattice cut over the ranks of `world` on the process grid with the fewest halo
    /// sites per rank ([`ProcessGrid::auto`]), with one-site halos.
    pub fn over_ranks_auto(&self, world: &World) -> Result<RankLattice> {
        RankLattice::new(world, &ProcessGrid::auto(self, world.size())?, 1)
    }
}

impl RankLattice {
    /// The lattice of `grid` as this rank of `world` holds it, with halos `depth` sites deep
    /// (shifts of up to `depth` sites along a cut direction read them).
    pub fn new(world: &World, grid: &ProcessGrid, depth: usize) -> Result<RankLattice> {
        if grid.ranks() != world.size() {
            return Err(Error::InvalidArgument(format!(
                "a process grid of {} blocks for a run of {} ranks",
                grid.ranks(),
                world.size()
            )));
        }
        let local = grid.local_extents();
        for mu in (0..DIMS).filter(|&mu| grid.is_cut(mu)) {
            let others = grid.extents()[mu] - local[mu];
            if depth == 0 || depth > local[mu] || 2 * depth > others {
                return Err(Error::InvalidLattice {
                    extents: grid.extents(),
                    reason: format!(
                        "halos {depth} sites deep along direction {mu}, whose blocks are \
                         {} sites wide: the depth must be at least 1, at most the block's \
                         width, and at most half of the {others} sites the other blocks hold \
                         (halos on both sides must not meet)",
                        local[mu]
                    ),
                });
            }
        }
        let whole = Lattice::new(grid.extents())?;
        Ok(RankLattice {
            inner: intern(whole, *grid, world.rank(), depth)?,
        })
    }

    /// The whole lattice.
    pub fn lattice(&self) -> Lattice {
        self.inner.whole
    }

    /// The process grid.
    pub fn grid(&self) -> &ProcessGrid {
        &self.inner.grid
    }

    /// This process's rank.
    pub fn rank(&self) -> usize {
        self.inner.rank
    }

    /// Halo depth along the cut directions.
    pub fn depth(&self) -> usize {
        self.inner.depth
    }

    /// Extents of this rank's block.
    pub fn local_extents(&self) -> [usize; DIMS] {
        self.inner.grid.local_extents()
    }

    /// Coordinates, in the whole lattice, of this rank's first site.
    pub fn origin(&self) -> [usize; DIMS] {
        self.inner.grid.origin(self.inner.rank)
    }

    /// Number of sites of the whole lattice.
    pub fn volume(&self) -> usize {
        self.inner.whole.volume()
    }

    /// Number of sites this rank owns.
    pub fn local_volume(&self) -> usize {
        self.local_extents().iter().product()
    }

    /// Sites this rank stores: its block and its halos.
    pub fn stored_volume(&self) -> usize {
        self.inner.part.volume()
    }

    /// Whether this rank owns the site at whole-lattice coordinates `x`.
    pub fn owns(&self, x: [usize; DIMS]) -> bool {
        self.inner.grid.owner(x) == self.inner.rank
    }

    /// The even sites, as the index space of a call.
    pub fn even(&self) -> RankSubset {
        self.subset(Some(0))
    }

    /// The odd sites, as the index space of a call.
    pub fn odd(&self) -> RankSubset {
        self.subset(Some(1))
    }

    /// All sites, as the index space of a call.
    pub fn all(&self) -> RankSubset {
        self.subset(None)
    }

    fn subset(&self, parity: Option<usize>) -> RankSubset {
        RankSubset {
            lattice: *self,
            parity,
        }
    }

    /// How many times this rank's halos of the rank lattice's fields were refreshed, per
    /// parity: every field of every rank lattice equal to this one, since the process began
    /// (take differences).
    pub fn halo_refreshes(&self) -> HaloRefreshes {
        self.inner.refreshes.get()
    }

    /// The counter of [`halo_refreshes`](Self::halo_refreshes).
    pub(crate) fn refresh_count(&self) -> &'static RefreshCount {
        &self.inner.refreshes
    }

    /// The geometry.
    pub(crate) fn inner(&self) -> &'static Inner {
        self.inner
    }

    /// The rank lattice's identity (equal rank lattices are one): fields of the same rank
    /// lattice go together.
    pub(crate) fn id(&self) -> u64 {
        self.inner as *const Inner as u64
    }
}

impl Inner {
    /// Whether the lattice is cut at all (with one rank, or none cut, there are no halos).
    pub(crate) fn has_halos(&self) -> bool {
        !self.rounds.is_empty()
    }

    /// Box `b`'s sites of parity `parity` (both when `None`, even first) as runs of part
    /// indices, in the box's order.
    pub(crate) fn runs(&self, b: usize, parity: Option<usize>) -> Vec<Range<usize>> {
        let one = |p: usize| {
            self.runs[b][p]
                .get_or_init(|| boxes::runs(&self.part, &self.boxes[b], p))
                .clone()
        };
        match parity {
            Some(p) => one(p),
            None => [one(0), one(1)].concat(),
        }
    }

    /// Box `b`'s sites of parity `parity` as part indices in device memory of `dev`, and
    /// their number: the site list of the face kernels (uploaded when first asked for).
    #[cfg(feature = "cuda")]
    pub(crate) fn device_sites(
        &self,
        dev: &'static crate::cuda::Device,
        b: usize,
        parity: Option<usize>,
    ) -> Result<(u64, u64)> {
        let cell = &self.device_sites[b][parity.unwrap_or(2)];
        if cell.get().is_none() {
            let sites: Vec<u32> = self
                .runs(b, parity)
                .into_iter()
                .flatten()
                .map(|s| s as u32)
                .collect();
            let what = "the site list of a halo face";
            let mut buf = crate::cuda::DeviceBuffer::alloc(dev, 4 * sites.len(), what)?;
            buf.upload(&sites)?;
            // A copy from pageable memory returns before its DMA has landed, ordered only on
            // the default stream: waited for here, so that face kernels on any stream read
            // the list whole.
            let landed = crate::cuda::peer::DeviceEvent::new(dev)?;
            landed.record_on(std::ptr::null_mut())?;
            landed.synchronize()?;
            let _ = cell.set(buf);
        }
        let buf = cell.get().expect("set above");
        Ok((buf.ptr(), (buf.bytes() / 4) as u64))
    }

    /// Box `b`'s indices (into its own order) of parity `parity` (both when `None`).
    pub(crate) fn box_range(&self, b: usize, parity: Option<usize>) -> Range<usize> {
        let bx = &self.boxes[b];
        match parity {
            Some(p) => bx.subset_range(p),
            None => 0..bx.volume(),
        }
    }
}

/// The interned geometry of `grid`'s block `rank` of `whole` with halos `depth` deep.
fn intern(whole: Lattice, grid: ProcessGrid, rank: usize, depth: usize) -> Result<&'static Inner> {
    static LATTICES: Mutex<Vec<&'static Inner>> = Mutex::new(Vec::new());
    let mut all = LATTICES.lock().unwrap_or_else(PoisonError::into_inner);
    let same = |l: &&&'static Inner| l.grid == grid && l.rank == rank && l.depth == depth;
    if let Some(l) = all.iter().find(same) {
        return Ok(l);
    }
    let layout = boxes::Layout::new(&whole, &grid, rank, depth)?;
    let runs = (0..layout.boxes.len())
        .map(|_| [OnceLock::new(), OnceLock::new()])
        .collect();
    #[cfg(feature = "cuda")]
    let device_sites = (0..layout.boxes.len())
        .map(|_| [OnceLock::new(), OnceLock::new(), OnceLock::new()])
        .collect();
    let inner: &'static Inner = Box::leak(Box::new(Inner {
        whole,
        grid,
        rank,
        depth,
        part: layout.part,
        boxes: layout.boxes,
        interior: layout.interior,
        boundary: layout.boundary,
        rounds: layout.rounds,
        runs,
        #[cfg(feature = "cuda")]
        device_sites,
        refreshes: RefreshCount::default(),
    }));
    all.push(inner);
    Ok(inner)
}

impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RankLattice")
            .field("whole", &self.whole.extents())
            .field("grid", &self.grid.dims())
            .field("rank", &self.rank)
            .field("depth", &self.depth)
            .field("stored", &self.part.extents())
            .finish()
    }
}

/// Rank lattices are equal when they are one cut (the same lattice, grid and halo depth).
impl PartialEq for RankLattice {
    fn eq(&self, other: &RankLattice) -> bool {
        self.id() == other.id()
    }
}
impl Eq for RankLattice {}

impl std::fmt::Display for RankLattice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let d = self.inner.grid.dims();
        write!(
            f,
            "rank {} of the {} cut over a {}x{}x{}x{} process grid",
            self.inner.rank, self.inner.whole, d[0], d[1], d[2], d[3]
        )
    }
}

impl RankSubset {
    /// The rank lattice.
    pub fn lattice(&self) -> &RankLattice {
        &self.lattice
    }

    /// `Some(0)` for the even sites, `Some(1)` for the odd ones, `None` for all.
    pub fn parity(&self) -> Option<usize> {
        self.parity
    }
}

impl std::fmt::Display for RankSubset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.parity {
            None => write!(f, "{}", self.lattice),
            Some(0) => write!(f, "the even sites of {}", self.lattice),
            Some(_) => write!(f, "the odd sites of {}", self.lattice),
        }
    }
}
