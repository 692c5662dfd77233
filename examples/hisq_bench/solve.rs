//! `--solve L`: the multi-shift CG with 8 shifts in f64 on L^4 (HISQ, `m = 0.05`, a smooth
//! gauge field), against its operator alone: the GFLOP/s of `A = m² − D_eo D_oe` (two hops
//! of the even-odd Dslash, 1146 flops per site each) timed on its own, and the same count
//! over the solve's applications per second of the solve (which adds the updates of the
//! 8 shifts' solutions and directions and two host waits per iteration). The ratio is the
//! solver's efficiency; the report gives each shift's true residual.

use crate::{common, BenchResult};
use ongpu::prelude::*;
use ongpu::qcd::boundary::TimeBoundary;
use ongpu::qcd::gauge::GaugeField;
use ongpu::qcd::hisq::{Hisq, HOP_FLOPS};
use ongpu::qcd::solver::{LinearOperator, SolverError};
use ongpu::qcd::staggered::{even_part, random_vector, Fermion, Fermions, MultiShiftCg};

/// The shifts: a spread like that of an RHMC rational function's poles.
const SHIFTS: [f64; 8] = [1e-4, 4e-4, 2e-3, 1e-2, 5e-2, 0.25, 1.2, 6.0];

pub fn run(l: usize, iterations: usize, reps: usize) -> BenchResult<()> {
    let backend = ongpu::backend()?;
    let lat = Lattice::new([l; 4])?;
    let u = GaugeField::smooth(lat, 0.3, 21)?;
    let op = Hisq::new(&u, 0.05, 0.0, TimeBoundary::Antiperiodic)?;
    let b: Fermion = Field::from_vec(even_part(&lat, &random_vector(&lat, 22)));
    let (mut t, mut w): (Fermion, Fermion) = (lat.zeros()?, lat.zeros()?);
    let t_op = common::time(backend, reps, || op.apply(&b, &mut t, &mut w))?;
    let op_flops = 2.0 * (lat.volume() / 2) as f64 * HOP_FLOPS;
    let mut x: Fermions<8> = lat.zeros()?;
    // Warm-up, then the timed solve (to the tolerance, or the iteration limit).
    let _ = MultiShiftCg::<8>::new(1e-10, 3).solve(&op, SHIFTS, &b, &mut x);
    ongpu::synchronize()?;
    let start = std::time::Instant::now();
    let (done, report) =
        match MultiShiftCg::<8>::new(1e-10, iterations).solve(&op, SHIFTS, &b, &mut x) {
            Ok(s) => (s.iterations, Some(s)),
            Err(SolverError::NotConverged { iterations, .. }) => (iterations, None),
            Err(e) => return Err(e.into()),
        };
    ongpu::synchronize()?;
    let t_solve = start.elapsed().as_secs_f64();
    let solve_rate = done as f64 * op_flops / t_solve;
    let op_rate = op_flops / t_op;
    println!(
        "multi-shift CG, 8 shifts, HISQ on {lat} (f64), device {}",
        common::device_name(backend)
    );
    println!(
        "A alone: {:.3} ms, {:.0} GFLOP/s; solve: {done} iterations in {:.1} ms ({:.3} ms each), {:.0} GFLOP/s: {:.0}% of the operator's",
        t_op * 1e3,
        op_rate * 1e-9,
        t_solve * 1e3,
        t_solve * 1e3 / done as f64,
        solve_rate * 1e-9,
        100.0 * solve_rate / op_rate
    );
    if let Some(s) = report {
        println!(
            "true residuals {:?} (converged at iterations {:?})",
            s.relative_residuals.map(|r| format!("{r:.1e}")),
            s.converged_at
        );
    }
    Ok(())
}
