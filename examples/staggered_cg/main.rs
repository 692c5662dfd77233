//! An even-odd preconditioned staggered CG solver written with `on_gpu!`: it solves
//! `(m² − D_eo D_oe) x_e = b_e` on the even sites in f64, for the staggered operator
//! `D ψ(x) = ½ Σ_mu η_mu(x) [U_mu(x) ψ(x+mû) − U_mu(x−mû)† ψ(x−mû)]` on a periodic lattice
//! with SU(3) links, in three passes over memory per iteration (`solver.rs`).
//!
//! The operator and the solver are `ongpu::qcd::staggered`'s; after the solve the program
//! checks the true residual `|b − A x| / |b| ≤ tol` with the library's independent host
//! implementation of the operator (`staggered::reference`) and fails if it is not met. It reports
//! the iterations, the time per iteration, the GFLOP/s of the solve and, measured in the
//! same run, of the Dslash alone (`D_oe` then `D_eo`), their ratio, and each pass's share.
//!
//! ```text
//! cargo run --release --example staggered_cg -- [--size L | --dims X,Y,Z,T] [--mass 0.1]
//!     [--tol 1e-10] [--max-iter 10000] [--repeat 5] [--reps 10] [--smooth] [--seed 1]
//! ```
//!
//! `docs/physics.md` (section "Staggered CG") has the operator, the passes and the counts.

#[path = "../common/mod.rs"]
mod common;

mod bench;
mod options;
mod report;

use ongpu::prelude::*;
use ongpu::qcd::gauge::GaugeField;
use ongpu::qcd::staggered::{self, reference::HostStaggered, Cg, Fermion, Staggered};
use options::{GaugeKind, Options, SMOOTH_SPREAD};
use std::process::ExitCode;

/// The example's errors: ongpu's, the solver's, the command line's, a failed check.
pub type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

fn run() -> BenchResult<()> {
    let opts = Options::parse()?;
    let backend = ongpu::backend()?;
    common::warn_if_checked(backend);
    let lat = Lattice::new(opts.dims)?;
    let gauge = match opts.gauge {
        GaugeKind::Random => GaugeField::random(lat, opts.seed)?,
        GaugeKind::Smooth => GaugeField::smooth(lat, SMOOTH_SPREAD, opts.seed)?,
    };
    let b_host = staggered::even_part(&lat, &staggered::random_vector(&lat, opts.seed + 1));
    let op = Staggered::new(&gauge, opts.mass)?;
    let b = Fermion::from_vec(b_host.clone());
    let mut x = Fermion::zeros(lat.volume());
    let mut solver = Cg::new(lat, opts.tol, opts.max_iter);
    let (solution, solve_seconds) = bench::time_solves(&mut solver, &op, &b, &mut x, opts.repeat)?;
    let host_residual =
        HostStaggered::from_gauge(&gauge, opts.mass)?.relative_residual(&b_host, &x.to_vec()?);
    if host_residual.is_nan() || host_residual > opts.tol {
        return Err(format!(
            "the true residual |b − A x|/|b| = {host_residual:.3e} of the host operator is \
             above the tolerance {:e} (the solver reported {:.3e})",
            opts.tol, solution.relative_residual
        )
        .into());
    }
    let passes = bench::time_passes(backend, lat, opts.mass, op.links(), &b, opts.reps)?;
    report::print(&report::Measured {
        opts: &opts,
        lat,
        device: common::device_name(backend),
        solution,
        passes_run: solver.passes(),
        solve_seconds,
        host_residual,
        passes,
    });
    Ok(())
}

fn main() -> ExitCode {
    common::exit_code(run())
}
