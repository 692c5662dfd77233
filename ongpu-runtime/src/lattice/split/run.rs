//! Calls over a split lattice: the captures are checked to be fields of that split, the
//! fields the call shifts refresh their stale halos, then each part runs its own sites (not
//! its halos) on its device, as a call over the part lattice; afterwards the halos of the
//! fields the call wrote are stale (`lattice::halos`).

use super::lattice::SplitLattice;
use super::SplitSubset;
use crate::capture::{CaptureArg, Decomposition, PartOf, PartStage};
use crate::error::{Error, Result};
use crate::lattice::decomposed::foreign_field;
use crate::launch::call_site::CallSite;
use crate::launch::sites::Sites;

/// Every field the call captures must be a split field of the call's split.
fn check_captures<C: CaptureArg>(site: &CallSite, subset: &SplitSubset, caps: &C) -> Result<()> {
    let of = PartOf {
        decomposition: Decomposition::Devices,
        id: subset.split().id(),
    };
    match foreign_field(caps, of) {
        None => Ok(()),
        Some((i, what)) => Err(Error::NotOnSplit {
            site: site.location(),
            space: subset.to_string(),
            field: site.info.captures[i],
            what,
        }),
    }
}

/// Calls over a split lattice queue their kernels on each device's default stream and
/// order them with the halo copies by events there: a stream scope or a graph would put
/// them elsewhere.
fn check_queue(site: &CallSite) -> Result<()> {
    #[cfg(feature = "cuda")]
    if crate::backend::current()? == crate::backend::Backend::Cuda
        && (crate::stream::in_stream_scope() || crate::graph_pass::mode().is_some())
    {
        return Err(Error::InvalidArgument(format!(
            "{}: a call over a split lattice inside a Stream::scope or a Graph: split \
             lattices run on each device's default stream (make the call outside)",
            site.location()
        )));
    }
    let _ = site;
    Ok(())
}

/// Runs `run(captures, sites)` for each part's own sites of `subset` (on the part's device),
/// after queueing the refresh of the stale halos of the split fields it shifts; the halos of
/// the split fields it writes are stale afterwards.
///
/// When the call shifts a split field, each part runs its interior first and its boundary
/// layers after waiting for its halos (with `overlap`; reductions, which wait for each
/// range's result, wait for the halos first and run the part whole), so that on the GPU the
/// interior kernels run while the halo copies are in flight.
pub(crate) fn for_each_part<C: CaptureArg>(
    site: &CallSite,
    subset: &SplitSubset,
    caps: &mut C,
    overlap: bool,
    mut run: impl FnMut(&mut C, &Sites) -> Result<()>,
) -> Result<()> {
    check_captures(site, subset, caps)?;
    check_queue(site)?;
    let split = subset.split();
    let halos = split.parts() > 1 && caps.reads_halos();
    if halos {
        caps.refresh_halos()?;
    }
    let gpu = on_gpu()?;
    let side = halos && overlap && gpu;
    // The host part is the last (`Devices::with_host`): the GPU parts' kernels are queued
    // before it runs, and run while it computes.
    for p in 0..split.parts() {
        if gpu && split.devices().on_host(p) {
            run_host_part(subset, p, caps, &mut run)?;
            continue;
        }
        caps.select_part(p);
        let part = split.part(p);
        let (first, after_halos) = match (halos, overlap) {
            (false, _) => (part.owned(subset.parity()), Vec::new()),
            (true, true) => part.interior_and_boundary(subset.parity()),
            (true, false) => (Vec::new(), part.owned(subset.parity())),
        };
        on_part_device(split, p, || {
            caps.part_wait(p, PartStage::Start)?;
            let mut launch = |caps: &mut C, range| {
                let sites = Sites {
                    range,
                    lattice: Some(part.lattice),
                    within: None,
                    pair: None,
                };
                run(caps, &sites)
            };
            // On the GPU the boundary goes on the halo stream, where the copies into the
            // halos are queued, after what the default stream holds before the interior
            // (the fields are prepared first) and beside it.
            #[cfg(feature = "cuda")]
            let side_stream = if side {
                let dev = crate::cuda::device()?;
                let stream = crate::cuda::peer::halo_stream(dev)?;
                caps.device_prepare(dev, &part.owned(subset.parity())[0])?;
                crate::launch::queue::order_after(dev, std::ptr::null_mut(), stream)?;
                Some(stream)
            } else {
                None
            };
            for range in first {
                launch(caps, range)?;
            }
            #[cfg(feature = "cuda")]
            if let Some(stream) = side_stream {
                return crate::launch::queue::on_side_stream(stream, || {
                    after_halos.into_iter().try_for_each(|r| launch(caps, r))
                });
            }
            if halos {
                caps.part_wait(p, PartStage::Boundary)?;
            }
            for range in after_halos {
                launch(caps, range)?;
            }
            Ok(())
        })?;
    }
    #[cfg(not(feature = "cuda"))]
    let _ = side;
    #[cfg(feature = "cuda")]
    if side {
        // Later calls (and the halo exchange's events) see the boundaries written.
        join_halo_streams(split)?;
    }
    caps.mark_written(subset.parity());
    Ok(())
}

/// Runs the host part `p` of a call on the GPUs' backend: its own sites on the CPU
/// backend's threads, after the GPU parts' kernels are queued. Its halos were copied through
/// host memory when the call began (`refresh_halos`), synchronously, so nothing is waited
/// for.
fn run_host_part<C: CaptureArg>(
    subset: &SplitSubset,
    p: usize,
    caps: &mut C,
    run: &mut impl FnMut(&mut C, &Sites) -> Result<()>,
) -> Result<()> {
    caps.select_part(p);
    let part = subset.split().part(p);
    crate::backend::with_backend(crate::backend::Backend::Cpu, || {
        part.owned(subset.parity())
            .into_iter()
            .try_for_each(|range| {
                let sites = Sites {
                    range,
                    lattice: Some(part.lattice),
                    within: None,
                    pair: None,
                };
                run(caps, &sites)
            })
    })
}

/// Whether calls run on the GPU (where the boundary of a call that shifts goes on the halo
/// stream).
fn on_gpu() -> Result<bool> {
    #[cfg(feature = "cuda")]
    return Ok(crate::backend::current()? == crate::backend::Backend::Cuda);
    #[cfg(not(feature = "cuda"))]
    Ok(false)
}

/// Makes each device's default stream wait for its halo stream (once per device).
#[cfg(feature = "cuda")]
fn join_halo_streams(split: &SplitLattice) -> Result<()> {
    let mut joined: Vec<usize> = Vec::new();
    for p in (0..split.parts()).filter(|&p| !split.devices().on_host(p)) {
        on_part_device(split, p, || {
            let dev = crate::cuda::device()?;
            if !joined.contains(&dev.info().ordinal) {
                joined.push(dev.info().ordinal);
                crate::launch::queue::join_side(dev, crate::cuda::peer::halo_stream(dev)?)?;
            }
            Ok(())
        })?;
    }
    Ok(())
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
