//! The even-odd naive staggered Dslash of the lattice contract (phases folded into the
//! links), `chi(x) = Σ_mu U_mu(x) psi(x+mu) − U_mu(x−mu)† psi(x−mu)` on the even sites, in
//! f32 and f64 on L^4 lattices. In one process it times the `on_gpu!` stencil, the
//! hand-written CUDA C++ kernel of `reference.cu` on the same fields (compiled by NVRTC here)
//! and a device copy of the same bytes (the best of `cuMemcpyDtoD` and a 16-byte copy
//! kernel); with `--cpu`, the same call on CPU threads against the host's parallel copy.
//! Every result is checked element by element against an f64 host reference first.
//!
//! At L >= 32 it also compares a shift-free call over `lat.even()` / `lat.odd()` with the
//! same call over a plain count of as many sites (`subsets.rs`).
//!
//! Counted per even site with no cache reuse (the byte model of the reference): 8 links and
//! 8 neighbour vectors read, one vector written: 792 B in f32, 1584 B in f64; 570 flops.
//!
//! With `--devices N` it instead runs the call over a lattice split across 1 to N devices
//! (`scaling.rs`): weak scaling at `--local L` (default 32) sites per direction per device,
//! strong scaling on `--strong` (default 48,48,48,48); `--emulate` splits over parts of
//! device 0 instead of over GPUs, which shows what splitting costs on one device.
//!
//! With `--host-part` it asks whether the host's CPU threads, given a slab beside the GPU,
//! make the call faster than the GPU alone (`host_part.rs`), on `--strong` (default
//! 32,32,32,64).
//!
//! With `--rhs 1,4,8,12,16` it applies the Dslash to N right-hand sides in one call against
//! the one-vector call made N times (`many_rhs.rs`), on `--sizes` (default 32).
//!
//! With `--mpi` (built with `--features mpi`, run under `mpirun -np N`) it runs the call over
//! a lattice cut over the N ranks (`ranks.rs`): weak scaling at `--local L` per rank, strong
//! scaling on `--strong` (default 32,32,32,32), with the halo exchange's time and its share,
//! against MPI's own point-to-point time for messages of the same size.
//!
//! ```text
//! cargo run --release --example dslash_bench -- [--sizes 16,24,32,40] [--real f32,f64]
//!     [--layout aosoa32,aos,soa] [--reps 10] [--tpb 128] [--cpu] [--csv FILE] [--svg FILE]
//! cargo run --release --example dslash_bench -- --devices 2 [--local 32] [--strong 48,48,48,48]
//!     [--emulate]
//! cargo run --release --example dslash_bench -- --rhs 1,4,8,12,16 [--sizes 32] [--real f32,f64]
//! cargo run --release --example dslash_bench -- --host-part [--strong 32,32,32,64] [--reps 20]
//! mpirun -np N target/release/examples/dslash_bench --mpi [--local 32] [--strong 32,32,32,32]
//! ```

#[path = "../common/mod.rs"]
mod common;
mod cpu_hand;
mod data;
#[cfg(feature = "cuda")]
mod gpu;
mod host_part;
mod many_rhs;
#[cfg(feature = "mpi")]
mod ranks;
mod report;
mod scaling;
mod subsets;

use data::{Prec, Problem};
use ongpu::prelude::*;
use ongpu::qcd::gauge::compressed::su3_from_rows;
use ongpu::{AoS, AoSoA, Backend, Element, Layout};
use report::Row;

/// The benchmark's errors: ongpu's, wrong results, plotting.
pub type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

/// Flops per even site: 8 matrix-vector products (66 flops each) and their sum.
pub const FLOPS_PER_SITE: f64 = 570.0;

/// The `on_gpu!` stencil of the contract.
pub fn ours<T: Prec, L: Layout>(
    lat: Lattice,
    tpb: u32,
    u: &Field<[ColorMatrix<T>; 4], L>,
    psi: &Field<ColorVector<T>, L>,
    chi: &mut Field<ColorVector<T>, L>,
) -> ongpu::Result<()>
where
    ColorMatrix<T>: Element,
    ColorVector<T>: Element,
    [ColorMatrix<T>; 4]: Element,
{
    on_gpu!(lat.even(), tpb, |i| {
        let mut r = ColorVector::zero();
        for mu in 0..4 {
            r += u[mu] * psi.shift(mu, 1) - u.shift(mu, -1)[mu].adj() * psi.shift(mu, -1);
        }
        chi = r;
    })
}

/// The same stencil with the links stored as two rows (`gauge::compressed`, 12 reals a link
/// instead of 18), each rebuilt in registers where it is used.
pub fn ours12<T: Prec, L: Layout>(
    lat: Lattice,
    tpb: u32,
    u: &Field<[[ColorVector<T>; 2]; 4], L>,
    psi: &Field<ColorVector<T>, L>,
    chi: &mut Field<ColorVector<T>, L>,
) -> ongpu::Result<()>
where
    ColorMatrix<T>: Element,
    ColorVector<T>: Element,
    [[ColorVector<T>; 2]; 4]: Element,
{
    on_gpu!(lat.even(), tpb, |i| {
        let mut r = ColorVector::zero();
        for mu in 0..4 {
            let f = u[mu];
            let b = u.shift(mu, -1)[mu];
            r += su3_from_rows(f[0], f[1]) * psi.shift(mu, 1)
                - su3_from_rows(b[0], b[1]).adj() * psi.shift(mu, -1);
        }
        chi = r;
    })
}

/// [`ours12`] on 16-bit storage: f16 vectors and links as two f16 rows, widened to f32
/// where they are read, the result rounded to f16.
pub fn ours16<L: Layout>(
    lat: Lattice,
    tpb: u32,
    u: &Field<[[ColorVector<f16>; 2]; 4], L>,
    psi: &Field<ColorVector<f16>, L>,
    chi: &mut Field<ColorVector<f16>, L>,
) -> ongpu::Result<()> {
    on_gpu!(lat.even(), tpb, |i| {
        let mut r = ColorVector::zero();
        for mu in 0..4 {
            let f = u[mu];
            let b = u.shift(mu, -1)[mu];
            r += su3_from_rows(f[0].widen(), f[1].widen()) * psi.shift(mu, 1).widen()
                - su3_from_rows(b[0].widen(), b[1].widen()).adj() * psi.shift(mu, -1).widen();
        }
        chi = r.narrow();
    })
}

/// Runs one precision and layout at every size on the chosen side.
fn run<T: Prec, L: Layout>(opts: &Options, rows: &mut Vec<Row>) -> BenchResult<()>
where
    ColorMatrix<T>: Element,
    ColorVector<T>: Element,
    [ColorMatrix<T>; 4]: Element,
    [[ColorVector<T>; 2]; 4]: Element,
{
    for &l in &opts.sizes {
        let problem = Problem::new(l, 7)?;
        if opts.gpu {
            #[cfg(feature = "cuda")]
            rows.extend(gpu::run::<T, L>(opts, &problem)?);
        }
        if opts.cpu {
            rows.extend(ongpu::with_backend(Backend::Cpu, || {
                cpu_run::<T, L>(opts, &problem)
            })?);
        }
    }
    Ok(())
}

/// The CPU side: ours on rayon threads against a parallel host copy of the same bytes.
fn cpu_run<T: Prec, L: Layout>(opts: &Options, p: &Problem) -> BenchResult<Vec<Row>>
where
    ColorMatrix<T>: Element,
    ColorVector<T>: Element,
    [ColorMatrix<T>; 4]: Element,
{
    let (u, psi) = (p.links::<T, L>(), p.psi::<T, L>());
    let mut chi = p.poisoned_chi::<T, L>();
    ours(p.lat, opts.tpb, &u, &psi, &mut chi)?;
    let err = p.check::<T, L>("on_gpu! (CPU)", &chi)?;
    let t = common::time(Backend::Cpu, opts.reps, || {
        ours(p.lat, opts.tpb, &u, &psi, &mut chi)
    })?;
    let bytes = p.model_bytes::<T>();
    let src = vec![0u8; bytes];
    let mut dst = vec![1u8; bytes];
    let t_copy = common::time(Backend::Cpu, opts.reps, || {
        common::parallel_copy(&src, &mut dst);
        Ok(())
    })?;
    let mut rows = vec![
        Row::new::<T, L>("cpu", "on_gpu", p, t, Some(err)),
        Row::new::<T, L>("cpu", "host_copy", p, t_copy, None),
    ];
    // The hand-vectorised reference, in its own AoSoA<32> storage: beside ours in that layout.
    if L::name() == AoSoA::<32>::name() && (p.lat.volume() / 2) % 32 == 0 {
        let links = p.links::<T, AoS>().to_vec()?;
        let hand = cpu_hand::Hand::new(&p.lat, &links, &p.psi::<T, AoS>().to_vec()?);
        let mut out = hand.output();
        hand.run(&mut out);
        let even = hand.even_sites(&out);
        let nan = Complex::new(T::of(f64::NAN), T::of(f64::NAN));
        let chi: Field<ColorVector<T>, L> = Field::from_fn(p.lat.volume(), |s| {
            even.get(s).copied().unwrap_or(ColorVector::new([nan; 3]))
        });
        let err = p.check::<T, L>("hand-vectorised (CPU)", &chi)?;
        let t_hand = common::time(Backend::Cpu, opts.reps, || {
            hand.run(&mut out);
            Ok(())
        })?;
        rows.push(Row::new::<T, L>(
            "cpu",
            "hand_written",
            p,
            t_hand,
            Some(err),
        ));
    }
    Ok(rows)
}

/// The command line.
#[derive(Debug, Clone)]
pub struct Options {
    pub sizes: Vec<usize>,
    pub reals: Vec<String>,
    pub layouts: Vec<String>,
    pub reps: usize,
    pub tpb: u32,
    pub gpu: bool,
    pub cpu: bool,
    pub csv: Option<String>,
    pub svg: Option<String>,
}

fn list(name: &str, default: &str) -> Vec<String> {
    common::value(name)
        .unwrap_or_else(|| default.to_string())
        .split(',')
        .map(|s| s.trim().to_lowercase())
        .collect()
}

fn main() -> BenchResult<()> {
    // Under MPI the World comes first: it picks each rank's GPU, which must happen before
    // the first GPU call (asking for the backend opens the default device).
    if common::switch("--mpi") {
        let strong = common::arg_list("--strong", &[32, 32, 32, 32]);
        let strong: [usize; 4] = strong
            .try_into()
            .map_err(|_| "--strong takes four extents")?;
        #[cfg(feature = "mpi")]
        return ranks::run(
            common::arg("--local", 32),
            strong,
            common::arg("--reps", 20),
        );
        #[cfg(not(feature = "mpi"))]
        return Err(format!(
            "--mpi needs the mpi feature (cargo build --release --features mpi --example \
             dslash_bench); --strong {strong:?} not run"
        )
        .into());
    }
    let backend = ongpu::backend()?;
    if common::switch("--host-part") {
        let dims = common::arg_list("--strong", &[32, 32, 32, 64]);
        let dims: [usize; 4] = dims.try_into().map_err(|_| "--strong takes four extents")?;
        return host_part::run(dims, common::arg("--reps", 20));
    }
    if common::value("--rhs").is_some() {
        return many_rhs::run(
            backend,
            &common::arg_list("--sizes", &[32]),
            &common::arg_list("--rhs", &[1, 4, 8, 12, 16]),
            &list("--real", "f32,f64"),
            common::arg("--reps", 10),
        );
    }
    if let Some(n) = common::value("--devices") {
        let n: usize = n
            .parse()
            .map_err(|_| format!("--devices {n}: not a number"))?;
        let strong = common::arg_list("--strong", &[48, 48, 48, 48]);
        let strong: [usize; 4] = strong
            .try_into()
            .map_err(|_| "--strong takes four extents")?;
        return scaling::run(
            n,
            common::arg("--local", 32),
            strong,
            common::arg("--reps", 20),
            common::switch("--emulate"),
        );
    }
    let opts = Options {
        sizes: common::arg_list("--sizes", &[16, 24, 32, 40]),
        reals: list("--real", "f32,f64"),
        layouts: list("--layout", "aosoa32,aos,soa"),
        reps: common::arg("--reps", 10),
        tpb: common::arg("--tpb", 128) as u32,
        gpu: backend == Backend::Cuda,
        cpu: common::switch("--cpu") || backend == Backend::Cpu,
        csv: common::value("--csv"),
        svg: common::value("--svg"),
    };
    common::warn_if_checked(backend);
    println!(
        "staggered Dslash (even sites), L^4 for L in {:?}, {} threads per block",
        opts.sizes, opts.tpb
    );
    println!("device: {}", common::device_name(backend));
    let mut rows = Vec::new();
    for real in &opts.reals {
        for layout in &opts.layouts {
            match (real.as_str(), layout.as_str()) {
                ("f32", "aosoa32") => run::<f32, AoSoA<32>>(&opts, &mut rows)?,
                ("f32", "aos") => run::<f32, AoS>(&opts, &mut rows)?,
                ("f32", "soa") => run::<f32, SoA>(&opts, &mut rows)?,
                ("f64", "aosoa32") => run::<f64, AoSoA<32>>(&opts, &mut rows)?,
                ("f64", "aos") => run::<f64, AoS>(&opts, &mut rows)?,
                ("f64", "soa") => run::<f64, SoA>(&opts, &mut rows)?,
                other => return Err(format!("unknown precision or layout {other:?}").into()),
            }
        }
    }
    report::print(&rows);
    for &l in opts.sizes.iter().filter(|&&l| l >= 32) {
        let backend = if opts.gpu {
            Backend::Cuda
        } else {
            Backend::Cpu
        };
        let timings = ongpu::with_backend(backend, || subsets::run(l, opts.reps, backend))?;
        subsets::print(l, &timings);
    }
    if let Some(path) = &opts.csv {
        std::fs::write(path, report::csv(&rows))?;
        println!("wrote {path}");
    }
    if let Some(path) = &opts.svg {
        report::svg(&rows, path)?;
        println!("wrote {path}");
    }
    Ok(())
}
