//! Calls over a rank lattice: the captures are checked to be fields of that rank lattice,
//! then this rank runs its own sites. A call that writes rank fields runs the boundary
//! boxes first, sends their faces (MPI `Isend`/`Irecv`) and runs the interior while the
//! messages travel, then fills the halos; further rounds (one per cut direction, each
//! carrying the halos of the earlier ones, so that corners arrive) follow.

use super::lattice::{Inner, RankSubset};
use crate::capture::Captures;
use crate::error::{Error, Result};
use crate::launch::site::CallSite;
use crate::launch::sites::Sites;
use crate::mpi::exchange::{exchange_during, Incoming, Outgoing};
use crate::mpi::world::world_comm;

/// Every field the call captures must be a rank field of the call's rank lattice.
fn check_captures<C: Captures>(site: &CallSite, subset: &RankSubset, caps: &C) -> Result<()> {
    let kinds = C::kinds();
    let id = subset.lattice().id();
    let mut err = None;
    caps.for_each_rank_id(|i, rank| {
        if err.is_some() {
            return;
        }
        let what = match (rank, &kinds[i]) {
            (Some(r), _) if r == id => return,
            (Some(_), _) => "a RankField of another rank lattice",
            (None, crate::capture::CaptureKind::Field { .. }) => {
                "a Field (of a whole lattice, or a split one)"
            }
            (None, _) => return,
        };
        err = Some(Error::NotOnRanks {
            site: site.location(),
            space: subset.to_string(),
            field: site.info.captures[i],
            what,
        });
    });
    err.map_or(Ok(()), Err)
}

/// Runs `run(captures, sites)` over this rank's sites of `subset`, refreshing the halos of
/// the rank fields the call writes. Results come in a fixed order for a given cut: the
/// boundary boxes, then the interior (or the whole block when nothing is exchanged).
pub(crate) fn for_rank<C: Captures>(
    site: &CallSite,
    subset: &RankSubset,
    caps: &mut C,
    mut run: impl FnMut(&mut C, &Sites) -> Result<()>,
) -> Result<()> {
    check_captures(site, subset, caps)?;
    let inner = subset.lattice().inner();
    let parity = subset.parity();
    if !inner.has_halos() {
        return run_box(inner, 0, parity, caps, &mut run);
    }
    for &b in &inner.boundary {
        run_box(inner, b, parity, caps, &mut run)?;
    }
    let comm = world_comm()?;
    let mut interior_done = false;
    for (k, round) in inner.rounds.iter().enumerate() {
        let mut faces = Vec::new();
        caps.halo_send(k, parity, &mut faces)?;
        if faces.is_empty() {
            break; // the call writes no rank field
        }
        // Field f's face sent down lands in the lower rank's upper halo (tag 2f + 1), the
        // face sent up in the upper rank's lower halo (tag 2f).
        let tag = |f: usize, up: bool| u16::try_from(2 * f + usize::from(!up)).ok();
        let mut outgoing = Vec::with_capacity(faces.len());
        for (i, data) in faces.iter().enumerate() {
            let (f, up) = (i / 2, i % 2 == 1);
            let rank = if up { round.upper } else { round.lower };
            let tag = tag(f, up).ok_or_else(too_many_fields)?;
            outgoing.push(Outgoing { rank, tag, data });
        }
        let mut halos: Vec<Vec<u8>> = faces.iter().map(|f| vec![0u8; f.len()]).collect();
        let mut incoming = Vec::with_capacity(halos.len());
        for (i, data) in halos.iter_mut().enumerate() {
            // Halo 2f (lower) comes from below, sent up there; halo 2f + 1 from above.
            let (f, from_above) = (i / 2, i % 2 == 1);
            let rank = if from_above { round.upper } else { round.lower };
            let tag = tag(f, !from_above).ok_or_else(too_many_fields)?;
            incoming.push(Incoming { rank, tag, data });
        }
        let during = exchange_during(&comm, &outgoing, &mut incoming, || {
            if interior_done {
                return Ok(());
            }
            interior_done = true;
            inner
                .interior
                .iter()
                .try_for_each(|&b| run_box(inner, b, parity, caps, &mut run))
        });
        drop((outgoing, incoming));
        during??;
        caps.halo_receive(k, parity, &mut halos.into_iter())?;
    }
    if !interior_done {
        for &b in &inner.interior {
            run_box(inner, b, parity, caps, &mut run)?;
        }
    }
    Ok(())
}

fn too_many_fields() -> Error {
    Error::InvalidArgument(
        "a call over a rank lattice writes more rank fields than MPI tags can tell apart"
            .to_string(),
    )
}

/// Runs box `b`'s sites of `parity`: on the GPU as one launch counting the box's sites
/// (the kernel maps them to the part's indices), elsewhere as runs of part indices.
fn run_box<C: Captures>(
    inner: &Inner,
    b: usize,
    parity: Option<usize>,
    caps: &mut C,
    run: &mut impl FnMut(&mut C, &Sites) -> Result<()>,
) -> Result<()> {
    #[cfg(feature = "cuda")]
    if crate::backend::current()? == crate::backend::Backend::Cuda {
        let sites = Sites {
            range: inner.box_range(b, parity),
            lattice: Some(inner.part),
            within: Some(inner.boxes[b]),
        };
        return run(caps, &sites);
    }
    for range in inner.runs(b, parity) {
        let sites = Sites {
            range,
            lattice: Some(inner.part),
            within: None,
        };
        run(caps, &sites)?;
    }
    Ok(())
}
