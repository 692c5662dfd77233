//! Every rank's values on every rank, in rank order: what deterministic sums are made of.

use super::World;
use mpi::collective::CommunicatorCollectives;
use mpi::datatype::PartitionMut;
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::Count;

impl World {
    /// Every rank's `local` values, concatenated in rank order, on every rank (one
    /// `MPI_Allgatherv` of their bytes, after one of their lengths). A collective: every rank
    /// calls it at the same point; each rank may send a different number of values.
    ///
    /// # Panics
    /// If one rank sends 2 GiB or more, or all of them together do (MPI counts are `int`).
    pub fn gather<T: bytemuck::Pod>(&self, local: &[T]) -> Vec<T> {
        let bytes: Vec<u8> = self.gather_parts(bytemuck::cast_slice(local)).concat();
        bytemuck::pod_collect_to_vec(&bytes)
    }

    /// The sum of every rank's `x`, added in rank order (rank 0's first): the same bits on
    /// every rank, and for a given split of the terms over ranks, from run to run.
    pub fn sum_in_rank_order(&self, x: f64) -> f64 {
        self.gather(&[x]).into_iter().fold(0.0, |s, v| s + v)
    }

    /// Every rank's bytes, one vector per rank in rank order, on every rank.
    pub(crate) fn gather_parts(&self, local: &[u8]) -> Vec<Vec<u8>> {
        gather_parts_on(self.comm(), local)
    }
}

/// Every rank's `local` values on `comm`, concatenated in rank order (see
/// [`World::gather`]).
pub(crate) fn gather_on<T: bytemuck::Pod>(comm: &SimpleCommunicator, local: &[T]) -> Vec<T> {
    let bytes: Vec<u8> = gather_parts_on(comm, bytemuck::cast_slice(local)).concat();
    bytemuck::pod_collect_to_vec(&bytes)
}

/// Every rank's bytes on `comm`, one vector per rank in rank order, on every rank.
pub(crate) fn gather_parts_on(comm: &SimpleCommunicator, local: &[u8]) -> Vec<Vec<u8>> {
    {
        let count = |n: usize, what: &str| -> Count {
            Count::try_from(n).unwrap_or_else(|_| {
                panic!("World::gather: {what} of {n} bytes is beyond MPI's 2 GiB count")
            })
        };
        let mine = count(local.len(), "one rank's part");
        let mut counts = vec![0 as Count; comm.size() as usize];
        comm.all_gather_into(&mine, &mut counts[..]);
        let mut displs = Vec::with_capacity(counts.len());
        let mut total = 0usize;
        for &c in &counts {
            displs.push(count(total, "the parts before a rank's"));
            total += c as usize;
        }
        count(total, "the whole");
        // Every rank knows the total: with nothing to send anywhere, none calls MPI (Open MPI
        // refuses the dangling pointers of empty buffers), and an empty part is sent from a
        // real address.
        let mut all = vec![0u8; total.max(1)];
        if total > 0 {
            let anchor = [0u8; 1];
            let send = if local.is_empty() {
                &anchor[..0]
            } else {
                local
            };
            let mut parts = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
            comm.all_gather_varcount_into(send, &mut parts);
        }
        counts
            .iter()
            .zip(&displs)
            .map(|(&c, &d)| all[d as usize..(d + c) as usize].to_vec())
            .collect()
    }
}
