//! `x += y * z` on fields of 3x3 complex matrices (lattice QCD's SU(3) multiply-add), for
//! T in {f32, f64} and layouts AoS, SoA, AoSoA<32>, from 2^10 to 2^24 sites. In one process it
//! times our `on_gpu!` kernel, the hand-written CUDA C++ kernel of `reference.cu` (compiled
//! by NVRTC here, run on the same fields; in AoS also one staged through shared memory) and
//! copies of the same bytes (`cuMemcpyDtoD`, the earlier ceiling, and the faster of it and
//! a tuned copy kernel, the ceiling); and the same `on_gpu!` call on CPU threads against the
//! host's own parallel copy (the ceiling counts the bytes it really moves: a store to a line
//! not in cache reads the line first). Every result is
//! checked against an f64 reference on random data before it is timed.
//!
//! ```text
//! cargo run --release --example su3_bench -- [--real f32,f64] [--layout aos,soa,aosoa32]
//!     [--log2n 10..24] [--reps 30] [--batch 20] [--tpb 128] [--side both|gpu|cpu]
//!     [--csv] [--svg FILE] [--ptxas [--arch sm_90] [--emit DIR]]
//! ```

#[path = "../common/mod.rs"]
mod common;
mod cpu;
mod cpu_hand;
mod data;
#[cfg(feature = "cuda")]
mod gpu;
#[cfg(feature = "cuda")]
mod inspect;
mod report;

use data::Prec;
use ongpu::prelude::*;
use ongpu::{Element, Layout};
use report::{Measurement, Side};

/// The benchmark's errors: ongpu's, wrong results, bad flags, SVG output.
pub type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

/// A precision to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Real {
    F32,
    F64,
}

/// A layout to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayoutChoice {
    Aos,
    Soa,
    AoSoA32,
}

/// The command line.
#[derive(Debug, Clone)]
pub struct Options {
    pub reals: Vec<Real>,
    pub layouts: Vec<LayoutChoice>,
    pub log2n: std::ops::RangeInclusive<u32>,
    pub reps: usize,
    pub batch: usize,
    pub tpb: u32,
    pub seed: u64,
    pub gpu: bool,
    pub cpu: bool,
    pub csv: bool,
    pub svg: Option<String>,
    pub ptxas: bool,
    pub arch: String,
    pub emit: Option<String>,
}

const USAGE: &str = "su3_bench: x += y * z on Field<ColorMatrix<T>, L>
  --real LIST      f32, f64 (comma-separated; default both)
  --layout LIST    aos, soa, aosoa32 (default all three)
  --log2n A..B     sites from 2^A to 2^B, or --log2n A for one size (default 10..24)
  --reps N         timed repetitions; the median is reported (default 30)
  --batch N        back-to-back launches per timed GPU repetition (default 20)
  --tpb N          threads per block, ours and hand-written alike (default 128)
  --side S         both, gpu or cpu (default both; gpu is skipped without a device)
  --seed N         seed of the random inputs (default 1)
  --csv            print CSV rows instead of tables
  --svg FILE       also draw GB/s against sites for each variant
  --ptxas          compare the ptxas reports and PTX of ours and the hand-written kernel
                   (needs NVRTC only, no GPU), then exit
  --arch A         architecture for --ptxas (default sm_90)
  --emit DIR       with --ptxas: also write both kernels' CUDA source and PTX into DIR";

fn parse_list<T>(v: &str, one: impl Fn(&str) -> Option<T>) -> BenchResult<Vec<T>> {
    v.split(',')
        .map(|s| one(s.trim()).ok_or_else(|| format!("unknown value {s:?}\n{USAGE}").into()))
        .collect()
}

impl Options {
    fn parse() -> BenchResult<Options> {
        use lexopt::prelude::*;
        let mut o = Options {
            reals: vec![Real::F32, Real::F64],
            layouts: vec![LayoutChoice::Aos, LayoutChoice::Soa, LayoutChoice::AoSoA32],
            log2n: 10..=24,
            reps: 30,
            batch: 20,
            tpb: 128,
            seed: 1,
            gpu: true,
            cpu: true,
            csv: false,
            svg: None,
            ptxas: false,
            arch: "sm_90".into(),
            emit: None,
        };
        let mut p = lexopt::Parser::from_env();
        while let Some(arg) = p.next()? {
            match arg {
                Long("real") => {
                    o.reals = parse_list(&p.value()?.string()?, |s| match s {
                        "f32" => Some(Real::F32),
                        "f64" => Some(Real::F64),
                        _ => None,
                    })?
                }
                Long("layout") => {
                    o.layouts = parse_list(&p.value()?.string()?, |s| {
                        match s.to_lowercase().replace(['<', '>'], "").as_str() {
                            "aos" => Some(LayoutChoice::Aos),
                            "soa" => Some(LayoutChoice::Soa),
                            "aosoa32" | "aosoa" => Some(LayoutChoice::AoSoA32),
                            _ => None,
                        }
                    })?
                }
                Long("log2n") => {
                    let v = p.value()?.string()?;
                    let (a, b) = v.split_once("..").unwrap_or((&v, &v));
                    let (a, b): (u32, u32) = (a.parse()?, b.trim_start_matches('=').parse()?);
                    if a > b || b > 30 {
                        return Err(format!("--log2n {v}: want A..B with A <= B <= 30").into());
                    }
                    o.log2n = a..=b;
                }
                Long("reps") => o.reps = p.value()?.parse::<usize>()?.max(1),
                Long("batch") => o.batch = p.value()?.parse::<usize>()?.max(1),
                Long("tpb") => o.tpb = p.value()?.parse()?,
                Long("seed") => o.seed = p.value()?.parse()?,
                Long("side") => {
                    let v = p.value()?.string()?;
                    (o.gpu, o.cpu) = match v.as_str() {
                        "both" => (true, true),
                        "gpu" => (true, false),
                        "cpu" => (false, true),
                        _ => return Err(format!("--side {v}: want both, gpu or cpu").into()),
                    }
                }
                Long("csv") => o.csv = true,
                Long("svg") => o.svg = Some(p.value()?.string()?),
                Long("ptxas") => o.ptxas = true,
                Long("arch") => o.arch = p.value()?.string()?,
                Long("emit") => o.emit = Some(p.value()?.string()?),
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

/// Our kernel: the line a user writes.
pub fn ours<T: Prec, L: Layout>(
    x: &mut Field<ColorMatrix<T>, L>,
    y: &Field<ColorMatrix<T>, L>,
    z: &Field<ColorMatrix<T>, L>,
    tpb: u32,
) -> ongpu::Result<()>
where
    ColorMatrix<T>: Element,
{
    let n = x.len();
    on_gpu!(n, tpb, {
        x += y * z;
    })
}

/// Fails unless the relative error of a checked result is within `tol`.
pub fn check(who: &str, real: &str, layout: &str, n: usize, err: f64, tol: f64) -> BenchResult<()> {
    if err <= tol {
        Ok(())
    } else {
        Err(format!(
            "{who} is wrong for {real} {layout} at {n} sites: relative error {err:.3e} > {tol:.0e}"
        )
        .into())
    }
}

/// The median of `v` (the upper one for an even count).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[cfg(feature = "cuda")]
use gpu::Reference;
/// Without the CUDA backend there is no GPU side.
#[cfg(not(feature = "cuda"))]
pub enum Reference {}

/// Runs one variant at `n` sites on the sides asked for (the GPU's if `reference` is loaded).
fn variant<T: Prec, L: Layout>(
    opts: &Options,
    reference: Option<&Reference>,
    n: usize,
) -> BenchResult<Vec<Measurement>>
where
    ColorMatrix<T>: Element,
{
    let mut ms = Vec::new();
    if let Some(r) = reference {
        #[cfg(feature = "cuda")]
        ms.extend(gpu::run::<T, L>(r, opts, n)?);
        #[cfg(not(feature = "cuda"))]
        match *r {}
    }
    if opts.cpu {
        ms.extend(cpu::run::<T, L>(opts, n)?);
    }
    Ok(ms)
}

fn run(opts: &Options) -> BenchResult<()> {
    #[cfg(feature = "cuda")]
    if opts.ptxas {
        return inspect::report(opts);
    }
    #[cfg(not(feature = "cuda"))]
    if opts.ptxas {
        return Err("--ptxas needs the cuda feature".into());
    }

    let gpu_available = opts.gpu && ongpu::cuda_available();
    if opts.gpu && !gpu_available {
        eprintln!("su3_bench: no CUDA device; running the CPU side only");
    }
    #[cfg(feature = "cuda")]
    let reference = if gpu_available {
        Some(Reference::load()?)
    } else {
        None
    };
    #[cfg(not(feature = "cuda"))]
    let reference: Option<Reference> = None;
    let mut ms = Vec::new();
    for &real in &opts.reals {
        for &layout in &opts.layouts {
            for log in opts.log2n.clone() {
                let n = 1usize << log;
                macro_rules! go {
                    ($t:ty, $l:ty) => {
                        variant::<$t, $l>(opts, reference.as_ref(), n)?
                    };
                }
                let got = match (real, layout) {
                    (Real::F32, LayoutChoice::Aos) => go!(f32, AoS),
                    (Real::F32, LayoutChoice::Soa) => go!(f32, SoA),
                    (Real::F32, LayoutChoice::AoSoA32) => go!(f32, AoSoA<32>),
                    (Real::F64, LayoutChoice::Aos) => go!(f64, AoS),
                    (Real::F64, LayoutChoice::Soa) => go!(f64, SoA),
                    (Real::F64, LayoutChoice::AoSoA32) => go!(f64, AoSoA<32>),
                };
                for m in &got {
                    eprintln!(
                        "  {:?} {} {} 2^{log} {:?}: {:.1} GB/s",
                        m.side,
                        m.real,
                        m.layout,
                        m.kernel,
                        m.gb_per_s()
                    );
                }
                ms.extend(got);
            }
        }
    }

    #[cfg(feature = "cuda")]
    let device = if gpu_available {
        gpu::device_name()
    } else {
        "none".to_string()
    };
    #[cfg(not(feature = "cuda"))]
    let device = "none (built without the cuda feature)".to_string();
    let host = cpu::host_name();
    if opts.csv {
        print!("{}", report::csv(&ms));
    } else {
        println!(
            "su3_bench: x += y * z on Field<ColorMatrix<T>, L>; median of {} repetitions \
             (GPU: batches of {} launches), {} threads per block; GB/s count 4 elements per \
             site (72 B f32, 144 B f64), GFLOP/s 216 flops per site; every element checked \
             against an f64 reference first.",
            opts.reps, opts.batch, opts.tpb
        );
        if ms.iter().any(|m| m.side == Side::Gpu) {
            println!("\nGPU: {device}\n\n{}", report::table(&ms, Side::Gpu));
        }
        if ms.iter().any(|m| m.side == Side::Cpu) {
            println!("\nCPU: {host}\n\n{}", report::table(&ms, Side::Cpu));
        }
    }
    if let Some(path) = &opts.svg {
        let title = format!("x += y * z (GPU: {device}; CPU: {host})");
        report::svg(&ms, path, &title)?;
        eprintln!("su3_bench: wrote {path}");
    }
    Ok(())
}

fn main() {
    let result = Options::parse().and_then(|opts| run(&opts));
    if let Err(e) = result {
        eprintln!("su3_bench: {e}");
        std::process::exit(1);
    }
}
