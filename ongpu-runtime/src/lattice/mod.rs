//! The lattice layer: what turns a lattice's geometry ([`Lattice`](crate::Lattice) and
//! [`Subset`](crate::Subset), a plain value type on the ground floor in `geometry.rs`,
//! because bodies capture it and every launch passes it) into calls over sites.
//!
//! - `shift`: a captured field read at other sites (`f.shift(mu, k)`);
//! - `space`: the index space of a call (a count, a lattice, a subset, a split lattice),
//!   checked against the captured fields;
//! - `spaces`: the [`Space`](crate::Space) trait, what code generic over where fields live
//!   (a lattice, a split one, one cut over ranks) is written against;
//! - `decomposed`: what every decomposition checks of a call's arguments (the part facet
//!   and the generic argument of a decomposed field, `capture::Parted`, are in the core);
//! - `halos`: which halos are stale, for both decompositions (exchanged only where a call
//!   shifts a field written since its last exchange);
//! - `split`: one lattice over several devices of one process, with halo exchange;
//! - `ranks`: one lattice over the ranks of an MPI run (the process grid).
//!
//! It sits above the runtime core (fields, captures, launches, backends) and below the call
//! kinds (`elementwise`, `reduce`), which resolve their sites through `space`.

pub(crate) mod decomposed;
pub(crate) mod halos;
pub(crate) mod neighbours;
pub(crate) mod ranks;
pub(crate) mod shift;
pub(crate) mod shift_lanes;
pub(crate) mod space;
pub(crate) mod spaces;
pub(crate) mod split;
