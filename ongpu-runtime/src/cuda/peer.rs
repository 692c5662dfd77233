//! Copies between devices and the events that order them: what a split lattice's halo
//! exchange needs across GPUs (peer access enabled once per pair of devices, so copies go
//! over NVLink or PCIe directly).

use super::device::Device;
use super::error::DriverResultExt;
use super::stream::RawStream;
use crate::error::Result;
use cudarc::driver::result::{event, stream};
use cudarc::driver::sys::{self, CUevent, CUevent_flags, CUevent_wait_flags, CUstream};
use std::sync::Mutex;

/// An event of one device's context, recorded again at each use.
#[derive(Debug)]
pub(crate) struct DeviceEvent {
    raw: CUevent,
    dev: &'static Device,
}

// SAFETY: the handle is used only with its context bound (each method binds it).
unsafe impl Send for DeviceEvent {}
// SAFETY: as above.
unsafe impl Sync for DeviceEvent {}

impl DeviceEvent {
    /// A new event of `dev`.
    pub(crate) fn new(dev: &'static Device) -> Result<Self> {
        dev.bind()?;
        let raw = event::create(CUevent_flags::CU_EVENT_DISABLE_TIMING)
            .during("creating an event for a halo exchange")?;
        Ok(DeviceEvent { raw, dev })
    }

    /// The device whose context the event belongs to.
    pub(crate) fn device(&self) -> &'static Device {
        self.dev
    }

    /// Records the event after the work queued so far on `on`, a stream of the event's
    /// device (null: its legacy default stream).
    pub(crate) fn record_on(&self, on: CUstream) -> Result<()> {
        self.dev.bind()?;
        // SAFETY: a live event of the bound context; a stream of the same context.
        unsafe { event::record(self.raw, on) }.during("recording an event")
    }

    /// Makes later work on stream `on` of device `dev` (bound by this call; null: its
    /// default stream) wait for the event's last recording.
    pub(crate) fn wait_on(&self, dev: &'static Device, on: CUstream) -> Result<()> {
        dev.bind()?;
        // SAFETY: a live event (of any context); a live stream of `dev`'s context.
        unsafe { stream::wait_event(on, self.raw, CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT) }
            .during("making a stream wait for an event")
    }

    /// Blocks the host until the work before the event's last recording has finished.
    pub(crate) fn synchronize(&self) -> Result<()> {
        self.dev.bind()?;
        // SAFETY: a live event.
        unsafe { event::synchronize(self.raw) }.during("waiting for an event")
    }
}

/// Device `dev`'s stream for halo copies, created at first use and kept for the process.
/// Non-blocking, so that the copies run beside the kernels on the default stream: events
/// order them where they touch the same memory. Of the highest priority, so that a split
/// lattice's boundary kernels, queued there after the copies, and a rank lattice's face
/// kernels and boundary run before the rest of the interior's blocks.
pub(crate) fn halo_stream(dev: &'static Device) -> Result<CUstream> {
    static STREAMS: Mutex<Vec<(usize, &'static RawStream)>> = Mutex::new(Vec::new());
    let ordinal = dev.info().ordinal;
    let mut streams = STREAMS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, s)) = streams.iter().find(|(o, _)| *o == ordinal) {
        return Ok(s.raw());
    }
    let s: &'static RawStream = Box::leak(Box::new(RawStream::create_urgent(dev)?));
    streams.push((ordinal, s));
    Ok(s.raw())
}

impl Drop for DeviceEvent {
    fn drop(&mut self) {
        if self.dev.bind().is_ok() {
            // SAFETY: a live event, destroyed once; work that waits on it keeps its record.
            let _ = unsafe { event::destroy(self.raw) };
        }
    }
}

/// Lets `dst`'s context read and write `src`'s memory directly (once per ordered pair;
/// where the hardware cannot, copies still work through the driver's staging).
pub(crate) fn enable_peer_access(dst: &'static Device, src: &'static Device) -> Result<()> {
    static ENABLED: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());
    let pair = (dst.info().ordinal, src.info().ordinal);
    let mut enabled = ENABLED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if pair.0 == pair.1 || enabled.contains(&pair) {
        return Ok(());
    }
    dst.bind()?;
    let mut can = 0;
    // SAFETY: plain queries and a context flag of two live contexts.
    unsafe {
        sys::cuDeviceCanAccessPeer(&mut can, pair.0 as i32, pair.1 as i32)
            .result()
            .during("asking whether two devices can access each other's memory")?;
        if can != 0 {
            match sys::cuCtxEnablePeerAccess(src.raw_context(), 0) {
                sys::CUresult::CUDA_SUCCESS
                | sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => {}
                other => other
                    .result()
                    .during("enabling peer access between devices")?,
            }
        }
    }
    enabled.push(pair);
    Ok(())
}

/// Queues a copy of `bytes` bytes from `src` (memory of `src_dev`) to `dst` (memory of
/// `dst_dev`) on `on`, a stream of `dst_dev`.
///
/// # Safety
/// Both ranges are live allocations of their devices, and the work that writes `src` or
/// reads and writes `dst` is ordered with the copy (same stream, or events).
pub(crate) unsafe fn copy_on(
    on: CUstream,
    dst_dev: &'static Device,
    dst: u64,
    src_dev: &'static Device,
    src: u64,
    bytes: usize,
) -> Result<()> {
    dst_dev.bind()?;
    if std::ptr::eq(dst_dev, src_dev) {
        cudarc::driver::result::memcpy_dtod_async(dst, src, bytes, on).during("queuing a halo copy")
    } else {
        cudarc::driver::result::memcpy_peer_async(
            dst_dev.raw_context(),
            dst,
            src_dev.raw_context(),
            src,
            bytes,
            on,
        )
        .during("queuing a halo copy between devices")
    }
}
