//! Wilson fermions: Dirac spinors (four spin components of colour vectors) and the Wilson
//! operator
//!
//! `D_W ψ(x) = ψ(x) − κ Σ_mu [(1 − γ_mu) U_mu(x) ψ(x+mû) + (1 + γ_mu) U_mu(x−mû)† ψ(x−mû)]`
//!
//! in the hopping-parameter form (bare mass `m = 1/(2κ) − 4`), DeGrand–Rossi γ matrices,
//! periodic boundaries in every direction unless built with an antiperiodic time boundary
//! ([`Wilson::with_boundary`], [`crate::boundary`]).
//!
//! - [`Spinor`]: a Dirac spinor, `[ColorVector<T>; 4]` (a field element like the links'
//!   `[ColorMatrix; 4]`, in every layout, on both backends);
//! - [`gamma`](mod@gamma): the γ matrices as plain matrices on the host;
//! - [`Wilson`]: the operator as `on_gpu!` passes with spin projection (half spinors made
//!   with additions and `times_i` only);
//! - [`WilsonEvenOdd`]: `M̂ = 1 − κ² H_eo H_oe` on the even sites, and [`BiCgStab`] and
//!   [`Cgnr`] for it;
//! - [`hop_many`], [`hop_clover_many`]: the hopping term on `N` right-hand sides at once
//!   ([`Spinors`]: `N` spinors per site), each link read once;
//!
//! The operator written again on the host with full γ matrices, which the tests check it
//! against, is the `ongpu-reference` crate beside the tests.

mod algebra;
mod cgnr;
mod clover;
pub mod clover_algebra;
mod even_odd;
mod full_solve;
pub mod gamma;
mod many;
mod mixed;
mod operator;
mod pion;
pub mod spin;

pub use crate::solver::BiCgStab;
pub use crate::solver::Cgnr;
pub use clover::{clover_times, Clover, CloverFieldOf, CloverSite};
pub use even_odd::{dot_even, norm2_even, WilsonEvenOdd};
pub use many::{hop_clover_many, hop_many, Spinors, SpinorsOf};
pub use mixed::{MixedBiCgStab, DEFAULT_WILSON_DELTA};
pub use operator::{hop, hop_clover, Wilson, CLOVER_BYTES, CLOVER_FLOPS, HOP_BYTES, HOP_FLOPS};
pub use pion::PionCorrelator;

use crate::SiteLayout;
use ongpu::prelude::*;

/// A Dirac spinor: spin components 0–3, each a colour vector.
pub type Spinor<T = f64> = [ColorVector<T>; 4];

/// A spinor on the host, in double precision.
pub type HostSpinor = Spinor<f64>;

/// A spinor field on a [`Lattice`].
pub type SpinorField = Field<Spinor<f64>, SiteLayout>;

/// A spinor field on any [`Space`], in double precision unless `T` says otherwise.
pub type SpinorFieldOf<S, T = f64> = <S as Space>::Field<Spinor<T>, SiteLayout>;

/// A random spinor at every site of `lat` (parts uniform in [−1, 1)), from `seed`.
pub fn random_spinors(lat: &Lattice, seed: u64) -> Vec<HostSpinor> {
    use rand::SeedableRng;
    let mut r = rand::rngs::SmallRng::seed_from_u64(seed);
    (0..lat.volume())
        .map(|_| {
            std::array::from_fn(|_| {
                ColorVector::new(std::array::from_fn(|_| {
                    crate::gauge::su3::random_complex(&mut r)
                }))
            })
        })
        .collect()
}
