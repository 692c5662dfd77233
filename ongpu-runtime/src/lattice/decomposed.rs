//! What every decomposition (the split over devices, the cut over ranks) checks of the
//! arguments of a call over its lattice: each captured field must be one of its own.

use crate::capture::{CaptureArg, CaptureKind, Decomposition, PartOf};

/// The first capture of `caps` that is a field but not one of the decomposed lattice `of`:
/// its index and what it is instead (values, and decomposed lattices captured as values,
/// pass).
pub(crate) fn foreign_field<C: CaptureArg>(caps: &C, of: PartOf) -> Option<(usize, &'static str)> {
    let kinds = C::kinds();
    let mut i = 0;
    let mut found = None;
    caps.part_of(&mut |part| {
        let what = match part {
            Some(p) if p == of => None,
            Some(p) => Some(match (p.decomposition, of.decomposition) {
                (Decomposition::Devices, Decomposition::Devices) => "a SplitField of another split",
                (Decomposition::Ranks, Decomposition::Ranks) => {
                    "a RankField of another rank lattice"
                }
                (Decomposition::Devices, Decomposition::Ranks) => "a SplitField",
                (Decomposition::Ranks, Decomposition::Devices) => "a RankField",
            }),
            None if matches!(kinds[i], CaptureKind::Field { .. }) => {
                Some("a Field of a whole lattice")
            }
            None => None,
        };
        if let (None, Some(what)) = (found, what) {
            found = Some((i, what));
        }
        i += 1;
    });
    found
}
