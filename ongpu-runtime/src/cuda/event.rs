//! CUDA events for timing device work (benchmarks time with these, never with host clocks),
//! recorded on the default stream or, through [`crate::Stream::record`], on a stream.

use super::device::Device;
use super::error::DriverResultExt;
use crate::error::Result;
use cudarc::driver::result::event;
use cudarc::driver::sys::{CUevent, CUevent_flags, CUstream};

/// A recorded point in the default stream's work.
#[derive(Debug)]
pub struct Event {
    raw: CUevent,
    device: &'static Device,
}

// SAFETY: an event handle may be used from any thread with the context bound (ongpu binds
// before each call).
unsafe impl Send for Event {}
// SAFETY: as above; no method mutates the handle.
unsafe impl Sync for Event {}

impl Event {
    /// A new timing event.
    pub fn new() -> Result<Self> {
        let device = super::device()?;
        let raw = event::create(CUevent_flags::CU_EVENT_DEFAULT).during("creating an event")?;
        Ok(Event { raw, device })
    }

    /// Records the event after all work queued so far on the default stream.
    pub fn record(&self) -> Result<()> {
        self.device.bind()?;
        // SAFETY: a live event, the default (null) stream.
        unsafe { event::record(self.raw, std::ptr::null_mut()) }.during("recording an event")
    }

    /// Records the event after all work queued so far on `stream` (null: the default
    /// stream).
    pub(crate) fn record_on(&self, stream: CUstream) -> Result<()> {
        self.device.bind()?;
        // SAFETY: a live event and a live stream (or null) of the bound context.
        unsafe { event::record(self.raw, stream) }.during("recording an event")
    }

    /// Makes later work on `stream` wait for the work before the event.
    pub(crate) fn wait_on(&self, stream: CUstream) -> Result<()> {
        self.device.bind()?;
        // SAFETY: a live event; a live stream (or null) of the bound context.
        unsafe {
            cudarc::driver::result::stream::wait_event(
                stream,
                self.raw,
                cudarc::driver::sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
            )
        }
        .during("making a stream wait for an event")
    }

    /// True once the work before the event has finished (false while it runs).
    pub fn is_complete(&self) -> Result<bool> {
        self.device.bind()?;
        // SAFETY: a live event.
        match unsafe { event::query(self.raw) } {
            Ok(()) => Ok(true),
            Err(e) if e.0 == cudarc::driver::sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            Err(e) => Err(super::driver_error("querying an event", e)),
        }
    }

    /// Waits until the work before the event has finished.
    pub fn synchronize(&self) -> Result<()> {
        self.device.bind()?;
        // SAFETY: a live event.
        unsafe { event::synchronize(self.raw) }.during("waiting for an event")
    }

    /// Milliseconds between `self` and a later `end` (both recorded and completed).
    pub fn elapsed_ms(&self, end: &Event) -> Result<f32> {
        self.device.bind()?;
        // SAFETY: live events of the same context.
        unsafe { event::elapsed(self.raw, end.raw) }.during("reading an event's time")
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        if self.device.bind().is_ok() {
            // SAFETY: created in `new`, destroyed once.
            let _ = unsafe { event::destroy(self.raw) };
        }
    }
}

/// Runs `f` between two events and returns its result with the device time in milliseconds.
///
/// ```no_run
/// let (_, ms) = ongpu_runtime::cuda::time_device(|| Ok(()))?;
/// # Ok::<(), ongpu_runtime::Error>(())
/// ```
pub fn time_device<R>(f: impl FnOnce() -> Result<R>) -> Result<(R, f32)> {
    let (start, end) = (Event::new()?, Event::new()?);
    start.record()?;
    let r = f()?;
    end.record()?;
    end.synchronize()?;
    Ok((r, start.elapsed_ms(&end)?))
}
