//! HISQ quarks (highly improved staggered quarks: Follana et al., Phys. Rev. D 75 (2007)
//! 054502), the staggered action of MILC's production ensembles:
//!
//! - [`links`]: the two levels of smearing with the U(3) projection between them, the Naik
//!   links and the `ε` correction, phases and time boundary folded in ([`HisqLinks`]);
//! - [`paths`]: the smearing's paths (staples, Lepage paths) as `on_gpu!` passes;
//! - [`polar_u3`]: the U(3) projection `W = V (V†V)^{−1/2}` as a device function (from
//!   [`crate::gauge`], where the SU(3) projection of APE smearing is built on it);
//! - [`Hisq`]: the operator, its even-odd normal operator and the interface of the generic
//!   CG; [`MultiShiftCg`](crate::staggered::MultiShiftCg) solves all shifts of a rational
//!   function at once.
//!
//! docs/hisq.md has the conventions, the coefficients and what the tests check.

pub mod force;
pub mod links;
mod operator;
pub mod paths;
pub mod paths_pullback;
pub mod polar_pullback;
mod single;

pub use crate::gauge::polar_u3;
pub use links::{HisqLinks, Smeared, LEVEL_ONE, LEVEL_TWO};
pub use operator::{hop, Hisq, HOP_BYTES, HOP_FLOPS};
pub use single::SingleHisq;
