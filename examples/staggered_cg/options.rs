//! The command line of the example.

use crate::BenchResult;

/// Which gauge field to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GaugeKind {
    /// Every link an independent random SU(3) matrix (the hardest case for CG).
    Random,
    /// Links near the identity (`GaugeField::smooth` with spread [`SMOOTH_SPREAD`]).
    Smooth,
}

/// How far from the identity the links of `--smooth` are (before projection).
pub const SMOOTH_SPREAD: f64 = 0.2;

/// What to solve and how to time it.
#[derive(Debug, Clone)]
pub struct Options {
    /// Lattice extents (`--size L` for L^4, or `--dims x,y,z,t`).
    pub dims: [usize; 4],
    /// The quark mass m of `A = m² − D_eo D_oe`.
    pub mass: f64,
    /// Stop when `|b − A x| ≤ tol |b|`.
    pub tol: f64,
    /// Give up (with an error) after this many iterations.
    pub max_iter: usize,
    /// Timed solves after the warm-up solve (the median is reported).
    pub repeat: usize,
    /// Timed batches of each pass for the per-pass times (the median is reported).
    pub reps: usize,
    /// The gauge field (`--smooth` for links near the identity).
    pub gauge: GaugeKind,
    /// Seed of the links and the source.
    pub seed: u64,
    /// The MPI process grid to cut the lattice over (`--ranks X,Y,Z,T`), if any.
    pub ranks: Option<[usize; 4]>,
    /// Split the lattice over this many GPUs of the process (`--devices N`), if any.
    pub devices: Option<usize>,
    /// Also solve with mixed-precision CG, inner iterations stored in this precision
    /// (`--mixed f32|f16|bf16`), and compare its time to solution with the f64 CG's.
    pub mixed: Option<Sloppy>,
    /// Solve this many systems at once (`--rhs N`, `MultiCg`) against as many single solves.
    pub rhs: Option<usize>,
    /// Also solve with the CG whose scalars stay on the devices (`--device-scalars`,
    /// `DeviceCg`), and compare its time to solution with the CG's.
    pub device_scalars: bool,
}

/// The storage of the inner iterations of `--mixed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sloppy {
    /// `f32` vectors and two-row links.
    F32,
    /// IEEE half-precision vectors and two-row links.
    F16,
    /// bfloat16 vectors and two-row links.
    Bf16,
}

/// The usage line.
pub const USAGE: &str =
    "cargo run --release --example staggered_cg -- [--size L | --dims X,Y,Z,T] \
     [--mass M] [--tol T] [--max-iter N] [--repeat N] [--reps N] [--smooth] [--seed S] \
     [--ranks X,Y,Z,T | --devices N] [--mixed f32|f16|bf16] [--rhs N] \
     [--device-scalars]";

impl Options {
    /// Parses the process's arguments.
    pub fn parse() -> BenchResult<Options> {
        use lexopt::prelude::*;
        let mut o = Options {
            dims: [8; 4],
            mass: 0.1,
            tol: 1e-10,
            max_iter: 10_000,
            repeat: 5,
            reps: 10,
            gauge: GaugeKind::Random,
            seed: 1,
            ranks: None,
            devices: None,
            mixed: None,
            rhs: None,
            device_scalars: false,
        };
        let mut p = lexopt::Parser::from_env();
        while let Some(arg) = p.next()? {
            match arg {
                Long("size") => o.dims = [p.value()?.parse()?; 4],
                Long("dims") => o.dims = crate::common::parse_dims(&p.value()?.string()?)?,
                Long("mass") => o.mass = p.value()?.parse()?,
                Long("tol") => o.tol = p.value()?.parse()?,
                Long("max-iter") => o.max_iter = p.value()?.parse()?,
                Long("repeat") => o.repeat = p.value()?.parse::<usize>()?.max(1),
                Long("reps") => o.reps = p.value()?.parse::<usize>()?.max(1),
                Long("smooth") => o.gauge = GaugeKind::Smooth,
                Long("seed") => o.seed = p.value()?.parse()?,
                Long("ranks") => o.ranks = Some(crate::common::parse_dims(&p.value()?.string()?)?),
                Long("devices") => o.devices = Some(p.value()?.parse::<usize>()?),
                Long("rhs") => o.rhs = Some(p.value()?.parse::<usize>()?),
                Long("device-scalars") => o.device_scalars = true,
                Long("mixed") => {
                    o.mixed = Some(match p.value()?.string()?.as_str() {
                        "f32" => Sloppy::F32,
                        "f16" => Sloppy::F16,
                        "bf16" => Sloppy::Bf16,
                        other => {
                            return Err(format!("--mixed {other}: want f32, f16 or bf16").into())
                        }
                    })
                }
                Long("help") | Short('h') => {
                    println!("{USAGE}");
                    std::process::exit(0);
                }
                _ => return Err(format!("{}\nusage: {USAGE}", arg.unexpected()).into()),
            }
        }
        if o.mass.is_nan() || o.mass <= 0.0 {
            return Err(format!(
                "--mass {}: want m > 0 (A is then positive definite)",
                o.mass
            )
            .into());
        }
        if o.ranks.is_some() && o.devices.is_some() {
            return Err("--ranks and --devices: choose one (ranks take one GPU each)".into());
        }
        if o.devices == Some(0) {
            return Err("--devices 0: want at least one device".into());
        }
        if o.tol.is_nan() || o.tol <= 0.0 {
            return Err(format!("--tol {}: want a positive tolerance", o.tol).into());
        }
        Ok(o)
    }
}
