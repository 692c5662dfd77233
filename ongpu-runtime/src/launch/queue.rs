//! Where a launch goes: the stream of the thread's current [`Stream::scope`], or the
//! legacy default stream. Element-wise calls launch through [`launch_captures`]; any other
//! kind of launch over captures (reductions, explicit kernels) can be queued the same way.
//!
//! [`Stream::scope`]: crate::Stream::scope

use crate::capture::Captures;
use crate::cuda::{Device, Function, ParamList, Shape};
use crate::error::{Error, Location, Result};
use crate::field::pending::Mark;
use crate::graph_pass::{self, Mode};
use cudarc::driver::sys::CUstream;
use std::ops::Range;

/// Prepares the captured fields' device copies for a kernel over `sites`, calls `launch`
/// with the captures and the stream to launch on, and records the kernel's accesses on the
/// fields.
///
/// Outside a stream scope this is the default path: copies are synchronous, the kernel goes
/// to the default stream, and nothing is recorded but a flag per field (no event). Inside a
/// scope, copies are queued on the stream after the work of other streams on the same
/// fields, and one event recorded after the kernel marks every field it touched.
#[inline]
pub(crate) fn launch_captures<C: Captures>(
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
