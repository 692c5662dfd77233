//! Exact floating-point sums on the GPU, for reductions over a lattice cut over MPI ranks:
//! each box's values go into [`ExactSum`]s (`ongpu::red::exact` in `cuda/exact.cuh`),
//! which the ranks gather and merge as the CPU backend's are. Integer addition does not
//! depend on order, so a sum is the same bits for 1, 2 or 4 ranks, for any launch shape, and
//! on either backend: the correctly rounded sum of the values.
//!
//! A call's boxes (the interior beside the halo exchange, the boundary after it) each sum
//! into a scratch slot of their own as the call queues them ([`Queued`]), and the host
//! reads them all after one wait at the end.

use super::cuda::{launch_one, Checked, PARTIALS_OFFSET};
use super::{ExactSum, ReduceSite, Reduction};
use crate::capture::CaptureArg;
use crate::cuda::stream::StreamHandle;
use crate::cuda::MappedResult;
use crate::cuda::{Device, DeviceBuffer};
use crate::error::{Error, Result};
use crate::launch::compile::{compile_and_load, LoadedKernel};
use crate::launch::limits::device_and_block;
use crate::launch::sites::Sites;
use std::any::TypeId;
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};

/// Marks the key of an exact-sum kernel in a call site's kernel list.
struct Exact;

/// Words of a launch's accumulator (two sums of 68 words: digits and special flags), which
/// every block adds its sums to.
const ACCUMULATOR_WORDS: usize = 2 * 68;

/// Words of the result: two sums in the host's layout.
const RESULT_WORDS: usize = 2 * std::mem::size_of::<ExactSum>() / 8;

/// A block adds at most this many sites: each warp's addition to a digit is below 2^37, and
/// 2^31 sites per block keep a block's slots below 2^63 (2^26 additions per warp and digit).
const MAX_SITES_PER_BLOCK: usize = 1 << 31;

/// The most blocks of one launch (CUDA's limit along x): each adds digits below 2^32 to
/// the accumulator, whose 64-bit slots then stay below 2^63.
const MAX_BLOCKS: usize = (1 << 31) - 1;

/// One launch's accumulator, block counter and result slot.
struct Slot {
    buffer: DeviceBuffer,
    result: MappedResult,
}

/// The exact sums' scratch on one device: one slot per box of a call, since a call queues
/// its boxes' sums at once (the interior on a stream of its own beside the boundary) and
/// reads them after one wait.
struct Scratch {
    slots: Vec<Slot>,
}

// SAFETY: the raw host pointers are only used under the mutex that owns the scratch.
unsafe impl Send for Scratch {}

impl Scratch {
    /// Slot `k`, made on first use.
    fn slot(&mut self, dev: &'static Device, k: usize) -> Result<&Slot> {
        while self.slots.len() <= k {
            let mut buffer = DeviceBuffer::alloc(
                dev,
                PARTIALS_OFFSET as usize + ACCUMULATOR_WORDS * 8,
                "the accumulator of exact reductions",
            )?;
            // The block counter and the accumulator start at 0, and each launch leaves
            // them at 0.
            buffer.zero()?;
            let result = MappedResult::alloc(RESULT_WORDS * 8)?;
            self.slots.push(Slot { buffer, result });
        }
        Ok(&self.slots[k])
    }
}

fn scratch(dev: &'static Device) -> &'static Mutex<Scratch> {
    static SCRATCH: [OnceLock<Mutex<Scratch>>; crate::cuda::MAX_DEVICES] =
        [const { OnceLock::new() }; crate::cuda::MAX_DEVICES];
    SCRATCH[dev.info().ordinal].get_or_init(|| Mutex::new(Scratch { slots: Vec::new() }))
}

/// The exact-sum kernel of `Op` over values `V` for the capture tuple `C`.
fn kernel_for<'s, Op: Reduction<V>, C: CaptureArg, V: 'static>(
    site: &'s ReduceSite,
    dev: &'static Device,
    checked: bool,
) -> Result<&'s LoadedKernel> {
    let key = if checked {
        TypeId::of::<(Op, C::Key, V, Exact, Checked)>()
    } else {
        TypeId::of::<(Op, C::Key, V, Exact)>()
    };
    let info = &site.site.info;
    site.kernels.get_or_compile(key, dev.info().ordinal, || {
        let source = super::source::exact_reduction(
            info,
            &C::kinds(),
            Op::cuda_value(),
            Op::EXACT_PARTS,
            checked,
        );
        compile_and_load(
            &source,
            &format!(
                "the exact-sum kernel of on_gpu!({}: ...) at {}",
                Op::KEYWORD,
                info.location
            ),
            dev,
        )
    })
}

/// The exact sums of the boxes of one call over a rank lattice, each launched into a slot of
/// its own as the call queues it (the interior beside the exchange, the boundary after the
/// halos) and read after one wait at the end, so that the host never stops inside the call.
pub(super) struct Queued {
    /// Sums per box (`Op::EXACT_PARTS`).
    parts: usize,
    /// The device's scratch, held from the first launch to the last read.
    scratch: Option<MutexGuard<'static, Scratch>>,
    /// The stream each launched box went to, in slot order.
    launched: Vec<StreamHandle>,
}

impl Queued {
    /// No box queued yet; each will have `parts` sums.
    pub(super) fn new(parts: usize) -> Queued {
        debug_assert!((1..=2).contains(&parts));
        Queued {
            parts,
            scratch: None,
            launched: Vec::new(),
        }
    }

    /// Queues the exact sums of the values of `sites` (one launch, not waited for).
    pub(super) fn queue<Op, C, V>(
        &mut self,
        site: &'static ReduceSite,
        sites: &Sites,
        tpb: Option<u32>,
        caps: &mut C,
    ) -> Result<()>
    where
        Op: Reduction<V>,
        C: CaptureArg,
        V: 'static,
    {
        debug_assert_eq!(Op::EXACT_PARTS, self.parts);
        if crate::graph_pass::mode().is_some() {
            return Err(Error::Graph(format!(
                "{}: on_gpu!({}: ...) over a lattice cut over MPI ranks combines its ranks' \
                 sums on the host, which a graph cannot hold: run it outside Graph::record",
                site.site.location(),
                Op::KEYWORD
            )));
        }
        let (dev, tpb) = device_and_block(site.site.location(), tpb)?;
        let checked = crate::launch::bounds::bounds_checks()?;
        // Compile before touching the fields, so that a compile error leaves them as they were.
        let kernel = kernel_for::<Op, C, V>(site, dev, checked)?;
        if sites.is_empty() {
            return Ok(());
        }
        let wave = kernel.one_wave(dev, tpb)?;
        let scratch = match &mut self.scratch {
            Some(s) => s,
            None => self
                .scratch
                .insert(scratch(dev).lock().unwrap_or_else(PoisonError::into_inner)),
        };
        let n = sites.len();
        // One wave of resident blocks (the ordinary reduction's grid), more only where a
        // block would add too many sites. Beside a halo exchange (the interior of a call,
        // `launch::queue::without_wave_cap`), one thread per site instead: a wave's blocks
        // would hold every slot of the device to the kernel's end, and the boundary's
        // kernels on the face stream would start only then; these retire as they finish.
        let grid = if crate::launch::queue::wave_cap_lifted() {
            n.div_ceil(tpb as usize)
        } else {
            super::cuda::grid_blocks(n, tpb, 1, wave, MAX_BLOCKS) as usize
        };
        let blocks = grid.max(n.div_ceil(MAX_SITES_PER_BLOCK));
        if blocks > MAX_BLOCKS {
            return Err(Error::InvalidArgument(format!(
                "{}: on_gpu!({}: ...) over {n} sites of one rank: an exact sum on the GPU adds \
                 at most {} sites per rank",
                site.site.location(),
                Op::KEYWORD,
                MAX_BLOCKS * MAX_SITES_PER_BLOCK
            )));
        }
        let blocks = blocks as u32;
        let slot = scratch.slot(dev, self.launched.len())?;
        let ticket = slot.buffer.ptr();
        let result = slot.result.device;
        let what = || {
            format!(
                "the exact-sum kernel of on_gpu!({}: ...) at {}",
                Op::KEYWORD,
                site.site.location()
            )
        };
        let done_on = launch_one(
            site, kernel, dev, caps, sites, blocks, tpb, ticket, &result, what,
        )?;
        self.launched.push(done_on);
        Ok(())
    }

    /// Lets go of the queued boxes without waiting: the stream each went to and the device
    /// address of its sums (`parts` sums in the host's layout), in the order they were
    /// queued. Work queued on the default stream after the boxes (ordered after those
    /// streams) may read the sums; a later call's boxes reuse the slots only after it, as
    /// they are ordered after the default stream's earlier work.
    pub(super) fn release(mut self) -> (Vec<StreamHandle>, Vec<u64>) {
        let launched = std::mem::take(&mut self.launched);
        let results = match &self.scratch {
            Some(s) => (0..launched.len())
                .map(|k| s.slots[k].result.device)
                .collect(),
            None => Vec::new(),
        };
        (launched, results)
    }

    /// Waits for every queued box and returns each one's sums (`parts` of them), in the
    /// order they were queued; boxes without sites are left out (their sums are zero).
    pub(super) fn finish(mut self) -> Result<Vec<Vec<ExactSum>>> {
        let launched = std::mem::take(&mut self.launched);
        for &stream in &launched {
            // SAFETY: a stream a kernel went to: the default stream or the device's interior
            // stream, both live for the run.
            unsafe {
                crate::cuda::stream::wait_for(stream, || "waiting for an exact sum".to_string())?
            };
        }
        let Some(scratch) = &self.scratch else {
            return Ok(Vec::new());
        };
        let words = self.parts * RESULT_WORDS / 2;
        Ok((0..launched.len())
            .map(|k| {
                let host = scratch.slots[k].result.host.cast::<u64>();
                // SAFETY: the slot holds RESULT_WORDS words, written by the kernel that has
                // finished; volatile, since the device wrote it behind the compiler's back.
                let words: Vec<u64> = (0..words)
                    .map(|w| unsafe { std::ptr::read_volatile(host.add(w)) })
                    .collect();
                words
                    .chunks_exact(RESULT_WORDS / 2)
                    .map(|w| bytemuck::pod_read_unaligned(bytemuck::cast_slice(w)))
                    .collect()
            })
            .collect())
    }
}

impl Drop for Queued {
    /// A call that failed after some of its boxes were queued waits for them before it lets
    /// go of the scratch they write.
    fn drop(&mut self) {
        for &stream in &self.launched {
            // SAFETY: as in `finish`.
            let _ = unsafe { crate::cuda::stream::wait_for(stream, String::new) };
        }
    }
}
