//! The CPU backend of explicit kernels: blocks in parallel on rayon, the threads of a block
//! one after the other on one OS thread.
//!
//! A kernel without `sync_threads()` runs each thread to its end in turn. A kernel with
//! barriers is expanded by the macro into an `async` block per thread in which each
//! `sync_threads()` is an `.await` point: the compiler turns the body into a state machine
//! that keeps exactly the locals live across each barrier, per thread. A block polls every
//! thread's future in turn; each runs up to its next barrier (or its end) and yields. When
//! all have yielded at the same barrier the next round resumes them, so no thread passes a
//! barrier before every thread of its block has reached it (the MCUDA "loop fission" with
//! the splitting done by rustc). Threads that wait at different barriers, or a barrier some
//! threads never reach because they returned, are reported as an error
//! ([`Error::DivergentBarrier`]), where CUDA would be undefined.

use super::args::KernelParam;
use super::call_site::KernelSite;
use super::shape::{Dim3, LaunchShape};
use super::views::SharedSpecs;
use crate::error::{catch_body, panic_message, Error, Result};
use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::task::{Context, Poll, RawWaker, RawWakerVTable, Waker};

/// No barrier: the slot value of a thread that is not waiting.
const NOT_WAITING: u32 = u32::MAX;

/// The bit of the barrier numbers of device functions, whose other bits are the line of
/// their `sync_threads()` (a kernel's own barriers are numbered from 0).
const DEVICE_BARRIER: u32 = 1 << 31;

/// One thread's coordinates (what `thread_idx()` and friends return on the CPU backend).
#[derive(Debug, Clone, Copy)]
pub struct ThreadCtx {
    thread: Dim3,
    block: Dim3,
    block_dim: Dim3,
    grid_dim: Dim3,
    /// Where this thread notes the barrier it waits at (null when the kernel has none).
    slot: *const Cell<u32>,
}

impl ThreadCtx {
    /// `thread_idx()`.
    #[inline(always)]
    pub fn thread_idx(&self) -> Dim3 {
        self.thread
    }

    /// `block_idx()`.
    #[inline(always)]
    pub fn block_idx(&self) -> Dim3 {
        self.block
    }

    /// `block_dim()`.
    #[inline(always)]
    pub fn block_dim(&self) -> Dim3 {
        self.block_dim
    }

    /// `grid_dim()`.
    #[inline(always)]
    pub fn grid_dim(&self) -> Dim3 {
        self.grid_dim
    }

    /// The global index of this thread, as prints order their lines by: blocks in x, y, z
    /// order, threads within a block likewise (the prelude's `print_thread_key`).
    #[inline]
    pub fn thread_key(&self) -> u64 {
        let (b, g, t, d) = (self.block, self.grid_dim, self.thread, self.block_dim);
        let block =
            (u64::from(b.z) * u64::from(g.y) + u64::from(b.y)) * u64::from(g.x) + u64::from(b.x);
        let thread =
            (u64::from(t.z) * u64::from(d.y) + u64::from(t.y)) * u64::from(d.x) + u64::from(t.x);
        block * (u64::from(d.x) * u64::from(d.y) * u64::from(d.z)) + thread
    }

    /// `sync_threads()` number `id` of the kernel: a future that yields once (the macro
    /// awaits it).
    #[inline(always)]
    pub fn sync_threads(&self, id: u32) -> SyncThreads {
        SyncThreads {
            slot: self.slot,
            id,
            yielded: false,
        }
    }

    /// The `sync_threads()` of a device function, at `line` of its source (the threads of
    /// a block all wait at the same one, whichever call of the function they are in).
    #[inline(always)]
    pub fn device_sync_threads(&self, line: u32) -> SyncThreads {
        self.sync_threads(DEVICE_BARRIER | line)
    }
}

/// What the plain form of a device function with `sync_threads()` does (host code called
/// it): the barrier of a block of threads only exists in a kernel, which calls the
/// function's phased form.
#[cold]
#[track_caller]
pub fn barrier_outside_kernel() -> ! {
    panic!(
        "a device function with sync_threads() was called outside an #[ongpu::kernel]: its \
         barrier waits for the other threads of a kernel's block, and only kernels call it"
    )
}

/// A thread waiting at a barrier: pending once (after noting which barrier), then ready.
#[derive(Debug)]
#[must_use = "a barrier is a future: the kernel body awaits it"]
pub struct SyncThreads {
    slot: *const Cell<u32>,
    id: u32,
    yielded: bool,
}

impl Future for SyncThreads {
    type Output = ();

    #[inline(always)]
    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        if self.yielded {
            return Poll::Ready(());
        }
        self.yielded = true;
        // SAFETY: the slot belongs to this thread's block, which outlives its futures (the
        // only place a `SyncThreads` can be awaited: the macro awaits it at once).
        unsafe { (*self.slot).set(self.id) };
        Poll::Pending
    }
}

fn noop_waker() -> Waker {
    const VTABLE: RawWakerVTable = RawWakerVTable::new(|_| RAW, |_| {}, |_| {}, |_| {});
    const RAW: RawWaker = RawWaker::new(std::ptr::null(), &VTABLE);
    // SAFETY: every function of the vtable ignores its data pointer.
    unsafe { Waker::from_raw(RAW) }
}

/// Why a block failed, with the thread that was running (for the message).
enum Fault {
    Panic(String, Dim3),
    Divergent(String),
}

/// The geometry of one launch.
#[derive(Clone, Copy)]
pub(crate) struct Geometry {
    block_dim: Dim3,
    grid_dim: Dim3,
    threads: u64,
}

impl Geometry {
    fn ctx(&self, block: Dim3, t: u64, slot: *const Cell<u32>) -> ThreadCtx {
        ThreadCtx {
            thread: self.block_dim.unflatten(t),
            block,
            block_dim: self.block_dim,
            grid_dim: self.grid_dim,
            slot,
        }
    }
}

/// How the threads of one block run: each to its end, or in phases between barriers.
pub(crate) trait BlockBody<V, S>: Sync {
    /// Runs every thread of `block`; `current` tracks the running thread for messages.
    fn run_block(
        &self,
        geo: &Geometry,
        block: Dim3,
        views: V,
        shared: S,
        current: &Cell<Dim3>,
        site: &KernelSite,
    ) -> std::result::Result<(), String>;
}

/// A kernel without barriers: a function per thread.
pub(crate) struct Straight<F>(pub(crate) F);

/// A kernel with barriers: a future per thread.
pub(crate) struct Phased<F>(pub(crate) F);

impl<V: Copy, S: Copy, F: Fn(ThreadCtx, V, S) + Sync> BlockBody<V, S> for Straight<F> {
    fn run_block(
        &self,
        geo: &Geometry,
        block: Dim3,
        views: V,
        shared: S,
        current: &Cell<Dim3>,
        _: &KernelSite,
    ) -> std::result::Result<(), String> {
        for t in 0..geo.threads {
            let ctx = geo.ctx(block, t, std::ptr::null());
            current.set(ctx.thread);
            (self.0)(ctx, views, shared);
        }
        Ok(())
    }
}

impl<V, S, F, Fut> BlockBody<V, S> for Phased<F>
where
    V: Copy,
    S: Copy,
    F: Fn(ThreadCtx, V, S) -> Fut + Sync,
    Fut: Future<Output = ()>,
{
    fn run_block(
        &self,
        geo: &Geometry,
        block: Dim3,
        views: V,
        shared: S,
        current: &Cell<Dim3>,
        site: &KernelSite,
    ) -> std::result::Result<(), String> {
        let n = geo.threads as usize;
        let slots: Vec<Cell<u32>> = (0..n).map(|_| Cell::new(NOT_WAITING)).collect();
        let mut threads: Vec<Fut> = Vec::with_capacity(n);
        for (t, slot) in slots.iter().enumerate() {
            threads.push((self.0)(geo.ctx(block, t as u64, slot), views, shared));
        }
        // From here on `threads` is never resized, so its elements never move: they are
        // pinned in place until the vector drops them.
        let mut done = vec![false; n];
        let mut finished = 0;
        let waker = noop_waker();
        let mut cx = Context::from_waker(&waker);
        let line = |id: u32| {
            if id & DEVICE_BARRIER != 0 {
                format!("line {} (in a device function)", id & !DEVICE_BARRIER)
            } else {
                let l = site.info.barrier_lines.get(id as usize).copied();
                format!("line {}", l.unwrap_or(0))
            }
        };
        loop {
            let mut waiting: Option<(usize, u32)> = None;
            for t in 0..n {
                if done[t] {
                    continue;
                }
                current.set(geo.block_dim.unflatten(t as u64));
                slots[t].set(NOT_WAITING);
                // SAFETY: see above: the element is not moved until it is dropped.
                let thread = unsafe { Pin::new_unchecked(&mut threads[t]) };
                match thread.poll(&mut cx) {
                    Poll::Ready(()) => {
                        done[t] = true;
                        finished += 1;
                    }
                    Poll::Pending => {
                        let id = slots[t].get();
                        match waiting {
                            None => waiting = Some((t, id)),
                            Some((t0, id0)) if id0 != id => {
                                return Err(format!(
                                    "thread {} waits at the sync_threads() of {} while thread {} \
                                     waits at the one of {}; every thread of a block must reach \
                                     the same barriers in the same order",
                                    geo.block_dim.unflatten(t as u64),
                                    line(id),
                                    geo.block_dim.unflatten(t0 as u64),
                                    line(id0)
                                ));
                            }
                            Some(_) => {}
                        }
                    }
                }
            }
            match waiting {
                None => return Ok(()),
                Some((t0, id)) if finished > 0 => {
                    let gone = done.iter().position(|&d| d).expect("a finished thread");
                    return Err(format!(
                        "thread {} waits at the sync_threads() of {} but thread {} has returned \
                         without reaching it; every thread of a block must reach each barrier \
                         (move the barrier out of the branch, or skip the work instead of returning)",
                        geo.block_dim.unflatten(t0 as u64),
                        line(id),
                        geo.block_dim.unflatten(gone as u64)
                    ));
                }
                Some(_) => {}
            }
        }
    }
}

/// Runs one block: allocates its shared arrays, runs its threads, catches a panic.
fn run_one<A, S, B>(
    site: &'static KernelSite,
    geo: &Geometry,
    b: u64,
    views: A,
    shared: &S,
    body: &B,
) -> std::result::Result<(), (Dim3, Fault)>
where
    A: Copy,
    S: SharedSpecs,
    B: BlockBody<A, S::Views>,
{
    let block = geo.grid_dim.unflatten(b);
    let current = Cell::new(Dim3::default());
    let mut bufs = shared.alloc(&site.info);
    let shared_views = shared.views(&mut bufs, &site.info);
    // A panic is caught (and not printed: it is the call's error).
    let outcome = catch_body(|| body.run_block(geo, block, views, shared_views, &current, site));
    drop(bufs);
    match outcome {
        Ok(Ok(())) => Ok(()),
        Ok(Err(divergence)) => Err((block, Fault::Divergent(divergence))),
        Err(panic) => Err((block, Fault::Panic(panic_message(&*panic), current.get()))),
    }
}

/// Runs every block of the launch on the CPU.
pub(crate) fn run<A, S, B>(
    site: &'static KernelSite,
    shape: LaunchShape,
    args: &mut A,
    shared: S,
    body: &B,
) -> Result<()>
where
    A: KernelParam,
    S: SharedSpecs,
    B: BlockBody<A::View, S::Views>,
{
    let views = args.host_view(&site.info, 0)?;
    let geo = Geometry {
        block_dim: Dim3::new(shape.block),
        grid_dim: Dim3::new(shape.grid),
        threads: shape.threads_per_block(),
    };
    let blocks = shape.blocks();
    let first_fault: Mutex<Option<(Dim3, Fault)>> = Mutex::new(None);
    let failed = std::sync::atomic::AtomicBool::new(false);
    let one = |b: u64| {
        if failed.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        if let Err(fault) = run_one(site, &geo, b, views, &shared, body) {
            failed.store(true, std::sync::atomic::Ordering::Relaxed);
            let mut first = first_fault.lock().unwrap_or_else(|e| e.into_inner());
            first.get_or_insert(fault);
        }
    };
    #[cfg(feature = "rayon")]
    {
        use rayon::prelude::*;
        if blocks > 1 {
            (0..blocks).into_par_iter().for_each(one);
        } else {
            (0..blocks).for_each(one);
        }
    }
    #[cfg(not(feature = "rayon"))]
    (0..blocks).for_each(one);

    let fault = first_fault.into_inner().unwrap_or_else(|e| e.into_inner());
    let info = &site.info;
    match fault {
        None => Ok(()),
        Some((block, Fault::Panic(message, thread))) => Err(Error::BodyPanicked {
            site: info.location,
            index: None,
            message: format!(
                "kernel `{}`, block {block}, thread {thread}: {message}",
                info.name
            ),
        }),
        Some((block, Fault::Divergent(detail))) => Err(Error::DivergentBarrier {
            site: info.location,
            kernel: info.name,
            block: (block.x, block.y, block.z),
            detail,
        }),
    }
}
