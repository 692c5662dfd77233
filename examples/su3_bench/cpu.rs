//! The CPU side: the same `on_gpu!` call on rayon threads, checked and timed with the host
//! clock, and the host's own parallel copy as its ceiling. A store to a line that is not in
//! cache first reads the line (write-allocate), so a copy of B bytes moves 3B; the ceiling
//! copies 4/3 of an element a site, which really moves the 4 elements a site that the kernel
//! does (the kernel reads x before storing it, so its stores add no reads).

use crate::data::{self, Input, Prec};
use crate::report::{Kernel, Measurement, Side};
use crate::{median, ours, BenchResult, Options};
use ongpu::prelude::*;
use ongpu::{with_backend, AoSoA, Backend, Element, Layout};
use rayon::prelude::*;
use std::time::Instant;

/// Median seconds per call of `f` (2 warm-up calls, then `reps` timed ones).
fn time(reps: usize, f: &mut dyn FnMut() -> ongpu::Result<()>) -> ongpu::Result<f64> {
    for _ in 0..2 {
        f()?;
    }
    let mut t = Vec::with_capacity(reps);
    for _ in 0..reps {
        let start = Instant::now();
        f()?;
        t.push(start.elapsed().as_secs_f64());
    }
    Ok(median(t))
}

/// Checks and times ours on CPU threads, and the host copy, for `T`, `L` at `n` sites.
pub fn run<T: Prec, L: Layout>(opts: &Options, n: usize) -> BenchResult<Vec<Measurement>>
where
    ColorMatrix<T>: Element,
{
    let seed = opts.seed;
    let y: Field<ColorMatrix<T>, L> = data::field(seed, Input::Y, n);
    let z: Field<ColorMatrix<T>, L> = data::field(seed, Input::Z, n);
    let mut x: Field<ColorMatrix<T>, L> = data::field(seed, Input::X, n);
    let (err, t_ours) = with_backend(Backend::Cpu, || -> BenchResult<_> {
        ours(&mut x, &y, &z, opts.tpb)?;
        let err = data::relative_error(seed, &x.to_vec()?);
        crate::check("on_gpu! (CPU)", T::NAME, &L::name(), n, err, T::TOLERANCE)?;
        Ok((
            err,
            time(opts.reps, &mut || ours(&mut x, &y, &z, opts.tpb))?,
        ))
    })?;
    drop((x, y, z));
    // The hand-vectorised reference, in its own AoSoA<32> storage: beside ours in that layout.
    let hand = if L::name() == AoSoA::<32>::name() {
        Some(hand::<T>(opts, n)?)
    } else {
        None
    };

    // The earlier ceiling reads and writes 2 elements a site (as counted); the ceiling
    // copies 4/3 of one, moving 4 with write-allocate.
    let element_reals = std::mem::size_of::<ColorMatrix<T>>() / std::mem::size_of::<T>();
    let t_copy = host_copy_seconds::<T>(opts.reps, 2 * n * element_reals)?;
    let t_ceiling = host_copy_seconds::<T>(opts.reps, 4 * n * element_reals / 3)?;

    let m = |kernel, seconds, rel_err| Measurement {
        side: Side::Cpu,
        real: T::NAME,
        layout: L::name(),
        n,
        element_bytes: std::mem::size_of::<ColorMatrix<T>>(),
        kernel,
        seconds,
        rel_err,
    };
    let mut ms = vec![
        m(Kernel::Ours, t_ours, Some(err)),
        m(Kernel::Copy, t_copy, None),
        m(Kernel::Ceiling, t_ceiling, None),
    ];
    if let Some((t, err)) = hand {
        ms.push(m(Kernel::Hand, t, Some(err)));
    }
    Ok(ms)
}

/// Checks and times the hand-vectorised reference (`cpu_hand`) at `n` sites: (seconds, error).
fn hand<T: Prec>(opts: &Options, n: usize) -> BenchResult<(f64, f64)>
where
    ColorMatrix<T>: Element,
{
    let seed = opts.seed;
    let make = |input| -> Vec<T> {
        let elements: Vec<ColorMatrix<T>> = (0..n)
            .into_par_iter()
            .map(|s| data::site_matrix::<T>(seed, input, s))
            .collect();
        crate::cpu_hand::to_blocks(&elements)
    };
    let (y, z, mut x) = (make(Input::Y), make(Input::Z), make(Input::X));
    crate::cpu_hand::run(&mut x, &y, &z);
    let err = data::relative_error(seed, &crate::cpu_hand::from_blocks(&x, n));
    crate::check(
        "hand-vectorised (CPU)",
        T::NAME,
        "AoSoA<32>",
        n,
        err,
        T::TOLERANCE,
    )?;
    let t = time(opts.reps, &mut || {
        crate::cpu_hand::run(&mut x, &y, &z);
        Ok(())
    })?;
    Ok((t, err))
}

/// Median seconds of a parallel copy of `reals` values of `T` between two host vectors.
fn host_copy_seconds<T: Prec>(reps: usize, reals: usize) -> ongpu::Result<f64> {
    let src = vec![T::one(); reals];
    let mut dst = vec![T::zero(); reals];
    let t = time(reps, &mut || {
        dst.par_chunks_mut(1 << 16)
            .zip(src.par_chunks(1 << 16))
            .for_each(|(d, s)| d.copy_from_slice(s));
        Ok(())
    })?;
    std::hint::black_box(&dst);
    Ok(t)
}

/// The host, for the report.
pub fn host_name() -> String {
    format!("{} rayon threads", rayon::current_num_threads())
}
