//! The GPU side: our `on_gpu!` kernel, the hand-written kernels of `reference.cu` (compiled
//! by NVRTC in this process, launched on the same fields through their device addresses; in
//! AoS also one that stages each block's sites through shared memory) and copies of the same
//! bytes (`cuMemcpyDtoD` and the tuned copy kernel of `examples/common`), each checked first
//! and then timed with CUDA events over batches of back-to-back launches.

use crate::data::{self, Input, Prec};
use crate::report::{Kernel, Measurement, Side};
use crate::{common, median, ours, BenchResult, Options};
use ongpu::cuda::{self, nvrtc, Device, Function, ParamList, Shape};
use ongpu::prelude::*;
use ongpu::{Element, Layout};

/// The hand-written reference kernels.
pub const REFERENCE: &str = include_str!("reference.cu");

/// The reference module, loaded on the device.
pub struct Reference {
    dev: &'static Device,
    compiled: nvrtc::Compiled,
    hold: Function,
}

impl Reference {
    /// Compiles `reference.cu` for the device (as `on_gpu!` kernels are: cubin for its own
    /// architecture, the same NVRTC options).
    pub fn load() -> ongpu::Result<Self> {
        let dev = cuda::device()?;
        let (arch, _) = nvrtc::target_for(dev.info().compute_capability);
        let compiled = nvrtc::compile(REFERENCE, &arch, "reference.cu", &[])?;
        let hold = cuda::load_function(dev, &compiled, "bench_hold")?;
        Ok(Reference {
            dev,
            compiled,
            hold,
        })
    }

    /// The kernel for precision `T` and layout `L` (`su3_f32_aosoa32`, ...), with `suffix`
    /// (`_staged`) appended.
    fn kernel<T: Prec, L: Layout>(&self, suffix: &str) -> ongpu::Result<Function> {
        let layout = L::name().to_lowercase().replace(['<', '>'], "");
        cuda::load_function(
            self.dev,
            &self.compiled,
            &format!("su3_{}_{layout}{suffix}", T::NAME),
        )
    }

    /// Queues a kernel that holds the stream for `ns` nanoseconds.
    fn hold(&self, ns: u64) -> ongpu::Result<()> {
        let mut params = ParamList::new();
        params.push(&ns);
        let shape = Shape {
            grid: (1, 1, 1),
            block: (1, 1, 1),
            shared_bytes: 0,
        };
        // SAFETY: `bench_hold(u64)` takes one u64.
        unsafe {
            cuda::launch(self.dev, self.hold, shape, &mut params, || {
                "bench_hold".into()
            })
        }
    }

    /// Median seconds per call of `f`: 3 warm-up calls, then `reps` timed batches of `batch`
    /// calls queued behind a hold kernel (so they run back to back on the device).
    fn time(&self, opts: &Options, f: &mut dyn FnMut() -> ongpu::Result<()>) -> ongpu::Result<f64> {
        for _ in 0..3 {
            f()?;
        }
        self.dev.synchronize()?;
        let mut t = Vec::with_capacity(opts.reps);
        for _ in 0..opts.reps {
            // Long enough for the host to queue the batch (a launch costs a few µs).
            self.hold(50_000 + 20_000 * opts.batch as u64)?;
            let ((), ms) = cuda::time_device(|| {
                for _ in 0..opts.batch {
                    f()?;
                }
                Ok(())
            })?;
            t.push(ms as f64 * 1e-3 / opts.batch as f64);
        }
        Ok(median(t))
    }
}

/// Bytes of shared memory the staged reference may give a block (an H100's and H200's
/// limit; it asks for them).
const SHARED_LIMIT: u32 = 227 * 1024;

/// One launch of a hand-written kernel on the fields, with `shared_bytes` of dynamic shared
/// memory per block.
#[allow(clippy::too_many_arguments)]
fn launch_reference<T: Prec, L: Layout>(
    r: &Reference,
    f: Function,
    tpb: u32,
    shared_bytes: u32,
    x: &mut Field<ColorMatrix<T>, L>,
    y: &Field<ColorMatrix<T>, L>,
    z: &Field<ColorMatrix<T>, L>,
) -> ongpu::Result<()>
where
    ColorMatrix<T>: Element,
{
    let n = x.len();
    let (xp, yp, zp) = (x.device_ptr_mut()?, y.device_ptr()?, z.device_ptr()?);
    let (n64, stride) = (n as u64, L::padded_len(n) as u64);
    let mut params = ParamList::new();
    for p in [&xp, &yp, &zp, &n64, &stride] {
        params.push(p);
    }
    let shape = Shape {
        grid: (n.div_ceil(tpb as usize) as u32, 1, 1),
        block: (tpb, 1, 1),
        shared_bytes,
    };
    // SAFETY: the parameters match `su3_*(T*, const T*, const T*, u64, u64)`; the fields hold
    // `stride` sites and live until the device has finished (the caller synchronises).
    unsafe {
        cuda::launch(r.dev, f, shape, &mut params, || {
            "the reference kernel".into()
        })
    }
}

/// Checks and times ours, the reference and the copy for `T`, `L` at `n` sites.
pub fn run<T: Prec, L: Layout>(
    r: &Reference,
    opts: &Options,
    n: usize,
) -> BenchResult<Vec<Measurement>>
where
    ColorMatrix<T>: Element,
{
    let kernel = r.kernel::<T, L>("")?;
    // The staged AoS kernel keeps 3 * 18 values a site in shared memory, in whole warps.
    let staged_bytes = opts.tpb * 54 * std::mem::size_of::<T>() as u32;
    let staged = if L::name() == "AoS" && staged_bytes <= SHARED_LIMIT && opts.tpb % 32 == 0 {
        let f = r.kernel::<T, L>("_staged")?;
        f.allow_dynamic_shared(staged_bytes)?;
        Some(f)
    } else {
        None
    };
    let seed = opts.seed;
    let y: Field<ColorMatrix<T>, L> = data::field(seed, Input::Y, n);
    let z: Field<ColorMatrix<T>, L> = data::field(seed, Input::Z, n);
    let mut x_ours: Field<ColorMatrix<T>, L> = data::field(seed, Input::X, n);
    let mut x_hand: Field<ColorMatrix<T>, L> = data::field(seed, Input::X, n);

    // Correctness first: one call each, every element against the f64 reference.
    ours(&mut x_ours, &y, &z, opts.tpb)?;
    let err_ours = data::relative_error(seed, &x_ours.to_vec()?);
    launch_reference(r, kernel, opts.tpb, 0, &mut x_hand, &y, &z)?;
    let err_hand = data::relative_error(seed, &x_hand.to_vec()?);
    for (who, err) in [("on_gpu!", err_ours), ("hand-written", err_hand)] {
        crate::check(who, T::NAME, &L::name(), n, err, T::TOLERANCE)?;
    }
    let staged = match staged {
        Some(f) => {
            let mut x: Field<ColorMatrix<T>, L> = data::field(seed, Input::X, n);
            launch_reference(r, f, opts.tpb, staged_bytes, &mut x, &y, &z)?;
            let err = data::relative_error(seed, &x.to_vec()?);
            crate::check(
                "hand-written, staged",
                T::NAME,
                &L::name(),
                n,
                err,
                T::TOLERANCE,
            )?;
            let t = r.time(opts, &mut || {
                launch_reference(r, f, opts.tpb, staged_bytes, &mut x, &y, &z)
            })?;
            Some((t, err))
        }
        None => None,
    };

    let t_ours = r.time(opts, &mut || ours(&mut x_ours, &y, &z, opts.tpb))?;
    let t_hand = r.time(opts, &mut || {
        launch_reference(r, kernel, opts.tpb, 0, &mut x_hand, &y, &z)
    })?;
    drop((x_ours, x_hand, y, z));
    // The copies move the same bytes: they read and write 2 elements per site.
    let bytes = 2 * n * std::mem::size_of::<ColorMatrix<T>>();
    let copy =
        common::ceiling::Ceilings::new()?.copy_seconds_with(bytes, &mut |f| r.time(opts, f))?;

    let m = |kernel, seconds, rel_err| Measurement {
        side: Side::Gpu,
        real: T::NAME,
        layout: L::name(),
        n,
        element_bytes: std::mem::size_of::<ColorMatrix<T>>(),
        kernel,
        seconds,
        rel_err,
    };
    let mut out = vec![
        m(Kernel::Ours, t_ours, Some(err_ours)),
        m(Kernel::Hand, t_hand, Some(err_hand)),
        m(Kernel::Copy, copy.memcpy, None),
        m(Kernel::Ceiling, copy.best(), None),
    ];
    if let Some((t, err)) = staged {
        out.push(m(Kernel::HandStaged, t, Some(err)));
    }
    Ok(out)
}

/// The device's name, for the report.
pub fn device_name() -> String {
    cuda::device()
        .map(|d| {
            let i = d.info();
            format!(
                "{} (sm_{}{}, {} SMs)",
                i.name, i.compute_capability.0, i.compute_capability.1, i.sm_count
            )
        })
        .unwrap_or_else(|e| format!("no device: {e}"))
}
