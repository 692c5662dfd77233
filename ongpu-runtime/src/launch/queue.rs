//! Where a launch goes: the stream of the thread's current [`Stream::scope`], or the
//! legacy default stream. Element-wise calls launch through [`launch_captures`]; any other
//! kind of launch over captures (reductions, explicit kernels) can be queued the same way.
//!
//! [`Stream::scope`]: crate::Stream::scope

use crate::capture::Captures;
use crate::cuda::Device;
use crate::error::Result;
use crate::field::pending::Mark;
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
