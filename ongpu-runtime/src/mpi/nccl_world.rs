//! The run's NCCL communicator, for halos sent GPU to GPU between ranks (the `nccl` halo
//! transport): made once, collectively, by the first exchange that uses it. Rank 0 makes
//! the unique id and MPI broadcasts it; every rank then joins on its own GPU.

use super::agree::agree_on;
use crate::cuda::nccl::{self, Comm, UniqueId};
use crate::error::Result;
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::Root;
use std::sync::OnceLock;

/// The communicator of `comm`'s ranks (every rank calls this at the same point the first
/// time; later calls return it).
pub(crate) fn world_nccl(comm: &SimpleCommunicator) -> Result<&'static Comm> {
    static COMM: OnceLock<Comm> = OnceLock::new();
    if let Some(c) = COMM.get() {
        return Ok(c);
    }
    let made = if comm.rank() == 0 {
        nccl::unique_id().map(Some)
    } else {
        Ok(None)
    };
    // Rank 0's failure is every rank's error, before anyone waits in the broadcast.
    let mut id = agree_on(comm, made)?.unwrap_or(UniqueId { internal: [0; 128] });
    let mut bytes: [u8; 128] = id.internal.map(|c| c as u8);
    comm.process_at_rank(0).broadcast_into(&mut bytes[..]);
    id.internal = bytes.map(|b| b as std::ffi::c_char);
    crate::cuda::device()?.bind()?;
    let c = Comm::init(comm.size() as usize, id, comm.rank() as usize)?;
    Ok(COMM.get_or_init(|| c))
}
