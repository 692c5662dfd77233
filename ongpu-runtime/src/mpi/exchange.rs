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

/// How the halos of rank lattices travel to each neighbour ([`World::halo_transport`]): one
/// transport to the ranks of the same node, one to the ranks of other nodes, chosen once per
/// run by every rank together. A call's exchange mixes them per neighbour: along a direction
/// cut across nodes, the faces to the neighbour on this node may go through IPC while those
/// to the neighbour on the next node go through host memory (NCCL, where it is the
/// transport, serves every neighbour).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HaloTransports {
    within: HaloTransport,
    between: HaloTransport,
    /// The node of each rank (ranks with the same number share a node); empty for one node.
    nodes: Vec<usize>,
}

impl HaloTransports {
    /// The transport between ranks of one node.
    pub fn within_node(&self) -> HaloTransport {
        self.within
    }

    /// The transport between ranks of different nodes (the same as [`within_node`](Self::within_node)
    /// when the run has one node).
    pub fn between_nodes(&self) -> HaloTransport {
        self.between
    }

    /// How many nodes the run's ranks are on (as `ONGPU_RANKS_PER_NODE` may count them).
    pub fn nodes(&self) -> usize {
        let mut n = self.nodes.clone();
        n.sort_unstable();
        n.dedup();
        n.len().max(1)
    }

    /// The transport of the faces rank `from` sends to rank `to` (the same both ways).
    pub fn between(&self, from: usize, to: usize) -> HaloTransport {
        let node = |r: usize| self.nodes.get(r).copied().unwrap_or(0);
        if node(from) == node(to) {
            self.within
        } else {
            self.between
        }
    }
}

impl std::fmt::Display for HaloTransports {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.nodes() == 1 {
            write!(f, "{}", self.within)
        } else if self.within == self.between {
            write!(f, "{} ({} nodes)", self.within, self.nodes())
        } else {
            write!(
                f,
                "within a node: {}; between the {} nodes: {}",
                self.within,
                self.nodes(),
                self.between
            )
        }
    }
}

/// The CPU backend's transports: host vectors to every neighbour.
static HOST: HaloTransports = HaloTransports {
    within: HaloTransport::Host,
    between: HaloTransport::Host,
    nodes: Vec::new(),
};

impl HaloTransports {
    /// The transports of a call on the GPU (`on_gpu`) or the CPU. On the GPU they are chosen
    /// once per run, by every rank together (a collective the first time), as
    /// `ONGPU_HALO_TRANSPORT` says: `ipc`, `nccl` or `staged` for every neighbour, `A+B` for
    /// `A` within a node and `B` between nodes (an error where one cannot work), or `auto`
    /// (unset): on one node IPC where its GPUs read each other's memory (unless
    /// `ONGPU_MPI_IPC=0`), else NCCL where every rank can load it, else staging through host
    /// memory; on several nodes NCCL to every neighbour where every rank can load it, else
    /// IPC (or staging) within a node and staging between nodes. NCCL is never mixed with
    /// another transport. `ONGPU_RANKS_PER_NODE=K` counts each node's ranks as nodes of `K`
    /// (to run the transports between nodes on one node).
    pub(crate) fn choose(on_gpu: bool, comm: &SimpleCommunicator) -> Result<&'static Self> {
        #[cfg(feature = "cuda")]
        if on_gpu {
            static CHOSEN: std::sync::OnceLock<HaloTransports> = std::sync::OnceLock::new();
            if let Some(t) = CHOSEN.get() {
                return Ok(t);
            }
            let t = choose_on_gpu(comm)?;
            return Ok(CHOSEN.get_or_init(|| t));
        }
        let _ = (on_gpu, comm);
        Ok(&HOST)
    }
}

/// A transport `ONGPU_HALO_TRANSPORT` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
enum Named {
    Auto = 0,
    Ipc = 1,
    Nccl = 2,
    Staged = 3,
    Mpi = 4,
}

/// `ONGPU_HALO_TRANSPORT`: the transport within a node and the one between nodes.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
fn parse_transports(var: &str) -> Result<(Named, Named)> {
    let one = |s: &str| match s {
        "" | "auto" => Ok(Named::Auto),
        "ipc" => Ok(Named::Ipc),
        "nccl" => Ok(Named::Nccl),
        "staged" => Ok(Named::Staged),
        "mpi" => Ok(Named::Mpi),
        other => Err(Error::InvalidArgument(format!(
            "ONGPU_HALO_TRANSPORT={var}: `{other}` is no transport; want ipc, nccl, staged or \
             auto, or WITHIN+BETWEEN (the transport within a node, then between nodes, as \
             ipc+staged)"
        ))),
    };
    match var.split_once('+') {
        Some((within, between)) => Ok((one(within)?, one(between)?)),
        None => {
            let t = one(var)?;
            Ok((t, t))
        }
    }
}

/// The transports within and between nodes for what was asked (`wanted`) and what works
/// (`ipc`: the GPUs of every node read each other's memory; `nccl`: every rank loads NCCL,
/// one rank per GPU), with `several` nodes or one. The same on every rank.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
fn plan(
    wanted: (Named, Named),
    ipc: bool,
    nccl: bool,
    several: bool,
) -> std::result::Result<(HaloTransport, HaloTransport), String> {
    let no_ipc = "the GPUs of a node cannot read each other's memory (or ONGPU_MPI_IPC=0)";
    let no_nccl = "NCCL (libnccl.so.2) cannot be loaded on every rank, or two ranks share a \
                   GPU (NCCL takes one rank per GPU)";
    let no_mpi = "handing device memory to a CUDA-aware MPI is not built; use nccl (GPU to \
                  GPU) or staged";
    let within = match wanted.0 {
        Named::Ipc if ipc => HaloTransport::Ipc,
        Named::Ipc => return Err(format!("ipc: {no_ipc}")),
        Named::Nccl if nccl => HaloTransport::Nccl,
        Named::Nccl => return Err(format!("nccl: {no_nccl}")),
        Named::Staged => HaloTransport::Staged,
        Named::Mpi => return Err(format!("mpi: {no_mpi}")),
        Named::Auto if ipc => HaloTransport::Ipc,
        Named::Auto if nccl => HaloTransport::Nccl,
        Named::Auto => HaloTransport::Staged,
    };
    if !several {
        return Ok((within, within));
    }
    // NCCL's transfers beside IPC's or MPI's in one run were seen to hang (ipc+nccl under
    // `ONGPU_RANKS_PER_NODE=2` on four H200s): NCCL serves every neighbour or none.
    let mixes_nccl = |between: HaloTransport| {
        (within == HaloTransport::Nccl) != (between == HaloTransport::Nccl)
    };
    let between = match wanted.1 {
        Named::Ipc => {
            return Err(
                "ipc between nodes: the ranks span several nodes, and IPC reaches only the \
                 GPUs of one node (use nccl or ipc+staged)"
                    .to_string(),
            )
        }
        Named::Nccl if nccl => HaloTransport::Nccl,
        Named::Nccl => return Err(format!("nccl between nodes: {no_nccl}")),
        Named::Staged => HaloTransport::Staged,
        Named::Mpi => return Err(format!("mpi between nodes: {no_mpi}")),
        // NCCL to every neighbour where it can serve the nodes' links, unless the
        // transport within a node was named.
        Named::Auto if nccl && wanted.0 == Named::Auto => {
            return Ok((HaloTransport::Nccl, HaloTransport::Nccl))
        }
        Named::Auto if nccl && !mixes_nccl(HaloTransport::Nccl) => HaloTransport::Nccl,
        Named::Auto => HaloTransport::Staged,
    };
    if mixes_nccl(between) {
        return Err(format!(
            "NCCL beside another transport ({within} within a node, {between} between \
             nodes) is not supported: use nccl for every neighbour, or ipc+staged"
        ));
    }
    Ok((within, between))
}

/// The GPU transports, decided by every rank together.
#[cfg(feature = "cuda")]
fn choose_on_gpu(comm: &SimpleCommunicator) -> Result<HaloTransports> {
    use super::gather::gather_on;
    let var = std::env::var("ONGPU_HALO_TRANSPORT").unwrap_or_default();
    let per_node = std::env::var("ONGPU_RANKS_PER_NODE").unwrap_or_default();
    let wanted = parse_transports(&var);
    let per: Option<u64> = match per_node.as_str() {
        "" => Some(u64::MAX),
        n => n.parse().ok().filter(|&k| k > 0),
    };
    // Every rank must take the same branch: each collective below is made by all of them,
    // so a rank's bad variable is every rank's error.
    let mine = [
        wanted
            .as_ref()
            .map_or(255, |w| 16 * w.0 as u64 + w.1 as u64),
        per.unwrap_or(0),
    ];
    let votes = gather_on(comm, &mine);
    let wanted = wanted?;
    if per.is_none() || votes.chunks_exact(2).any(|v| v[1] == 0) {
        return Err(Error::InvalidArgument(format!(
            "ONGPU_RANKS_PER_NODE={per_node}: want a whole number of ranks above 0 (on every rank)"
        )));
    }
    if votes.chunks_exact(2).any(|v| v != mine) {
        return Err(Error::Mpi(format!(
            "ONGPU_HALO_TRANSPORT or ONGPU_RANKS_PER_NODE differ between the ranks \
             ({votes:?} by rank): set them alike for all"
        )));
    }
    let nodes = node_of_each_rank(comm, mine[1])?;
    let several = nodes.iter().any(|&n| n != nodes[0]);
    let ipc = ipc_within_nodes(comm, &nodes)?;
    // NCCL is loaded only where the plan can use it: between nodes, or within the one node
    // where it is named or IPC cannot serve (every rank agrees on these, so all of them make
    // the collective or none).
    let may_use_nccl = several || wanted.0 == Named::Nccl || (wanted.0 == Named::Auto && !ipc);
    let nccl = may_use_nccl && nccl_everywhere(comm)?;
    let (within, between) = plan(wanted, ipc, nccl, several)
        .map_err(|why| Error::Mpi(format!("ONGPU_HALO_TRANSPORT={var}: {why}")))?;
    if within == HaloTransport::Nccl || (several && between == HaloTransport::Nccl) {
        // Made here, where every rank is, and not at a rank's first NCCL exchange: with
        // transports mixed per neighbour, some ranks may have no NCCL neighbour in a round.
        super::nccl_world::world_nccl(comm)?;
    }
    Ok(HaloTransports {
        within,
        between,
        nodes: if several { nodes } else { Vec::new() },
    })
}

/// The node of each rank, numbered from 0 in rank order: the ranks that share memory, in
/// groups of `per` consecutive ranks of the node.
#[cfg(feature = "cuda")]
fn node_of_each_rank(comm: &SimpleCommunicator, per: u64) -> Result<Vec<usize>> {
    use super::gather::gather_on;
    let shared = comm.split_shared(comm.rank());
    let leader = gather_on(&shared, &[comm.rank() as u64])
        .into_iter()
        .min()
        .unwrap_or(0);
    let key = [leader, shared.rank() as u64 / per];
    let keys = gather_on(comm, &key);
    let mut seen: Vec<&[u64]> = Vec::new();
    Ok(keys
        .chunks_exact(2)
        .map(|k| match seen.iter().position(|s| *s == k) {
            Some(n) => n,
            None => {
                seen.push(k);
                seen.len() - 1
            }
        })
        .collect())
}

/// Whether every rank loads NCCL and has a GPU of its own (a communicator refuses two
/// ranks on one device).
#[cfg(feature = "cuda")]
pub(crate) fn nccl_everywhere(comm: &SimpleCommunicator) -> Result<bool> {
    use super::gather::gather_on;
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
}

/// Whether the ranks of each node can exchange halos through CUDA IPC: every rank's GPU
/// able to read the GPU of every rank of its node, and `ONGPU_MPI_IPC` not `0`. Decided
/// collectively (every rank calls it at the same point), the same answer on every rank.
#[cfg(feature = "cuda")]
fn ipc_within_nodes(comm: &SimpleCommunicator, nodes: &[usize]) -> Result<bool> {
    use super::gather::gather_on;
    use crate::cuda::ipc;
    let dev = crate::cuda::device()?;
    let wanted = std::env::var("ONGPU_MPI_IPC").map_or(true, |v| v != "0");
    let mine = ipc::uuid(dev).unwrap_or([0; 16]);
    let all: Vec<u8> = gather_on(comm, &mine);
    let me = comm.rank() as usize;
    let readable = (all.chunks_exact(16).enumerate())
        .filter(|&(r, _)| nodes[r] == nodes[me])
        .all(|(_, u)| ipc::can_read(dev, u.try_into().expect("16 bytes")).unwrap_or(false));
    let votes = gather_on(comm, &[u8::from(wanted && readable)]);
    Ok(votes.iter().all(|&v| v == 1))
}

impl World {
    /// How the halos of rank lattices travel on the current backend, to the ranks of this
    /// node and to those of other nodes. On the GPU a collective the first time it is
    /// decided (by this call or the first exchange): every rank calls it at the same point.
    pub fn halo_transport(&self) -> Result<HaloTransports> {
        let on_gpu = crate::backend::current()? == crate::backend::Backend::Cuda;
        HaloTransports::choose(on_gpu, self.comm()).cloned()
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

#[cfg(test)]
mod tests {
    use super::{parse_transports, plan, HaloTransport, HaloTransports, Named};
    use HaloTransport::{Ipc, Nccl, Staged};

    #[test]
    fn the_variable_names_one_transport_or_one_within_and_one_between_nodes() {
        assert_eq!(parse_transports("").unwrap(), (Named::Auto, Named::Auto));
        assert_eq!(
            parse_transports("nccl").unwrap(),
            (Named::Nccl, Named::Nccl)
        );
        assert_eq!(
            parse_transports("ipc+staged").unwrap(),
            (Named::Ipc, Named::Staged)
        );
        assert_eq!(
            parse_transports("auto+nccl").unwrap(),
            (Named::Auto, Named::Nccl)
        );
        let e = parse_transports("ipc+tcp").unwrap_err().to_string();
        assert!(
            e.contains("`tcp` is no transport") && e.contains("WITHIN+BETWEEN"),
            "{e}"
        );
        assert!(parse_transports("fast").is_err());
    }

    #[test]
    fn auto_takes_ipc_within_a_node_and_nccl_or_staging_between_nodes() {
        let auto = (Named::Auto, Named::Auto);
        // NCCL serves every neighbour or none (mixed with IPC it was seen to hang).
        assert_eq!(plan(auto, true, true, true), Ok((Nccl, Nccl)));
        assert_eq!(plan(auto, true, false, true), Ok((Ipc, Staged)));
        assert_eq!(plan(auto, false, true, true), Ok((Nccl, Nccl)));
        assert_eq!(plan(auto, false, false, false), Ok((Staged, Staged)));
        // One node: the transport within it serves every neighbour.
        assert_eq!(plan(auto, true, true, false), Ok((Ipc, Ipc)));
    }

    #[test]
    fn a_forced_transport_that_cannot_work_is_an_error_that_says_why() {
        let ipc = (Named::Ipc, Named::Ipc);
        assert_eq!(plan(ipc, true, true, false), Ok((Ipc, Ipc)));
        let e = plan(ipc, true, true, true).unwrap_err();
        assert!(e.contains("IPC reaches only the GPUs of one node"), "{e}");
        assert!(plan(ipc, false, true, false)
            .unwrap_err()
            .contains("cannot read"));
        let e = plan((Named::Ipc, Named::Nccl), true, false, true).unwrap_err();
        assert!(e.contains("nccl between nodes"), "{e}");
        let e = plan((Named::Ipc, Named::Nccl), true, true, true).unwrap_err();
        assert!(e.contains("NCCL beside another transport"), "{e}");
        assert_eq!(
            plan((Named::Ipc, Named::Auto), true, true, true),
            Ok((Ipc, Staged))
        );
        assert_eq!(
            plan((Named::Ipc, Named::Staged), true, false, true),
            Ok((Ipc, Staged))
        );
        // Between nodes is not asked where there is one node.
        assert_eq!(
            plan((Named::Ipc, Named::Nccl), true, false, false),
            Ok((Ipc, Ipc))
        );
        assert!(plan((Named::Mpi, Named::Mpi), true, true, false)
            .unwrap_err()
            .contains("CUDA-aware MPI is not built"));
    }

    #[test]
    fn each_neighbour_gets_the_transport_of_its_node() {
        // Four ranks along a ring, two nodes of two.
        let t = HaloTransports {
            within: Ipc,
            between: Nccl,
            nodes: vec![0, 0, 1, 1],
        };
        assert_eq!(t.nodes(), 2);
        assert_eq!((t.between(0, 1), t.between(1, 0)), (Ipc, Ipc));
        assert_eq!((t.between(1, 2), t.between(2, 1)), (Nccl, Nccl));
        assert_eq!((t.between(3, 0), t.between(0, 3)), (Nccl, Nccl));
        assert_eq!(t.between(2, 3), Ipc);
        assert_eq!(
            t.to_string(),
            "within a node: CUDA IPC between the node's GPUs; between the 2 nodes: NCCL \
             send/recv between the GPUs"
        );
        let one = HaloTransports {
            within: Staged,
            between: Staged,
            nodes: Vec::new(),
        };
        assert_eq!((one.nodes(), one.between(0, 3)), (1, Staged));
    }
}
