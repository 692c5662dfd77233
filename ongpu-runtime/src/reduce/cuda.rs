//! The CUDA backend of reductions: one kernel per call site, reduction and tuple of capture
//! types (found lock-free after the first call); a call is one launch and one synchronize.
//!
//! The kernel's blocks leave their partial results in a device buffer, and the last block to
//! finish combines them and writes the result straight into page-locked host memory mapped
//! for the device, so no copy follows the launch. The buffer, the block counter and the
//! result slot are allocated once per process and shared by all reductions, under a mutex
//! held from the launch until the result has been read (reductions from several threads
//! take turns).

use super::{ReduceSite, Reduction};
use crate::capture::Captures;
use crate::cuda::{self, Device, DeviceBuffer, ParamList, Shape};
use crate::error::Result;
use crate::launch::compile::{compile_and_load, LoadedKernel};
use crate::launch::limits::{check_threads_per_block, DEFAULT_THREADS_PER_BLOCK};
use crate::launch::site::SiteInfo;
use crate::launch::sites::Sites;
use bytemuck::Pod;
use std::any::TypeId;

/// Marks the key of a kernel compiled with bounds checks.
struct Checked;
use std::ptr;

use std::sync::{Mutex, OnceLock, PoisonError};

/// Blocks resident on one multiprocessor at most, on every architecture ongpu supports: the
/// grid of a reduction is at most this many blocks per multiprocessor.
const MAX_BLOCKS_PER_SM: usize = 32;

/// Bytes of the largest accumulator (`Complex<f64>`).
const MAX_ACC_BYTES: usize = 16;

/// Offset of the partials in the scratch buffer (the block counter comes first).
const PARTIALS_OFFSET: u64 = 256;

/// The reduction kernels of one call site.
pub(crate) type ReduceKernels = crate::launch::kernel_list::KernelList<LoadedKernel>;

/// The kernel of `Op` over values `V` for the capture tuple `C`, compiled on first use.
#[inline]
fn kernel_for<'s, Op: Reduction<V>, C: Captures, V: 'static>(
    info: &SiteInfo,
    kernels: &'s ReduceKernels,
    dev: &'static Device,
    checked: bool,
) -> Result<&'s LoadedKernel> {
    let key = if checked {
        TypeId::of::<(Op, C::Key, V, Checked)>()
    } else {
        TypeId::of::<(Op, C::Key, V)>()
    };
    kernels.get_or_compile(key, || {
        let source = super::source::reduction(info, &C::kinds(), &super::kind::<Op, V>(), checked);
        compile_and_load(
            &source,
            &format!(
                "the kernel of on_gpu!({}: ...) at {}",
                Op::KEYWORD,
                info.location
            ),
            dev,
        )
    })
}

/// Page-locked host memory mapped for the device, where kernels write their results.
struct MappedResult {
    host: *mut u8,
    device: u64,
}

impl MappedResult {
    fn alloc(bytes: usize) -> Result<Self> {
        use cudarc::driver::{result, sys};
        let flags = sys::CU_MEMHOSTALLOC_DEVICEMAP | sys::CU_MEMHOSTALLOC_PORTABLE;
        // SAFETY: a plain allocation, owned by the returned value.
        let host = unsafe { result::malloc_host(bytes, flags) }
            .map_err(|e| cuda::driver_error("allocating the result slot of reductions", e))?
            .cast::<u8>();
        let mut device = 0;
        // SAFETY: `host` was allocated above with DEVICEMAP. With unified addressing (every
        // 64-bit platform CUDA supports) the host address is also the device address, which
        // is what a context without mapped-memory support reports no address for.
        let mapped = unsafe { sys::cuMemHostGetDevicePointer_v2(&mut device, host.cast(), 0) };
        if mapped != sys::CUresult::CUDA_SUCCESS {
            device = host as u64;
        }
        Ok(MappedResult { host, device })
    }
}

impl Drop for MappedResult {
    fn drop(&mut self) {
        // SAFETY: allocated by `malloc_host` in `alloc`, freed once.
        let _ = unsafe { cudarc::driver::result::free_host(self.host.cast()) };
    }
}

/// What every reduction launch shares: the partials (after the block counter) and the
/// result slot.
struct Scratch {
    buffer: DeviceBuffer,
    result: MappedResult,
    max_blocks: usize,
}

// SAFETY: the raw host pointer is only used under the mutex that owns the scratch.
unsafe impl Send for Scratch {}

fn scratch(dev: &'static Device) -> Result<&'static Mutex<Scratch>> {
    static SCRATCH: OnceLock<Mutex<Scratch>> = OnceLock::new();
    if let Some(s) = SCRATCH.get() {
        return Ok(s);
    }
    let max_blocks = dev.info().sm_count.max(1) as usize * MAX_BLOCKS_PER_SM;
    let bytes = PARTIALS_OFFSET as usize + max_blocks * MAX_ACC_BYTES;
    let mut buffer = DeviceBuffer::alloc(dev, bytes, "the partial results of reductions")?;
    buffer.zero()?; // the block counter starts at 0 and each launch leaves it at 0
    let result = MappedResult::alloc(MAX_ACC_BYTES)?;
    Ok(SCRATCH.get_or_init(|| {
        Mutex::new(Scratch {
            buffer,
            result,
            max_blocks,
        })
    }))
}

/// Runs the reduction kernel of `site` over `sites` and returns the result.
pub(crate) fn run<Op, C, V>(
    site: &'static ReduceSite,
    sites: &Sites,
    tpb: Option<u32>,
    caps: &mut C,
) -> Result<Op::Acc>
where
    Op: Reduction<V>,
    C: Captures,
    V: 'static,
{
    let dev = cuda::device()?;
    let tpb = tpb.unwrap_or(DEFAULT_THREADS_PER_BLOCK);
    check_threads_per_block(
        site.site.location(),
        tpb,
        Some(dev.info().max_threads_per_block),
    )?;
    if sites.is_empty() {
        return Ok(Op::identity());
    }
    let checked = crate::launch::bounds::bounds_checks()?;
    // Compile before touching the fields, so that a compile error leaves them as they were.
    let kernel = kernel_for::<Op, C, V>(&site.site.info, &site.kernels, dev, checked)?;
    let scratch = scratch(dev)?;
    let scratch = scratch.lock().unwrap_or_else(PoisonError::into_inner);
    let wave = kernel.one_wave(dev, tpb)?;
    let blocks = sites
        .len()
        .div_ceil(tpb as usize)
        .min(if wave > 0 { wave } else { usize::MAX })
        .min(scratch.max_blocks) as u32;
    let site_params = sites.params();
    let ticket = scratch.buffer.ptr();
    let partials = ticket + PARTIALS_OFFSET;
    let shape = Shape {
        grid: (blocks, 1, 1),
        block: (tpb, 1, 1),
        shared_bytes: 0,
    };
    let what = || {
        format!(
            "the kernel of on_gpu!({}: ...) at {}",
            Op::KEYWORD,
            site.site.location()
        )
    };
    // Queued on the thread's stream scope like an element-wise call (after other streams'
    // work on the same fields); the value is needed now, so that stream is waited for.
    let mut done_on = std::ptr::null_mut();
    crate::launch::queue::launch_captures(dev, &sites.range, caps, |caps, stream| {
        done_on = stream;
        let mut params = ParamList::new();
        caps.push_params(&mut params);
        site_params.push(&mut params);
        params.push(&partials);
        params.push(&ticket);
        params.push(&scratch.result.device);
        // SAFETY: the parameters follow the kernel's signature (built from the same captures
        // in the same order by `source::reduction`, then n, the partials, the counter and
        // the result), the grid fits the partials buffer, and the fields they point into are
        // borrowed by this call, which waits for the kernel below. `cuda::device()` bound
        // the context; `stream` is the default stream or a live stream of it.
        crate::launch::index_report::clear(&kernel.function, stream)?;
        unsafe { cuda::launch_bound_on(stream, kernel.function, shape, &mut params, what) }?;
        crate::launch::index_report::check(&kernel.function, stream, site.site.location())
    })?;
    // SAFETY: the stream the kernel went to; still live (the scope holds it).
    unsafe { cudarc::driver::result::stream::synchronize(done_on) }
        .map_err(|e| crate::cuda::driver_error("waiting for a reduction", e))?;
    Ok(read_result::<Op::Acc>(&scratch.result))
}

/// The value the last kernel wrote into the result slot.
fn read_result<A: Pod>(result: &MappedResult) -> A {
    assert!(std::mem::size_of::<A>() <= MAX_ACC_BYTES);
    // SAFETY: the slot holds MAX_ACC_BYTES bytes, written by the kernel that has finished
    // (its stream was synchronized); any bits are a valid `A` (Pod). Volatile: the device
    // wrote it behind the compiler's back.
    unsafe { ptr::read_volatile(result.host.cast::<A>()) }
}
