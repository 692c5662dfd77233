//! `--rhs 1,4,8,12,16`: the Wilson and Wilson-clover Dslash on N right-hand sides in one
//! call (`ongpu::qcd::wilson::{hop_many, hop_clover_many}`: N spinors per site, each link
//! and clover block read once for all), against the one-spinor call (`hop`, `hop_clover`)
//! made N times, on the even sites of L^4 in f32 and f64. Spinor k is the benchmark's
//! source times 2^(k mod 4) (exact in any precision), so every spinor of every result is
//! checked against the f64 host operator, scaled back, before anything is timed.
//!
//! Printed per N: microseconds per call and per spinor, GFLOP/s (1320 flops per site and
//! spinor, + 504 with clover), the bytes of the model (links and clover blocks once, then 8
//! neighbours and one output per spinor) per second, and the throughput per spinor relative
//! to the one-spinor call.

use crate::check::{FieldOf, Fields, Prec, Problem};
use crate::{common, BenchResult};
use ongpu::prelude::*;
use ongpu::qcd::wilson::{
    hop_clover_many, hop_many, CloverSite, Spinor, Spinors, CLOVER_FLOPS, HOP_FLOPS,
};
use ongpu::{Backend, Element, ElementArray};

/// The counts of right-hand sides the benchmark is built for.
pub const COUNTS: [usize; 6] = [1, 2, 4, 8, 12, 16];

/// Runs every count of `counts` on each size and precision, Wilson and clover.
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
    println!(
        "{:>4} {:>4} {:>7} {:>4} {:>11} {:>11} {:>9} {:>9} {:>10} {:>10}",
        "L", "real", "op", "N", "us/call", "us/spinor", "GFLOP/s", "GB/s", "vs N x 1", "max error"
    );
    for &l in sizes {
        let p = Problem::new(l, 11)?;
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
    Spinor<T>: Element,
    CloverSite<T>: Element,
{
    let f = Fields::<T>::of(p);
    for clover in [false, true] {
        let mut out = p.poisoned::<T>();
        let one = common::time(backend, reps, || f.ours(p.lat, clover, &mut out))?;
        for &n in counts {
            macro_rules! with_count {
                ($($c:literal)*) => {
                    match n {
                        $($c => count::<T, $c>(backend, p, &f, clover, one, reps)?,)*
                        _ => unreachable!("checked above"),
                    }
                };
            }
            with_count!(1 2 4 8 12 16);
        }
    }
    Ok(())
}

/// One count: checks every spinor, then times the call.
fn count<T: Prec, const N: usize>(
    backend: Backend,
    p: &Problem,
    f: &Fields<T>,
    clover: bool,
    one: f64,
    reps: usize,
) -> BenchResult<()>
where
    ColorVector<T>: Element,
    ColorMatrix<T>: Element,
    [ColorMatrix<T>; 4]: Element,
    Spinor<T>: Element,
    CloverSite<T>: Element,
    Spinors<T, N>: ElementArray<Entry = ColorVector<T>>,
{
    let scale = |k: usize| T::of((1 << (k % 4)) as f64);
    let host = f.psi.to_vec()?;
    let psi: FieldOf<Spinors<T, N>> = Field::from_fn(host.len(), |i| {
        Spinors(std::array::from_fn(|k| host[i].map(|v| v * scale(k))))
    });
    let nan = Complex::new(T::of(f64::NAN), T::of(f64::NAN));
    let mut out: FieldOf<Spinors<T, N>> =
        Field::filled(host.len(), Spinors([[ColorVector::new([nan; 3]); 4]; N]));
    let call = |out: &mut FieldOf<Spinors<T, N>>| {
        if clover {
            hop_clover_many(p.lat.even(), &f.u, &f.a, &psi, out)
        } else {
            hop_many(p.lat.even(), &f.u, &psi, out)
        }
    };
    call(&mut out)?;
    let got = out.to_vec()?;
    let mut worst = 0.0f64;
    for k in 0..N {
        let unscale = T::of(1.0 / (1 << (k % 4)) as f64);
        let spinor: FieldOf<Spinor<T>> =
            Field::from_fn(got.len(), |i| got[i].0[k].map(|v| v * unscale));
        worst = worst.max(p.check(&format!("spinor {k} of {N}"), clover, &spinor)?);
    }
    let t = common::time(backend, reps, || call(&mut out))?;
    let sites = (p.lat.volume() / 2) as f64;
    let real = std::mem::size_of::<T>() as f64;
    let (flops, once) = if clover {
        (HOP_FLOPS + CLOVER_FLOPS, 8.0 * 18.0 + 72.0)
    } else {
        (HOP_FLOPS, 8.0 * 18.0)
    };
    let bytes = sites * real * (once + N as f64 * (8.0 * 24.0 + 24.0));
    println!(
        "{:>4} {:>4} {:>7} {:>4} {:>11.1} {:>11.1} {:>9.0} {:>9.0} {:>9.2}x {:>10.1e}",
        p.l,
        T::NAME,
        if clover { "clover" } else { "wilson" },
        N,
        t * 1e6,
        t * 1e6 / N as f64,
        sites * N as f64 * flops / t * 1e-9,
        bytes / t * 1e-9,
        one * N as f64 / t,
        worst
    );
    Ok(())
}
