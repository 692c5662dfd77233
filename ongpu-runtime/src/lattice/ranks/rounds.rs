//! One round of a rank lattice's halo exchange (one cut direction): the faces of the stale
//! fields a call shifts go to the ranks below and above while the interior runs, and the
//! halos come back. Each neighbour has its [`HaloTransport`] (the run's transport within a
//! node or between nodes, [`HaloTransports`]), so one round may mix them: MPI carries the
//! faces' bytes (host and staged) or only descriptors of faces that stay on the GPUs (IPC,
//! `node_peers`), NCCL moves device buffers on the halo stream, the device ordering the rest.

use super::boxes::Round;
use super::staging::{staging, FaceMemory, Faces, Slot};
use crate::capture::{CaptureArg, FaceBuffer, FaceBuffers};
use crate::error::{Error, Result};
use crate::mpi::exchange::{exchange_during, HaloTransport, HaloTransports, Incoming, Outgoing};
use mpi::topology::{Communicator, SimpleCommunicator};

/// What a round needs to know of its call.
pub(super) struct Exchange<'a> {
    pub comm: &'a SimpleCommunicator,
    /// The rank lattice's id (its IPC buffers are its own).
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub lattice: u64,
    /// The round's index and its neighbours and boxes.
    pub k: usize,
    pub round: &'a Round,
}

impl Exchange<'_> {
    /// The rank face `i` of the round goes to: faces come in pairs per field, the one sent
    /// down (to the lower rank) first.
    fn to(&self, i: usize) -> usize {
        if i % 2 == 1 {
            self.round.upper
        } else {
            self.round.lower
        }
    }

    /// The tag of face `i` as sent: field f's face sent down lands in the lower rank's
    /// upper halo (tag 2f + 1), the face sent up in the upper rank's lower halo (tag 2f).
    fn send_tag(i: usize) -> Result<u16> {
        u16::try_from(2 * (i / 2) + usize::from(i % 2 == 0)).map_err(|_| too_many_fields())
    }

    /// The tag of halo `i` as received: halo 2f (lower) comes from below, where it was
    /// sent up; halo 2f + 1 from above, sent down.
    fn receive_tag(i: usize) -> Result<u16> {
        u16::try_from(2 * (i / 2) + usize::from(i % 2 == 1)).map_err(|_| too_many_fields())
    }
}

fn too_many_fields() -> Error {
    Error::InvalidArgument(
        "a call over a rank lattice writes more rank fields than MPI tags can tell apart"
            .to_string(),
    )
}

/// The buffers a transport's faces use.
fn face_memory(t: HaloTransport) -> FaceMemory {
    match t {
        #[cfg(feature = "cuda")]
        HaloTransport::Staged => FaceMemory::Staged,
        #[cfg(feature = "cuda")]
        HaloTransport::Ipc => FaceMemory::Exported,
        #[cfg(feature = "cuda")]
        HaloTransport::Nccl => FaceMemory::Device,
        _ => FaceMemory::Host,
    }
}

/// The faces of a round as the arguments take them, one pair per field: the face sent down
/// from the lower side's buffers, the face sent up from the upper side's.
struct Alternate<'a> {
    sides: [&'a mut Faces; 2],
    taken: usize,
}

impl FaceBuffers for Alternate<'_> {
    fn take(&mut self, len: usize) -> Result<&mut dyn FaceBuffer> {
        let side = self.taken % 2;
        self.taken += 1;
        Ok(self.sides[side].take(len)?)
    }

    fn take_two(&mut self, len0: usize, len1: usize) -> Result<[&mut dyn FaceBuffer; 2]> {
        let [first, second] = &mut self.sides;
        let (first, second) = if self.taken % 2 == 0 {
            (first, second)
        } else {
            (second, first)
        };
        self.taken += 2;
        Ok([first.take(len0)?, second.take(len1)?])
    }
}

/// Runs one round: sends the faces of the stale fields `caps` shifts, runs `interior` while
/// they travel, fills the halos. False when there are none (nothing was sent, and no later
/// round will send anything).
///
/// The faces to each side go by that neighbour's transport: packed into the side's buffers
/// (exported IPC memory, device buffers for NCCL, staging or host buffers for MPI); NCCL's
/// transfers queued on the halo stream after the packs; MPI's messages (faces' bytes, IPC
/// descriptors) posted; the interior run while all travel; then the halos unpacked, from
/// the receive buffers or straight from a node neighbour's memory. Only a staged side makes
/// the host wait (for its copies to host memory, before MPI sends them).
pub(super) fn round<C: CaptureArg>(
    transports: &HaloTransports,
    x: &Exchange,
    caps: &mut C,
    interior: &mut dyn FnMut(&mut C) -> Result<()>,
) -> Result<bool> {
    let me = x.comm.rank() as usize;
    let t = [
        transports.between(me, x.round.lower),
        transports.between(me, x.round.upper),
    ];
    #[cfg(feature = "cuda")]
    let mut ipc = ipc::IpcSides::begin(x, t)?;
    let mut staging = staging();
    let staging = &mut *staging;
    // Pack.
    {
        #[cfg_attr(not(feature = "cuda"), allow(unused_mut))]
        let mut sides = staging.send.each_mut();
        for (faces, &t) in sides.iter_mut().zip(&t) {
            faces.clear(face_memory(t));
        }
        #[cfg(feature = "cuda")]
        if let Some(ipc_sides) = ipc.send() {
            for (s, f) in ipc_sides.into_iter().enumerate() {
                if t[s] == HaloTransport::Ipc {
                    sides[s] = f;
                }
            }
        }
        let mut faces = Alternate { sides, taken: 0 };
        caps.halo_send(x.k, &mut faces)?;
    }
    let lengths: [Vec<usize>; 2] = std::array::from_fn(|s| {
        #[cfg(feature = "cuda")]
        if t[s] == HaloTransport::Ipc {
            return ipc.sent(s).taken().iter().map(Slot::len).collect();
        }
        staging.send[s].taken().iter().map(Slot::len).collect()
    });
    let faces = lengths[0].len() + lengths[1].len();
    if faces == 0 {
        #[cfg(feature = "cuda")]
        ipc.cancel();
        return Ok(false);
    }
    // Face i's length: its side's (i / 2)-th. Each halo is as long as the face sent the
    // other way (the same box shape).
    let len = |i: usize| lengths[i % 2][i / 2];
    #[cfg(feature = "cuda")]
    if t.contains(&HaloTransport::Staged) {
        // The faces are packed and copied on the face stream: MPI sends them after.
        crate::cuda::device()?.synchronize()?;
    }
    #[cfg(feature = "cuda")]
    let descriptors = ipc.publish(faces)?;
    // The receive buffers of the sides whose halos land here (not those read from a node
    // neighbour's memory).
    for s in 0..2 {
        let recv = &mut staging.recv[s];
        recv.clear(face_memory(t[s]));
        #[cfg(feature = "cuda")]
        if t[s] == HaloTransport::Ipc {
            continue;
        }
        for &l in &lengths[s] {
            recv.take(l)?;
        }
    }
    #[cfg(feature = "cuda")]
    if t.contains(&HaloTransport::Nccl) {
        nccl::queue(x, t, staging)?;
    }
    // MPI's messages: faces' bytes (host, staged) and IPC descriptors.
    let mut outgoing = Vec::with_capacity(faces);
    {
        let mut sent = [
            staging.send[0].taken().iter(),
            staging.send[1].taken().iter(),
        ];
        for i in 0..faces {
            let s = i % 2;
            let data: &[u8] = match t[s] {
                #[cfg(feature = "cuda")]
                HaloTransport::Nccl => continue,
                #[cfg(feature = "cuda")]
                HaloTransport::Ipc => bytemuck::bytes_of(descriptors.get(i).expect("published")),
                _ => sent[s].next().expect("a face per index").bytes(),
            };
            outgoing.push(Outgoing {
                rank: x.to(i),
                tag: Exchange::send_tag(i)?,
                data,
            });
        }
    }
    #[cfg(feature = "cuda")]
    let mut received = vec![<super::node_peers::Descriptor as bytemuck::Zeroable>::zeroed(); faces];
    let mut incoming = Vec::with_capacity(faces);
    let [recv_lo, recv_hi] = &mut staging.recv;
    {
        let mut halos = [
            recv_lo.taken_mut().iter_mut(),
            recv_hi.taken_mut().iter_mut(),
        ];
        #[cfg(feature = "cuda")]
        let mut descriptors = received.iter_mut();
        for i in 0..faces {
            let s = i % 2;
            #[cfg(feature = "cuda")]
            let d = descriptors.next().expect("a descriptor per face");
            let data: &mut [u8] = match t[s] {
                #[cfg(feature = "cuda")]
                HaloTransport::Nccl => continue,
                #[cfg(feature = "cuda")]
                HaloTransport::Ipc => bytemuck::bytes_of_mut(d),
                _ => halos[s].next().expect("a halo per face").bytes_mut(),
            };
            incoming.push(Incoming {
                rank: x.to(i),
                tag: Exchange::receive_tag(i)?,
                data,
            });
        }
    }
    let during = exchange_during(x.comm, &outgoing, &mut incoming, || interior(caps));
    drop((outgoing, incoming));
    during??;
    // The halos of IPC sides, read from the neighbours' memory.
    #[cfg_attr(not(feature = "cuda"), allow(unused_mut))]
    let mut peer: [Vec<Slot>; 2] = Default::default();
    #[cfg(feature = "cuda")]
    for (i, d) in received.iter().enumerate() {
        if t[i % 2] == HaloTransport::Ipc {
            if d.len as usize != len(i) {
                return Err(Error::Mpi(format!(
                    "rank {} sent a face of {} bytes for a halo of {} bytes: the ranks run \
                     different calls",
                    x.to(i),
                    d.len,
                    len(i)
                )));
            }
            peer[i % 2].push(Slot::peer(ipc.receive(x.to(i), d)?, len(i)));
        }
    }
    let _ = len;
    let [peer_lo, peer_hi] = &mut peer;
    let lo: &mut [Slot] = if peer_lo.is_empty() {
        recv_lo.taken_mut()
    } else {
        peer_lo
    };
    let hi: &mut [Slot] = if peer_hi.is_empty() {
        recv_hi.taken_mut()
    } else {
        peer_hi
    };
    let mut sides = [lo.iter_mut(), hi.iter_mut()];
    let mut halos =
        (0..faces).map(|i| sides[i % 2].next().expect("a halo per face") as &mut dyn FaceBuffer);
    caps.halo_receive(x.k, &mut halos)?;
    #[cfg(feature = "cuda")]
    ipc.finish()?;
    Ok(true)
}

/// The sides of a round whose neighbour is on this node, through CUDA IPC: their faces are
/// packed into this rank's exported buffers, an event is recorded after the packs,
/// descriptors go by MPI, and each halo is unpacked from the neighbour's buffer once the
/// face stream has waited for the neighbour's event. The host never waits for the device.
#[cfg(feature = "cuda")]
mod ipc {
    use super::super::node_peers::{node_peers, Descriptor, NodePeers};
    use super::super::staging::{FaceMemory, Faces};
    use super::Exchange;
    use crate::error::Result;
    use crate::mpi::exchange::HaloTransport;
    use std::sync::MutexGuard;

    /// The IPC state of one round of one exchange: none where no side goes through IPC.
    pub(super) struct IpcSides {
        state: Option<State>,
    }

    struct State {
        peers: MutexGuard<'static, NodePeers>,
        dev: &'static crate::cuda::Device,
        lattice: u64,
        k: usize,
        /// The set of send buffers and events this exchange uses.
        set: usize,
        /// Which sides go through IPC.
        sides: [bool; 2],
    }

    impl IpcSides {
        /// Starts the exchange of the IPC sides of `t`.
        pub(super) fn begin(x: &Exchange, t: [HaloTransport; 2]) -> Result<IpcSides> {
            let sides = t.map(|t| t == HaloTransport::Ipc);
            if sides == [false; 2] {
                return Ok(IpcSides { state: None });
            }
            let dev = crate::cuda::device()?;
            let mut peers = node_peers();
            let set = peers.round(x.lattice, x.k).begin(dev)?;
            let mut state = State {
                peers,
                dev,
                lattice: x.lattice,
                k: x.k,
                set,
                sides,
            };
            for f in state.faces().iter_mut() {
                f.clear(FaceMemory::Exported);
            }
            Ok(IpcSides { state: Some(state) })
        }

        /// The send buffers of both sides (those of the IPC sides are the ones to use).
        pub(super) fn send(&mut self) -> Option<[&mut Faces; 2]> {
            Some(self.state.as_mut()?.faces().each_mut())
        }

        /// The faces packed for side `s` (an IPC side).
        pub(super) fn sent(&self, s: usize) -> &Faces {
            let st = self.state.as_ref().expect("an IPC side");
            &st.peers.sent(st.lattice, st.k, st.set)[s]
        }

        /// Takes back an exchange that sent nothing.
        pub(super) fn cancel(&mut self) {
            if let Some(st) = &mut self.state {
                st.peers.round(st.lattice, st.k).cancel();
            }
        }

        /// Records the event after the packs and returns the descriptor of each of the
        /// round's `faces` faces, in face order (those of other sides left zero).
        pub(super) fn publish(&mut self, faces: usize) -> Result<Vec<Descriptor>> {
            let Some(st) = &mut self.state else {
                return Ok(Vec::new());
            };
            let set = st.set;
            let round = st.peers.round(st.lattice, st.k);
            let (event_id, event) = round.publish(set)?;
            let [lo, hi] = &round.send(set);
            Ok((0..faces)
                .map(|i| {
                    let side = if i % 2 == 0 { lo } else { hi };
                    if !st.sides[i % 2] {
                        return <Descriptor as bytemuck::Zeroable>::zeroed();
                    }
                    let slot = &side.taken()[i / 2];
                    let (buffer_id, memory) = slot.exported().expect("faces of exported buffers");
                    Descriptor {
                        buffer_id,
                        event_id,
                        len: slot.len() as u64,
                        memory,
                        event,
                    }
                })
                .collect())
        }

        /// The device address of the face `d` that `rank` sent, the face stream made to
        /// wait for its packs.
        pub(super) fn receive(&mut self, rank: usize, d: &Descriptor) -> Result<u64> {
            let st = self.state.as_mut().expect("an IPC side");
            st.peers.receive(st.dev, rank, d)
        }

        /// Records that the exchange's unpacks are queued.
        pub(super) fn finish(&mut self) -> Result<()> {
            match &mut self.state {
                Some(st) => st.peers.round(st.lattice, st.k).finish(st.set),
                None => Ok(()),
            }
        }
    }

    impl State {
        fn faces(&mut self) -> &mut [Faces; 2] {
            self.peers.round(self.lattice, self.k).send(self.set)
        }
    }
}

/// The sides of a round whose faces NCCL sends GPU to GPU: packed into device buffers on the
/// face stream (the device's halo stream), sent and received there after the packs while
/// the interior runs on the default stream, unpacked there after the transfers.
/// The host queues everything and waits for nothing.
#[cfg(feature = "cuda")]
mod nccl {
    use super::super::staging::{Slot, Staging};
    use super::{nccl_order, Exchange};
    use crate::cuda::nccl::PointToPoint;
    use crate::error::Result;
    use crate::mpi::exchange::HaloTransport;

    /// Queues the transfers of the NCCL sides of `t` on the face stream, after the packs
    /// (and the previous round's unpacks, which read the receive buffers), before the
    /// unpacks (the call joins the stream to the default stream at its end).
    ///
    /// NCCL pairs the transfers between two ranks in the order each posts them (no tags),
    /// so the faces go in an order both sides agree on: every face sent up (to the upper
    /// rank), then every face sent down; every halo from below (the lower rank's faces sent
    /// up), then every halo from above. With two ranks along the direction, the lower and
    /// upper rank are one, and its faces sent up pair with this rank's halos from below.
    pub(super) fn queue(x: &Exchange, t: [HaloTransport; 2], staging: &Staging) -> Result<()> {
        let comm = crate::mpi::nccl_world::world_nccl(x.comm)?;
        let halo = crate::launch::queue::side_stream();
        let ptr = |slot: &Slot| slot.device_ptr().expect("device faces");
        let faces = staging.send[0].taken().len() + staging.send[1].taken().len();
        let nccl = |i: &usize| t[i % 2] == HaloTransport::Nccl;
        let (send_order, recv_order) = nccl_order(faces);
        let sends = send_order.into_iter().filter(nccl).map(|i| {
            let slot = &staging.send[i % 2].taken()[i / 2];
            PointToPoint::Send {
                ptr: ptr(slot),
                bytes: slot.len(),
                peer: x.to(i),
            }
        });
        let recvs = recv_order.into_iter().filter(nccl).map(|i| {
            let slot = &staging.recv[i % 2].taken()[i / 2];
            PointToPoint::Recv {
                ptr: ptr(slot),
                bytes: slot.len(),
                peer: x.to(i),
            }
        });
        let ops: Vec<PointToPoint> = sends.chain(recvs).collect();
        // SAFETY: the faces are device buffers of this device, as long as their ops; the
        // halo stream runs the group after the packs, the unpacks and the
        // next packs into these buffers come after it (the caller joins it).
        unsafe { comm.group(halo, &ops)? };
        Ok(())
    }
}

/// The order a round's `faces` faces (two per field: sent down, sent up) and halos (two
/// per field: from below, from above) are posted to NCCL: faces sent up, then faces sent
/// down; halos from below, then halos from above (see `nccl::queue`).
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
fn nccl_order(faces: usize) -> (Vec<usize>, Vec<usize>) {
    let odd = (0..faces).filter(|i| i % 2 == 1);
    let even = (0..faces).filter(|i| i % 2 == 0);
    let sends = odd.clone().chain(even.clone()).collect();
    let recvs = even.chain(odd).collect();
    (sends, recvs)
}
#[cfg(test)]
mod tests {
    use super::nccl_order;

    /// NCCL pairs the transfers between two ranks in posting order: along a ring of `n`
    /// ranks, the k-th face rank r posts to rank p must land in the k-th halo p posts from
    /// r, and that halo must be the one the face fills (a face sent up fills the upper
    /// rank's lower halo of the same field, one sent down its upper halo).
    #[test]
    fn nccl_transfers_pair_each_face_with_its_halo() {
        for n in 2..=4 {
            for fields in 1..=3 {
                let faces = 2 * fields;
                let (sends, recvs) = nccl_order(faces);
                let lower = |r: usize| (r + n - 1) % n;
                let upper = |r: usize| (r + 1) % n;
                // Face i goes down (even) or up (odd); halo j comes from below (even) or
                // above (odd).
                let to = |r: usize, i: usize| if i % 2 == 1 { upper(r) } else { lower(r) };
                for r in 0..n {
                    for p in (0..n).filter(|&p| p != r) {
                        let posted: Vec<usize> =
                            sends.iter().copied().filter(|&i| to(r, i) == p).collect();
                        let expected: Vec<usize> =
                            recvs.iter().copied().filter(|&j| to(p, j) == r).collect();
                        assert_eq!(posted.len(), expected.len(), "{n} ranks, {r} -> {p}");
                        for (i, j) in posted.into_iter().zip(expected) {
                            let fills = if i % 2 == 1 {
                                2 * (i / 2)
                            } else {
                                2 * (i / 2) + 1
                            };
                            assert_eq!(fills, j, "{n} ranks, {fields} fields, {r} -> {p}");
                        }
                    }
                }
            }
        }
    }
}
