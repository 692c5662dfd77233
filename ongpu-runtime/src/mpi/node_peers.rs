//! Halo faces between the ranks of one node through CUDA IPC, as CUDA-aware MPIs and QUDA do
//! on a node: a rank packs its faces into device memory its neighbours have opened, records
//! an interprocess event after the packs and sends each neighbour a small descriptor (which
//! buffer, which event) by MPI; the neighbour's default stream waits for that event and its
//! unpack kernels read the face straight from the sender's GPU (the same GPU, or a peer over
//! NVLink or PCIe). No face crosses host memory and the host waits for no kernel.
//!
//! Each rank lattice's round (cut direction) keeps two sets of send buffers and events and
//! alternates between them. A rank packs into set `p` again only two exchanges later, after
//! its stream has waited for its neighbours' events of the exchange in between, which they
//! recorded after queueing their unpacks from set `p`: the stream order makes the reuse
//! safe without another message.

use super::gather::gather_on;
use super::staging::Faces;
use crate::cuda::ipc::{self, Handle, InterprocessEvent, PeerEvent};
use crate::cuda::Device;
use crate::error::Result;
use mpi::topology::{Communicator, SimpleCommunicator};
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};

/// What travels by MPI in place of a face sent through IPC.
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct Descriptor {
    /// The sender's id of the exported buffer (a new id when the buffer is replaced).
    pub buffer_id: u64,
    /// The sender's id of the event recorded after its packs.
    pub event_id: u64,
    /// The face's length in bytes.
    pub len: u64,
    /// The buffer's IPC handle.
    pub memory: Handle,
    /// The event's IPC handle.
    pub event: Handle,
}

/// Whether this run exchanges halos through CUDA IPC: every rank on one node, every rank's
/// GPU able to read every other's, and `ONGPU_MPI_IPC` not `0`. Decided once, collectively
/// (every rank calls it at the same point), the same answer on every rank.
pub(crate) fn enabled(comm: &SimpleCommunicator) -> Result<bool> {
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

/// One round of one rank lattice: its two sets of send buffers and events, and how many
/// exchanges it has made.
pub(crate) struct Round {
    exchanges: u64,
    send: [Faces; 2],
    events: [Option<(u64, InterprocessEvent)>; 2],
}

impl Round {
    /// The set this exchange uses: its send buffers and its event (made on first use),
    /// counting the exchange.
    pub(crate) fn next(
        &mut self,
        dev: &'static Device,
    ) -> Result<(&mut Faces, &(u64, InterprocessEvent))> {
        let p = (self.exchanges % 2) as usize;
        if self.events[p].is_none() {
            static IDS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
            let id = IDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            self.events[p] = Some((id, InterprocessEvent::new(dev)?));
        }
        self.exchanges += 1;
        let event = self.events[p].as_ref().expect("made above");
        Ok((&mut self.send[p], event))
    }

    /// Takes back the count of an exchange that sent nothing (the call writes no rank
    /// field), so that the sets keep alternating with the neighbours'.
    pub(crate) fn cancel(&mut self) {
        self.exchanges -= 1;
    }
}

/// The rounds of every rank lattice, and the neighbours' buffers and events opened here.
#[derive(Default)]
pub(crate) struct NodePeers {
    rounds: HashMap<(u64, usize), Round>,
    memory: HashMap<(usize, u64), u64>,
    events: HashMap<(usize, u64), PeerEvent>,
}

impl NodePeers {
    /// Round `k` of rank lattice `lattice`.
    pub(crate) fn round(&mut self, lattice: u64, k: usize) -> &mut Round {
        self.rounds.entry((lattice, k)).or_insert_with(|| Round {
            exchanges: 0,
            send: [Faces::new(), Faces::new()],
            events: [None, None],
        })
    }

    /// The device address of the face `d` that `rank` sent, once the default stream has
    /// been made to wait for its packs (opening the buffer and the event on first sight).
    pub(crate) fn receive(
        &mut self,
        dev: &'static Device,
        rank: usize,
        d: &Descriptor,
    ) -> Result<u64> {
        let ptr = match self.memory.get(&(rank, d.buffer_id)) {
            Some(&p) => p,
            None => {
                let p = ipc::open_memory(dev, d.memory)?;
                self.memory.insert((rank, d.buffer_id), p);
                p
            }
        };
        let event = match self.events.entry((rank, d.event_id)) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(PeerEvent::open(dev, d.event)?)
            }
        };
        event.wait()?;
        Ok(ptr)
    }
}

/// The process's IPC state, held by one call at a time.
pub(crate) fn node_peers() -> MutexGuard<'static, NodePeers> {
    static PEERS: OnceLock<Mutex<NodePeers>> = OnceLock::new();
    PEERS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
}
