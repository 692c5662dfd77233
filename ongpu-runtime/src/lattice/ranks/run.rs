//! Calls over a rank lattice: the captures are checked to be fields of that rank lattice,
//! then this rank runs its own sites. A call that shifts rank fields whose halos are stale
//! (written since their last exchange, `lattice::halos`) sends their faces (`rounds`) and
//! runs the interior while they travel, fills the halos, then runs the boundary boxes;
//! further rounds (one per cut direction, each carrying the halos of the earlier ones, so
//! that corners arrive) come before the boundary. Other calls run the block whole and
//! exchange nothing. The fields a call writes have stale halos afterwards.

use super::lattice::{Inner, RankSubset};
use super::rounds::{round, Exchange};
use crate::capture::{CaptureArg, Decomposition, PartOf};
use crate::error::{Error, Result};
use crate::lattice::decomposed::foreign_field;
use crate::launch::call_site::CallSite;
use crate::launch::sites::Sites;
use crate::mpi::exchange::HaloTransports;
use crate::mpi::world::world_comm;

/// Whether this call's faces are packed and unpacked by kernels on the GPU: on
/// the CUDA backend, outside graphs and stream scopes (whose launches the exchange could not
/// order with MPI: such a call is an error).
fn faces_on_gpu() -> Result<bool> {
    #[cfg(feature = "cuda")]
    if crate::backend::current()? == crate::backend::Backend::Cuda {
        if crate::graph_pass::mode().is_some() {
            return Err(Error::Graph(
                "a call over a lattice cut over MPI ranks exchanges halos through MPI, which \
                 a graph cannot hold: run it outside Graph::record"
                    .to_string(),
            ));
        }
        if crate::stream::current_queue(crate::cuda::device()?)?.is_some() {
            return Err(Error::InvalidArgument(
                "a call over a lattice cut over MPI ranks runs on the default stream (its \
                 halo exchange waits for its kernels there): run it outside Stream::scope"
                    .to_string(),
            ));
        }
        return Ok(true);
    }
    Ok(false)
}

/// Every field the call captures must be a rank field of the call's rank lattice.
fn check_captures<C: CaptureArg>(site: &CallSite, subset: &RankSubset, caps: &C) -> Result<()> {
    let of = PartOf {
        decomposition: Decomposition::Ranks,
        id: subset.lattice().id(),
    };
    match foreign_field(caps, of) {
        None => Ok(()),
        Some((i, what)) => Err(Error::NotOnRanks {
            site: site.location(),
            space: subset.to_string(),
            field: site.info.captures[i],
            what,
        }),
    }
}

/// Runs `run(captures, sites)` over this rank's sites of `subset`, refreshing first the
/// stale halos of the rank fields the call shifts; the halos of the rank fields it writes
/// are stale afterwards. Results come in a fixed order for a given cut: the interior, then
/// the boundary boxes (or the whole block when nothing is exchanged).
pub(crate) fn for_rank<C: CaptureArg>(
    site: &CallSite,
    subset: &RankSubset,
    caps: &mut C,
    mut run: impl FnMut(&mut C, &Sites) -> Result<()>,
) -> Result<()> {
    check_captures(site, subset, caps)?;
    let inner = subset.lattice().inner();
    let parity = subset.parity();
    if !inner.has_halos() {
        run_box(inner, 0, parity, caps, &mut run)?;
        caps.mark_written(parity);
        return Ok(());
    }
    // Checked for every call over a cut lattice, whether or not this one exchanges: a
    // graph replay would neither mark halos stale nor refresh them.
    let on_gpu = faces_on_gpu()?;
    if !caps.stale_halos() {
        run_box(inner, 0, parity, caps, &mut run)?;
        caps.mark_written(parity);
        return Ok(());
    }
    let comm = world_comm()?;
    let transports = HaloTransports::choose(on_gpu, &comm)?;
    let lattice = subset.lattice().id();
    #[cfg(feature = "cuda")]
    let beside = if on_gpu {
        Some(Beside::new(inner, parity, caps)?)
    } else {
        None
    };
    let mut interior_done = false;
    // Runs once, during the first exchange (or after the rounds when nothing was sent); on
    // the GPU on a stream of its own, beside the unpacks and the boundary.
    let mut interior = |caps: &mut C| -> Result<()> {
        if std::mem::replace(&mut interior_done, true) {
            return Ok(());
        }
        let mut boxes = || {
            inner
                .interior
                .iter()
                .try_for_each(|&b| run_box(inner, b, parity, caps, &mut run))
        };
        #[cfg(feature = "cuda")]
        if let Some(b) = &beside {
            return crate::launch::queue::on_side_stream(b.stream, boxes);
        }
        boxes()
    };
    let exchanged = (|| {
        for (k, r) in inner.rounds.iter().enumerate() {
            let exchange = Exchange {
                comm: &comm,
                lattice,
                k,
                round: r,
            };
            if !round(transports, &exchange, caps, &mut interior)? {
                break; // no stale halos (every rank decides alike: it never happens here)
            }
        }
        interior(caps)
    })();
    // The interior's stream joins the default stream whatever happened.
    #[cfg(feature = "cuda")]
    if let Some(b) = &beside {
        crate::launch::queue::join_side(b.dev, b.stream)?;
    }
    exchanged?;
    for &b in &inner.boundary {
        run_box(inner, b, parity, caps, &mut run)?;
    }
    caps.mark_written(parity);
    Ok(())
}

/// The stream a call's interior runs on, beside the default stream where the faces are
/// packed and unpacked and the boundary runs: ordered after the default stream's earlier
/// work, with the captured fields prepared there first (as a split lattice's boundary is).
#[cfg(feature = "cuda")]
struct Beside {
    dev: &'static crate::cuda::Device,
    stream: crate::cuda::stream::StreamHandle,
}

#[cfg(feature = "cuda")]
impl Beside {
    fn new<C: CaptureArg>(inner: &Inner, parity: Option<usize>, caps: &mut C) -> Result<Beside> {
        let dev = crate::cuda::device()?;
        let stream = crate::cuda::peer::interior_stream(dev)?;
        caps.device_prepare(dev, &inner.box_range(0, parity))?;
        crate::launch::queue::order_after(dev, std::ptr::null_mut(), stream)?;
        Ok(Beside { dev, stream })
    }
}

/// Runs box `b`'s sites of `parity`: on the GPU as one launch counting the box's sites
/// (the kernel maps them to the part's indices), elsewhere as runs of part indices.
pub(super) fn run_box<C: CaptureArg>(
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
