//! Quenched SU(3) lattice gauge theory with the Wilson action
//! `S = β Σ_P (1 − Re tr U_P / 3)`: Cabibbo–Marinari heatbath (Kennedy–Pendleton in the
//! three SU(2) subgroups) plus overrelaxation, one direction and one parity at a time, with
//! links reunitarised after each update. It prints the mean plaquette with its jackknife
//! error and integrated autocorrelation time, and writes the history as CSV and SVG.
//!
//! ```text
//! cargo run --release --example quenched -- [--size 8 | --dims 8,8,8,16] [--beta 6.0]
//!     [--sweeps 200] [--therm 100] [--or 4] [--start hot|cold] [--seed 1]
//!     [--csv FILE] [--svg FILE] [--load FILE] [--save FILE] [--timing] [--ranks X,Y,Z,T]
//! ```
//!
//! `--save` writes the last configuration as a NERSC archive file (double precision, 3x3
//! links); `--load` continues from one (its lattice replaces `--size`, and its sequence
//! number, the sweeps behind it, moves the random streams past those already used).
//!
//! `--ranks X,Y,Z,T` (with `--features mpi`, under `mpirun -np X·Y·Z·T`) cuts the lattice
//! over the MPI ranks on that process grid: the same sweeps, the same random numbers (keyed
//! by whole-lattice site), the same plaquettes as one process; rank 0 prints and writes the
//! files. With `--ranks`, `--load` needs the file's lattice as `--size`/`--dims`.

#[path = "../common/mod.rs"]
mod common;

use indicatif::{ProgressBar, ProgressStyle};
use ongpu::prelude::*;
use ongpu::qcd::gauge::GaugeField;
use ongpu::qcd::nersc;
use ongpu::qcd::quenched::QuenchedUpdate;
use ongpu::qcd::stats;
use std::time::Instant;

impl<S: Space> Start<S> {
    fn space(&self) -> S {
        match self {
            Start::New(lat) => *lat,
            Start::Loaded(u, ..) => u.lattice(),
        }
    }
}

type AnyResult<T> = Result<T, Box<dyn std::error::Error>>;

const USAGE: &str = "usage: quenched [--size L | --dims X,Y,Z,T] [--beta B] [--sweeps N] \
                     [--therm N] [--or K] [--start hot|cold] [--seed S] [--csv FILE] \
                     [--svg FILE] [--load FILE] [--save FILE] [--timing] [--ranks X,Y,Z,T]";

/// The command line.
struct Options {
    dims: [usize; 4],
    beta: f64,
    sweeps: usize,
    therm: usize,
    or_steps: usize,
    hot: bool,
    seed: u64,
    csv: Option<String>,
    svg: Option<String>,
    load: Option<String>,
    save: Option<String>,
    timing: bool,
    ranks: Option<[usize; 4]>,
}

impl Options {
    fn parse() -> AnyResult<Options> {
        use lexopt::prelude::*;
        let mut o = Options {
            dims: [8; 4],
            beta: 6.0,
            sweeps: 200,
            therm: 100,
            or_steps: 4,
            hot: true,
            seed: 1,
            csv: None,
            svg: None,
            load: None,
            save: None,
            timing: false,
            ranks: None,
        };
        let mut p = lexopt::Parser::from_env();
        while let Some(arg) = p.next()? {
            match arg {
                Long("size") => o.dims = [p.value()?.parse()?; 4],
                Long("dims") => o.dims = common::parse_dims(&p.value()?.string()?)?,
                Long("beta") => o.beta = p.value()?.parse()?,
                Long("sweeps") => o.sweeps = p.value()?.parse()?,
                Long("therm") => o.therm = p.value()?.parse()?,
                Long("or") => o.or_steps = p.value()?.parse()?,
                Long("start") => {
                    o.hot = match p.value()?.string()?.as_str() {
                        "hot" => true,
                        "cold" => false,
                        other => return Err(format!("--start {other}: want hot or cold").into()),
                    }
                }
                Long("seed") => o.seed = p.value()?.parse()?,
                Long("csv") => o.csv = Some(p.value()?.string()?),
                Long("svg") => o.svg = Some(p.value()?.string()?),
                Long("load") => o.load = Some(p.value()?.string()?),
                Long("save") => o.save = Some(p.value()?.string()?),
                Long("timing") => o.timing = true,
                Long("ranks") => o.ranks = Some(common::parse_dims(&p.value()?.string()?)?),
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

/// Where the run starts: a new field on a space, or one read from a file.
enum Start<S: Space> {
    New(S),
    Loaded(GaugeField<S>, nersc::Header, String),
}

fn main() -> AnyResult<()> {
    let o = Options::parse()?;
    if let Some(grid) = o.ranks {
        return over_ranks(grid, &o);
    }
    let start = match &o.load {
        Some(path) => {
            let (u, header) = GaugeField::read_nersc(path)?;
            Start::Loaded(u, header, path.clone())
        }
        None => Start::New(Lattice::new(o.dims)?),
    };
    simulate(start, &o)
}

/// The run on a lattice cut over the MPI ranks on process grid `grid`.
#[cfg(feature = "mpi")]
fn over_ranks(grid: [usize; 4], o: &Options) -> AnyResult<()> {
    let world = ongpu::mpi::World::init()?;
    world.abort_on_panic();
    let lat = Lattice::new(o.dims)?.over_ranks(&world, grid)?;
    let start = match &o.load {
        Some(path) => {
            let (u, header) = GaugeField::read_nersc_onto(lat, path)?;
            Start::Loaded(u, header, path.clone())
        }
        None => Start::New(lat),
    };
    simulate(start, o)
}

#[cfg(not(feature = "mpi"))]
fn over_ranks(_grid: [usize; 4], _o: &Options) -> AnyResult<()> {
    Err(
        "--ranks needs the mpi feature: cargo run --release --features mpi --example \
         quenched -- --ranks X,Y,Z,T (under mpirun)"
            .into(),
    )
}

/// Thermalises and measures on the space of `start`; the root process prints and writes.
fn simulate<S: Space>(start: Start<S>, o: &Options) -> AnyResult<()> {
    let root = start.space().is_root();
    let say = |line: String| {
        if root {
            println!("{line}");
        }
    };
    let (mut u, mut update) = match start {
        Start::Loaded(u, header, path) => {
            let lat = u.lattice();
            let done = header
                .get("SEQUENCE_NUMBER")
                .and_then(|s| s.parse().ok())
                .unwrap_or(0);
            say(format!(
                "loaded {path}: {lat}, plaquette {:.6} (checksum, plaquette and link trace verified), {done} heatbath sweeps behind it",
                header.plaquette
            ));
            (u, QuenchedUpdate::resume(lat, o.seed, done))
        }
        Start::New(lat) => {
            if o.hot {
                // The Haar measure, standing for sweep 0 of the chain's streams.
                let u = GaugeField::hot(lat, o.seed)?;
                (u, QuenchedUpdate::resume(lat, o.seed, 1))
            } else {
                (GaugeField::unit(lat)?, QuenchedUpdate::new(lat, o.seed))
            }
        }
    };
    let lat = u.lattice().whole();
    say(format!(
        "quenched SU(3), Wilson action: lattice {}, β = {}, {} start, seed {}, \
         {} thermalisation + {} measured sweeps (1 heatbath + {} overrelaxation each), backend {:?}",
        u.lattice(),
        o.beta,
        if o.load.is_some() {
            "loaded"
        } else if o.hot {
            "hot"
        } else {
            "cold"
        },
        o.seed,
        o.therm,
        o.sweeps,
        o.or_steps,
        ongpu::backend()
    ));
    let (p0, t0) = (u.plaquette()?, u.link_trace()?);
    say(format!("start: plaquette {p0:.6}, link trace {t0:.6}"));
    let total = o.therm + o.sweeps;
    let bar = if root {
        ProgressBar::new(total as u64)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(ProgressStyle::with_template(
        "{bar:40} {pos}/{len} sweeps, {per_sec}, eta {eta} {msg}",
    )?);
    let mut history = Vec::with_capacity(total);
    let start = Instant::now();
    for sweep in 1..=total {
        update.sweep(&mut u, o.beta, o.or_steps)?;
        let p = u.plaquette()?;
        history.push(common::history::Point {
            sweep,
            thermalising: sweep <= o.therm,
            plaquette: p,
        });
        bar.set_message(format!("plaquette {p:.6}"));
        bar.inc(1);
    }
    let seconds = start.elapsed().as_secs_f64();
    bar.finish_and_clear();
    let measured: Vec<f64> = history
        .iter()
        .filter(|p| !p.thermalising)
        .map(|p| p.plaquette)
        .collect();
    let s = stats::summarise(&measured);
    say(format!(
        "<P> = {:.6} ± {:.6}  (β = {}, {} measurements, τ_int = {:.2} sweeps, bins of {})",
        s.mean, s.error, o.beta, s.n, s.tau_int, s.bin
    ));
    let trace = u.link_trace()?;
    say(format!("end: link trace {trace:.6}"));
    let links = 4.0 * lat.volume() as f64 * total as f64;
    say(format!(
        "{total} sweeps in {seconds:.2} s: {:.2} sweeps/s, {:.3e} heatbath link updates/s \
         ({:.3e} with overrelaxation)",
        total as f64 / seconds,
        links / seconds,
        links * (1 + o.or_steps) as f64 / seconds
    ));
    if let Some(path) = &o.save {
        let ensemble = nersc::Ensemble {
            label: format!("quenched SU(3) Wilson action, beta = {}", o.beta),
            sequence_number: update.sweeps_done(),
            ..Default::default()
        };
        let header = u.write_nersc(path, Default::default(), &ensemble)?;
        say(format!(
            "saved {path}: plaquette {:.12} in its header",
            header.plaquette
        ));
    }
    if o.timing {
        timing(&mut u, &mut update, o.beta, root)?;
    }
    if !root {
        return Ok(());
    }
    if let Some(path) = &o.csv {
        common::history::csv(&history, "sweep", path)?;
        println!("history: {path}");
    }
    if let Some(path) = &o.svg {
        let title = format!("plaquette, {lat}, β = {}", o.beta);
        common::history::svg(&history, "sweep", &title, s.mean, s.error, path)?;
        println!("plot: {path}");
    }
    Ok(())
}

/// Where a sweep's time goes: each kind of call timed alone over a few sweeps (a profile by
/// call, with a synchronisation around each timed region).
fn timing<S: Space>(
    u: &mut GaugeField<S>,
    update: &mut QuenchedUpdate<S>,
    beta: f64,
    root: bool,
) -> AnyResult<()> {
    let reps = 5;
    let time = |f: &mut dyn FnMut() -> ongpu::Result<()>| -> AnyResult<f64> {
        f()?;
        ongpu::synchronize()?;
        let t = Instant::now();
        for _ in 0..reps {
            f()?;
        }
        ongpu::synchronize()?;
        Ok(t.elapsed().as_secs_f64() / reps as f64)
    };
    let staples = time(&mut || update.staples_sweep(u))?;
    let heatbath = time(&mut || update.heatbath(u, beta))?;
    let overrelax = time(&mut || update.overrelax(u))?;
    let plaquette = time(&mut || u.plaquette().map(|_| ()))?;
    if !root {
        return Ok(());
    }
    let ms = |s: f64| s * 1e3;
    println!(
        "per sweep: staples alone {:.3} ms (8 calls); heatbath sweep {:.3} ms, of which \
         updates {:.3} ms; overrelaxation sweep {:.3} ms, of which updates {:.3} ms; \
         plaquette {:.3} ms",
        ms(staples),
        ms(heatbath),
        ms(heatbath - staples),
        ms(overrelax),
        ms(overrelax - staples),
        ms(plaquette)
    );
    let v = u.lattice().whole().volume() as f64;
    // Staples read 18 links of 144 B per updated link (no cache reuse) and write 144 B.
    let bytes = 4.0 * v * (18.0 + 1.0) * 144.0;
    println!(
        "staples: {:.0} GB/s in the no-reuse model (18 links read, 1 matrix written per link)",
        bytes / staples / 1e9
    );
    if ongpu::backend()? == ongpu::Backend::Cpu {
        // The CPU backend's ceiling: the host copying the model's bytes.
        let copy = common::host_copy_seconds(bytes as usize, reps);
        println!(
            "host copy of the same bytes: {:.0} GB/s; staples at {:.1}% of it",
            bytes / copy / 1e9,
            100.0 * copy / staples
        );
    }
    Ok(())
}
