//! The pion and the residual mass of domain-wall (Möbius) quarks on a quenched gauge field:
//! a configuration made by the heatbath of `ongpu::qcd::quenched` (or read from a NERSC
//! file), twelve even-odd 5-D solves from a point source, the pion correlator at the walls
//! with its effective mass, and the midpoint correlator whose ratio to it is `m_res`;
//! printed, and plotted as two SVG files.
//!
//! ```text
//! cargo run --release --example dwf -- [--size 8 | --dims 8,8,8,16] [--beta 6.0]
//!     [--sweeps 200] [--seed 1] [--load FILE] [--ls 8|12|16|24|32] [--m5 1.8]
//!     [--mf 0.04] [--b 1.5] [--c 0.5] [--solver mixed|cgnr] [--tol 1e-10] [--svg dwf]
//! ```
//!
//! The solver is the mixed-precision CGNR (f32 iterations, f64 reliable updates) unless
//! `--solver cgnr` asks for the f64 one; both stop at the same f64 residual.
//!
//! `--b 1 --c 0` is Shamir's operator; the default Möbius `b = 1.5, c = 0.5` has the
//! kernel scale `b + c = 2`, which approximates the sign function as Shamir's does at twice
//! the `Ls`. The quarks are periodic in time (the domain-wall operator has no other time
//! boundary yet), so the pion correlator is periodic as well.

#[path = "../common/mod.rs"]
mod common;

use indicatif::{ProgressBar, ProgressStyle};
use ongpu::prelude::*;
use ongpu::qcd::domain_wall::{
    DomainWall, DomainWallCorrelators, DomainWallEvenOdd, MixedCgnr, MobiusParams,
};
use ongpu::qcd::gauge::GaugeField;
use ongpu::qcd::solver::{Cgnr, LinearSolver};
use std::time::Instant;

type AnyResult<T> = Result<T, Box<dyn std::error::Error>>;

const USAGE: &str = "usage: dwf [--size L | --dims X,Y,Z,T] [--beta B] [--sweeps N] [--seed S] \
                     [--load FILE] [--ls 8|12|16|24|32] [--m5 M5] [--mf M] [--b B] [--c C] \
                     [--solver mixed|cgnr] [--tol T] [--svg PREFIX]";

/// The command line.
struct Options {
    dims: [usize; 4],
    beta: f64,
    sweeps: usize,
    seed: u64,
    load: Option<String>,
    ls: usize,
    params: MobiusParams,
    mixed: bool,
    tolerance: f64,
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
            ls: 16,
            params: MobiusParams::mobius(1.8, 0.04, 1.5, 0.5),
            mixed: true,
            tolerance: 1e-10,
            svg: "dwf".into(),
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
                Long("ls") => o.ls = p.value()?.parse()?,
                Long("m5") => o.params.m5 = p.value()?.parse()?,
                Long("mf") => o.params.mf = p.value()?.parse()?,
                Long("b") => o.params.b = p.value()?.parse()?,
                Long("c") => o.params.c = p.value()?.parse()?,
                Long("solver") => {
                    o.mixed = match p.value()?.string()?.as_str() {
                        "mixed" => true,
                        "cgnr" => false,
                        other => return Err(format!("--solver {other}: want mixed or cgnr").into()),
                    }
                }
                Long("tol") => o.tolerance = p.value()?.parse()?,
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
    let p = o.params;
    println!(
        "plaquette {:.6}; Möbius quarks Ls = {}, M5 = {}, m_f = {}, b = {}, c = {}, \
         even-odd {} to {:e}, backend {:?}",
        u.plaquette()?,
        o.ls,
        p.m5,
        p.mf,
        p.b,
        p.c,
        if o.mixed {
            "mixed-precision CGNR"
        } else {
            "CGNR"
        },
        o.tolerance,
        ongpu::backend()?
    );
    let start = Instant::now();
    // Ls is part of the field's type: one monomorphised program per supported Ls.
    let c = match o.ls {
        8 => correlators::<8>(&u, &o)?,
        12 => correlators::<12>(&u, &o)?,
        16 => correlators::<16>(&u, &o)?,
        24 => correlators::<24>(&u, &o)?,
        32 => correlators::<32>(&u, &o)?,
        other => {
            return Err(format!("--ls {other}: this program is built for 8, 12, 16, 24, 32").into())
        }
    };
    report(&c, o.ls, start.elapsed().as_secs_f64());
    let lat = u.lattice();
    let what = format!("{lat}, β = {}, Ls = {}, m_f = {}", o.beta, o.ls, p.mf);
    let (meff_svg, mres_svg) = (format!("{}_meff.svg", o.svg), format!("{}_mres.svg", o.svg));
    common::plot::svg(
        &c.pion.effective_mass(),
        &format!("pion effective mass, {what}"),
        "a m_eff(t)",
        &meff_svg,
    )?;
    common::plot::svg(
        &c.residual_mass(),
        &format!("residual mass, {what}"),
        "C_J5q(t) / C_pp(t)",
        &mres_svg,
    )?;
    println!("plots: {meff_svg}, {mres_svg}");
    Ok(())
}

/// The twelve solves from a point source at the origin and the correlators.
fn correlators<const LS: usize>(u: &GaugeField, o: &Options) -> AnyResult<DomainWallCorrelators> {
    let d = DomainWall::<LS>::new(u, o.params)?;
    let eo = DomainWallEvenOdd::new(&d)?;
    let mut solver: Box<dyn LinearSolver<DomainWallEvenOdd<'_, '_, LS>>> = if o.mixed {
        Box::new(MixedCgnr::new(o.tolerance, 50_000))
    } else {
        Box::new(Cgnr::new(o.tolerance, 50_000))
    };
    let bar = ProgressBar::new(12);
    bar.set_style(ProgressStyle::with_template(
        "{bar:40} {pos}/{len} 5-D solves (source spin and colour), eta {eta}",
    )?);
    let c = d.correlators(
        |b, x| eo.solve(solver.as_mut(), b, x),
        [0; 4],
        |_| bar.inc(1),
    )?;
    bar.finish_and_clear();
    Ok(c)
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

/// The correlators, the effective mass, `m_res(t)` and its plateau, and the solves.
fn report(c: &DomainWallCorrelators, ls: usize, seconds: f64) {
    let meff = c.pion.effective_mass();
    let mres = c.residual_mass();
    println!(
        "{:>3} {:>14} {:>10} {:>14} {:>12}",
        "t", "C_pp(t)", "m_eff(t)", "C_J5q(t)", "m_res(t)"
    );
    for (t, pp) in c.pion.correlator.iter().enumerate() {
        let m = meff.get(t).map_or(String::new(), |m| format!("{m:.5}"));
        println!(
            "{t:>3} {pp:>14.6e} {m:>10} {:>14.6e} {:>12.4e}",
            c.midpoint[t], mres[t]
        );
    }
    let t_len = c.midpoint.len();
    if let Some(plateau) = c.residual_mass_plateau(t_len / 4..t_len / 2 + 1) {
        println!(
            "m_res = {plateau:.4e} (average of t = {}…{} and their mirrors)",
            t_len / 4,
            t_len / 2
        );
    }
    let iterations: usize = c.pion.solves.iter().map(|s| s.iterations).sum();
    let worst = c
        .pion
        .solves
        .iter()
        .map(|s| s.relative_residual)
        .fold(0.0, f64::max);
    println!(
        "12 solves of the {ls}-slice system: {iterations} iterations in {seconds:.2} s; \
         largest |b̂ − M̂ x| / |b̂| {worst:.1e}"
    );
}
