//! Many processes, one program: the MPI world a multi-process run lives in (the `mpi`
//! feature, off by default).
//!
//! One process per GPU, as every lattice code on a cluster runs: [`World::init`] starts MPI
//! once, says which rank this process is, and makes the GPU of its local rank on the node
//! the default device. What the ranks do together goes through MPI itself (the `mpi` crate,
//! rsmpi): [`World::agree`] turns one rank's failure into the same error on every rank
//! (never a hang), [`World::gather`] collects every rank's values in rank order (so sums
//! made from them are the same bits on every rank), [`World::exchange`] has messages to and
//! from many ranks in flight at once (the transport of halo exchange; the faces' buffers
//! and the IPC peers belong to the rank layer, `lattice/ranks`), and
//! [`World::abort`] ends every rank with one rank's message. `docs/multi-node.md` says how
//! to run it.

pub(crate) mod agree;
pub(crate) mod exchange;
pub(crate) mod gather;
#[cfg(feature = "cuda")]
pub(crate) mod nccl_world;
pub(crate) mod world;

pub use exchange::{HaloTransport, HaloTransports, Incoming, Outgoing};
pub use world::World;
