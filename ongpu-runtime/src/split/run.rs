//! Calls over a split lattice: the captures are checked to be fields of that split, then
//! each part runs its own sites (not its halos) on its device, as a call over the part
//! lattice; afterwards the fields the call wrote refresh their halos.

use super::lattice::SplitLattice;
use super::SplitSubset;
use crate::capture::{CaptureKind, Captures};
use crate::error::{Error, Result};
use crate::launch::site::CallSite;
use crate::launch::sites::Sites;

/// Every field the call captures must be a split field of the call's split.
fn check_captures<C: Captures>(site: &CallSite, subset: &SplitSubset, caps: &C) -> Result<()> {
    let kinds = C::kinds();
    let id = subset.split().id();
    let mut err = None;
    caps.for_each_split_id(|i, split| {
        if err.is_some() {
            return;
        }
        let what = match (split, &kinds[i]) {
            (Some(s), _) if s == id => return,
            (Some(_), _) => "a SplitField of another split",
            (None, CaptureKind::Field { .. }) => "a Field of a whole lattice",
            (None, _) => return,
        };
        err = Some(Error::NotOnSplit {
            site: site.location(),
            space: subset.to_string(),
            field: site.info.captures[i],
            what,
        });
    });
    err.map_or(Ok(()), Err)
}

/// Runs `run(captures, sites)` for each part's own sites of `subset` (on the part's device),
/// then refreshes the halos of the written split fields.
pub(crate) fn for_each_part<C: Captures>(
    site: &CallSite,
    subset: &SplitSubset,
    caps: &mut C,
    mut run: impl FnMut(&mut C, &Sites) -> Result<()>,
) -> Result<()> {
    check_captures(site, subset, caps)?;
    let split = subset.split();
    for p in 0..split.parts() {
        caps.select_part(p);
        let part = split.part(p);
        on_part_device(split, p, || {
            for range in part.owned(subset.parity()) {
                let sites = Sites {
                    range,
                    lattice: Some(part.lattice),
                };
                run(caps, &sites)?;
            }
            Ok(())
        })?;
    }
    caps.after_split_call()
}

/// Runs `f` with part `p`'s device current (on the CUDA backend with one GPU per part).
pub(crate) fn on_part_device<R>(
    split: &SplitLattice,
    p: usize,
    f: impl FnOnce() -> Result<R>,
) -> Result<R> {
    #[cfg(feature = "cuda")]
    if let Some(ordinal) = split.devices().ordinal(p) {
        if crate::backend::current()? == crate::backend::Backend::Cuda {
            return crate::cuda::with_device(ordinal, f);
        }
    }
    let _ = (split, p);
    f()
}
