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
use crate::capture::{write, CaptureArg, DeviceFacet, FieldWrite, Uniform};
use crate::cuda::stream::Queue;
use crate::cuda::{self, Device, DeviceBuffer, MappedResult, ParamList, Shape};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::field::pending::{Mark, Pending};
use crate::launch::call_site::SiteInfo;
use crate::launch::compile::{compile_and_load, LoadedKernel};
use crate::launch::limits::device_and_block;
use crate::launch::queue::Target;
use crate::launch::sites::Sites;
use crate::layout::AoS;
use crate::scalar::DeviceScalar;
use bytemuck::Pod;
use std::any::TypeId;

/// Marks the key of a kernel compiled with bounds checks.
pub(super) struct Checked;
use std::ptr;

use crate::cuda::stream::StreamHandle;
use std::sync::{Mutex, OnceLock, PoisonError};

/// Blocks resident on one multiprocessor at most, on every architecture ongpu supports: the
/// grid of a reduction is at most this many blocks per multiprocessor.
const MAX_BLOCKS_PER_SM: usize = 32;

/// Bytes of the largest accumulator (`Complex<f64>`).
const MAX_ACC_BYTES: usize = 16;

/// Offset of the partials in the scratch buffer (the block counter comes first).
pub(super) const PARTIALS_OFFSET: u64 = 256;

/// The reduction kernels of one call site.
pub(crate) type ReduceKernels = crate::launch::kernel_list::KernelList<LoadedKernel>;

/// The kernel of `Op` over values `V` for the capture tuple `C`, compiled on first use.
#[inline]
fn kernel_for<'s, Op: Reduction<V>, C: CaptureArg, V: 'static>(
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
    kernels.get_or_compile(key, dev.info().ordinal, || {
        let kinds = C::kinds();
        let source = super::source::reduction(info, &kinds, &super::kind::<Op, V>(), checked);
        Ok(compile_and_load(
            &source,
            &format!(
                "the kernel of on_gpu!({}: ...) at {}",
                Op::KEYWORD,
                info.location
            ),
            dev,
        )?
        .with_sites_per_thread(crate::launch::source::sites_per_iteration(&kinds)))
    })
}

/// What every reduction launch outside a graph shares: the partials (after the block
/// counter) and the result slot, and the queued work that uses them.
struct Scratch {
    buffer: DeviceBuffer,
    result: MappedResult,
    max_blocks: usize,
    /// Reductions into a [`DeviceScalar`] return before their kernel has run; one queued on
    /// another stream waits for them on the device before it reuses the partials.
    pending: Pending,
}

// SAFETY: the raw host pointer is only used under the mutex that owns the scratch.
unsafe impl Send for Scratch {}

/// Bytes of a scratch buffer for `blocks` partial results.
fn scratch_bytes(blocks: usize) -> usize {
    PARTIALS_OFFSET as usize + blocks * MAX_ACC_BYTES
}

/// The scratch of `dev` (one per device: its buffer and mapped result belong to the
/// device's context).
fn scratch(dev: &'static Device) -> Result<&'static Mutex<Scratch>> {
    static SCRATCH: [OnceLock<Mutex<Scratch>>; crate::cuda::MAX_DEVICES] =
        [const { OnceLock::new() }; crate::cuda::MAX_DEVICES];
    let slot = &SCRATCH[dev.info().ordinal];
    if let Some(s) = slot.get() {
        return Ok(s);
    }
    let max_blocks = max_blocks(dev);
    let mut buffer = DeviceBuffer::alloc(
        dev,
        scratch_bytes(max_blocks),
        "the partial results of reductions",
    )?;
    buffer.zero()?; // the block counter starts at 0 and each launch leaves it at 0
    let result = MappedResult::alloc(MAX_ACC_BYTES)?;
    Ok(slot.get_or_init(|| {
        Mutex::new(Scratch {
            buffer,
            result,
            max_blocks,
            pending: Pending::default(),
        })
    }))
}

/// The most blocks a reduction's grid has on `dev`.
fn max_blocks(dev: &'static Device) -> usize {
    dev.info().sm_count.max(1) as usize * MAX_BLOCKS_PER_SM
}

/// The device scalar a reduction writes into, with its type erased (sums of integers have
/// results that are no field element, so `launch` cannot name `FieldWrite<Op::Acc, ..>`).
trait ScalarOut {
    /// Prepares the scalar's device copy for a kernel that overwrites it, queued on `q`,
    /// and returns its address.
    fn prepare(&mut self, dev: &'static Device, q: Queue) -> Result<u64>;
    /// Records the queued kernel's write.
    fn mark(&mut self, m: &Mark);
}

impl<A: Element> ScalarOut for FieldWrite<'_, A, AoS, false> {
    fn prepare(&mut self, dev: &'static Device, q: Queue) -> Result<u64> {
        match q {
            Queue::Stream { .. } => self.device_prepare_on(dev, &(0..1), q)?,
            Queue::Default | Queue::Host => self.device_prepare(dev, &(0..1))?,
        }
        Ok(*self.device_ptr())
    }

    fn mark(&mut self, m: &Mark) {
        self.mark_queued(m);
    }
}

/// The grid of a reduction over `n` sites in blocks of `tpb` threads, each thread taking at
/// least `k` sites (the kernel's sites per loop iteration), at most `wave` blocks (0: no
/// limit known) and `max_blocks`: `max(1, min(ceil(n / (tpb·k)), wave, max_blocks))`.
///
/// Up to one full wave of resident blocks the grid is sized to the work, so a small
/// reduction has as few blocks as its sites fill (each thread one loop iteration, its `k`
/// loads in flight together) and the last block combines only those partials; beyond, the
/// grid strides. The grid depends only on `n`, `tpb`, the kernel and the device, which is
/// what makes a result the same bit for bit from run to run.
pub(crate) fn grid_blocks(n: usize, tpb: u32, k: usize, wave: usize, max_blocks: usize) -> u32 {
    let wave = if wave > 0 { wave } else { usize::MAX };
    let per_block = (tpb as usize).max(1) * k.max(1);
    n.div_ceil(per_block).min(wave).min(max_blocks).max(1) as u32
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
    C: CaptureArg,
    V: 'static,
{
    if crate::graph_pass::mode().is_some() {
        return Err(Error::Graph(format!(
            "{}: on_gpu!({}: ...) returns its value to the host, which a graph cannot do \
             inside its closure: write it into a DeviceScalar with on_gpu!({} -> s: ...) \
             and read s.get() after the graph has run",
            site.site.location(),
            Op::KEYWORD,
            Op::KEYWORD
        )));
    }
    let result = launch::<Op, C, V>(site, sites, tpb, caps, None)?;
    Ok(result.unwrap_or_else(Op::identity))
}

/// Runs the reduction kernel of `site` over `sites`, writing the result into `dest` on the
/// device (the identity for no sites); returns once the kernel is queued.
pub(crate) fn run_into<Op, C, V>(
    site: &'static ReduceSite,
    sites: &Sites,
    tpb: Option<u32>,
    caps: &mut C,
    dest: &mut DeviceScalar<Op::Acc>,
) -> Result<()>
where
    Op: Reduction<V>,
    Op::Acc: Element + Uniform,
    C: CaptureArg,
    V: 'static,
{
    if sites.is_empty() {
        // No kernel: the identity is set on the host (a graph records no such call).
        crate::graph_pass::forbid_host(&|| {
            format!(
                "{}: a reduction into a DeviceScalar over no sites (it sets the identity on \
                 the host)",
                site.site.location()
            )
        })?;
        return dest.set(Op::identity());
    }
    let mut out = write::<false, _>(dest);
    launch::<Op, C, V>(site, sites, tpb, caps, Some(&mut out)).map(drop)
}

/// The launch of a reduction: into `out` if given (returning `None`), else into the
/// mapped result slot, waited for (returning the value).
fn launch<Op, C, V>(
    site: &'static ReduceSite,
    sites: &Sites,
    tpb: Option<u32>,
    caps: &mut C,
    out: Option<&mut dyn ScalarOut>,
) -> Result<Option<Op::Acc>>
where
    Op: Reduction<V>,
    C: CaptureArg,
    V: 'static,
{
    let Some(out) = out else {
        // Back to the host: queued, then waited for.
        return run_queued::<Op, C, V>(site, sites, tpb, caps)?
            .map(Queued::wait)
            .transpose();
    };
    let Prepared {
        dev,
        tpb,
        kernel,
        wave,
    } = prepare::<Op, C, V>(site, tpb)?;
    let k = kernel.sites_per_thread();
    let what = kernel_what::<Op, V>(site);
    // Into a device scalar: prepared on the call's queue like a written field.
    let in_graph = crate::graph_pass::mode().is_some();
    let queue = if in_graph {
        Queue::Default
    } else {
        queue_of(dev)?
    };
    let result = out.prepare(dev, queue)?;
    if in_graph {
        // Each reduction of a graph owns its scratch: replays may overlap other work that
        // uses the shared one.
        let blocks = grid_blocks(sites.len(), tpb, k, wave, max_blocks(dev));
        let ticket = graph_scratch(dev, blocks as usize)?;
        launch_one(
            site, kernel, dev, caps, sites, blocks, tpb, ticket, &result, what,
        )?;
        return Ok(None);
    }
    let scratch = scratch(dev)?;
    let mut scratch = scratch.lock().unwrap_or_else(PoisonError::into_inner);
    let blocks = grid_blocks(sites.len(), tpb, k, wave, scratch.max_blocks);
    let ticket = scratch.buffer.ptr();
    scratch.pending.before_write(queue)?;
    launch_one(
        site, kernel, dev, caps, sites, blocks, tpb, ticket, &result, what,
    )?;
    let mark = Mark::now(queue)?;
    scratch.pending.after_write(&mark);
    if matches!(queue, Queue::Stream { .. }) {
        out.mark(&mark);
    }
    Ok(None)
}

/// A reduction queued on the GPU whose value comes back to the host: its device's scratch
/// (partials and result slot) is held until [`wait`](Queued::wait) reads the value, so
/// that calls over a split lattice queue every part's reduction before they wait for any.
pub(crate) struct Queued<A> {
    scratch: std::sync::MutexGuard<'static, Scratch>,
    /// The stream the kernel went to (null: the device's default stream).
    stream: StreamHandle,
    dev: &'static Device,
    waited: bool,
    _acc: std::marker::PhantomData<A>,
}

impl<A: Pod> Queued<A> {
    /// The device the reduction runs on (whose scratch it holds).
    pub(crate) fn device(&self) -> &'static Device {
        self.dev
    }

    /// Waits for the kernel and reads its value.
    pub(crate) fn wait(mut self) -> Result<A> {
        self.finish()?;
        Ok(read_result::<A>(&self.scratch.result))
    }

    fn finish(&mut self) -> Result<()> {
        self.waited = true;
        self.dev.bind()?;
        // SAFETY: the stream the kernel went to, of the bound device; still live (a
        // stream scope outlives the calls inside it).
        unsafe { cuda::stream::wait_for(self.stream, || "waiting for a reduction".to_string())? };
        self.scratch.pending.after_write(&Mark::DONE);
        Ok(())
    }
}

impl<A> Drop for Queued<A> {
    /// A reduction abandoned (another part failed) is still waited for: the scratch is
    /// reused only after its kernel.
    fn drop(&mut self) {
        if !self.waited {
            self.waited = true;
            if self.dev.bind().is_ok() {
                // SAFETY: as in `finish`.
                let _ = unsafe { cuda::stream::wait_for(self.stream, String::new) };
                self.scratch.pending.after_write(&Mark::DONE);
            }
        }
    }
}

/// Queues the reduction kernel of `site` over `sites` into the device's mapped result
/// slot, its value to be read by [`Queued::wait`] (none for no sites): a part of a
/// reduction over a split lattice, or a whole one waited for at once. The device's scratch
/// is held until the value has been read.
pub(crate) fn run_queued<Op, C, V>(
    site: &'static ReduceSite,
    sites: &Sites,
    tpb: Option<u32>,
    caps: &mut C,
) -> Result<Option<Queued<Op::Acc>>>
where
    Op: Reduction<V>,
    C: CaptureArg,
    V: 'static,
{
    let Prepared {
        dev,
        tpb,
        kernel,
        wave,
    } = prepare::<Op, C, V>(site, tpb)?;
    if sites.is_empty() {
        return Ok(None);
    }
    let k = kernel.sites_per_thread();
    let mut scratch = scratch(dev)?.lock().unwrap_or_else(PoisonError::into_inner);
    let blocks = grid_blocks(sites.len(), tpb, k, wave, scratch.max_blocks);
    let ticket = scratch.buffer.ptr();
    let result = scratch.result.device;
    let queue = queue_of(dev)?;
    scratch.pending.before_write(queue)?;
    let what = kernel_what::<Op, V>(site);
    let done_on = launch_one(
        site, kernel, dev, caps, sites, blocks, tpb, ticket, &result, what,
    )?;
    Ok(Some(Queued {
        scratch,
        stream: done_on,
        dev,
        waited: false,
        _acc: std::marker::PhantomData,
    }))
}

/// What every launch of a reduction settles first: the device, the block size (checked),
/// the kernel (compiled before the fields are touched, so that a compile error leaves them
/// as they were) and the blocks of one wave of it.
struct Prepared {
    dev: &'static Device,
    tpb: u32,
    kernel: &'static LoadedKernel,
    wave: usize,
}

fn prepare<Op, C, V>(site: &'static ReduceSite, tpb: Option<u32>) -> Result<Prepared>
where
    Op: Reduction<V>,
    C: CaptureArg,
    V: 'static,
{
    let (dev, tpb) = device_and_block(site.site.location(), tpb)?;
    let checked = crate::launch::bounds::bounds_checks()?;
    let kernel = kernel_for::<Op, C, V>(&site.site.info, &site.kernels, dev, checked)?;
    let wave = kernel.one_wave(dev, tpb)?;
    Ok(Prepared {
        dev,
        tpb,
        kernel,
        wave,
    })
}

/// The kernel's name in a launch error (built only if one happens).
fn kernel_what<Op: Reduction<V>, V>(site: &'static ReduceSite) -> impl FnOnce() -> String {
    move || {
        format!(
            "the kernel of on_gpu!({}: ...) at {}",
            Op::KEYWORD,
            site.site.location()
        )
    }
}

/// The queue a call on this thread goes to.
fn queue_of(dev: &'static Device) -> Result<Queue> {
    Ok(crate::stream::current_queue(dev)?.unwrap_or(Queue::Default))
}

/// A zeroed scratch buffer for `blocks` partials, owned by the graph being recorded; in a
/// replay, the buffer the same reduction of the recording owns (the graph's kernels use it).
fn graph_scratch(dev: &'static Device, blocks: usize) -> Result<u64> {
    let replayed = crate::graph_pass::with(|p| {
        let p = p.expect("in a graph pass");
        if p.mode != crate::graph_pass::Mode::Replaying {
            return None;
        }
        let ptr = p.recorded_scratch.get(p.scratch_used).copied();
        p.scratch_used += 1;
        Some(ptr)
    });
    match replayed {
        Some(Some(ptr)) => return Ok(ptr),
        Some(None) => {
            return Err(crate::error::Error::Graph(
                "the graph's closure made more reductions than were recorded: a graph \
                 replays one fixed sequence of calls; record a new Graph"
                    .to_string(),
            ))
        }
        None => {}
    }
    let mut buffer = DeviceBuffer::alloc(
        dev,
        scratch_bytes(blocks),
        "the partial results of a graph's reduction",
    )?;
    buffer.zero()?; // the counter starts at 0; each launch leaves it at 0
    let ptr = buffer.ptr();
    crate::graph_pass::with(|p| p.expect("in a graph pass").scratch.push(buffer));
    Ok(ptr)
}

/// Queues one launch of a reduction kernel on its target (`launch::queue::Target`): its
/// captures, the site parameters, the partials after the counter at `ticket`, and the
/// result's address. Returns the stream it went to.
#[allow(clippy::too_many_arguments)]
pub(super) fn launch_one<C: CaptureArg>(
    site: &'static ReduceSite,
    kernel: &LoadedKernel,
    dev: &'static Device,
    caps: &mut C,
    sites: &Sites,
    blocks: u32,
    tpb: u32,
    ticket: u64,
    result: &u64,
    what: impl FnOnce() -> String,
) -> Result<crate::cuda::stream::StreamHandle> {
    let target = Target::prepare(dev, &sites.range, caps)?;
    let stream = target.stream();
    let site_params = sites.params();
    let partials = ticket + PARTIALS_OFFSET;
    let shape = Shape {
        grid: (blocks, 1, 1),
        block: (tpb, 1, 1),
        shared_bytes: 0,
    };
    let mut params = ParamList::new();
    caps.push_params(&mut params);
    site_params.push(&mut params);
    params.push(&partials);
    params.push(&ticket);
    params.push(result);
    crate::launch::index_report::clear(&kernel.function, stream)?;
    crate::launch::print_buffer::clear(&kernel.function, stream)?;
    // SAFETY: the parameters follow the kernel's signature (built from the same captures in
    // the same order by `source::reduction`, then the site parameters, the partials, the
    // counter and the result), the grid fits the partials buffer, and the fields they point
    // into are borrowed by this call and freed only after their queued work (or, in a
    // graph, checked at each replay). `cuda::device()` bound the context; `stream` is the
    // default stream or a live stream of it.
    unsafe {
        crate::launch::queue::launch_kernel(
            stream,
            kernel.function,
            shape,
            &mut params,
            site.site.location(),
            what,
        )
    }?;
    crate::launch::print_buffer::flush(&kernel.function, stream, site.site.info.prints)?;
    crate::launch::index_report::check(&kernel.function, stream, site.site.location())?;
    target.finish(caps)?;
    Ok(stream)
}

/// The value the last kernel wrote into the result slot.
fn read_result<A: Pod>(result: &MappedResult) -> A {
    assert!(std::mem::size_of::<A>() <= MAX_ACC_BYTES);
    // SAFETY: the slot holds MAX_ACC_BYTES bytes, written by the kernel that has finished
    // (its stream was synchronized); any bits are a valid `A` (Pod). Volatile: the device
    // wrote it behind the compiler's back.
    unsafe { ptr::read_volatile(result.host.cast::<A>()) }
}

#[cfg(test)]
mod tests {
    use super::grid_blocks;

    #[test]
    fn small_grids_follow_the_sites_and_large_ones_stop_at_a_wave() {
        // One site per thread: a block per 256 sites, up to the wave.
        assert_eq!(grid_blocks(1, 256, 1, 1056, 4224), 1);
        assert_eq!(grid_blocks(1 << 16, 256, 1, 1056, 4224), 256);
        assert_eq!(grid_blocks(1 << 20, 256, 1, 1056, 4224), 1056);
        // Four sites per thread: a quarter of the blocks until the wave caps them.
        assert_eq!(grid_blocks(1 << 16, 256, 4, 1056, 4224), 64);
        assert_eq!(grid_blocks((1 << 16) + 1, 256, 4, 1056, 4224), 65);
        assert_eq!(grid_blocks(1 << 24, 256, 4, 1056, 4224), 1056);
        // No wave known: the scratch buffer's size caps the grid.
        assert_eq!(grid_blocks(1 << 24, 256, 1, 0, 4224), 4224);
        assert_eq!(grid_blocks(0, 256, 4, 0, 4224), 1);
    }
}
