//! Where a program's fields live, as one trait: a whole [`Lattice`], a [`SplitLattice`] over
//! the devices of one process, or (the `mpi` feature) a
//! [`RankLattice`](crate::RankLattice) cut over the ranks of an MPI run. A function written
//! over `S: Space` (the gauge field, the updates, the operators and solvers of `ongpu-qcd`)
//! runs unchanged on all three: its `on_gpu!` calls capture `S::Field`s and run over
//! `S::Subset`s, and the macro's type checking sees each capture's element type through the
//! bounds of [`SpaceField`].

use crate::capture::{ReadCapture, WriteCapture};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::field::Field;
use crate::geometry::{Lattice, Subset};
use crate::lattice::halos::HaloRefreshes;
use crate::lattice::shift::{ShiftCapture, ShiftView};
use crate::lattice::shift_lanes::LaneShiftView;
use crate::lattice::space::{IndexSpace, LatticeSpace};
use crate::lattice::split::{SplitField, SplitLattice, SplitSubset};
use crate::layout::Layout;

/// A lattice that fields live on: the index space of `on_gpu!` calls (all sites, or a
/// parity), and the maker of its fields. Its [`LatticeSpace::lattice`] is the whole lattice;
/// a body that captures the space reads coordinates of the whole lattice through it
/// (`lat.coord(i, mu)`, `lat.site(i)`).
pub trait Space:
    Copy
    + Send
    + Sync
    + std::fmt::Debug
    + std::fmt::Display
    + PartialEq
    + IndexSpace
    + LatticeSpace
    + ReadCapture<Site = Lattice>
    + 'static
{
    /// A field of elements `T` in layout `L` over this space.
    type Field<T: Element, L: Layout>: SpaceField<T, L>;
    /// All sites or one parity: what a call over part of the space runs.
    type Subset: SpaceSubset<Space = Self>;

    /// The whole lattice (for a [`Lattice`], itself).
    fn whole(&self) -> Lattice {
        LatticeSpace::lattice(self)
    }
    /// The even sites.
    fn even(&self) -> Self::Subset;
    /// The odd sites.
    fn odd(&self) -> Self::Subset;
    /// Every site.
    fn all(&self) -> Self::Subset;
    /// The sites of parity `p` (0 even, 1 odd).
    fn of_parity(&self, p: usize) -> Self::Subset {
        if p == 0 {
            self.even()
        } else {
            self.odd()
        }
    }
    /// A field whose element at whole-lattice site `i` is `f(i)` (called for the sites this
    /// process stores).
    fn field_from_fn<T: Element, L: Layout>(
        &self,
        f: impl FnMut(usize) -> T,
    ) -> Result<Self::Field<T, L>>;
    /// A field of the whole lattice's `values` (in its site order, `volume()` of them: the
    /// caller has checked). A whole lattice takes the vector as its storage, without a copy.
    fn field_from_vec<T: Element, L: Layout>(&self, values: Vec<T>) -> Result<Self::Field<T, L>> {
        self.field_from_fn(|i| values[i])
    }
    /// A field of zeros.
    fn zeros<T: Element, L: Layout>(&self) -> Result<Self::Field<T, L>>;

    /// Whether this process speaks for the space: writes the files and prints the reports
    /// that all of its processes share. True, except on the ranks other than 0 of a
    /// lattice cut over MPI ranks.
    fn is_root(&self) -> bool {
        true
    }

    /// `result` as every process of the space sees it: for a lattice cut over ranks, `Ok`
    /// on every rank when every rank's is, and otherwise the same error (naming the ranks
    /// that failed) on every rank (`World::agree` of the `mpi` feature, a
    /// collective); in one process, `result` itself. Call it after a step that can fail on
    /// some processes only (a file one rank writes, memory one rank lacks), before the next
    /// collective.
    fn agree<R>(&self, result: Result<R>) -> Result<R> {
        result
    }
    /// An [`Error::InvalidArgument`] naming `what` unless `field` is a field of this space.
    fn check_field<T: Element, L: Layout>(
        &self,
        field: &Self::Field<T, L>,
        what: &str,
    ) -> Result<()>;
    /// A field of copies of `value`.
    fn filled<T: Element, L: Layout>(&self, value: T) -> Result<Self::Field<T, L>> {
        self.field_from_fn(|_| value)
    }
    /// How many times the halos of this space's fields were refreshed (this process's, per
    /// parity; none for a whole lattice, which has no halos): take differences around the
    /// calls to count their exchanges.
    fn halo_refreshes(&self) -> HaloRefreshes {
        HaloRefreshes::default()
    }
    /// Waits until the work queued on every device of the space has finished (this
    /// process's: its GPU, or each part's for a split lattice), and reports an error it
    /// raised: what a host-clock timing of calls over the space ends with.
    fn synchronize(&self) -> Result<()> {
        crate::backend::synchronize()
    }
}

/// All sites or one parity of a [`Space`]: the index space of a call. A function that takes
/// one (`fn hop<P: SpaceSubset>(sites: P, u: &<P::Space as Space>::Field<..>)`) learns its
/// space from it.
pub trait SpaceSubset: Copy + Send + Sync + std::fmt::Debug + IndexSpace + LatticeSpace {
    /// The space whose sites these are.
    type Space: Space;
}

impl SpaceSubset for Subset {
    type Space = Lattice;
}

impl SpaceSubset for SplitSubset {
    type Space = SplitLattice;
}

/// A field over a [`Space`]: captured by `on_gpu!` bodies as its element `T` (read, written
/// or shifted), and read back in the whole lattice's site order.
pub trait SpaceField<T: Element, L: Layout>:
    ReadCapture<Site = T>
    + WriteCapture<Site = T>
    + ShiftCapture<Site = ShiftView<T, L>, LaneSite = LaneShiftView<T, L>>
    + Send
    + Sync
{
    /// The elements in the whole lattice's site order (over ranks: gathered on every rank,
    /// a collective call).
    fn values(&self) -> Result<Vec<T>>;
    /// How many times this field's halos were refreshed, per parity (none for a field of a
    /// whole lattice).
    fn halo_refreshes(&self) -> HaloRefreshes {
        HaloRefreshes::default()
    }
}

impl Space for Lattice {
    type Field<T: Element, L: Layout> = Field<T, L>;
    type Subset = Subset;

    fn even(&self) -> Subset {
        Lattice::even(self)
    }
    fn odd(&self) -> Subset {
        Lattice::odd(self)
    }
    fn all(&self) -> Subset {
        Lattice::all(self)
    }
    fn field_from_fn<T: Element, L: Layout>(
        &self,
        f: impl FnMut(usize) -> T,
    ) -> Result<Field<T, L>> {
        Ok(Field::from_fn(self.volume(), f))
    }
    fn field_from_vec<T: Element, L: Layout>(&self, values: Vec<T>) -> Result<Field<T, L>> {
        Ok(Field::from_vec(values))
    }
    fn zeros<T: Element, L: Layout>(&self) -> Result<Field<T, L>> {
        Ok(Field::zeros(self.volume()))
    }
    fn filled<T: Element, L: Layout>(&self, value: T) -> Result<Field<T, L>> {
        Ok(Field::filled(self.volume(), value))
    }
    fn check_field<T: Element, L: Layout>(&self, field: &Field<T, L>, what: &str) -> Result<()> {
        if field.len() == self.volume() {
            return Ok(());
        }
        Err(Error::InvalidArgument(format!(
            "the {what} has {} sites, but the {self} has {}",
            field.len(),
            self.volume()
        )))
    }
}

impl<T: Element, L: Layout> SpaceField<T, L> for Field<T, L> {
    fn values(&self) -> Result<Vec<T>> {
        self.to_vec()
    }
}

/// The error of a field of space `of` where one of `space` was needed.
fn foreign_field(what: &str, of: &impl std::fmt::Display, space: &impl std::fmt::Display) -> Error {
    Error::InvalidArgument(format!(
        "the {what} is a field of the {of}, not of the {space}"
    ))
}

impl Space for SplitLattice {
    type Field<T: Element, L: Layout> = SplitField<T, L>;
    type Subset = SplitSubset;

    fn even(&self) -> SplitSubset {
        SplitLattice::even(self)
    }
    fn odd(&self) -> SplitSubset {
        SplitLattice::odd(self)
    }
    fn all(&self) -> SplitSubset {
        SplitLattice::all(self)
    }
    fn field_from_fn<T: Element, L: Layout>(
        &self,
        f: impl FnMut(usize) -> T,
    ) -> Result<SplitField<T, L>> {
        SplitField::from_fn(self, f)
    }
    fn zeros<T: Element, L: Layout>(&self) -> Result<SplitField<T, L>> {
        SplitField::zeros(self)
    }
    fn check_field<T: Element, L: Layout>(
        &self,
        field: &SplitField<T, L>,
        what: &str,
    ) -> Result<()> {
        if field.split() == self {
            return Ok(());
        }
        Err(foreign_field(what, field.split(), self))
    }
    fn halo_refreshes(&self) -> HaloRefreshes {
        SplitLattice::halo_refreshes(self)
    }
    fn synchronize(&self) -> Result<()> {
        SplitLattice::synchronize(self)
    }
}

impl<T: Element, L: Layout> SpaceField<T, L> for SplitField<T, L> {
    fn values(&self) -> Result<Vec<T>> {
        self.to_vec()
    }
    fn halo_refreshes(&self) -> HaloRefreshes {
        SplitField::halo_refreshes(self)
    }
}

/// Rank lattices as spaces (the `mpi` feature).
#[cfg(feature = "mpi")]
mod ranks {
    use super::{Space, SpaceField, SpaceSubset};
    use crate::element::Element;
    use crate::error::Result;
    use crate::lattice::halos::HaloRefreshes;
    use crate::lattice::ranks::{RankField, RankLattice, RankSubset};
    use crate::layout::Layout;

    impl Space for RankLattice {
        type Field<T: Element, L: Layout> = RankField<T, L>;
        type Subset = RankSubset;

        fn even(&self) -> RankSubset {
            RankLattice::even(self)
        }
        fn odd(&self) -> RankSubset {
            RankLattice::odd(self)
        }
        fn all(&self) -> RankSubset {
            RankLattice::all(self)
        }
        fn field_from_fn<T: Element, L: Layout>(
            &self,
            f: impl FnMut(usize) -> T,
        ) -> Result<RankField<T, L>> {
            RankField::from_fn(self, f)
        }
        fn zeros<T: Element, L: Layout>(&self) -> Result<RankField<T, L>> {
            RankField::zeros(self)
        }
        fn is_root(&self) -> bool {
            self.rank() == 0
        }
        fn agree<R>(&self, result: Result<R>) -> Result<R> {
            crate::mpi::agree::agree_on(&crate::mpi::world::world_comm()?, result)
        }
        fn check_field<T: Element, L: Layout>(
            &self,
            field: &RankField<T, L>,
            what: &str,
        ) -> Result<()> {
            if field.lattice() == self {
                return Ok(());
            }
            Err(super::foreign_field(what, field.lattice(), self))
        }
        fn halo_refreshes(&self) -> HaloRefreshes {
            RankLattice::halo_refreshes(self)
        }
    }

    impl SpaceSubset for RankSubset {
        type Space = RankLattice;
    }

    impl<T: Element, L: Layout> SpaceField<T, L> for RankField<T, L> {
        fn values(&self) -> Result<Vec<T>> {
            self.to_vec()
        }
        fn halo_refreshes(&self) -> HaloRefreshes {
            RankField::halo_refreshes(self)
        }
    }
}
