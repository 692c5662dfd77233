//! `--solve L`: the even-odd Möbius solve in f64 on L^4 × 16 (CGNR on `M̂`, `M5 = 1.8`,
//! `m_f = 0.1`, `b = 1.5`, `c = 0.5`, a smooth gauge field), against its operator alone: the
//! GFLOP/s of `M̂` (two hops, counted as Grid counts them) timed on its own, and the same
//! count over the solve's applications of `M̂` and `M̂†` per second of the solve (which adds
//! the linear algebra and a host wait per iteration). The ratio is the solver's efficiency.
//! Then the time to a relative residual of 1e-10 of the f64 CGNR and of the mixed-precision
//! CGNR (f32 iterations, f64 reliable updates at δ = 0.1 and 0.01), each from x = 0 after
//! a warm-up.

use crate::{common, BenchResult, FLOPS_PER_SITE};
use ongpu::prelude::*;
use ongpu::qcd::domain_wall::FiveSpinor;
use ongpu::qcd::domain_wall::{DomainWall, DomainWallEvenOdd, FiveField, MixedCgnr, MobiusParams};
use ongpu::qcd::gauge::GaugeField;
use ongpu::qcd::solver::{Cgnr, LinearSolver, SolverError};
use ongpu::qcd::wilson::random_spinors;

const LS: usize = 16;

pub fn run(l: usize, iterations: usize, reps: usize) -> BenchResult<()> {
    let backend = ongpu::backend()?;
    let lat = Lattice::new([l; 4])?;
    let u = GaugeField::smooth(lat, 0.3, 21)?;
    let params = MobiusParams::mobius(1.8, 0.1, 1.5, 0.5);
    let op = DomainWall::<LS>::new(&u, params)?;
    let eo = DomainWallEvenOdd::new(&op)?;
    let slices: Vec<_> = (0..LS)
        .map(|s| random_spinors(&lat, 30 + s as u64))
        .collect();
    let b: FiveField<LS> = Field::from_fn(lat.volume(), |x| {
        FiveSpinor(std::array::from_fn(|s| {
            if lat.parity(x) == 0 {
                slices[s][x]
            } else {
                [ColorVector::zero(); 4]
            }
        }))
    });
    let (mut scratch, mut out): (FiveField<LS>, FiveField<LS>) = (lat.zeros()?, lat.zeros()?);
    let t_op = common::time(backend, reps, || eo.apply(&b, &mut scratch, &mut out))?;
    drop((scratch, out));
    // Two hops of the even sites' 5-D volume per application.
    let op_flops = 2.0 * (lat.volume() / 2 * LS) as f64 * FLOPS_PER_SITE;
    let mut x: FiveField<LS> = lat.zeros()?;
    let mut cgnr = Cgnr::new(1e-14, iterations);
    // Warm-up, then the timed solve (to the tolerance, or the iteration limit).
    let _ = Cgnr::new(1e-14, 3).solve(&eo, &b, &mut x);
    ongpu::synchronize()?;
    let start = std::time::Instant::now();
    let done = match cgnr.solve(&eo, &b, &mut x) {
        Ok(s) => s.iterations,
        Err(SolverError::NotConverged { iterations, .. }) => iterations,
        Err(e) => return Err(e.into()),
    };
    ongpu::synchronize()?;
    let t_solve = start.elapsed().as_secs_f64();
    let solve_rate = 2.0 * done as f64 * op_flops / t_solve;
    let op_rate = op_flops / t_op;
    println!(
        "Möbius CGNR on {lat} x {LS} (f64), device {}",
        common::device_name(backend)
    );
    println!(
        "M̂ alone: {:.2} ms, {:.0} GFLOP/s; solve: {done} iterations in {:.1} ms ({:.2} ms each), {:.0} GFLOP/s: {:.0}% of the operator's",
        t_op * 1e3,
        op_rate * 1e-9,
        t_solve * 1e3,
        t_solve * 1e3 / done as f64,
        solve_rate * 1e-9,
        100.0 * solve_rate / op_rate
    );
    let mut timed = |name: &str, solver: &mut dyn LinearSolver<_>| -> BenchResult<f64> {
        let _ = solver.solve(&eo, &b, &mut x);
        ongpu::synchronize()?;
        let start = std::time::Instant::now();
        let s = solver.solve(&eo, &b, &mut x)?;
        ongpu::synchronize()?;
        let t = start.elapsed().as_secs_f64();
        println!(
            "to 1e-10: {name}: {:.1} ms, {} iterations, {} reliable updates, true residual {:.1e}",
            t * 1e3,
            s.iterations,
            s.reliable_updates,
            s.relative_residual
        );
        Ok(t)
    };
    let f64_time = timed("f64 CGNR", &mut Cgnr::new(1e-10, 100_000))?;
    for delta in [0.1, 0.01] {
        let mixed = &mut MixedCgnr::new(1e-10, 100_000).with_delta(delta);
        let mixed_time = timed(&format!("mixed CGNR, δ = {delta}"), mixed)?;
        println!(
            "mixed precision, δ = {delta}: {:.2}x the f64 solve",
            f64_time / mixed_time
        );
    }
    Ok(())
}
