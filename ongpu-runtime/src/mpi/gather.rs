//! Every rank's values on every rank, in rank order: what deterministic sums are made of.

use super::World;
use mpi::collective::CommunicatorCollectives;
use mpi::datatype::PartitionMut;
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::Count;

impl World {
    /// Every rank's `local` values, concatenated in rank order, on every rank
    /// (`MPI_Allgatherv` of their bytes, after one of their lengths). A collective: every
    /// rank calls it at the same point; each rank may send a different number of values.
    /// Parts beyond MPI's 2 GiB count travel in several rounds.
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

/// Every rank's bytes on `comm`, one vector per rank in rank order, on every rank. MPI
/// counts bytes in an `int`, so the parts travel in rounds of at most 2 GiB in all (each
/// rank sending its next slice of at most 2 GiB / ranks), as many as the longest part needs.
pub(crate) fn gather_parts_on(comm: &SimpleCommunicator, local: &[u8]) -> Vec<Vec<u8>> {
    let ranks = comm.size() as usize;
    let mut lengths = vec![0u64; ranks];
    comm.all_gather_into(&(local.len() as u64), &mut lengths[..]);
    let lengths: Vec<usize> = lengths.into_iter().map(|n| n as usize).collect();
    let chunk = Count::MAX as usize / ranks;
    let longest = lengths.iter().copied().max().unwrap_or(0);
    let mut parts: Vec<Vec<u8>> = lengths.iter().map(|&n| Vec::with_capacity(n)).collect();
    // Every rank knows every length: with nothing to send anywhere, none calls MPI (Open MPI
    // refuses the dangling pointers of empty buffers), and an empty slice is sent from a
    // real address.
    let anchor = [0u8; 1];
    for start in (0..longest).step_by(chunk.max(1)) {
        let slice = |n: usize| start.min(n)..(start + chunk).min(n);
        let counts: Vec<Count> = (lengths.iter()).map(|&n| slice(n).len() as Count).collect();
        let displs: Vec<Count> = (counts.iter())
            .scan(0, |at, &c| {
                let d = *at;
                *at += c;
                Some(d)
            })
            .collect();
        let total: usize = counts.iter().map(|&c| c as usize).sum();
        let mut all = vec![0u8; total];
        let mine = &local[slice(local.len())];
        let send = if mine.is_empty() { &anchor[..0] } else { mine };
        let mut into = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
        comm.all_gather_varcount_into(send, &mut into);
        for ((part, &c), &d) in parts.iter_mut().zip(&counts).zip(&displs) {
            part.extend_from_slice(&all[d as usize..(d + c) as usize]);
        }
    }
    parts
}
