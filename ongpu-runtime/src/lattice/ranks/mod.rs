//! The multi-process layer: a lattice cut over the ranks of an MPI run, beside `split`
//! (which cuts over the devices of one process). [`ProcessGrid`] is the geometry of the cut,
//! and needs no MPI; the world it runs in is [`crate::mpi`] (the `mpi` feature).

mod grid;

pub use grid::ProcessGrid;
