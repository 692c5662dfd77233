//! Where a launch goes: the stream of the thread's current [`Stream::scope`], or the
//! legacy default stream. Element-wise calls launch through [`launch_captures`]; any other
//! kind of launch over captures (reductions, explicit kernels) can be queued the same way.
//!
//! [`Stream::scope`]: crate::Stream::scope

use crate::capture::CaptureArg;
use crate::cuda::{Device, Function, ParamList, Shape};
use crate::error::{Error, Location, Result};
use crate::field::pending::Mark;
use crate::graph_pass::{self, Mode};
use cudarc::driver::sys::CUstream;
use std::cell::{Cell, RefCell};
use std::ops::Range;

thread_local! {
    /// The stream this thread's launches go to instead of the default stream while
    /// [`on_side_stream`] runs (null: none).
    static SIDE: Cell<CUstream> = const { Cell::new(std::ptr::null_mut()) };
    /// Per device ordinal, the event that orders one stream after another's queued work.
    static JOIN: RefCell<Vec<(usize, crate::cuda::peer::DeviceEvent)>> =
        const { RefCell::new(Vec::new()) };
}

/// Runs `f` with this thread's launches outside stream scopes going to `side`, a
/// non-blocking stream of the current device: a split lattice's boundary kernels run there
/// beside its interior. The caller orders `side` after the default stream's earlier work
/// with the fields already prepared ([`order_after`]), and joins it back ([`join_side`])
/// before later default-stream work relies on what the kernels wrote.
pub(crate) fn on_side_stream<R>(side: CUstream, f: impl FnOnce() -> R) -> R {
    struct Restore(CUstream);
    impl Drop for Restore {
        fn drop(&mut self) {
            SIDE.with(|s| s.set(self.0));
        }
    }
    let _restore = Restore(SIDE.with(|s| s.replace(side)));
    f()
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

/// Prepares the captured fields' device copies for a kernel over `sites`, calls `launch`
/// with the captures and the stream to launch on, and records the kernel's accesses on the
/// fields.
///
/// Outside a stream scope this is the default path: copies are synchronous, the kernel goes
/// to the default stream, and nothing is recorded but a flag per field (no event). Inside a
/// scope, copies are queued on the stream after the work of other streams on the same
/// fields, and one event recorded after the kernel marks every field it touched.
#[inline]
pub(crate) fn launch_captures<C: CaptureArg>(
    dev: &'static Device,
    sites: &Range<usize>,
    caps: &mut C,
    launch: impl FnOnce(&C, CUstream) -> Result<()>,
) -> Result<()> {
    if graph_pass::mode().is_some() {
        // A graph runs on the default stream: its calls prepare and mark their fields as
        // calls there do (copies happen now, before the graph is launched), and the launch
        // itself goes through `launch_kernel`, which records or checks it.
        caps.device_prepare(dev, sites)?;
        return launch(caps, std::ptr::null_mut());
    }
    let side = SIDE.with(Cell::get);
    if !side.is_null() {
        caps.device_prepare(dev, sites)?;
        return launch(caps, side);
    }
    match crate::stream::current_queue(dev)? {
        None => {
            caps.device_prepare(dev, sites)?;
            launch(caps, std::ptr::null_mut())
        }
        Some(q) => {
            caps.device_prepare_on(dev, sites, q)?;
            launch(caps, q.raw())?;
            let mark = Mark::now(q)?;
            caps.mark_queued(&mark);
            Ok(())
        }
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
