//! One round of a rank lattice's halo exchange (one cut direction): the faces of the stale
//! fields a call shifts go to the ranks below and above while the interior runs, and the
//! halos come back, by one of the three [`HaloTransport`]s: MPI carries the faces' bytes (host
//! and staged), or only descriptors of faces that stay on the GPUs (IPC,
//! `node_peers`), the device ordering the rest.

use super::boxes::Round;
use super::staging::{buffers, staging, FaceMemory, Staging};
use crate::capture::CaptureArg;
use crate::error::{Error, Result};
use crate::mpi::exchange::{exchange_during, HaloTransport, Incoming, Outgoing};
use mpi::topology::SimpleCommunicator;

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

/// Runs one round: sends the faces of the stale fields `caps` shifts, runs `interior` while
/// they travel, fills the halos. False when there are none (nothing was sent, and no later
/// round will send anything).
pub(super) fn round<C: CaptureArg>(
    transport: HaloTransport,
    x: &Exchange,
    caps: &mut C,
    interior: &mut dyn FnMut(&mut C) -> Result<()>,
) -> Result<bool> {
    match transport {
        #[cfg(feature = "cuda")]
        HaloTransport::Ipc => ipc_round(x, caps, interior),
        #[cfg(feature = "cuda")]
        HaloTransport::Nccl => nccl_round(x, caps, interior),
        _ => bytes_round(transport, x, caps, interior),
    }
}

/// The order a round's `faces` faces (two per field: sent down, sent up) and halos (two
/// per field: from below, from above) are posted to NCCL: faces sent up, then faces sent
/// down; halos from below, then halos from above (see `nccl_round`).
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
fn nccl_order(faces: usize) -> (Vec<usize>, Vec<usize>) {
    let odd = (0..faces).filter(|i| i % 2 == 1);
    let even = (0..faces).filter(|i| i % 2 == 0);
    let sends = odd.clone().chain(even.clone()).collect();
    let recvs = even.chain(odd).collect();
    (sends, recvs)
}

/// A round whose faces NCCL sends GPU to GPU: packed on the default stream into device
/// buffers, sent and received on the halo stream (after the packs) while the interior runs
/// on the default stream, unpacked on the default stream after the transfers. The host
/// queues everything and waits for nothing.
///
/// NCCL pairs the transfers between two ranks in the order each posts them (no tags), so
/// the faces go in an order both sides agree on: every face sent up (to the upper rank),
/// then every face sent down; every halo from below (the lower rank's faces sent up), then
/// every halo from above. With two ranks along the direction, the lower and upper rank are
/// one, and its faces sent up pair with this rank's halos from below.
#[cfg(feature = "cuda")]
fn nccl_round<C: CaptureArg>(
    x: &Exchange,
    caps: &mut C,
    interior: &mut dyn FnMut(&mut C) -> Result<()>,
) -> Result<bool> {
    use crate::cuda::nccl::PointToPoint;
    let dev = crate::cuda::device()?;
    let mut staging = staging();
    let Staging { send, recv } = &mut *staging;
    send.clear(FaceMemory::Device);
    caps.halo_send(x.k, send)?;
    if send.taken().is_empty() {
        return Ok(false);
    }
    recv.clear(FaceMemory::Device);
    for slot in send.taken() {
        recv.take(slot.len())?;
    }
    let comm = crate::mpi::nccl_world::world_nccl(x.comm)?;
    let halo = crate::cuda::peer::halo_stream(dev)?;
    // The transfers after the packs (and after the previous round's unpacks, which read
    // the receive buffers).
    crate::launch::queue::order_after(dev, std::ptr::null_mut(), halo)?;
    let ptr = |slot: &super::staging::Slot| slot.device_ptr().expect("device faces");
    let (send_order, recv_order) = nccl_order(send.taken().len());
    let sends = send_order.into_iter().map(|i| {
        let slot = &send.taken()[i];
        PointToPoint::Send {
            ptr: ptr(slot),
            bytes: slot.len(),
            peer: x.to(i),
        }
    });
    let recvs = recv_order.into_iter().map(|i| {
        let slot = &recv.taken()[i];
        PointToPoint::Recv {
            ptr: ptr(slot),
            bytes: slot.len(),
            peer: x.to(i),
        }
    });
    let ops: Vec<PointToPoint> = sends.chain(recvs).collect();
    // SAFETY: the faces are device buffers of this device, as long as their ops; the
    // halo stream runs the group after the packs, the default stream's unpacks and the
    // next packs into these buffers come after it (joined below).
    unsafe { comm.group(halo, &ops)? };
    let during = interior(caps);
    // Joined whatever the interior did: later packs must not refill buffers in flight.
    crate::launch::queue::join_side(dev, halo)?;
    during?;
    caps.halo_receive(x.k, &mut buffers(recv.taken_mut()))?;
    Ok(true)
}

/// A round whose faces MPI carries as bytes (host or staged).
fn bytes_round<C: CaptureArg>(
    transport: HaloTransport,
    x: &Exchange,
    caps: &mut C,
    interior: &mut dyn FnMut(&mut C) -> Result<()>,
) -> Result<bool> {
    let kind = match transport {
        #[cfg(feature = "cuda")]
        HaloTransport::Staged => FaceMemory::Staged,
        _ => FaceMemory::Host,
    };
    let mut staging = staging();
    let Staging { send, recv } = &mut *staging;
    send.clear(kind);
    caps.halo_send(x.k, send)?;
    if send.taken().is_empty() {
        return Ok(false);
    }
    #[cfg(feature = "cuda")]
    if kind == FaceMemory::Staged {
        // The faces are packed and copied on the default stream: MPI sends them after.
        crate::cuda::device()?.synchronize()?;
    }
    let outgoing = (send.taken().iter().enumerate())
        .map(|(i, slot)| {
            Ok(Outgoing {
                rank: x.to(i),
                tag: Exchange::send_tag(i)?,
                data: slot.bytes(),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    // Each halo is as long as the face sent the other way (the same box shape).
    recv.clear(kind);
    for slot in send.taken() {
        recv.take(slot.len())?;
    }
    let mut incoming = (recv.taken_mut().iter_mut().enumerate())
        .map(|(i, slot)| {
            Ok(Incoming {
                rank: x.to(i),
                tag: Exchange::receive_tag(i)?,
                data: slot.bytes_mut(),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let during = exchange_during(x.comm, &outgoing, &mut incoming, || interior(caps));
    drop((outgoing, incoming));
    during??;
    caps.halo_receive(x.k, &mut buffers(recv.taken_mut()))?;
    Ok(true)
}

/// A round between the ranks of one node through CUDA IPC: the faces are packed into this
/// rank's exported buffers, an event is recorded after the packs, descriptors go by MPI,
/// and each halo is unpacked from the neighbour's buffer once the default stream has
/// waited for the neighbour's event. The host never waits for the device.
#[cfg(feature = "cuda")]
fn ipc_round<C: CaptureArg>(
    x: &Exchange,
    caps: &mut C,
    interior: &mut dyn FnMut(&mut C) -> Result<()>,
) -> Result<bool> {
    use super::node_peers::{node_peers, Descriptor};
    use super::staging::Slot;
    let dev = crate::cuda::device()?;
    let mut peers = node_peers();
    let round = peers.round(x.lattice, x.k);
    let set = round.begin(dev)?;
    let send = round.send(set);
    send.clear(FaceMemory::Exported);
    caps.halo_send(x.k, send)?;
    if send.taken().is_empty() {
        round.cancel();
        return Ok(false);
    }
    let (event_id, event) = round.publish(set)?;
    let send = round.send(set);
    let sent: Vec<Descriptor> = (send.taken().iter())
        .map(|slot| {
            let (buffer_id, memory) = slot.exported().expect("faces of exported buffers");
            Descriptor {
                buffer_id,
                event_id,
                len: slot.len() as u64,
                memory,
                event,
            }
        })
        .collect();
    let lengths: Vec<usize> = send.taken().iter().map(Slot::len).collect();
    let outgoing = (sent.iter().enumerate())
        .map(|(i, d)| {
            Ok(Outgoing {
                rank: x.to(i),
                tag: Exchange::send_tag(i)?,
                data: bytemuck::bytes_of(d),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let mut received = vec![<Descriptor as bytemuck::Zeroable>::zeroed(); sent.len()];
    let mut incoming = (received.iter_mut().enumerate())
        .map(|(i, d)| {
            Ok(Incoming {
                rank: x.to(i),
                tag: Exchange::receive_tag(i)?,
                data: bytemuck::bytes_of_mut(d),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let during = exchange_during(x.comm, &outgoing, &mut incoming, || interior(caps));
    drop((outgoing, incoming));
    during??;
    let mut halos = Vec::with_capacity(received.len());
    for (i, d) in received.iter().enumerate() {
        // Each halo is as long as the face sent the other way (the same box shape).
        if d.len as usize != lengths[i] {
            return Err(Error::Mpi(format!(
                "rank {} sent a face of {} bytes for a halo of {} bytes: the ranks run \
                 different calls",
                x.to(i),
                d.len,
                lengths[i]
            )));
        }
        halos.push(Slot::peer(peers.receive(dev, x.to(i), d)?, lengths[i]));
    }
    caps.halo_receive(x.k, &mut buffers(&mut halos))?;
    peers.round(x.lattice, x.k).finish(set)?;
    Ok(true)
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
