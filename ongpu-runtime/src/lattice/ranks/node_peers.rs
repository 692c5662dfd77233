//! Halo faces between the ranks of one node through CUDA IPC, as CUDA-aware MPIs and QUDA do
//! on a node: a rank packs its faces into device memory its neighbours have opened, records
//! an interprocess event after the packs and sends each neighbour a small descriptor (which
//! buffer, which event) by MPI; the neighbour's face stream waits for that event and its
//! unpack kernels read the face straight from the sender's GPU (the same GPU, or a peer over
//! NVLink or PCIe). Packs, events, waits and unpacks all go to the face stream of the call
//! (`launch::queue::side_stream`, the device's halo stream during a rank call's exchange). No face crosses host memory; the host waits only for the descriptors and,
//! before reusing a set of buffers, for unpacks queued exchanges earlier ([`Round`]).
//!
//! Each rank lattice's round (cut direction) cycles through a few sets of send buffers and
//! events ([`Round`] says why that is safe).

use super::staging::Faces;
use crate::cuda::ipc::{self, Handle, InterprocessEvent, PeerEvent};
use crate::cuda::peer::DeviceEvent;
use crate::cuda::Device;
use crate::error::Result;
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

/// Sets of send buffers and events a round cycles through: the host may run this many
/// exchanges minus one ahead of the device.
const SETS: usize = 4;

/// One set: the send buffers, the interprocess event recorded after their packs (with its
/// id), and a local event recorded after the exchange's unpacks.
struct Set {
    /// The faces sent to the neighbour below, and to the one above.
    send: [Faces; 2],
    event: Option<(u64, InterprocessEvent)>,
    done: Option<DeviceEvent>,
}

/// One round of one rank lattice: its sets of send buffers and events, and how many
/// exchanges it has made.
///
/// Exchange `m` uses set `m % SETS`. A neighbour's wait for an interprocess event takes
/// whatever recording of it is the latest when its device reaches the wait, so an event
/// must not be recorded again before every neighbour's device has passed its wait for the
/// earlier recording. Before exchange `m` records its set's event, the host therefore waits
/// for the unpacks of exchange `m − SETS + 1`: those followed this rank's waits for the
/// neighbours' events of that exchange, which they recorded after their waits of exchange
/// `m − SETS`. The same order makes the send buffers safe to pack again: a neighbour read
/// set `m % SETS` in exchange `m − SETS`, before it recorded the event this rank waited for
/// in exchange `m − SETS + 1`, before this pack.
pub(crate) struct Round {
    exchanges: u64,
    sets: [Set; SETS],
}

impl Round {
    /// Starts an exchange: the index of its set, whose send buffers the faces are packed
    /// into (its events made on first use).
    pub(crate) fn begin(&mut self, dev: &'static Device) -> Result<usize> {
        let p = (self.exchanges % SETS as u64) as usize;
        let set = &mut self.sets[p];
        if set.event.is_none() {
            static IDS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
            let id = IDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            set.event = Some((id, InterprocessEvent::new(dev)?));
            set.done = Some(DeviceEvent::new(dev)?);
        }
        self.exchanges += 1;
        Ok(p)
    }

    /// Takes back an exchange that sent nothing (the call writes no rank field), so that
    /// the sets keep step with the neighbours'.
    pub(crate) fn cancel(&mut self) {
        self.exchanges -= 1;
    }

    /// The send buffers of set `p` (to the neighbour below, to the one above).
    pub(crate) fn send(&mut self, p: usize) -> &mut [Faces; 2] {
        &mut self.sets[p].send
    }

    /// Records set `p`'s event after the packs queued so far (waiting first, where the set
    /// has been used before, for the unpacks of the exchange after its last use) and
    /// returns its id and handle.
    pub(crate) fn publish(&self, p: usize) -> Result<(u64, Handle)> {
        if self.exchanges > SETS as u64 {
            let after = &self.sets[(p + 1) % SETS];
            after.done.as_ref().expect("recorded").synchronize()?;
        }
        let (id, event) = self.sets[p].event.as_ref().expect("made by begin");
        event.record(crate::launch::queue::side_stream())?;
        Ok((*id, event.handle()))
    }

    /// Records that the unpacks of set `p`'s exchange are queued.
    pub(crate) fn finish(&self, p: usize) -> Result<()> {
        let done = self.sets[p].done.as_ref().expect("made by begin");
        done.record_on(crate::launch::queue::side_stream())
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
            sets: std::array::from_fn(|_| Set {
                send: [Faces::new(), Faces::new()],
                event: None,
                done: None,
            }),
        })
    }

    /// The faces packed into set `set` of round `k` of rank lattice `lattice`.
    pub(crate) fn sent(&self, lattice: u64, k: usize, set: usize) -> &[Faces; 2] {
        &self.rounds[&(lattice, k)].sets[set].send
    }

    /// The device address of the face `d` that `rank` sent, once the face stream has been
    /// made to wait for its packs (opening the buffer and the event on first sight).
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
        event.wait(crate::launch::queue::side_stream())?;
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
