//! How `on_gpu!` captures a [`SplitField`]: one argument per part (read, written or
//! shifted, as for a [`Field`](crate::Field)), of which the call's runner selects the part
//! it runs ([`Parted`]); the kernel is the one a whole-lattice field gets. The hooks here
//! are what the split adds: a written field marks its halos stale and waits for the copies
//! that read its boundary; a shifted one refreshes its halos before the parts run and its
//! boundary waits for them.

use super::exchange;
use super::field::SplitField;
use super::lattice::SplitLattice;
use crate::capture::{
    read_constant, Decomposition, FieldRead, FieldWrite, PartFacet, PartOf, PartStage, Parted,
    ReadCapture, Value, WriteCapture,
};
use crate::element::Element;
use crate::error::Result;
use crate::geometry::Lattice;
use crate::lattice::halos::HaloState;
use crate::lattice::shift::{FieldShifted, ShiftCapture, ShiftView};
use crate::lattice::shift_lanes::{Gathers, LaneShiftView};
use crate::layout::Layout;

/// A split field the body reads.
pub type SplitRead<'a, T, L> = Parted<FieldRead<'a, T, L>, ReadHooks>;

/// A split field the body shifts: its stale halos are refreshed before the parts run, and
/// its boundary sites wait for them.
pub type SplitShifted<'a, T, L> = Parted<FieldShifted<'a, T, L>, ShiftHooks<'a, T, L>>;

/// A split field the body writes; the halos of the sites it writes become stale.
pub type SplitWrite<'a, T, L, const LOAD: bool> =
    Parted<FieldWrite<'a, T, L, LOAD>, WriteHooks<'a>>;

/// The split a field belongs to.
fn part_of(split: SplitLattice) -> Option<PartOf> {
    Some(PartOf {
        decomposition: Decomposition::Devices,
        id: split.id(),
    })
}

/// The hooks of a read split field: its split, checked against the call's.
pub struct ReadHooks {
    split: SplitLattice,
}

impl PartFacet for ReadHooks {
    fn part_of(&self, f: &mut impl FnMut(Option<PartOf>)) {
        f(part_of(self.split))
    }
}

/// The hooks of a shifted split field.
pub struct ShiftHooks<'a, T: Element, L: Layout> {
    field: &'a SplitField<T, L>,
}

impl<T: Element, L: Layout> PartFacet for ShiftHooks<'_, T, L> {
    fn part_of(&self, f: &mut impl FnMut(Option<PartOf>)) {
        f(part_of(self.field.split))
    }

    fn reads_halos(&self) -> bool {
        true
    }

    fn refresh_halos(&mut self) -> Result<()> {
        self.field.refresh_halos()
    }

    fn part_wait(&self, part: usize, stage: PartStage) -> Result<()> {
        #[cfg(feature = "cuda")]
        if stage == PartStage::Boundary {
            return self.field.halos().wait_for_halos(part);
        }
        let _ = (part, stage);
        Ok(())
    }
}

/// The hooks of a written split field.
pub struct WriteHooks<'a> {
    split: SplitLattice,
    halos: &'a std::sync::Mutex<exchange::Halos>,
    state: &'a HaloState,
}

impl PartFacet for WriteHooks<'_> {
    fn part_of(&self, f: &mut impl FnMut(Option<PartOf>)) {
        f(part_of(self.split))
    }

    fn part_wait(&self, part: usize, stage: PartStage) -> Result<()> {
        #[cfg(feature = "cuda")]
        if stage == PartStage::Start {
            let halos = self
                .halos
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            return halos.wait_for_readers(&self.split, part);
        }
        let _ = (part, stage, self.halos);
        Ok(())
    }

    fn mark_written(&mut self, parity: Option<usize>) {
        self.state.mark_written(parity);
    }
}

impl<T: Element, L: Layout> ReadCapture for SplitField<T, L> {
    type Site = T;
    type Arg<'a> = SplitRead<'a, T, L>;
    fn read_arg(&self) -> SplitRead<'_, T, L> {
        let parts = self.parts.iter().map(|f| f.read_arg()).collect();
        Parted::many(parts, ReadHooks { split: self.split })
    }
}

impl<T: Element, L: Layout> ShiftCapture for SplitField<T, L> {
    type Site = ShiftView<T, L>;
    type LaneSite = LaneShiftView<T, L>;
    type Arg<'a> = SplitShifted<'a, T, L>;
    fn shifted_arg(&self, _whole: Lattice, gathers: Gathers) -> SplitShifted<'_, T, L> {
        let parts = self
            .parts
            .iter()
            .enumerate()
            .map(|(p, f)| f.shifted_arg(self.split.part(p).lattice, gathers))
            .collect();
        Parted::many(parts, ShiftHooks { field: self })
    }
}

impl<T: Element, L: Layout> WriteCapture for SplitField<T, L> {
    type Site = T;
    type Arg<'a, const LOAD: bool> = SplitWrite<'a, T, L, LOAD>;
    fn write_arg<const LOAD: bool>(&mut self) -> SplitWrite<'_, T, L, LOAD> {
        let parts = self
            .parts
            .iter_mut()
            .map(|f| f.write_arg::<LOAD>())
            .collect();
        let hooks = WriteHooks {
            split: self.split,
            halos: &self.halos,
            state: &self.state,
        };
        Parted::many(parts, hooks)
    }
}

/// A split lattice captured by a body (`lat.coord(i, mu)`, `lat.parity(i)`): each part's
/// sites see the part lattice, whose coordinates are those of the whole lattice.
impl ReadCapture for SplitLattice {
    type Site = Lattice;
    type Arg<'a> = Parted<Value<'static, Lattice>, crate::capture::LatticeParts>;
    fn read_arg(&self) -> Self::Arg<'_> {
        let parts = (0..self.parts())
            .map(|p| read_constant(&self.part(p).lattice))
            .collect();
        Parted::many(parts, crate::capture::LatticeParts)
    }
}
