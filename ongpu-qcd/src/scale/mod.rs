//! Setting the scale of a quenched ensemble: on-axis Wilson loops `W(r, t)` with smeared
//! spatial links, the static potential `V(r)`, the Sommer scale `r₀` (`r² F(r) = 1.65` at
//! `r = r₀`), the flow scales `t₀` and `w₀` of the ensemble mean, each with jackknife errors
//! over configurations ([`stats::jackknife_of`](crate::stats::jackknife_of)), and the interpolations of the literature they are compared with.
//!
//! ```
//! # mod ongpu { pub use ::ongpu_runtime::*; pub mod qcd { pub use ::ongpu_qcd::*; } }
//! use ongpu::qcd::gauge::GaugeField;
//! use ongpu::qcd::scale::{wilson_loops, reference};
//! # fn main() -> ongpu::Result<()> {
//! let lat = ongpu::Lattice::new([4, 4, 4, 4])?;
//! let u = GaugeField::unit(lat)?;
//! let w = wilson_loops(&u, &u, 2, 2)?;            // the spatial links unsmeared here
//! assert!((w.get(2, 2) - 1.0).abs() < 1e-14);     // every loop of the unit field is 1
//! assert!((reference::r0_over_a(6.0) - 5.36).abs() < 0.01);
//! # Ok(())
//! # }
//! ```

mod flow_scales;
mod loops;
mod potential;
pub mod reference;

pub use flow_scales::{flow_scales, FlowScales};
pub use loops::{wilson_loops, WilsonLoops};
pub use potential::{force, improved_distance, potential, sommer_r0, SOMMER_REFERENCE};
