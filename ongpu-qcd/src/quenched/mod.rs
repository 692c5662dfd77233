//! Quenched updates of the Wilson gauge action `S = β Σ_P (1 − Re tr U_P / 3)`: the
//! Cabibbo–Marinari heatbath (Kennedy–Pendleton in the three SU(2) subgroups, with an exact
//! rejection sampler where KP is slow) and overrelaxation, as sweeps over a
//! [`GaugeField`](crate::gauge::GaugeField).
//!
//! A sweep updates one direction and one parity at a time: the links of a direction and a
//! parity share no plaquette, so they are updated at once, after their staples are computed
//! in a call of their own (a call cannot shift a field it writes). Random numbers come from
//! the counter-based [`Philox`](ongpu_runtime::Philox) generator, a stream per pass and
//! counters per site, so a run is the same on both backends and for any launch shape.

mod heatbath;
mod su2;
mod sweeps;

pub use heatbath::{heatbath_link, overrelax_link, su2_x0};
pub use su2::{block_entry, project, rotate_rows, row_entry};
pub use sweeps::{QuenchedUpdate, PASSES_PER_SWEEP};
