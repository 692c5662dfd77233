//! The multi-process layer: a lattice cut over the ranks of an MPI run, beside `split`
//! (which cuts over the devices of one process). [`ProcessGrid`] is the geometry of the cut,
//! and needs no MPI, nor do the boxes of a rank's block; the rank lattice, its fields and
//! their calls live in the world of [`crate::mpi`] (the `mpi` feature).

#[cfg(any(feature = "mpi", test))]
mod boxes;
#[cfg(feature = "mpi")]
mod capture;
#[cfg(feature = "cuda")]
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) mod face_kernels;
#[cfg(feature = "mpi")]
mod field;
mod grid;
#[cfg(feature = "mpi")]
mod lattice;
#[cfg(all(feature = "mpi", feature = "cuda"))]
mod node_peers;
#[cfg(feature = "mpi")]
mod rounds;
#[cfg(feature = "mpi")]
pub(crate) mod run;
#[cfg(feature = "mpi")]
mod staging;

#[cfg(feature = "mpi")]
pub use capture::{RankRead, RankShifted, RankWrite};
#[cfg(feature = "mpi")]
pub use field::RankField;
pub use grid::ProcessGrid;
#[cfg(feature = "mpi")]
pub use lattice::{RankLattice, RankSubset};
