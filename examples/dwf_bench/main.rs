//! The domain-wall Dslash in the shape of Grid's `Benchmark_dwf_fp32`: the 4-D hopping
//! term applied to every `s` of a 5-D field (`ongpu::qcd::domain_wall::passes::hop5` over
//! the even sites, Grid's `DhopEO`), L^4 × Ls (default 32^4 × 16), f32 and f64, against a
//! hand-written CUDA C++ kernel of the same operator on the same fields (`reference.cu`: one
//! thread per 5-D site, a block's warps the slices `s` of the same 32 sites, so that they
//! share each link through L1) and the best device copy of the model's bytes.
//!
//! Flops are counted as Grid counts them: 1344 per 5-D site of the parity (8 directions of
//! two SU(3) products on a half spinor, the projections and the sums). Bytes of the model:
//! per 5-D site 8 neighbour spinors read and one written, and the 8 links of the 4-D site
//! once for all `Ls` slices (no other reuse).
//!
//! Checks before anything is timed: both kernels against the host operator in f64
//! (`ongpu_reference::wilson::HostWilson::hopping` slice by slice, full γ matrices) on
//! `--check-size` (default 8)^4 × Ls, every component of every even site; and at the timed
//! size, ours against the hand-written kernel, every component.
//!
//! ```text
//! cargo run --release --example dwf_bench -- [--size 32] [--ls 16] [--real f32,f64]
//!     [--reps 10] [--check-size 8]
//! cargo run --release --example dwf_bench -- --solve 32 [--iterations 100]
//! ```
//!
//! `--solve L` times the even-odd Möbius CGNR in f64 on L^4 × 16 against its operator alone
//! (`solve.rs`).

#![allow(clippy::needless_range_loop)] // site, slice and spin indices read best as indices

#[path = "../common/mod.rs"]
mod common;
#[cfg(feature = "cuda")]
mod gpu;
mod solve;

use ongpu::prelude::*;
use ongpu::qcd::domain_wall::{passes::hop5, FiveField, FiveSpinor};
use ongpu::qcd::gauge::{GaugeField, LinksOf};
use ongpu::qcd::wilson::{random_spinors, HostSpinor};
use ongpu::Element;
use ongpu_reference::wilson::HostWilson;

/// The benchmark's errors: ongpu's, wrong results.
pub type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

/// Flops per 5-D site of the parity, as Grid's `Benchmark_dwf` counts them.
pub const FLOPS_PER_SITE: f64 = 1344.0;

/// The slice counts the benchmark is built for.
pub const LS_BUILT: [usize; 5] = [4, 8, 12, 16, 24];

pub use common::prec::Prec;

/// One problem: random SU(3) links and a random 5-D source, rounded to `T`.
pub struct Problem<T: Prec, const LS: usize>
where
    [ColorMatrix<T>; 4]: Element,
    FiveSpinor<T, LS>: Element,
{
    pub lat: Lattice,
    pub u: LinksOf<Lattice, T>,
    pub psi: FiveField<LS, T>,
}

impl<T: Prec, const LS: usize> Problem<T, LS>
where
    ColorMatrix<T>: Element,
    [ColorMatrix<T>; 4]: Element,
    FiveSpinor<T, LS>: Element,
{
    pub fn new(l: usize, seed: u64) -> BenchResult<Self> {
        let lat = Lattice::new([l; 4])?;
        let gauge = GaugeField::random(lat, seed)?;
        let host = gauge.to_host()?;
        let round = |z: Complex<f64>| Complex::new(T::of(z.re), T::of(z.im));
        let u = Field::from_fn(lat.volume(), |x| {
            host[x].map(|m| ColorMatrix::new(m.m.map(|row| row.map(round))))
        });
        let slices: Vec<Vec<HostSpinor>> = (0..LS)
            .map(|s| random_spinors(&lat, seed + 1 + s as u64))
            .collect();
        let psi = Field::from_fn(lat.volume(), |x| {
            FiveSpinor(std::array::from_fn(|s| {
                slices[s][x].map(|v| ColorVector::new(v.v.map(round)))
            }))
        });
        Ok(Problem { lat, u, psi })
    }

    /// An output of NaNs.
    pub fn poisoned(&self) -> FiveField<LS, T> {
        let nan = Complex::new(T::of(f64::NAN), T::of(f64::NAN));
        Field::filled(
            self.lat.volume(),
            FiveSpinor([[ColorVector::new([nan; 3]); 4]; LS]),
        )
    }

    /// Checks `out` against the host hopping term of the rounded inputs, slice by slice, at
    /// every even site (odd sites must hold their NaN); the largest relative error.
    pub fn check_host(&self, who: &str, out: &FiveField<LS, T>) -> BenchResult<f64> {
        let lat = self.lat;
        let links: Vec<[ColorMatrix<f64>; 4]> = self
            .u
            .to_vec()?
            .iter()
            .map(|l| {
                l.map(|m| {
                    ColorMatrix::new(m.m.map(|r| r.map(|z| Complex::new(z.re.to(), z.im.to()))))
                })
            })
            .collect();
        let host = HostWilson::from_gauge(&GaugeField::from_host(lat, links)?, 0.125)?;
        let psi = self.psi.to_vec()?;
        let got = out.to_vec()?;
        let widen = |v: &ColorVector<T>| v.v.map(|z| Complex::new(z.re.to(), z.im.to()));
        let mut worst = 0.0f64;
        for s in 0..LS {
            let slice: Vec<HostSpinor> = psi
                .iter()
                .map(|p| p.0[s].map(|v| ColorVector::new(widen(&v))))
                .collect();
            let want = host.hopping(&slice);
            for x in 0..lat.volume() {
                for spin in 0..4 {
                    let g = widen(&got[x].0[s][spin]);
                    for (gz, wz) in g.iter().zip(want[x][spin].v) {
                        for (gv, wv) in [(gz.re, wz.re), (gz.im, wz.im)] {
                            if lat.parity(x) == 1 {
                                if !gv.is_nan() {
                                    return Err(format!("{who}: odd site {x} was written").into());
                                }
                                continue;
                            }
                            let e = (gv - wv).abs() / wv.abs().max(1.0);
                            if e.is_nan() || e > T::TOLERANCE {
                                return Err(format!(
                                    "{who} ({} L = {} Ls = {LS}): site {x}, s = {s}, spin {spin}: got {gv}, want {wv}",
                                    T::NAME,
                                    lat.extents()[0]
                                )
                                .into());
                            }
                            worst = worst.max(e);
                        }
                    }
                }
            }
        }
        Ok(worst)
    }

    /// Bytes of the model per call (module documentation).
    pub fn model_bytes(&self) -> f64 {
        let half = (self.lat.volume() / 2) as f64;
        let real = std::mem::size_of::<T>() as f64;
        half * real * (LS as f64 * 9.0 * 24.0 + 8.0 * 18.0)
    }

    /// Flops per call, as Grid counts them.
    pub fn flops(&self) -> f64 {
        (self.lat.volume() / 2 * LS) as f64 * FLOPS_PER_SITE
    }
}

/// `out = H psi` on every slice at the even sites: the library's pass.
pub fn ours<T: Prec, const LS: usize>(
    p: &Problem<T, LS>,
    out: &mut FiveField<LS, T>,
) -> ongpu::Result<()>
where
    ColorVector<T>: Element,
    ColorMatrix<T>: Element,
    [ColorMatrix<T>; 4]: Element,
    FiveSpinor<T, LS>: Element,
{
    hop5(p.lat.even(), &p.u, &p.psi, out)
}

fn run() -> BenchResult<()> {
    if let Some(l) = common::value("--solve") {
        let l: usize = l
            .parse()
            .map_err(|_| format!("--solve {l}: not a number"))?;
        return solve::run(
            l,
            common::arg("--iterations", 100),
            common::arg("--reps", 10),
        );
    }
    let size = common::arg("--size", 32);
    let ls = common::arg("--ls", 16);
    let reps = common::arg("--reps", 10);
    let check_size = common::arg("--check-size", 8);
    let reals = common::value("--real").unwrap_or_else(|| "f32,f64".into());
    if !LS_BUILT.contains(&ls) {
        return Err(format!("--ls {ls}: the benchmark is built for Ls in {LS_BUILT:?}").into());
    }
    let backend = ongpu::backend()?;
    common::warn_if_checked(backend);
    println!("domain-wall Dslash (DhopEO: the 4-D hop on every s, even sites), {size}^4 x {ls}");
    println!("device: {}", common::device_name(backend));
    println!(
        "{:>4} {:>14} {:>10} {:>9} {:>9} {:>10}",
        "real", "kernel", "us/call", "TFLOP/s", "GB/s", "max error"
    );
    for real in reals.split(',') {
        macro_rules! with_ls {
            ($t:ty; $($c:literal)*) => {
                match ls {
                    $($c => one::<$t, $c>(size, check_size, reps)?,)*
                    _ => unreachable!("checked above"),
                }
            };
        }
        match real.trim() {
            "f32" => with_ls!(f32; 4 8 12 16 24),
            "f64" => with_ls!(f64; 4 8 12 16 24),
            other => return Err(format!("--real {other}: f32 or f64").into()),
        }
    }
    Ok(())
}

/// One precision and slice count: checks, then times.
fn one<T: Prec, const LS: usize>(size: usize, check_size: usize, reps: usize) -> BenchResult<()>
where
    ColorVector<T>: Element,
    ColorMatrix<T>: Element,
    [ColorMatrix<T>; 4]: Element,
    FiveSpinor<T, LS>: Element,
{
    let small = Problem::<T, LS>::new(check_size, 3)?;
    let mut out = small.poisoned();
    ours(&small, &mut out)?;
    let e_small = small.check_host("on_gpu!", &out)?;
    #[cfg(feature = "cuda")]
    if ongpu::backend()? == ongpu::Backend::Cuda {
        let hand = gpu::Hand::new()?;
        let mut theirs = small.poisoned();
        hand.run(&small, &mut theirs)?;
        small.check_host("hand-written", &theirs)?;
        drop((small, out, theirs));
        return gpu::time::<T, LS>(&hand, size, reps, e_small);
    }
    drop((small, out));
    let p = Problem::<T, LS>::new(size, 7)?;
    let mut out = p.poisoned();
    let t = common::time(ongpu::backend()?, reps, || ours(&p, &mut out))?;
    print_row::<T>("on_gpu (CPU)", t, p.flops(), p.model_bytes(), Some(e_small));
    Ok(())
}

/// One line of the report.
pub fn print_row<T: Prec>(kernel: &str, seconds: f64, flops: f64, bytes: f64, error: Option<f64>) {
    let error = error.map_or("-".to_string(), |e| format!("{e:.1e}"));
    println!(
        "{:>4} {:>14} {:>10.1} {:>9.2} {:>9.0} {:>10}",
        T::NAME,
        kernel,
        seconds * 1e6,
        flops / seconds * 1e-12,
        bytes / seconds * 1e-9,
        error
    );
}

fn main() -> std::process::ExitCode {
    common::exit_code(run())
}
