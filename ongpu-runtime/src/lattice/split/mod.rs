//! Lattices split over several devices: [`Devices`], [`SplitLattice`] and [`SplitField`].
//!
//! A split lattice is cut into slabs along one direction, one per device. Each device holds
//! its slab of every field plus its halo layers on either side (one unless deepened),
//! stored as a part lattice whose coordinates and parities are those of the whole lattice
//! and whose split direction is slowest, so that a layer of one parity is one contiguous
//! range of sites. A call over the split lattice runs each part's own sites on its device
//! with the unchanged kernel (or CPU closure); after a call that writes a split field, its
//! halos are refreshed from the neighbouring slabs. On the CPU backend, parts are emulated
//! with host copies, so the decomposition is tested where there is no GPU.
//! `docs/multi-gpu.md` gives the reasons.

mod capture;
mod devices;
mod exchange;
#[cfg(feature = "cuda")]
mod exchange_cuda;
mod field;
mod lattice;
pub(crate) mod run;

pub use capture::{SplitRead, SplitShifted, SplitWrite};
pub use devices::Devices;
pub use field::SplitField;
pub use lattice::{SplitLattice, SplitSubset};
