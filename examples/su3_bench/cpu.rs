//! The CPU side: the same `on_gpu!` call on rayon threads, checked and timed with the host
//! clock, and the host's own parallel copy of the same bytes as its ceiling.

use crate::data::{self, Input, Prec};
use crate::report::{Kernel, Measurement, Side};
use crate::{median, ours, BenchResult, Options};
use ongpu::prelude::*;
use ongpu::{with_backend, Backend, Element, Layout};
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

    // The copy moves the same bytes: it reads and writes 2 elements per site.
    let reals = 2 * n * std::mem::size_of::<ColorMatrix<T>>() / std::mem::size_of::<T>();
    let src = vec![T::one(); reals];
    let mut dst = vec![T::zero(); reals];
    let t_copy = time(opts.reps, &mut || {
        dst.par_chunks_mut(1 << 16)
            .zip(src.par_chunks(1 << 16))
            .for_each(|(d, s)| d.copy_from_slice(s));
        Ok(())
    })?;
    std::hint::black_box(&dst);

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
    Ok(vec![
        m(Kernel::Ours, t_ours, Some(err)),
        m(Kernel::Copy, t_copy, None),
    ])
}

/// The host, for the report.
pub fn host_name() -> String {
    format!("{} rayon threads", rayon::current_num_threads())
}
