//! Calls over a rank lattice: the captures are checked to be fields of that rank lattice,
//! then this rank runs its own sites. A call that shifts rank fields whose halos are stale
//! (written since their last exchange, `lattice::halos`) sends their faces (`rounds`) and
//! runs the interior while they travel, fills the halos, then runs the boundary boxes (on
//! the GPU, the faces and the boundary on a stream of their own, the interior on the default
//! stream);
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
    let faces = FaceStream::begin(on_gpu, inner, parity, caps)?;
    let exchanged = faces.run(|| {
        let mut interior_done = false;
        // Runs once, during the first exchange (or after the rounds when nothing was sent);
        // on the GPU on the default stream, beside the face stream's packs, transfers and
        // unpacks.
        let mut interior = |caps: &mut C| -> Result<()> {
            if std::mem::replace(&mut interior_done, true) {
                return Ok(());
            }
            faces.leave(|| {
                inner
                    .interior
                    .iter()
                    .try_for_each(|&b| run_box(inner, b, parity, caps, &mut run))
            })
        };
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
        interior(caps)?;
        // The boundary on the face stream, after the unpacks: the two boxes of each cut
        // direction in one launch on the GPU.
        inner
            .boundary
            .chunks(2)
            .try_for_each(|boxes| run_boxes(inner, boxes, parity, caps, &mut run))
    });
    // The face stream joins the default stream whatever happened.
    faces.join()?;
    exchanged?;
    caps.mark_written(parity);
    Ok(())
}

/// The stream an exchanging call's faces and boundary run on, on the GPU: the device's halo
/// stream, of the highest priority, so that the boundary's blocks start as multiprocessors
/// free up from the interior, which runs beside it on the default stream. Ordered after the
/// default stream's earlier work, with the captured fields prepared there first, and joined
/// back at the end of the call. Off the GPU, nothing.
struct FaceStream {
    #[cfg(feature = "cuda")]
    on: Option<(
        &'static crate::cuda::Device,
        crate::cuda::stream::StreamHandle,
    )>,
}

impl FaceStream {
    #[cfg_attr(not(feature = "cuda"), allow(unused_variables))]
    fn begin<C: CaptureArg>(
        on_gpu: bool,
        inner: &Inner,
        parity: Option<usize>,
        caps: &mut C,
    ) -> Result<FaceStream> {
        #[cfg(feature = "cuda")]
        if on_gpu {
            let dev = crate::cuda::device()?;
            let stream = crate::cuda::peer::halo_stream(dev)?;
            caps.device_prepare(dev, &inner.box_range(0, parity))?;
            crate::launch::queue::order_after(dev, std::ptr::null_mut(), stream)?;
            return Ok(FaceStream {
                on: Some((dev, stream)),
            });
        }
        Ok(FaceStream {
            #[cfg(feature = "cuda")]
            on: None,
        })
    }

    /// Runs `f` with this thread's launches, face kernels and face copies on the stream.
    fn run<R>(&self, f: impl FnOnce() -> R) -> R {
        #[cfg(feature = "cuda")]
        if let Some((_, stream)) = self.on {
            return crate::launch::queue::on_side_stream(stream, f);
        }
        f()
    }

    /// Runs `f` (inside [`run`](FaceStream::run)) with this thread's launches on the default
    /// stream again, and one thread per site (`launch::queue::without_wave_cap`: the
    /// interior's blocks retire as it runs, so that the face stream's kernels start then).
    fn leave<R>(&self, f: impl FnOnce() -> R) -> R {
        #[cfg(feature = "cuda")]
        if self.on.is_some() {
            return crate::launch::queue::on_side_stream(std::ptr::null_mut(), || {
                crate::launch::queue::without_wave_cap(f)
            });
        }
        f()
    }

    /// Makes the default stream wait for the stream's work.
    fn join(&self) -> Result<()> {
        #[cfg(feature = "cuda")]
        if let Some((dev, stream)) = self.on {
            crate::launch::queue::join_side(dev, stream)?;
        }
        Ok(())
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
    run_boxes(inner, &[b], parity, caps, run)
}

/// Runs the sites of `parity` of one box, or of two boxes of the same shape (a cut
/// direction's two boundary boxes): on the GPU as one launch whose first half of indices
/// counts the first box's sites and second half the second's; elsewhere box by box.
fn run_boxes<C: CaptureArg>(
    inner: &Inner,
    boxes: &[usize],
    parity: Option<usize>,
    caps: &mut C,
    run: &mut impl FnMut(&mut C, &Sites) -> Result<()>,
) -> Result<()> {
    #[cfg(feature = "cuda")]
    if crate::backend::current()? == crate::backend::Backend::Cuda {
        let (first, pair) = match *boxes {
            [b] => (b, None),
            [b, p] if inner.boxes[b].same_shape(&inner.boxes[p]) => (b, Some(inner.boxes[p])),
            _ => {
                return boxes
                    .iter()
                    .try_for_each(|&b| run_boxes(inner, &[b], parity, caps, run))
            }
        };
        let range = inner.box_range(first, parity);
        // A pair's second box counts the second half of the indices.
        let end = range.end + if pair.is_some() { range.len() } else { 0 };
        let sites = Sites {
            range: range.start..end,
            lattice: Some(inner.part),
            within: Some(inner.boxes[first]),
            pair,
        };
        return run(caps, &sites);
    }
    for &b in boxes {
        for range in inner.runs(b, parity) {
            let sites = Sites {
                range,
                lattice: Some(inner.part),
                within: None,
                pair: None,
            };
            run(caps, &sites)?;
        }
    }
    Ok(())
}
