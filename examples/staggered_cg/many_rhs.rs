//! `--rhs N`: N systems `(m² − D_eo D_oe) x_k = b_k` (random even sources, seeds `seed+1`
//! …) solved at once by `staggered::MultiCg` (every operator application shared, each link
//! read once for the N vectors) against N solves by `staggered::Cg` one after another, on
//! one lattice. Every solution is checked with the host operator, and the report gives both
//! times to solution (medians of `--repeat`), their ratio, and how far the two solutions
//! are apart: the same bits on the CPU backend; on the GPU within rounding (the one- and
//! N-vector kernels are compiled separately, and the compiler may fuse their multiplies
//! and adds differently).

use crate::{common, BenchResult};
use ongpu::prelude::*;
use ongpu::qcd::gauge::GaugeField;
use ongpu::qcd::solver::LinearSolver;
use ongpu::qcd::staggered::{self, Cg, Fermion, Fermions, HostVector, MultiCg, Staggered};
use ongpu::Element;
use ongpu_reference::staggered::HostStaggered;

/// The counts of right-hand sides the program is built for.
pub const COUNTS: [usize; 6] = [1, 2, 4, 8, 12, 16];

/// Runs `--rhs n` on `lat` with the options' mass, tolerance and gauge field.
pub fn run(lat: Lattice, n: usize, opts: &crate::options::Options) -> BenchResult<()> {
    macro_rules! with_count {
        ($($c:literal)*) => {
            match n {
                $($c => solve::<$c>(lat, opts),)*
                _ => Err(format!("--rhs {n}: the program is built for {COUNTS:?} right-hand sides").into()),
            }
        };
    }
    with_count!(1 2 4 8 12 16)
}

fn solve<const N: usize>(lat: Lattice, opts: &crate::options::Options) -> BenchResult<()>
where
    [ColorVector<f64>; N]: Element,
{
    let backend = ongpu::backend()?;
    let gauge = match opts.gauge {
        crate::options::GaugeKind::Random => GaugeField::random(lat, opts.seed)?,
        crate::options::GaugeKind::Smooth => {
            GaugeField::smooth(lat, crate::options::SMOOTH_SPREAD, opts.seed)?
        }
    };
    let op = Staggered::new(&gauge, opts.mass)?;
    let sources: Vec<HostVector> = (0..N)
        .map(|k| {
            staggered::even_part(
                &lat,
                &staggered::random_vector(&lat, opts.seed + 1 + k as u64),
            )
        })
        .collect();
    let b: Fermions<N> = Field::from_fn(lat.volume(), |i| std::array::from_fn(|k| sources[k][i]));
    let mut x: Fermions<N> = Field::zeros(lat.volume());
    let mut multi = MultiCg::new(lat, opts.tol, opts.max_iter);
    let sync = || ongpu::synchronize();
    let (solution, multi_seconds) =
        common::time_runs_synced(opts.repeat, &sync, || multi.solve(&op, &b, &mut x))?;
    let x_many = x.to_vec()?;

    let host_op = HostStaggered::new(lat, gauge.to_host()?, opts.mass);
    let mut singles = Vec::with_capacity(N);
    let mut single_x = Vec::with_capacity(N);
    let mut cg = Cg::new(lat, opts.tol, opts.max_iter);
    let b1: Vec<Fermion> = sources
        .iter()
        .map(|s| Fermion::from_vec(s.clone()))
        .collect();
    let mut x1 = Fermion::zeros(lat.volume());
    let (_, single_seconds) = common::time_runs_synced(opts.repeat, &sync, || {
        singles.clear();
        for b in &b1 {
            singles.push(cg.solve(&op, b, &mut x1)?);
        }
        Ok::<(), ongpu::qcd::solver::SolverError>(())
    })?;
    for b in &b1 {
        cg.solve(&op, b, &mut x1)?;
        single_x.push(x1.to_vec()?);
    }
    let (mut worst, mut apart, mut same_bits) = (0.0f64, 0.0f64, true);
    for k in 0..N {
        let xk: HostVector = x_many.iter().map(|a| a[k]).collect();
        let residual = host_op.relative_residual(&sources[k], &xk);
        if residual.is_nan() || residual > opts.tol {
            return Err(format!(
                "system {k}: the true residual |b − A x|/|b| = {residual:.3e} of the host \
                 operator is above the tolerance {:e}",
                opts.tol
            )
            .into());
        }
        worst = worst.max(residual);
        let (mut diff, mut scale) = (0.0f64, 0.0f64);
        for (i, (a, b)) in xk.iter().zip(&single_x[k]).enumerate() {
            if lat.parity(i) == 1 {
                continue;
            }
            for (p, q) in a.v.iter().zip(b.v) {
                same_bits &= p.re.to_bits() == q.re.to_bits() && p.im.to_bits() == q.im.to_bits();
                diff = diff.max((p - q).norm());
                scale = scale.max(q.norm());
            }
        }
        apart = apart.max(diff / scale);
    }
    if apart > 1e3 * opts.tol {
        return Err(format!(
            "MultiCg's and Cg's solutions are {apart:.2e} apart (relative), far beyond the \
             tolerance {:e}",
            opts.tol
        )
        .into());
    }
    let agreement = if same_bits {
        "solutions bit-identical to single solves".to_string()
    } else {
        format!("solutions within {apart:.1e} (relative) of single solves")
    };
    let (t_multi, t_single) = (
        common::median(multi_seconds),
        common::median(single_seconds),
    );
    let iterations: usize = singles.iter().map(|s| s.iterations).sum();
    println!("device: {}", common::device_name(backend));
    println!(
        "{N} systems on {lat}, mass {}, tol {:e}: {} applications of the operator to all {N} \
         (iterations per system {:?}), worst true residual {worst:.2e}, {agreement}",
        opts.mass, opts.tol, solution.applications, solution.iterations
    );
    println!(
        "MultiCg: {:.1} ms ({:.1} us per application); {N} x Cg: {:.1} ms ({iterations} \
         iterations, {:.1} us each); speed-up {:.2}x",
        t_multi * 1e3,
        t_multi * 1e6 / solution.applications as f64,
        t_single * 1e3,
        t_single * 1e6 / iterations as f64,
        t_single / t_multi
    );
    Ok(())
}
