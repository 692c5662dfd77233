//! The pion of Wilson-clover quarks on a quenched gauge field: a configuration made by the
//! heatbath of `ongpu::qcd::quenched` (or read from a NERSC file), the clover term, twelve
//! even-odd solves from a point source, the pion correlator `C(t)` and its effective mass,
//! printed and plotted as SVG.
//!
//! ```text
//! cargo run --release --example wilson -- [--size 8 | --dims 8,8,8,16] [--beta 6.0]
//!     [--sweeps 200] [--seed 1] [--load FILE] [--kappa 0.132] [--csw 1.769]
//!     [--solver bicgstab|cgnr] [--tol 1e-10] [--boundary antiperiodic|periodic]
//!     [--svg meff.svg]
//! ```
//!
//! The quarks are antiperiodic in time (the physical choice) unless `--boundary periodic`.
//!
//! The default `c_sw = 1.769` is the non-perturbative value at β = 6.0 of Lüscher, Sint,
//! Sommer, Weisz and Wolff (Nucl. Phys. B491 (1997) 323); κ = 0.132 lies below its critical
//! value there (about 0.1352), for a pion heavier than nature's, cheap to solve for.

#[path = "../common/mod.rs"]
mod common;

use indicatif::{ProgressBar, ProgressStyle};
use ongpu::prelude::*;
use ongpu::qcd::boundary::TimeBoundary;
use ongpu::qcd::gauge::GaugeField;
use ongpu::qcd::solver::Solution;
use ongpu::qcd::wilson::{BiCgStab, Cgnr, Clover, PionCorrelator, Wilson};
use std::time::Instant;

type AnyResult<T> = Result<T, Box<dyn std::error::Error>>;

const USAGE: &str = "usage: wilson [--size L | --dims X,Y,Z,T] [--beta B] [--sweeps N] \
                     [--seed S] [--load FILE] [--kappa K] [--csw C] [--solver bicgstab|cgnr] \
                     [--tol T] [--boundary antiperiodic|periodic] [--svg FILE]";

/// The command line.
struct Options {
    dims: [usize; 4],
    beta: f64,
    sweeps: usize,
    seed: u64,
    load: Option<String>,
    kappa: f64,
    c_sw: f64,
    cgnr: bool,
    tolerance: f64,
    boundary: TimeBoundary,
    svg: String,
}

impl Options {
    fn parse() -> AnyResult<Options> {
        use lexopt::prelude::*;
        let mut o = Options {
            dims: [8, 8, 8, 16],
            beta: 6.0,
            sweeps: 200,
            seed: 1,
            load: None,
            kappa: 0.132,
            c_sw: 1.769,
            cgnr: false,
            tolerance: 1e-10,
            boundary: TimeBoundary::Antiperiodic,
            svg: "wilson_meff.svg".into(),
        };
        let mut p = lexopt::Parser::from_env();
        while let Some(arg) = p.next()? {
            match arg {
                Long("size") => o.dims = [p.value()?.parse()?; 4],
                Long("dims") => o.dims = common::parse_dims(&p.value()?.string()?)?,
                Long("beta") => o.beta = p.value()?.parse()?,
                Long("sweeps") => o.sweeps = p.value()?.parse()?,
                Long("seed") => o.seed = p.value()?.parse()?,
                Long("load") => o.load = Some(p.value()?.string()?),
                Long("kappa") => o.kappa = p.value()?.parse()?,
                Long("csw") => o.c_sw = p.value()?.parse()?,
                Long("solver") => {
                    o.cgnr = match p.value()?.string()?.as_str() {
                        "bicgstab" => false,
                        "cgnr" => true,
                        other => {
                            return Err(format!("--solver {other}: want bicgstab or cgnr").into())
                        }
                    }
                }
                Long("tol") => o.tolerance = p.value()?.parse()?,
                Long("boundary") => o.boundary = p.value()?.string()?.parse()?,
                Long("svg") => o.svg = p.value()?.string()?,
                Short('h') | Long("help") => {
                    println!("{USAGE}");
                    std::process::exit(0);
                }
                _ => return Err(format!("{}\n{USAGE}", arg.unexpected()).into()),
            }
        }
        Ok(o)
    }
}

fn main() -> AnyResult<()> {
    let o = Options::parse()?;
    let u = configuration(&o)?;
    let lat = u.lattice();
    println!(
        "plaquette {:.6}; clover-improved Wilson quarks, κ = {}, c_sw = {}, {} in time, {} solver to {:e}, backend {:?}",
        u.plaquette()?,
        o.kappa,
        o.c_sw,
        o.boundary,
        if o.cgnr { "CGNR" } else { "BiCGStab" },
        o.tolerance,
        ongpu::backend()?
    );
    let clover = Clover::new(&u, o.kappa, o.c_sw)?;
    let op = Wilson::new(&u, o.kappa)
        .with_boundary(o.boundary)?
        .with_clover(&clover)?;
    let bar = ProgressBar::new(12);
    bar.set_style(ProgressStyle::with_template(
        "{bar:40} {pos}/{len} solves (source spin and colour), eta {eta}",
    )?);
    let start = Instant::now();
    let pion = if o.cgnr {
        op.pion_correlator(&mut Cgnr::new(o.tolerance, 20_000), [0; 4], |_| bar.inc(1))?
    } else {
        op.pion_correlator(&mut BiCgStab::new(o.tolerance, 20_000), [0; 4], |_| {
            bar.inc(1)
        })?
    };
    bar.finish_and_clear();
    report(&pion, start.elapsed().as_secs_f64());
    let title = format!(
        "pion effective mass, {lat}, β = {}, κ = {}, c_sw = {}",
        o.beta, o.kappa, o.c_sw
    );
    common::plot::svg(&pion.effective_mass(), &title, "a m_eff(t)", &o.svg)?;
    println!("plot: {}", o.svg);
    Ok(())
}

/// The gauge field of the command line (`--load`, or the quenched heatbath).
fn configuration(o: &Options) -> AnyResult<GaugeField> {
    common::configuration::configuration(&common::configuration::Source {
        load: o.load.as_deref(),
        dims: o.dims,
        beta: o.beta,
        sweeps: o.sweeps,
        seed: o.seed,
    })
}

/// The correlator, the effective mass and the solves.
fn report(pion: &PionCorrelator, seconds: f64) {
    let m = pion.effective_mass();
    println!("{:>3} {:>14} {:>10}", "t", "C(t)", "m_eff(t)");
    for (t, c) in pion.correlator.iter().enumerate() {
        let meff = m.get(t).map_or(String::new(), |m| format!("{m:.5}"));
        println!("{t:>3} {c:>14.6e} {meff:>10}");
    }
    let iterations: usize = pion.solves.iter().map(|s: &Solution| s.iterations).sum();
    let worst = pion
        .solves
        .iter()
        .map(|s| s.relative_residual)
        .fold(0.0, f64::max);
    println!(
        "12 solves: {iterations} iterations in {seconds:.2} s; largest true |b − D x|/|b| {worst:.1e}"
    );
}
