//! Where a launch goes: the stream of the thread's current [`Stream::scope`], the thread's
//! side stream, or the legacy default stream ([`Target`], for every kind of launch), and the
//! launch itself, or its recording or check in a graph ([`launch_kernel`]).
//!
//! [`Stream::scope`]: crate::Stream::scope

use crate::capture::DeviceFacet;
use crate::cuda::stream::Queue;
use crate::cuda::stream::StreamHandle as CUstream;
use crate::cuda::{Device, Function, ParamList, Shape};
use crate::error::{Error, Location, Result};
use crate::field::pending::Mark;
use crate::graph_pass::{self, Mode};
use std::cell::{Cell, RefCell};
use std::ops::Range;
use std::thread::LocalKey;

thread_local! {
    /// The stream this thread's launches go to instead of the default stream while
    /// [`on_side_stream`] runs (null: none).
    static SIDE: Cell<CUstream> = const { Cell::new(std::ptr::null_mut()) };
    /// Per device ordinal, the event that orders one stream after another's queued work.
    static JOIN: RefCell<Vec<(usize, crate::cuda::peer::DeviceEvent)>> =
        const { RefCell::new(Vec::new()) };
    /// True while [`without_wave_cap`] runs.
    static UNCAPPED: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with this thread's element-wise launches untuned and given one thread per site:
/// a rank's interior beside its exchange. A grid of whole waves of resident blocks (the
/// default of light kernels, and a shape the tuner may choose for any kernel, timed alone)
/// keeps every block resident until the interior's end, so the unpack and boundary kernels
/// of the halo stream, however urgent, would run after it; with one thread per site the
/// blocks retire as the interior runs and those kernels take their place (four H200s,
/// 32^4 per GPU: the exchange not hidden 13.6 -> 7.6 us a call with `ONGPU_WAVES=0`,
/// which runs every launch so; BENCHMARKS.md). Element-wise launches only: a reduction's
/// grid is sized by its partials.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) fn without_wave_cap<R>(f: impl FnOnce() -> R) -> R {
    with_set(&UNCAPPED, true, f)
}

/// Runs `f` with this thread's `key` set to `value`, and its previous value back after
/// (also when `f` panics).
fn with_set<T: Copy + 'static, R>(
    key: &'static LocalKey<Cell<T>>,
    value: T,
    f: impl FnOnce() -> R,
) -> R {
    struct Restore<T: Copy + 'static>(&'static LocalKey<Cell<T>>, T);
    impl<T: Copy + 'static> Drop for Restore<T> {
        fn drop(&mut self) {
            self.0.with(|c| c.set(self.1));
        }
    }
    let _restore = Restore(key, key.with(|c| c.replace(value)));
    f()
}

/// True while [`without_wave_cap`] runs on this thread.
pub(crate) fn wave_cap_lifted() -> bool {
    UNCAPPED.with(Cell::get)
}

/// Runs `f` with this thread's launches outside stream scopes going to `side`, a
/// non-blocking stream of the current device: a split lattice's boundary kernels run there
/// beside its interior. The caller orders `side` after the default stream's earlier work
/// with the fields already prepared ([`order_after`]), and joins it back ([`join_side`])
/// before later default-stream work relies on what the kernels wrote.
pub(crate) fn on_side_stream<R>(side: CUstream, f: impl FnOnce() -> R) -> R {
    with_set(&SIDE, side, f)
}

/// The stream this thread's launches outside stream scopes go to: the side stream while
/// [`on_side_stream`] runs, else null (the default stream). A rank lattice's face kernels
/// and copies follow it too.
pub(crate) fn side_stream() -> CUstream {
    SIDE.with(Cell::get)
}

/// Makes later work on `to` wait for the work queued so far on `from` (streams of `dev`;
/// null is the default stream), through this thread's event for `dev`.
pub(crate) fn order_after(dev: &'static Device, from: CUstream, to: CUstream) -> Result<()> {
    JOIN.with(|j| {
        let mut j = j.borrow_mut();
        let ordinal = dev.info().ordinal;
        let k = match j.iter().position(|(o, _)| *o == ordinal) {
            Some(k) => k,
            None => {
                j.push((ordinal, crate::cuda::peer::DeviceEvent::new(dev)?));
                j.len() - 1
            }
        };
        let event = &j[k].1;
        event.record_on(from)?;
        event.wait_on(dev, to)
    })
}

/// Makes the default stream of `dev` wait for the work queued on `side`.
pub(crate) fn join_side(dev: &'static Device, side: CUstream) -> Result<()> {
    order_after(dev, side, std::ptr::null_mut())
}

/// Where one launch goes, decided in one place for every kind of launch (element-wise
/// calls, reductions, explicit kernels): a graph's capture or the default stream, the
/// thread's side stream (a split lattice's boundary), or the current stream scope's stream.
///
/// Outside a stream scope this is the default path: copies are synchronous, the kernel goes
/// to the default stream, and nothing is recorded but a flag per field (no event). Inside a
/// scope, copies are queued on the stream after the work of other streams on the same
/// fields, and one event recorded after the kernel marks every field it touched
/// ([`finish`](Target::finish)).
#[must_use = "a launch's target is finished after the launch"]
pub(crate) struct Target {
    stream: CUstream,
    queue: Option<Queue>,
}

impl Target {
    /// The target of a launch over `sites` on `dev`, with the device copies of `args` made
    /// ready for it.
    #[inline]
    pub(crate) fn prepare<A: DeviceFacet + ?Sized>(
        dev: &'static Device,
        sites: &Range<usize>,
        args: &mut A,
    ) -> Result<Target> {
        let plain = |stream: CUstream, args: &mut A| {
            args.device_prepare(dev, sites)?;
            Ok(Target {
                stream,
                queue: None,
            })
        };
        if graph_pass::mode().is_some() {
            // A graph runs on the default stream: its calls prepare and mark their fields as
            // calls there do (copies happen now, before the graph is launched), and the
            // launch itself goes through `launch_kernel`, which records or checks it.
            return plain(std::ptr::null_mut(), args);
        }
        let side = SIDE.with(Cell::get);
        if !side.is_null() {
            return plain(side, args);
        }
        match crate::stream::current_queue(dev)? {
            None => plain(std::ptr::null_mut(), args),
            Some(q) => {
                args.device_prepare_on(dev, sites, q)?;
                Ok(Target {
                    stream: q.raw(),
                    queue: Some(q),
                })
            }
        }
    }

    /// The stream to launch on.
    #[inline(always)]
    pub(crate) fn stream(&self) -> CUstream {
        self.stream
    }

    /// The stream scope's queue, if the launch goes to one.
    #[inline(always)]
    pub(crate) fn queue(&self) -> Option<Queue> {
        self.queue
    }

    /// After the launch: inside a stream scope, the event that marks the kernel's accesses
    /// on the fields of `args` (returned, for other buffers the launch used).
    #[inline]
    pub(crate) fn finish<A: DeviceFacet + ?Sized>(self, args: &mut A) -> Result<Option<Mark>> {
        let Some(q) = self.queue else {
            return Ok(None);
        };
        let mark = Mark::now(q)?;
        args.mark_queued(&mark);
        Ok(Some(mark))
    }
}

/// Launches `f` on `stream`, or, inside a graph's closure, captures the launch into the
/// graph (recording) or checks that it is the launch recorded at this place (replaying).
///
/// # Safety
/// As [`crate::cuda::launch_bound_on`]: the parameters match the kernel, every address
/// among them stays valid while the kernel (or the graph holding it) may run, and the
/// device's context is bound.
pub(crate) unsafe fn launch_kernel(
    stream: CUstream,
    f: Function,
    shape: Shape,
    params: &mut ParamList<'_>,
    at: Location,
    what: impl FnOnce() -> String,
) -> Result<()> {
    let Some(mode) = graph_pass::mode() else {
        return crate::cuda::launch_bound_on(stream, f, shape, params, what);
    };
    let print = params.fingerprint(f, shape);
    match mode {
        Mode::Recording => {
            let capture = graph_pass::with(|p| {
                let p = p.expect("a pass is running");
                p.launches.push((print, at));
                p.stream
            });
            crate::cuda::launch_bound_on(capture, f, shape, params, what)
        }
        Mode::Replaying => graph_pass::with(|p| {
            let p = p.expect("a pass is running");
            let k = p.checked;
            p.checked += 1;
            match p.launches.get(k) {
                Some(&(recorded, _)) if recorded == print => Ok(()),
                Some(&(_, recorded_at)) => Err(Error::Graph(format!(
                    "{at}: launch {} of the graph differs from its recording (made at \
                     {recorded_at}): a field it uses was freed, resized or replaced (its \
                     device memory moved), or a value captured by value changed. Capture \
                     changing values as a DeviceScalar, or record a new Graph",
                    k + 1
                ))),
                None => Err(Error::Graph(format!(
                    "{at}: the graph's closure makes more launches than were recorded ({}); \
                     a graph replays one fixed sequence of calls: record a new Graph",
                    p.launches.len()
                ))),
            }
        }),
    }
}
