//! Non-blocking messages between ranks, all in flight at once: the transport of halo
//! exchange (faces sent to the neighbours of a process grid while faces arrive from them).

use super::World;
use crate::error::{Error, Result};
use mpi::point_to_point::{Destination, Source};
use mpi::request::WaitGuard;
use mpi::topology::{Communicator, SimpleCommunicator};

/// A buffer `exchange` sends to `rank`, with the tag its receive names.
#[derive(Debug, Clone, Copy)]
pub struct Outgoing<'a> {
    /// The rank it goes to.
    pub rank: usize,
    /// Pairs it with a receive on that rank (`0..=32767`, MPI's least upper bound for tags).
    pub tag: u16,
    /// The bytes.
    pub data: &'a [u8],
}

/// A buffer `exchange` fills from a message of `rank` with the tag `tag`.
#[derive(Debug)]
pub struct Incoming<'a> {
    /// The rank it comes from.
    pub rank: usize,
    /// The tag of the send it pairs with.
    pub tag: u16,
    /// Where the bytes land: exactly as long as the message.
    pub data: &'a mut [u8],
}

/// How the halos of rank lattices travel ([`World::halo_transport`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HaloTransport {
    /// The CPU backend: MPI sends the faces from and into host vectors.
    Host,
    /// GPU faces packed by kernels, copied to page-locked host memory, sent by MPI, copied
    /// back and unpacked: ranks on several nodes (or `ONGPU_MPI_IPC=0`) with an MPI that
    /// does not take device memory.
    Staged,
    /// GPU faces that stay on the GPUs: every rank on one node, each GPU able to read the
    /// others'; a rank's unpack kernels read its neighbours' faces through CUDA IPC, and MPI
    /// carries only their descriptors.
    Ipc,
    /// GPU faces sent GPU to GPU by NCCL (`ncclSend`/`ncclRecv` on a halo stream, over
    /// NVLink, PCIe or the network, with no host copy and no host wait): ranks on several
    /// nodes where NCCL is installed.
    Nccl,
}

impl std::fmt::Display for HaloTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            HaloTransport::Host => "host memory (CPU backend)",
            HaloTransport::Staged => "staged through page-locked host memory",
            HaloTransport::Ipc => "CUDA IPC between the node's GPUs",
            HaloTransport::Nccl => "NCCL send/recv between the GPUs",
        })
    }
}

impl HaloTransport {
    /// The transport of a call on the GPU (`on_gpu`) or the CPU. On the GPU it is chosen
    /// once per run, by every rank together (a collective the first time): the one
    /// `ONGPU_HALO_TRANSPORT` names (`ipc`, `nccl`, `staged`; an error where it cannot
    /// work), or else IPC when every rank is on one node with GPUs that read each other's
    /// memory (unless `ONGPU_MPI_IPC=0`), NCCL where every rank can load it, and staging
    /// through host memory otherwise.
    pub(crate) fn choose(on_gpu: bool, comm: &SimpleCommunicator) -> Result<HaloTransport> {
        #[cfg(feature = "cuda")]
        if on_gpu {
            static CHOSEN: std::sync::OnceLock<HaloTransport> = std::sync::OnceLock::new();
            if let Some(&t) = CHOSEN.get() {
                return Ok(t);
            }
            let t = choose_on_gpu(comm)?;
            return Ok(*CHOSEN.get_or_init(|| t));
        }
        let _ = (on_gpu, comm);
        Ok(HaloTransport::Host)
    }
}

/// The GPU transport, decided by every rank together.
#[cfg(feature = "cuda")]
fn choose_on_gpu(comm: &SimpleCommunicator) -> Result<HaloTransport> {
    use super::gather::gather_on;
    let var = std::env::var("ONGPU_HALO_TRANSPORT").unwrap_or_default();
    let forced: u8 = match var.as_str() {
        "" | "auto" => 0,
        "ipc" => 1,
        "nccl" => 2,
        "staged" => 3,
        "mpi" => 4,
        other => {
            return Err(Error::InvalidArgument(format!(
                "ONGPU_HALO_TRANSPORT={other}: want ipc, nccl, staged or auto"
            )))
        }
    };
    // Every rank must take the same branch: each collective below is made by all of them.
    let votes = gather_on(comm, &[forced]);
    if votes.iter().any(|&v| v != forced) {
        return Err(Error::Mpi(format!(
            "ONGPU_HALO_TRANSPORT differs between the ranks ({votes:?} by rank: 0 auto, 1 ipc, \
             2 nccl, 3 staged, 4 mpi): set it alike for all"
        )));
    }
    // NCCL needs it on every rank, and one rank per GPU (a communicator refuses two ranks
    // on one device).
    let nccl_everywhere = |comm: &SimpleCommunicator| -> Result<bool> {
        let all = gather_on(comm, &[u8::from(crate::cuda::nccl::available())]);
        let uuid = crate::cuda::ipc::uuid(crate::cuda::device()?).unwrap_or([0; 16]);
        let mut uuids: Vec<[u8; 16]> = gather_on(comm, &uuid)
            .chunks_exact(16)
            .map(|u| u.try_into().expect("16 bytes"))
            .collect();
        let ranks = uuids.len();
        uuids.sort_unstable();
        uuids.dedup();
        Ok(all.iter().all(|&v| v == 1) && uuids.len() == ranks)
    };
    match forced {
        1 if ipc_on_one_node(comm)? => Ok(HaloTransport::Ipc),
        1 => Err(Error::Mpi(
            "ONGPU_HALO_TRANSPORT=ipc: the ranks are not all on one node with GPUs that can \
             read each other's memory (or ONGPU_MPI_IPC=0)"
                .to_string(),
        )),
        2 if nccl_everywhere(comm)? => Ok(HaloTransport::Nccl),
        2 => Err(Error::Mpi(
            "ONGPU_HALO_TRANSPORT=nccl: NCCL (libnccl.so.2) cannot be loaded on every rank, \
             or two ranks share a GPU (NCCL takes one rank per GPU)"
                .to_string(),
        )),
        3 => Ok(HaloTransport::Staged),
        4 => Err(Error::Mpi(
            "ONGPU_HALO_TRANSPORT=mpi: handing device memory to a CUDA-aware MPI is not \
             built; use nccl (GPU to GPU) or staged"
                .to_string(),
        )),
        _ if ipc_on_one_node(comm)? => Ok(HaloTransport::Ipc),
        _ if nccl_everywhere(comm)? => Ok(HaloTransport::Nccl),
        _ => Ok(HaloTransport::Staged),
    }
}

#[cfg(feature = "cuda")]
/// Whether this run exchanges halos through CUDA IPC: every rank on one node, every rank's
/// GPU able to read every other's, and `ONGPU_MPI_IPC` not `0`. Decided once, collectively
/// (every rank calls it at the same point), the same answer on every rank.
fn ipc_on_one_node(comm: &SimpleCommunicator) -> Result<bool> {
    use super::gather::gather_on;
    use crate::cuda::ipc;
    use std::sync::OnceLock;
    static ENABLED: OnceLock<bool> = OnceLock::new();
    if let Some(&e) = ENABLED.get() {
        return Ok(e);
    }
    let dev = crate::cuda::device()?;
    let wanted = std::env::var("ONGPU_MPI_IPC").map_or(true, |v| v != "0");
    let one_node = comm.split_shared(comm.rank()).size() == comm.size();
    let mine = ipc::uuid(dev).unwrap_or([0; 16]);
    let all: Vec<u8> = gather_on(comm, &mine);
    let readable = all
        .chunks_exact(16)
        .all(|u| ipc::can_read(dev, u.try_into().expect("16 bytes")).unwrap_or(false));
    let votes = gather_on(comm, &[u8::from(wanted && one_node && readable)]);
    let e = votes.iter().all(|&v| v == 1);
    Ok(*ENABLED.get_or_init(|| e))
}

impl World {
    /// How the halos of rank lattices travel on the current backend. On the GPU a
    /// collective the first time it is decided (by this call or the first exchange): every
    /// rank calls it at the same point.
    pub fn halo_transport(&self) -> Result<HaloTransport> {
        let on_gpu = crate::backend::current()? == crate::backend::Backend::Cuda;
        HaloTransport::choose(on_gpu, self.comm())
    }
}

/// The largest tag every MPI accepts (`MPI_TAG_UB` is at least this).
const MAX_TAG: u16 = 32767;

impl World {
    /// Posts every receive (`MPI_Irecv`), then every send (`MPI_Isend`), and returns when all
    /// have completed: each rank's faces travel to its neighbours while theirs travel to
    /// it, with no ordering between the messages that could deadlock. Messages between two
    /// ranks pair by tag, in the order they are posted.
    ///
    /// Every receive must be exactly as long as the message it pairs with, and every send
    /// must have its receive on the other rank: a longer message is MPI's fatal truncation
    /// error (which ends every rank with MPI's message), a missing partner leaves this call
    /// waiting. A rank or tag out of range is an [`Error::InvalidArgument`] before anything
    /// is posted.
    pub fn exchange(&self, outgoing: &[Outgoing], incoming: &mut [Incoming]) -> Result<()> {
        exchange_during(self.comm(), outgoing, incoming, || ())
    }
}

/// [`World::exchange`] on `comm`, running `during` while the messages are in flight (after
/// every receive and send is posted, before waiting for them): the interior of a call over
/// a rank lattice computes under its exchange.
pub(crate) fn exchange_during<R>(
    comm: &SimpleCommunicator,
    outgoing: &[Outgoing],
    incoming: &mut [Incoming],
    during: impl FnOnce() -> R,
) -> Result<R> {
    let size = comm.size() as usize;
    let check = |rank: usize, tag: u16, what: &str| {
        if rank >= size || tag > MAX_TAG {
            return Err(Error::InvalidArgument(format!(
                "World::exchange: {what} rank {rank} with tag {tag}, but the run has {size} \
                 ranks and tags go up to {MAX_TAG}"
            )));
        }
        Ok(())
    };
    for o in outgoing {
        check(o.rank, o.tag, "a send to")?;
    }
    for i in incoming.iter() {
        check(i.rank, i.tag, "a receive from")?;
    }
    // Empty buffers are posted from a real address (Open MPI refuses dangling ones).
    let anchor = [0u8; 1];
    let mut anchors = vec![[0u8; 1]; incoming.len()];
    Ok(mpi::request::scope(|scope| {
        let mut pending = Vec::with_capacity(outgoing.len() + incoming.len());
        for (i, a) in incoming.iter_mut().zip(anchors.iter_mut()) {
            let process = comm.process_at_rank(i.rank as i32);
            let buf: &mut [u8] = if i.data.is_empty() {
                &mut a[..0]
            } else {
                &mut *i.data
            };
            pending.push(WaitGuard::from(process.immediate_receive_into_with_tag(
                scope,
                buf,
                i.tag as i32,
            )));
        }
        for o in outgoing {
            let process = comm.process_at_rank(o.rank as i32);
            let data = if o.data.is_empty() {
                &anchor[..0]
            } else {
                o.data
            };
            pending.push(WaitGuard::from(process.immediate_send_with_tag(
                scope,
                data,
                o.tag as i32,
            )));
        }
        let result = during();
        drop(pending); // waits for every message
        result
    }))
}
