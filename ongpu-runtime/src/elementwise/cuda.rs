//! The CUDA backend of element-wise calls: per call site, a lock-free list of kernels compiled
//! for each tuple of capture types; a call after the first finds its kernel with no hashing,
//! allocation or lock, prepares the fields, and launches a grid-stride kernel capped at one
//! full wave of the device, on the default stream or on the thread's current stream
//! (`launch::queue`).

use crate::capture::CaptureArg;
use crate::cuda::{Device, ParamList, Shape};
use crate::error::Result;
use crate::launch::bounds::bounds_checks;
use crate::launch::call_site::{CallSite, KernelSlots, SiteInfo};
use crate::launch::compile::{compile_and_load, LoadedKernel};
use crate::launch::index_report;
use crate::launch::limits::device_and_block;
use crate::launch::queue::Target;
use crate::launch::sites::Sites;
use crate::launch::source as kernel_source;
use crate::tune::{LaunchChoice, TuneMode};
use std::any::TypeId;

/// Marks the key of a kernel compiled with bounds checks.
struct Checked;

/// The kernel of `site` for the capture tuple `C`, compiled on first use (once per
/// bounds-check mode).
#[inline]
fn kernel_for<'s, C: CaptureArg>(
    info: &SiteInfo,
    slots: &'s KernelSlots,
    dev: &'static Device,
    checked: bool,
) -> Result<&'s LoadedKernel> {
    let key = if checked {
        TypeId::of::<(C::Key, Checked)>()
    } else {
        TypeId::of::<C::Key>()
    };
    slots.get_or_compile(key, dev.info().ordinal, || {
        let kinds = C::kinds();
        let source = kernel_source::elementwise(info, &kinds, checked);
        Ok(compile_and_load(
            &source,
            &format!("the kernel of on_gpu! at {}", info.location),
            dev,
        )?
        .for_sites_per_iteration(kernel_source::sites_per_iteration(&kinds))
        .with_stage_bytes(kernel_source::staged_bytes_per_thread(info, &kinds)))
    })
}

/// Runs the kernel of `site` over `sites`.
pub(crate) fn run<C: CaptureArg>(
    site: &'static CallSite,
    sites: &Sites,
    tpb: Option<u32>,
    caps: &mut C,
) -> Result<()> {
    let fixed = tpb.is_some();
    let (dev, tpb) = device_and_block(site.location(), tpb)?;
    if sites.is_empty() {
        return Ok(());
    }
    let checked = bounds_checks()?;
    // Compile before touching the fields, so that a compile error leaves them as they were.
    let kernel = kernel_for::<C>(&site.info, &site.kernels, dev, checked)?;
    // A rank's interior beside its exchange runs untuned with one thread per site
    // (`launch::queue::without_wave_cap`): trials there would time one grid under every
    // candidate's name and file the noise as a decision for calls that do cap.
    let uncapped = crate::launch::queue::wave_cap_lifted();
    let default = LaunchChoice {
        threads_per_block: tpb,
        waves: if uncapped { 0 } else { kernel.default_waves() },
    };
    let mode = if checked || LoadedKernel::waves_forced() || uncapped {
        TuneMode::Off
    } else {
        crate::tune::mode()?
    };
    let max_threads = kernel.max_threads_per_block()?;
    if tpb > max_threads {
        return Err(crate::Error::InvalidLaunch {
            site: site.location(),
            reason: format!(
                "{tpb} threads per block; this call's kernel allows at most {max_threads} \
                 (its registers per thread times the block must fit a multiprocessor): name \
                 fewer threads per block"
            ),
        });
    }
    let what = || format!("on_gpu! at {}", site.location());
    let request = crate::tune::trials::Request {
        what: &what,
        sites: sites.len(),
        default,
        fixed,
        max_threads,
        mode,
    };
    let (choice, mut trial) = crate::tune::trials::shape(kernel.id, &kernel.tuned, dev, request)?;
    let tpb = choice.threads_per_block;
    // A block too large to stage its AoS fields reads them directly (the kernel takes that
    // path when it is given no shared memory).
    let shared_bytes = kernel.stage_shared(tpb).unwrap_or(0);
    let mut blocks = sites.len().div_ceil(tpb as usize);
    if choice.waves > 0 && !uncapped {
        blocks = blocks.min(kernel.resident_blocks(dev, tpb)? * choice.waves as usize);
    }
    let blocks = blocks.min(dev.info().max_grid_x as usize) as u32;
    let site_params = sites.params();
    let shape = Shape {
        grid: (blocks, 1, 1),
        block: (tpb, 1, 1),
        shared_bytes,
    };
    let target = Target::prepare(dev, &sites.range, caps)?;
    let stream = target.stream();
    let mut params = ParamList::new();
    caps.push_params(&mut params);
    site_params.push(&mut params);
    // SAFETY: the parameters follow the kernel's signature (built from the same captures
    // in the same order by `kernel_source::elementwise`); the fields they point into are
    // borrowed by this call, and freed only after the work queued on them has finished
    // (see `field::pending`). `cuda::device()` above bound the context to this thread,
    // and `stream` is the default stream or a live stream of it.
    index_report::clear(&kernel.function, stream)?;
    crate::launch::print_buffer::clear(&kernel.function, stream)?;
    if let Some(t) = &trial {
        t.begin(stream)?;
    }
    crate::trace::step(
        || {
            format!(
                "launching {blocks} blocks of {tpb} threads for on_gpu! at {}",
                site.location()
            )
        },
        || unsafe {
            crate::launch::queue::launch_kernel(
                stream,
                kernel.function,
                shape,
                &mut params,
                site.location(),
                || format!("the kernel of on_gpu! at {}", site.location()),
            )
        },
    )?;
    if let Some(t) = trial.take() {
        t.end(stream)?;
    }
    crate::launch::print_buffer::flush(&kernel.function, stream, site.info.prints)?;
    index_report::check(&kernel.function, stream, site.location())?;
    target.finish(caps).map(drop)
}
