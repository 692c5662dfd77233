//! # ongpu-qcd
//!
//! Lattice QCD written with `on_gpu!`, as a user of `ongpu` would write it, and reached
//! through the facade as `ongpu::qcd`: the operators, solvers, updates and files that lattice
//! programs call, written once.
//!
//! | module | holds |
//! |---|---|
//! | [`boundary`] | [`TimeBoundary`](boundary::TimeBoundary): periodic or antiperiodic quarks in time |
//! | [`gauge`] | [`GaugeField`](gauge::GaugeField): the four links per site; unit, random, smooth and hot starts, the plaquette, staples, reunitarisation, gauge transformations, NERSC files |
//! | [`quenched`] | [`QuenchedUpdate`](quenched::QuenchedUpdate): Cabibbo–Marinari heatbath and overrelaxation sweeps for the Wilson gauge action |
//! | [`staggered`] | the staggered operator [`Staggered`](staggered::Staggered) (`D_eo`, `D_oe`, the even-odd normal operator), its passes, and its CG solvers: eager, graph and device loop |
//! | [`wilson`] | Wilson and Wilson-clover fermions: Dirac spinors, gamma matrices, the even-odd preconditioned operator, CGNR and BiCGStab, propagators and the pion correlator |
//! | [`hisq`] | HISQ quarks: the two-level smeared links, the operator, and the force through the smearing (chain rule) |
//! | [`hmc`] | hybrid Monte Carlo: the Wilson gauge action alone or with dynamical quarks (`N_f = 4` staggered, or rooted HISQ for RHMC), leapfrog and Omelyan integrators on two time scales |
//! | [`rational`] | rational approximations of `x^s` by the Remez algorithm in arbitrary precision, as partial fractions |
//! | [`flow`] | the Wilson (gradient) flow: `E(t)`, `t₀`, `w₀`, the topological charge |
//! | [`scale`] | scale setting: Wilson loops, the static potential, `r₀`, the flow scales `t₀` and `w₀` of an ensemble, with jackknife errors; the published interpolations |
//! | [`smearing`] | APE and stout smearing, in four or three directions |
//! | [`solver`] | the interface every solver implements: [`LinearSolver`](solver::LinearSolver), [`Solution`](solver::Solution), [`SolverError`](solver::SolverError) |
//! | [`ildg`] | gauge configurations in ILDG/SciDAC (LIME) files, read per process and checksummed |
//! | [`nersc`] | gauge configurations on disk in the NERSC archive format |
//! | [`stats`] | Monte Carlo statistics: autocorrelation times and jackknife errors |
//!
//! ```
//! # mod ongpu { pub use ::ongpu_runtime::*; pub mod qcd { pub use ::ongpu_qcd::*; } }
//! use ongpu::qcd::gauge::GaugeField;
//! use ongpu::qcd::quenched::QuenchedUpdate;
//! use ongpu::Lattice;
//!
//! # fn main() -> ongpu::Result<()> {
//! let lat = Lattice::new([4, 4, 4, 4])?;
//! let mut u = GaugeField::unit(lat)?;
//! let mut update = QuenchedUpdate::new(lat, 7);       // the seed of the counter-based generator
//! for _ in 0..5 {
//!     update.heatbath(&mut u, 6.0)?;                  // β = 6.0
//!     update.overrelax(&mut u)?;
//! }
//! let p = u.plaquette()?;
//! assert!(p > 0.3 && p < 0.9, "plaquette {p}");
//! # Ok(())
//! # }
//! ```

#![warn(missing_docs)]

// The expansions of `on_gpu!`, `#[ongpu::device]` and `#[ongpu::kernel]` name
// `::ongpu::__private`, the facade's door. The facade re-exports this crate (`ongpu::qcd`),
// so this crate cannot depend on it; naming itself `ongpu` and opening the same door below
// lets its code be written exactly as a user's, against the same runtime.
extern crate self as ongpu;

#[allow(unused_imports)] // the names a user reaches as `ongpu::…`
use ongpu_macros::{device, kernel, on_gpu};
#[allow(unused_imports)]
use ongpu_runtime::{
    backend, synchronize, Backend, Element, Error, Philox, RealValue, Result, Uniform,
};

/// The facade's prelude, for this crate's own code (`use ongpu::prelude::*`).
mod prelude {
    pub use ongpu_macros::on_gpu;
    #[allow(unused_imports)]
    pub use ongpu_runtime::{
        bf16, f16, AoS, AoSoA, CastReal, ColorMatrix, ColorVector, Complex, DeviceScalar, Field,
        Graph, GraphLoop, Lattice, LoopTest, Norm2, Philox, Precision, Real, Result, SoA, Space,
        SpaceField, SpaceSubset, StorageReal, Subset, TimesI,
    };
}

/// The facade's door for expansions, opened for this crate's own calls.
#[doc(hidden)]
mod __private {
    pub use ongpu_runtime::__private::*;
}

/// The layout of the library's fields (the default of [`Field`](ongpu_runtime::Field)):
/// colour vectors and matrices in blocks of 32 sites, one coalesced load per component.
pub type SiteLayout = ongpu_runtime::AoSoA<32>;

/// `t` as the real type `T` (the coefficients a generic body multiplies `T` vectors by).
pub(crate) fn real<T: ongpu_runtime::Real>(t: f64) -> T {
    <T as num_traits::NumCast>::from(t).expect("a finite coefficient")
}

pub mod boundary;
pub mod domain_wall;
pub mod flow;
pub mod gauge;
pub mod hisq;
pub mod hmc;
pub mod ildg;
pub mod nersc;
pub mod quenched;
pub mod rational;
pub mod scale;
pub mod smearing;
pub mod solver;
pub mod staggered;
pub mod stats;
pub mod wilson;
