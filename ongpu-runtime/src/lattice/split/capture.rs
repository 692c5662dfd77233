//! How `on_gpu!` captures a [`SplitField`]: one argument per part (read, written or
//! shifted, as for a [`Field`](crate::Field)), of which the call's runner selects the part
//! it runs; the kernel is the one a whole-lattice field gets. A written field marks its
//! halos stale; a shifted one refreshes them before the parts run.

// The stream-path methods name crate-private types, as in `capture`.
#![allow(private_interfaces)]

use super::exchange;
use super::field::SplitField;
use super::lattice::SplitLattice;
use crate::capture::{
    forward_capture_arg, read_constant, CaptureArg, CaptureKind, FieldRead, FieldWrite,
    ReadCapture, SplitStage, Value, WriteCapture,
};
use crate::element::Element;
use crate::error::Result;
use crate::geometry::Lattice;
use crate::lattice::halos::HaloState;
use crate::lattice::shift::{FieldShifted, ShiftCapture, ShiftView};
use crate::layout::Layout;
use std::ops::Range;

/// A split field the body reads.
pub struct SplitRead<'a, T: Element, L: Layout> {
    parts: Vec<FieldRead<'a, T, L>>,
    current: usize,
    id: u64,
}

/// A split field the body shifts: its stale halos are refreshed before the parts run, and
/// its boundary sites wait for them.
pub struct SplitShifted<'a, T: Element, L: Layout> {
    parts: Vec<FieldShifted<'a, T, L>>,
    current: usize,
    field: &'a SplitField<T, L>,
}

/// A split field the body writes; the halos of the sites it writes become stale.
pub struct SplitWrite<'a, T: Element, L: Layout, const LOAD: bool> {
    parts: Vec<FieldWrite<'a, T, L, LOAD>>,
    current: usize,
    split: SplitLattice,
    halos: &'a std::sync::Mutex<exchange::Halos>,
    state: &'a HaloState,
}

impl<T: Element, L: Layout> ReadCapture for SplitField<T, L> {
    type Site = T;
    type Arg<'a> = SplitRead<'a, T, L>;
    fn read_arg(&self) -> SplitRead<'_, T, L> {
        SplitRead {
            parts: self.parts.iter().map(|f| f.read_arg()).collect(),
            current: 0,
            id: self.split.id(),
        }
    }
}

impl<T: Element, L: Layout> ShiftCapture for SplitField<T, L> {
    type Site = ShiftView<T, L>;
    type Arg<'a> = SplitShifted<'a, T, L>;
    fn shifted_arg(&self, _whole: Lattice) -> SplitShifted<'_, T, L> {
        SplitShifted {
            parts: self
                .parts
                .iter()
                .enumerate()
                .map(|(p, f)| f.shifted_arg(self.split.part(p).lattice))
                .collect(),
            current: 0,
            field: self,
        }
    }
}

impl<T: Element, L: Layout> WriteCapture for SplitField<T, L> {
    type Site = T;
    type Arg<'a, const LOAD: bool> = SplitWrite<'a, T, L, LOAD>;
    fn write_arg<const LOAD: bool>(&mut self) -> SplitWrite<'_, T, L, LOAD> {
        SplitWrite {
            parts: self
                .parts
                .iter_mut()
                .map(|f| f.write_arg::<LOAD>())
                .collect(),
            current: 0,
            split: self.split,
            halos: &self.halos,
            state: &self.state,
        }
    }
}

/// `CaptureArg` for a per-part argument: every method is the selected part's.
macro_rules! forward_to_part {
    ($inner:ty) => {
        forward_capture_arg!($inner, part);

        fn select_part(&mut self, part: usize) {
            self.current = part;
        }
    };
}

impl<'a, T: Element, L: Layout> CaptureArg for SplitRead<'a, T, L> {
    forward_to_part!(FieldRead<'a, T, L>);

    fn split_id(&self) -> Option<u64> {
        Some(self.id)
    }
}

impl<'a, T: Element, L: Layout> CaptureArg for SplitShifted<'a, T, L> {
    forward_to_part!(FieldShifted<'a, T, L>);

    fn split_id(&self) -> Option<u64> {
        Some(self.field.split.id())
    }

    fn reads_halos(&self) -> bool {
        true
    }

    fn refresh_halos(&mut self) -> Result<()> {
        self.field.refresh_halos()
    }

    fn split_wait(&self, part: usize, stage: SplitStage) -> Result<()> {
        #[cfg(feature = "cuda")]
        if stage == SplitStage::Boundary {
            return self.field.halos().wait_for_halos(part);
        }
        let _ = (part, stage);
        Ok(())
    }
}

impl<'a, T: Element, L: Layout, const LOAD: bool> CaptureArg for SplitWrite<'a, T, L, LOAD> {
    forward_to_part!(FieldWrite<'a, T, L, LOAD>);

    fn split_id(&self) -> Option<u64> {
        Some(self.split.id())
    }

    fn split_wait(&self, part: usize, stage: SplitStage) -> Result<()> {
        #[cfg(feature = "cuda")]
        if stage == SplitStage::Start {
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

/// A split lattice captured by a body (`lat.coord(i, mu)`, `lat.parity(i)`): each part's
/// sites see the part lattice, whose coordinates are those of the whole lattice.
pub struct SplitLatticeValue {
    parts: Vec<Value<'static, Lattice>>,
    current: usize,
}

impl ReadCapture for SplitLattice {
    type Site = Lattice;
    type Arg<'a> = SplitLatticeValue;
    fn read_arg(&self) -> SplitLatticeValue {
        SplitLatticeValue {
            parts: (0..self.parts())
                .map(|p| read_constant(&self.part(p).lattice))
                .collect(),
            current: 0,
        }
    }
}

impl CaptureArg for SplitLatticeValue {
    forward_to_part!(Value<'static, Lattice>);
}
