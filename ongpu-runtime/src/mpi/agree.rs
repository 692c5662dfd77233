//! One rank's failure as every rank's error: a step that fails on some ranks must not leave
//! the others waiting in the next collective.

use super::gather::gather_parts_on;
use super::World;
use crate::error::{Error, Result};
use mpi::topology::{Communicator, SimpleCommunicator};

impl World {
    /// `result` as the whole run sees it: on every rank, `Ok` when every rank's `result` is
    /// `Ok`, and otherwise the same [`Error::Mpi`], naming each failed rank (lowest first)
    /// and its error. A collective: every rank calls it at the same point, typically after
    /// a step whose failure depends on the rank (its part of a file, its memory).
    ///
    /// ```no_run
    /// # use ongpu_runtime::{mpi::World, Field};
    /// # let world = World::init()?;
    /// let n = if world.rank() == 1 { usize::MAX } else { 1024 };
    /// // Rank 1's allocation fails; every rank returns the error, none waits for rank 1.
    /// let f = world.agree(Field::<f64>::zeros(n).pinned())?;
    /// # Ok::<(), ongpu_runtime::Error>(())
    /// ```
    pub fn agree<T>(&self, result: Result<T>) -> Result<T> {
        agree_on(self.comm(), result)
    }
}

/// [`World::agree`] on `comm`.
pub(crate) fn agree_on<T>(comm: &SimpleCommunicator, result: Result<T>) -> Result<T> {
    // A failure sends a marker byte and its message; a success sends nothing.
    let mine = match &result {
        Ok(_) => Vec::new(),
        Err(e) => [&[1u8][..], e.to_string().as_bytes()].concat(),
    };
    let size = comm.size();
    let failures: Vec<String> = gather_parts_on(comm, &mine)
        .into_iter()
        .enumerate()
        .filter(|(_, part)| !part.is_empty())
        .map(|(rank, part)| {
            format!(
                "rank {rank} of {size}: {}",
                String::from_utf8_lossy(&part[1..])
            )
        })
        .collect();
    if failures.is_empty() {
        result
    } else {
        Err(Error::Mpi(format!("failed on {}", failures.join("; "))))
    }
}
