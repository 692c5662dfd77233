//! The CUDA backend of explicit kernels: each kernel is compiled once per bounds-check mode
//! (kernels are not generic, so one module per mode serves every launch) and found without
//! a lock afterwards; a launch checks its shape against the device and the compiled
//! kernel, makes its fields' device copies current, and, with bounds checks on, reads back
//! the first out-of-range index the kernel met.

use super::args::{KernelParam, EVERY_ELEMENT};
use super::call_site::KernelSite;
use super::shape::{self, LaunchShape};
use super::source;
use crate::cuda::{self, DeviceBuffer, Function, ParamList, Shape};
use crate::error::{Error, Result};
use crate::launch::compile::compile_and_load;
use crate::launch::queue::Target;
use std::sync::{Mutex, OnceLock, PoisonError};

/// A loaded kernel and the most threads per block its resources allow.
#[derive(Debug)]
struct Entry {
    function: Function,
    max_threads: u32,
}

/// The modules of one kernel: unchecked and bounds-checked.
#[derive(Debug)]
pub(crate) struct Compiled {
    entries: [OnceLock<Entry>; 2],
    compiling: Mutex<()>,
}

impl Compiled {
    pub(crate) const fn new() -> Self {
        Compiled {
            entries: [OnceLock::new(), OnceLock::new()],
            compiling: Mutex::new(()),
        }
    }

    fn get(
        &self,
        checked: bool,
        dev: &'static cuda::Device,
        source: impl FnOnce() -> String,
        what: &dyn Fn() -> String,
    ) -> Result<&Entry> {
        let slot = &self.entries[usize::from(checked)];
        if let Some(e) = slot.get() {
            return Ok(e);
        }
        let _guard = self
            .compiling
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(e) = slot.get() {
            return Ok(e);
        }
        let loaded = compile_and_load(&source(), &what(), dev)?;
        let max_threads = loaded
            .function
            .max_threads_per_block(|| format!("querying the limits of {}", what()))?;
        Ok(slot.get_or_init(|| Entry {
            function: loaded.function,
            max_threads,
        }))
    }
}

/// Bytes of `ongpu::BoundsReport` that the host reads back (before its scratch space).
const REPORT_HEADER: usize = 56;
/// Size of `ongpu::BoundsReport`.
const REPORT_BYTES: usize = REPORT_HEADER + 40 * 8;

/// Launches `site`'s kernel on the GPU.
pub(crate) fn launch<A: KernelParam>(
    site: &'static KernelSite,
    shape: LaunchShape,
    args: &mut A,
    checked: bool,
) -> Result<()> {
    let info = &site.info;
    let dev = cuda::device()?;
    // Built only for a message: a launch allocates nothing.
    let what = || format!("kernel `{}` at {}", info.name, info.location);
    // Compile before touching the fields, so that a compile error leaves them as they were.
    let entry = site.compiled.get(
        checked,
        dev,
        || source::assemble(info, &A::kinds(), checked),
        &what,
    )?;
    shape::check(
        &shape,
        dev.info().max_threads_per_block,
        info.name,
        info.location,
    )?;
    if shape.threads_per_block() > entry.max_threads as u64 {
        return Err(Error::InvalidLaunch {
            site: info.location,
            reason: format!(
                "kernel `{}`: block {} has {} threads, but this kernel's registers allow at most \
                 {} per block on this device",
                info.name,
                shape::Dim3::new(shape.block),
                shape.threads_per_block(),
                entry.max_threads
            ),
        });
    }
    // Inside a `Stream::scope` the launch is queued on the stream, as `on_gpu!` calls are
    // (a graph's pass keeps the default stream, which its capture follows).
    let target = Target::prepare(dev, &EVERY_ELEMENT, args)?;
    let (stream, queue) = (target.stream(), target.queue());
    let report = if checked {
        let mut r = DeviceBuffer::alloc(dev, REPORT_BYTES, "a kernel's bounds report")?;
        r.zero_on(stream)?;
        Some(r)
    } else {
        None
    };
    let report_ptr: u64 = report.as_ref().map_or(0, DeviceBuffer::ptr);
    let mut params = ParamList::new();
    args.push_params(&mut params);
    params.push(&report_ptr);
    let launch_shape = Shape {
        grid: shape.grid,
        block: shape.block,
        shared_bytes: 0,
    };
    // Colour-type and element-array indices have their own record (see the prelude).
    crate::launch::index_report::clear(&entry.function, stream)?;
    crate::launch::print_buffer::clear(&entry.function, stream)?;
    dev.bind()?;
    // SAFETY: the parameters follow the kernel's signature (built by `source::assemble` from
    // the same argument types in the same order, then the report pointer), the fields they
    // point into are borrowed by this call and freed only after the device is done (their
    // queued work is recorded below), and `stream` is the current scope's live stream of
    // this device, or the default stream.
    unsafe { cuda::launch_bound_on(stream, entry.function, launch_shape, &mut params, what)? };
    target.finish(args)?;
    if let Some(r) = report {
        if let Some(q) = queue {
            // The report is read on the default stream, which does not wait for streams.
            // SAFETY: a live stream of the bound context.
            unsafe { cuda::stream::wait_for(q.raw(), || format!("waiting for {}", what()))? };
        }
        read_report(site, &r)?;
    }
    crate::launch::print_buffer::flush(&entry.function, stream, info.prints)?;
    crate::launch::index_report::check(&entry.function, stream, info.location)
}

/// The first out-of-range index the kernel recorded, as an error (this waits for it).
fn read_report(site: &KernelSite, report: &DeviceBuffer) -> Result<()> {
    let mut words = [0u32; REPORT_HEADER / 4];
    report.download(&mut words)?;
    if words[0] == 0 {
        return Ok(());
    }
    let u64_at = |k: usize| words[k] as u64 | (words[k + 1] as u64) << 32;
    let info = &site.info;
    let (array, dim) = (words[1] as usize, words[2] as usize);
    let rank = info
        .shared
        .get(array.wrapping_sub(info.params.len()))
        .map_or(1, |s| s.dims.len());
    let mut name = info.array_name(array);
    if rank > 1 {
        name.push_str(&format!(" (dimension {} of {rank})", dim + 1));
    }
    Err(Error::KernelIndexOutOfRange {
        site: info.location,
        kernel: info.name,
        array: name,
        index: u64_at(4) as i64,
        len: u64_at(6),
        block: (words[8], words[9], words[10]),
        thread: (words[11], words[12], words[13]),
    })
}
