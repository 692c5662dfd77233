//! [`RankField`]: a field of a lattice cut over ranks: this rank's block and halos, with the
//! halos kept current by the calls that write it.

use super::lattice::RankLattice;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::field::Field;
use crate::geometry::{Lattice, DIMS};
use crate::lattice::halos::{HaloRefreshes, HaloState};
use crate::layout::{AoS, Layout};
use crate::mpi::gather::gather_on;
use crate::mpi::world::world_comm;

/// A field over a [`RankLattice`]: the elements of this rank's block and of its halos, in
/// the stored part's site order (a lattice of its own, with the whole lattice's coordinates
/// and parities).
///
/// `on_gpu!` captures it as it captures a [`Field`] (read, written, shifted), in calls over
/// the rank lattice. A call that writes it marks the halos of the sites it wrote stale; the
/// next call that shifts it refreshes them from the neighbouring ranks (its interior runs
/// while the faces travel), so shifts read current neighbours and calls that do not shift
/// it exchange nothing. Host access goes through
/// whole-lattice values: [`from_fn`](RankField::from_fn) and
/// [`from_field`](RankField::from_field) take them, [`to_vec`](RankField::to_vec) gathers
/// them on every rank.
#[derive(Debug)]
pub struct RankField<T: Element, L: Layout = AoS> {
    pub(crate) lattice: RankLattice,
    pub(crate) part: Field<T, L>,
    /// Which parities' halos are stale.
    pub(crate) state: HaloState,
}

impl<T: Element, L: Layout> RankField<T, L> {
    /// A field whose element at whole-lattice site `i` is `f(i)` (called for this rank's
    /// sites and halos only).
    pub fn from_fn(lattice: &RankLattice, mut f: impl FnMut(usize) -> T) -> Result<Self> {
        let (whole, part) = (lattice.lattice(), lattice.inner().part);
        Ok(RankField {
            lattice: *lattice,
            part: Field::from_fn(part.volume(), |j| f(whole.index(part.coords(j)))),
            state: HaloState::default(),
        })
    }

    /// A field of zeros.
    pub fn zeros(lattice: &RankLattice) -> Result<Self> {
        Ok(RankField {
            lattice: *lattice,
            part: Field::zeros(lattice.stored_volume()),
            state: HaloState::default(),
        })
    }

    /// A field of copies of `value`.
    pub fn filled(lattice: &RankLattice, value: T) -> Result<Self> {
        Self::from_fn(lattice, |_| value)
    }

    /// This rank's part of a whole-lattice field (which every rank holds whole).
    pub fn from_field<M: Layout>(lattice: &RankLattice, field: &Field<T, M>) -> Result<Self> {
        if field.len() != lattice.volume() {
            return Err(Error::InvalidArgument(format!(
                "a field of {} elements cannot be cut as {}: it needs {} elements",
                field.len(),
                lattice,
                lattice.volume()
            )));
        }
        let values = field.to_vec()?;
        Self::from_fn(lattice, |i| values[i])
    }

    /// The whole lattice's elements in its site order, on every rank: a collective (every
    /// rank calls it), gathering each rank's block.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let comm = world_comm()?;
        let mine = self.owned()?;
        let all = gather_on(&comm, &mine);
        let whole = self.lattice.lattice();
        let grid = self.lattice.grid();
        let mut out = vec![T::zeroed(); whole.volume()];
        let per_rank = self.lattice.local_volume();
        for (r, values) in all.chunks(per_rank).enumerate() {
            let block = owned_box(&whole, grid.origin(r), grid.local_extents());
            for (j, v) in values.iter().enumerate() {
                out[whole.index(block.coords(j))] = *v;
            }
        }
        Ok(out)
    }

    /// The whole-lattice field, on every rank (a collective, as [`to_vec`](Self::to_vec)).
    pub fn to_field<M: Layout>(&self) -> Result<Field<T, M>> {
        Ok(Field::from_vec(self.to_vec()?))
    }

    /// This rank's own elements, in the order of its block (even sites first, then odd,
    /// each lexicographic with direction 0 fastest, over the block's extents).
    pub fn owned(&self) -> Result<Vec<T>> {
        let values = self.part.to_vec()?;
        let inner = self.lattice.inner();
        Ok(inner
            .runs(0, None)
            .into_iter()
            .flat_map(|r| values[r].to_vec())
            .collect())
    }

    /// The rank lattice.
    pub fn lattice(&self) -> &RankLattice {
        &self.lattice
    }

    /// How many times this field's halos were refreshed (by calls that shifted it after it
    /// was written), per parity: what the exchange tests count.
    pub fn halo_refreshes(&self) -> HaloRefreshes {
        self.state.refreshes()
    }

    /// The stored part (block and halos) as a field of the part's sites. Its halos are
    /// those of the last exchange: stale after a call wrote the field, until a call shifts it.
    pub fn part(&self) -> &Field<T, L> {
        &self.part
    }

    /// Number of sites of the whole lattice.
    pub fn len(&self) -> usize {
        self.lattice.volume()
    }

    /// True for a field of no sites (never: a lattice has sites).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The block of extents `local` at `origin` of `whole`, as a box with its own even-odd
/// order (the order of [`RankField::owned`]).
pub(crate) fn owned_box(whole: &Lattice, origin: [usize; DIMS], local: [usize; DIMS]) -> Lattice {
    Lattice::stored(
        local.map(|l| l as u64),
        DIMS - 1,
        origin.map(|x| x as u64),
        whole.extents().map(|l| l as u64),
        0,
    )
}
