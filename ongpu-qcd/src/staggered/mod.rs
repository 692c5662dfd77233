//! Staggered fermions: the operator
//!
//! `D ψ(x) = ½ Σ_mu η_mu(x) [U_mu(x) ψ(x+mû) − U_mu(x−mû)† ψ(x−mû)]`,
//! `η_mu(x) = (−1)^(x_0 + … + x_{mu−1})`,
//!
//! on a periodic lattice, and conjugate gradients for the even-odd normal system
//! `(m² − D_eo D_oe) x_e = b_e`.
//!
//! - [`Staggered`]: the operator (phases and ½ folded into its links once), with `D_oe`,
//!   `D_eo`, the full `D` and the normal operator as calls;
//! - [`passes`]: the `on_gpu!` passes the solvers are made of, with their flop and byte
//!   counts;
//! - [`hop_many`] and [`MultiCg`]: many right-hand sides at once (`N` vectors per site,
//!   each link read once for all of them);
//! - [`Cg`] (one host wait per iteration), [`GraphCg`] (blocks of iterations replayed as a
//!   CUDA graph) and [`LoopCg`] (the whole loop on the device, in a WHILE node), all behind
//!   [`LinearSolver`]; [`cg_solver`] picks one by [`CgVariant`];
//!
//! The operator written again on the host, which the tests check it against, is not part of
//! the library: it is the `ongpu-reference` crate beside the tests.
//!
//! ```
//! # mod ongpu { pub use ::ongpu_runtime::*; pub mod qcd { pub use ::ongpu_qcd::*; } }
//! use ongpu::qcd::gauge::GaugeField;
//! use ongpu::qcd::solver::LinearSolver;
//! use ongpu::qcd::staggered::{self, Cg, Fermion, Staggered};
//! use ongpu::Lattice;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let lat = Lattice::new([4, 4, 4, 4])?;
//! let u = GaugeField::random(lat, 1)?;
//! let op = Staggered::new(&u, 0.5)?;                       // mass 0.5
//! let b_host = staggered::even_part(&lat, &staggered::random_vector(&lat, 2));
//! let b = Fermion::from_vec(b_host);
//! let mut x = Fermion::zeros(lat.volume());
//! let mut cg = Cg::new(lat, 1e-10, 1000);
//! let solution = cg.solve(&op, &b, &mut x)?;
//! assert!(solution.relative_residual <= 1e-10);          // |b − A x| / |b|, recomputed
//! println!("{} iterations in {:.3} s", solution.iterations, solution.seconds);
//! # Ok(())
//! # }
//! ```

mod cg;
mod device_passes;
mod graph_cg;
pub(crate) mod interface;
mod loop_cg;
mod many;
mod mixed_cg;
mod mixed_multi_shift;
mod multi_shift;
mod operator;
pub mod passes;
pub mod sloppy;
mod sources;
mod spectrum;

pub use crate::solver::MAX_RESTARTS;
pub use cg::{Cg, DeviceCg, PassCounts};
pub use device_passes::{apply_and_reduce_into, coefficients, update_from, Scalars};
pub use graph_cg::{GraphCg, KERNELS_PER_ITERATION};
pub use loop_cg::LoopCg;
pub use many::{hop_many, Fermions, FermionsOf, MultiCg, MultiSolution};
pub use mixed_cg::{MixedCg, DEFAULT_DELTA};
pub use mixed_multi_shift::{
    MixedMultiShiftCg, MixedMultiShiftSolution, DEFAULT_REFINEMENT_DELTA, DEFAULT_SINGLE_STOP,
};
pub use multi_shift::{MultiShiftCg, MultiShiftSolution, ShiftedNormal, VectorReal};
pub use operator::{staggered_phase, Staggered};
pub use sloppy::SloppyStaggered;
pub use sources::{even_part, random_vector, HostVector};
pub use spectrum::largest_eigenvalue;

use crate::solver::LinearSolver;
use crate::SiteLayout;
use ongpu::prelude::*;

/// A colour vector at every site of a [`Lattice`] (the even-odd solvers use one parity of
/// each).
pub type Fermion = Field<ColorVector<f64>>;

/// A colour vector at every site of a [`Space`]: a [`Fermion`] for a [`Lattice`], a
/// `RankField` for a lattice cut over MPI ranks.
pub type FermionOf<S, T = f64> = <S as Space>::Field<ColorVector<T>, SiteLayout>;

/// Which CG runs a solve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CgVariant {
    /// [`Cg`]: α and β on the host, one wait per iteration.
    Eager,
    /// [`GraphCg`]: `block` iterations recorded once as a graph and replayed.
    Graph {
        /// Iterations per replay.
        block: usize,
    },
    /// [`LoopCg`]: the iterations in a device-side loop, one launch and one wait per solve.
    DeviceLoop,
    /// [`DeviceCg`]: α and β on the device, iterations queued in blocks, one wait per
    /// block (on any space; over MPI ranks the sums stay on the GPUs too).
    DeviceScalars,
}

/// A CG solver of `variant` for the normal system of [`Staggered`] on `lat`, to
/// `|b − A x| ≤ tol |b|` in at most `max_iter` iterations.
pub fn cg_solver(
    variant: CgVariant,
    lat: Lattice,
    tol: f64,
    max_iter: usize,
) -> ongpu::Result<Box<dyn LinearSolver<Staggered>>> {
    Ok(match variant {
        CgVariant::Eager => Box::new(Cg::new(lat, tol, max_iter)),
        CgVariant::Graph { block } => Box::new(GraphCg::new(lat, tol, max_iter, block)?),
        CgVariant::DeviceLoop => Box::new(LoopCg::new(lat, tol, max_iter)?),
        CgVariant::DeviceScalars => Box::new(DeviceCg::new(lat, tol, max_iter)),
    })
}
