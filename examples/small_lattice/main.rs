//! The staggered CG of `ongpu::qcd::staggered` on small lattices, where launches and host
//! waits rather than memory set the pace. For each size it solves with
//!
//! - **eager**: `staggered::Cg` (one host wait per iteration, for α and β);
//! - **graph**: `staggered::GraphCg`: α and β computed on the device from device scalars,
//!   `--block` iterations recorded once as a `Graph` and replayed, the host reading `|r|²`
//!   once per block;
//! - **device loop**: `staggered::LoopCg`: the same iteration recorded once into a CUDA
//!   WHILE node (`GraphLoop`), a test kernel on the device deciding after each iteration
//!   whether to go on; one graph launch per solve, the host waiting once;
//!
//! checks each solution's true residual `|b − A x| / |b| ≤ tol` with the library's host
//! operator (`ongpu_reference::staggered`, beside the tests), and reports the time per iteration of each against the sum of the graph
//! iteration's kernels timed alone (CUDA events around back-to-back calls of each), and a
//! replay's time per kernel node; then what a node itself costs, from a graph of `--nodes`
//! one-site calls against the same calls made eagerly.
//!
//! ```text
//! cargo run --release --example small_lattice -- [--sizes 4,8,16] [--block 10]
//!     [--mass 0.1] [--tol 1e-10] [--max-iter 10000] [--repeat 5] [--reps 10] [--seed 1]
//!     [--nodes 100]
//! ```

#[path = "../common/mod.rs"]
mod common;

mod measure;

use ongpu::prelude::*;
use ongpu::qcd::gauge::GaugeField;
use ongpu::qcd::solver::LinearSolver;
use ongpu::qcd::staggered::KERNELS_PER_ITERATION;
use ongpu::qcd::staggered::{self, Cg, Fermion, GraphCg, LoopCg, Staggered};
use ongpu_reference::staggered::HostStaggered;
use std::process::ExitCode;

/// The example's errors: ongpu's, the solvers', a failed check.
type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

/// The command line.
struct Options {
    sizes: Vec<usize>,
    block: usize,
    mass: f64,
    tol: f64,
    max_iter: usize,
    repeat: usize,
    reps: usize,
    seed: u64,
    nodes: usize,
}

impl Options {
    fn parse() -> Options {
        Options {
            sizes: common::arg_list("--sizes", &[4, 8, 16]),
            block: common::arg("--block", 10).max(1),
            mass: common::value("--mass").map_or(0.1, |m| m.parse().expect("--mass M")),
            tol: common::value("--tol").map_or(1e-10, |t| t.parse().expect("--tol T")),
            max_iter: common::arg("--max-iter", 10_000),
            repeat: common::arg("--repeat", 5),
            reps: common::arg("--reps", 10),
            seed: common::arg("--seed", 1) as u64,
            nodes: common::arg("--nodes", 100),
        }
    }
}

/// Fails unless `x` solves the system to `tol` by the host operator's count.
fn check(
    what: &str,
    op: &HostStaggered,
    b: &[ColorVector<f64>],
    x: &Fermion,
    tol: f64,
) -> BenchResult<f64> {
    let residual = op.relative_residual(b, &x.to_vec()?);
    if residual.is_nan() || residual > tol {
        return Err(format!(
            "{what}: the true residual |b − A x|/|b| = {residual:.3e} is above {tol:e}"
        )
        .into());
    }
    Ok(residual)
}

/// Solves on an `l^4` lattice both ways and prints one row.
fn run_size(opts: &Options, backend: ongpu::Backend, l: usize) -> BenchResult<()> {
    let lat = Lattice::new([l; 4])?;
    let gauge = GaugeField::random(lat, opts.seed)?;
    let b_host = staggered::even_part(&lat, &staggered::random_vector(&lat, opts.seed + 1));
    let host = HostStaggered::from_gauge(&gauge, opts.mass)?;
    let op = Staggered::new(&gauge, opts.mass)?;
    let b = Fermion::from_vec(b_host.clone());

    let mut x = Fermion::zeros(lat.volume());
    let mut eager = Cg::new(lat, opts.tol, opts.max_iter);
    let (eager_sol, eager_s) = measure::time_solves(opts.repeat, || eager.solve(&op, &b, &mut x))?;
    let eager_res = check("eager", &host, &b_host, &x, opts.tol)?;

    let mut x_graph = Fermion::zeros(lat.volume());
    let mut graph = GraphCg::new(lat, opts.tol, opts.max_iter, opts.block)?;
    let (graph_sol, graph_s) =
        measure::time_solves(opts.repeat, || graph.solve(&op, &b, &mut x_graph))?;
    let graph_res = check("graph", &host, &b_host, &x_graph, opts.tol)?;

    let mut x = Fermion::zeros(lat.volume());
    let mut device_loop = LoopCg::new(lat, opts.tol, opts.max_iter)?;
    let (loop_sol, loop_s) =
        measure::time_solves(opts.repeat, || device_loop.solve(&op, &b, &mut x))?;
    let loop_res = check("device loop", &host, &b_host, &x, opts.tol)?;

    let kernels = measure::time_kernels(backend, lat, opts.mass, op.links(), &b, opts.reps)?;
    let node = measure::time_replay_per_kernel(backend, &mut graph, &op, opts.reps)?;
    let eager_it = eager_s / eager_sol.iterations.max(1) as f64;
    let graph_it = graph_s / graph_sol.iterations.max(1) as f64;
    let loop_it = loop_s / loop_sol.iterations.max(1) as f64;
    let sum = kernels.total();
    println!(
        "{:>5} {:>8} {:>6} {:>6} {:>6} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>7.2}x {:>7.2}x {:>7.2}x {:>9.2} {:>9.1e} {:>9.1e} {:>9.1e}",
        format!("{l}^4"),
        lat.volume(),
        eager_sol.iterations,
        graph_sol.iterations,
        loop_sol.iterations,
        eager_it * 1e6,
        graph_it * 1e6,
        loop_it * 1e6,
        sum * 1e6,
        eager_it / sum,
        graph_it / sum,
        loop_it / sum,
        node * 1e6,
        eager_res,
        graph_res,
        loop_res
    );
    println!(
        "      kernels alone (µs): coefficients {:.2}, update {:.2}, hop {:.2}, apply+sums {:.2}; graph: {} kernels; device loop: {} kernels + its test per iteration",
        kernels.coefficients * 1e6,
        kernels.update * 1e6,
        kernels.hop * 1e6,
        kernels.apply_and_reduce * 1e6,
        graph.graph_kernels(),
        device_loop.loop_kernels()
    );
    Ok(())
}

fn run() -> BenchResult<()> {
    let opts = Options::parse();
    let backend = ongpu::backend()?;
    common::warn_if_checked(backend);
    println!(
        "small_lattice: {} (mass {}, tol {:e}, {} iterations per graph of {} kernels each)",
        common::device_name(backend),
        opts.mass,
        opts.tol,
        opts.block,
        KERNELS_PER_ITERATION
    );
    println!(
        "{:>5} {:>8} {:>6} {:>6} {:>6} {:>9} {:>9} {:>9} {:>9} {:>8} {:>8} {:>8} {:>9} {:>9} {:>9} {:>9}",
        "L^4",
        "sites",
        "it(e)",
        "it(g)",
        "it(l)",
        "µs/it e",
        "µs/it g",
        "µs/it l",
        "Σkernels",
        "e/Σ",
        "g/Σ",
        "l/Σ",
        "µs/node",
        "res e",
        "res g",
        "res l"
    );
    for &l in &opts.sizes {
        run_size(&opts, backend, l)?;
    }
    let cost = measure::time_node_cost(backend, opts.nodes, opts.reps)?;
    println!(
        "one-site calls, {} per graph: {:.2} µs per call eager, {:.2} µs per node replayed \
         (host: {:.2} µs per node to replay)",
        cost.nodes,
        cost.eager * 1e6,
        cost.graph * 1e6,
        cost.replay_host * 1e6
    );
    Ok(())
}

fn main() -> ExitCode {
    common::exit_code(run())
}
