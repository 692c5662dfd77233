//! `--solve L`: the multi-shift CG with 8 shifts in f64 on L^4 (HISQ, `m = 0.05`, a smooth
//! gauge field), against its operator alone: the GFLOP/s of `A = m² − D_eo D_oe` (two hops
//! of the even-odd Dslash, 1146 flops per site each) timed on its own, and the same count
//! over the solve's applications (one per iteration and one per shift's true residual) per
//! second of the solve (which adds the updates of the 8 shifts' solutions and directions
//! and two host waits per iteration). The ratio is the solver's efficiency; the report
//! gives each shift's true residual. Then the mixed-precision multi-shift CG on the same
//! system to the same tolerance, and its speed-up.

use crate::{common, BenchResult};
use ongpu::prelude::*;
use ongpu::qcd::boundary::TimeBoundary;
use ongpu::qcd::gauge::GaugeField;
use ongpu::qcd::hisq::{Hisq, HOP_FLOPS};
use ongpu::qcd::solver::{LinearOperator, SolverError};
use ongpu::qcd::staggered::{
    even_part, random_vector, Fermion, FermionOf, Fermions, MixedMultiShiftCg, MultiShiftCg,
    ShiftedNormal,
};

/// The shifts: a spread like that of an RHMC rational function's poles.
const SHIFTS: [f64; 8] = [1e-4, 4e-4, 2e-3, 1e-2, 5e-2, 0.25, 1.2, 6.0];

pub fn run(l: usize, iterations: usize, reps: usize) -> BenchResult<()> {
    let backend = ongpu::backend()?;
    let lat = Lattice::new([l; 4])?;
    let u = GaugeField::smooth(lat, 0.3, 21)?;
    let op = Hisq::new(&u, 0.05, 0.0, TimeBoundary::Antiperiodic)?;
    let single = op.single()?;
    let b: Fermion = Field::from_vec(even_part(&lat, &random_vector(&lat, 22)));
    let (mut t, mut w): (Fermion, Fermion) = (lat.zeros()?, lat.zeros()?);
    let t_op = common::time(backend, reps, || op.apply(&b, &mut t, &mut w))?;
    let (mut ts, mut ws): (FermionOf<Lattice, f32>, FermionOf<Lattice, f32>) =
        (lat.zeros()?, lat.zeros()?);
    let bs: FermionOf<Lattice, f32> = lat.zeros()?;
    let t_single = common::time(backend, reps, || {
        single.apply_shifted(&bs, 0.0, &mut ts, &mut ws).map(|_| ())
    })?;
    let op_flops = 2.0 * (lat.volume() / 2) as f64 * HOP_FLOPS;
    let mut x: Fermions<8> = lat.zeros()?;
    // Warm-up: each whole solve once (every kernel of it compiled and tuned), then the timed
    // solves (to the tolerance, or the iteration limit).
    let _ = MultiShiftCg::<8>::new(1e-10, iterations).solve(&op, SHIFTS, &b, &mut x);
    let _ = MixedMultiShiftCg::<8>::new(1e-10, iterations).solve(&op, &single, SHIFTS, &b, &mut x);
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
    // The applications made: one per iteration, and one per shift for its true residual.
    let applications = done + if report.is_some() { SHIFTS.len() } else { 0 };
    let solve_rate = applications as f64 * op_flops / t_solve;
    let op_rate = op_flops / t_op;
    println!(
        "multi-shift CG, 8 shifts, HISQ on {lat}, device {}",
        common::device_name(backend)
    );
    println!(
        "A alone: f64 {:.3} ms, {:.0} GFLOP/s; f32 {:.3} ms, {:.0} GFLOP/s",
        t_op * 1e3,
        op_rate * 1e-9,
        t_single * 1e3,
        op_flops / t_single * 1e-9
    );
    println!(
        "f64 solve: {done} iterations (+ 8 true residuals) in {:.1} ms ({:.3} ms per application), \
         {:.0} GFLOP/s: {:.0}% of the operator's",
        t_solve * 1e3,
        t_solve * 1e3 / applications as f64,
        solve_rate * 1e-9,
        100.0 * solve_rate / op_rate
    );
    if let Some(s) = report {
        println!(
            "  true residuals {:?} (converged at iterations {:?})",
            s.relative_residuals.map(|r| format!("{r:.1e}")),
            s.converged_at
        );
    }
    let start = std::time::Instant::now();
    let mixed =
        MixedMultiShiftCg::<8>::new(1e-10, iterations).solve(&op, &single, SHIFTS, &b, &mut x);
    ongpu::synchronize()?;
    let t_mixed = start.elapsed().as_secs_f64();
    match mixed {
        Ok(m) => {
            println!(
                "mixed solve (f32 multi-shift to {:.0e}, each shift refined in f64): {:.1} ms, \
                 {:.2}× the f64 solve's speed; f32 iterations {} + refinements {:?}, reliable \
                 updates {:?}",
                ongpu::qcd::staggered::DEFAULT_SINGLE_STOP,
                t_mixed * 1e3,
                t_solve / t_mixed,
                m.multi_shift_iterations,
                m.refinement_iterations,
                m.reliable_updates
            );
            println!(
                "  true residuals {:?}",
                m.relative_residuals.map(|r| format!("{r:.1e}"))
            );
        }
        Err(e) => println!("mixed solve: {e}"),
    }
    Ok(())
}
