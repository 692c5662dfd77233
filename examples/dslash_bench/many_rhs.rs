//! `--rhs 1,4,8,12,16`: the Dslash on N right-hand sides in one call
//! (`ongpu::qcd::staggered::hop_many`: N vectors per site, each link read once for all),
//! against the one-vector call (`staggered::passes::hop`) made N times, on the even sites of
//! L^4 in f32 and f64. Vector k is the benchmark's source times 2^(k mod 4) (exact in any
//! precision), so every vector of every result is checked against the f64 host reference,
//! scaled back, before anything is timed.
//!
//! Printed per N: microseconds per call and per vector, GFLOP/s (570 flops per site and
//! vector), the bytes of the model (links once, then 8 neighbours and one output per
//! vector) per second, and the throughput per vector relative to the one-vector call.

use crate::data::{Prec, Problem};
use crate::{BenchResult, FLOPS_PER_SITE};
use ongpu::prelude::*;
use ongpu::qcd::staggered::passes::hop;
use ongpu::qcd::staggered::{hop_many, FermionOf, Fermions};
use ongpu::qcd::SiteLayout;
use ongpu::{Backend, Element};

/// The counts of right-hand sides the benchmark is built for.
pub const COUNTS: [usize; 6] = [1, 2, 4, 8, 12, 16];

/// Runs every count of `counts` on each size and precision.
pub fn run(
    backend: Backend,
    sizes: &[usize],
    counts: &[usize],
    reals: &[String],
    reps: usize,
) -> BenchResult<()> {
    if let Some(n) = counts.iter().find(|n| !COUNTS.contains(n)) {
        return Err(
            format!("--rhs {n}: the benchmark is built for {COUNTS:?} right-hand sides").into(),
        );
    }
    println!("device: {}", crate::common::device_name(backend));
    println!(
        "{:>4} {:>4} {:>4} {:>11} {:>11} {:>9} {:>9} {:>10} {:>11}",
        "L", "real", "N", "us/call", "us/vector", "GFLOP/s", "GB/s", "vs N x 1", "max error"
    );
    for &l in sizes {
        let p = Problem::new(l, 7)?;
        for real in reals {
            match real.as_str() {
                "f32" => counts_in::<f32>(backend, &p, counts, reps)?,
                "f64" => counts_in::<f64>(backend, &p, counts, reps)?,
                other => return Err(format!("--real {other}: f32 or f64").into()),
            }
        }
    }
    Ok(())
}

fn counts_in<T: Prec>(
    backend: Backend,
    p: &Problem,
    counts: &[usize],
    reps: usize,
) -> BenchResult<()>
where
    ColorVector<T>: Element,
    ColorMatrix<T>: Element,
    [ColorMatrix<T>; 4]: Element,
{
    let links = p.links::<T, SiteLayout>();
    let psi = p.psi::<T, SiteLayout>();
    let mut chi = p.poisoned_chi::<T, SiteLayout>();
    hop(p.lat.even(), &links, &psi, &mut chi)?;
    p.check::<T, SiteLayout>("hop", &chi)?;
    let one = crate::common::time(backend, reps, || hop(p.lat.even(), &links, &psi, &mut chi))?;
    for &n in counts {
        macro_rules! with_count {
            ($($c:literal)*) => {
                match n {
                    $($c => count::<T, $c>(backend, p, &links, &psi, one, reps)?,)*
                    _ => unreachable!("checked above"),
                }
            };
        }
        with_count!(1 2 4 8 12 16);
    }
    Ok(())
}

/// One count: checks every vector, then times the call.
fn count<T: Prec, const N: usize>(
    backend: Backend,
    p: &Problem,
    links: &Field<[ColorMatrix<T>; 4], SiteLayout>,
    psi: &FermionOf<Lattice, T>,
    one: f64,
    reps: usize,
) -> BenchResult<()>
where
    ColorVector<T>: Element,
    ColorMatrix<T>: Element,
    [ColorMatrix<T>; 4]: Element,
    [ColorVector<T>; N]: Element,
{
    let scale = |k: usize| T::of((1 << (k % 4)) as f64);
    let host = psi.to_vec()?;
    let many_psi: Fermions<N, T> =
        Field::from_fn(host.len(), |i| std::array::from_fn(|k| host[i] * scale(k)));
    let nan = Complex::new(T::of(f64::NAN), T::of(f64::NAN));
    let mut out: Fermions<N, T> = Field::filled(host.len(), [ColorVector::new([nan; 3]); N]);
    hop_many(p.lat.even(), links, &many_psi, &mut out)?;
    let got = out.to_vec()?;
    let mut worst = 0.0f64;
    for k in 0..N {
        let unscale = T::of(1.0 / (1 << (k % 4)) as f64);
        let chi: FermionOf<Lattice, T> = Field::from_fn(got.len(), |i| got[i][k] * unscale);
        worst = worst.max(p.check::<T, SiteLayout>(&format!("hop_many vector {k} of {N}"), &chi)?);
    }
    let t = crate::common::time(backend, reps, || {
        hop_many(p.lat.even(), links, &many_psi, &mut out)
    })?;
    let sites = (p.lat.volume() / 2) as f64;
    let real = std::mem::size_of::<T>() as f64;
    let bytes = sites * real * (8.0 * 18.0 + N as f64 * (8.0 * 6.0 + 6.0));
    println!(
        "{:>4} {:>4} {:>4} {:>11.1} {:>11.1} {:>9.0} {:>9.0} {:>9.2}x {:>11.1e}",
        p.l,
        T::NAME,
        N,
        t * 1e6,
        t * 1e6 / N as f64,
        sites * N as f64 * FLOPS_PER_SITE / t * 1e-9,
        bytes / t * 1e-9,
        one * N as f64 / t,
        worst
    );
    Ok(())
}
