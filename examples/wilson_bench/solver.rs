//! The even-odd clover BiCGStab against its operator alone: `M̂ = 1 − κ² A_ee⁻¹ H_eo A_oo⁻¹
//! H_oe` timed by itself, then whole solves, both in GFLOP/s of the standard counts; then
//! the mixed-precision BiCGStab's time to the same true residual.

use crate::{common, BenchResult};
use ongpu::prelude::*;
use ongpu::qcd::gauge::GaugeField;
use ongpu::qcd::quenched::QuenchedUpdate;
use ongpu::qcd::solver::{LinearSolver, Solution};
use ongpu::qcd::wilson::{
    random_spinors, BiCgStab, Clover, MixedBiCgStab, SpinorField, Wilson, WilsonEvenOdd,
    CLOVER_FLOPS, HOP_FLOPS,
};

/// Flops of `M̂` per even site: two hops with the clover inverse, and `ψ − κ² ·` (48).
pub const OPERATOR_FLOPS: f64 = 2.0 * (HOP_FLOPS + CLOVER_FLOPS) + 48.0;

/// Flops of a BiCGStab iteration's vector operations per even site: four inner products or
/// norms (96 or 48 each: ⟨r̂, r⟩, ⟨r̂, v⟩, |t|², ⟨t, s⟩, |r|²) and the updates of p (192), s
/// (96), x (192) and r (96).
pub const VECTOR_FLOPS: f64 = 96.0 + 192.0 + 96.0 + 96.0 + 48.0 + 96.0 + 192.0 + 96.0 + 48.0;

/// Times `M̂` and the solve at L^4 in f64 on a quenched configuration (β = 6.0, `sweeps`
/// heatbath sweeps from a hot start) with `kappa` and the non-perturbative c_sw = 1.769 of
/// β = 6.0 (Lüscher et al., Nucl. Phys. B491 (1997) 323), and prints both.
pub fn run(l: usize, reps: usize, sweeps: usize, kappa: f64, delta: f64) -> BenchResult<()> {
    let backend = ongpu::backend()?;
    let c_sw = 1.769;
    let lat = Lattice::new([l; 4])?;
    let mut u = GaugeField::hot(lat, 21)?;
    let mut update = QuenchedUpdate::resume(lat, 21, 1);
    for _ in 0..sweeps {
        update.sweep(&mut u, 6.0, 4)?;
    }
    let clover = Clover::new(&u, kappa, c_sw)?;
    let op = Wilson::new(&u, kappa).with_clover(&clover)?;
    let eo = WilsonEvenOdd::new(&op);
    let b = SpinorField::from_vec(random_spinors(&lat, 22));
    let (mut tmp, mut out): (SpinorField, SpinorField) = (lat.zeros()?, lat.zeros()?);
    let t_op = common::time(backend, reps, || eo.apply(&b, &mut tmp, &mut out))?;
    let sites = (lat.volume() / 2) as f64;
    let op_gflops = OPERATOR_FLOPS * sites / t_op / 1e9;
    let mut x: SpinorField = lat.zeros()?;
    let (seconds, last) = three(&mut BiCgStab::new(1e-10, 5000), &eo, &b, &mut x)?;
    let (mixed_seconds, mixed) = three(
        &mut MixedBiCgStab::new(1e-10, 5000).with_delta(delta),
        &eo,
        &b,
        &mut x,
    )?;
    let last = &last;
    let flops = last.iterations as f64 * (2.0 * OPERATOR_FLOPS + VECTOR_FLOPS) * sites;
    let solve_gflops = flops / seconds / 1e9;
    println!(
        "\neven-odd clover BiCGStab, {l}^4 f64, quenched β = 6.0 ({sweeps} sweeps from a hot \
         start, plaquette {:.5}), κ = {kappa}, c_sw = {c_sw}, on {}",
        u.plaquette()?,
        common::device_name(backend)
    );
    println!(
        "operator M̂ alone: {:.1} µs, {op_gflops:.0} GFLOP/s ({OPERATOR_FLOPS} flops per even site)",
        t_op * 1e6
    );
    println!(
        "BiCGStab to |r|/|b| = {:.1e}: {} iterations, {:.1} ms (median of 3), {solve_gflops:.0} \
         GFLOP/s ({} flops per even site and iteration): {:.1}% of the operator's",
        last.relative_residual,
        last.iterations,
        seconds * 1e3,
        2.0 * OPERATOR_FLOPS + VECTOR_FLOPS,
        100.0 * solve_gflops / op_gflops
    );
    println!(
        "mixed-precision BiCGStab (f32 iterations, f64 reliable updates at δ = {delta}) to \
         |r|/|b| = {:.1e}: \
         {} iterations, {} reliable updates, {:.1} ms (median of 3): {:.2}x the f64 solve",
        mixed.relative_residual,
        mixed.iterations,
        mixed.reliable_updates,
        mixed_seconds * 1e3,
        seconds / mixed_seconds
    );
    Ok(())
}

/// Three solves of `eo x = b`: the median seconds and the last solve's report.
fn three<'w, 'u, V: LinearSolver<WilsonEvenOdd<'w, 'u, Lattice>>>(
    solver: &mut V,
    eo: &WilsonEvenOdd<'w, 'u, Lattice>,
    b: &SpinorField,
    x: &mut SpinorField,
) -> BenchResult<(f64, Solution)> {
    let mut runs = Vec::new();
    for _ in 0..3 {
        runs.push(solver.solve(eo, b, x)?);
    }
    let seconds = common::median(runs.iter().map(|s| s.seconds).collect());
    Ok((seconds, *runs.last().expect("three solves")))
}
