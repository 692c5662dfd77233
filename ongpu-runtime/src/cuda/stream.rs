//! [`RawStream`]: a CUDA stream that does not synchronise with the legacy default stream
//! (`CU_STREAM_NON_BLOCKING`), and [`Queue`]: where one piece of work goes.
//!
//! Non-blocking, so that work queued on a stream overlaps work on other streams and is not
//! serialised behind the default stream. Ordering with the default stream, where `on_gpu!`
//! calls outside any stream go, is then ongpu's job: each field records what queued work
//! still uses it (`field::pending`) and later work waits for exactly that.

use super::device::Device;
use super::error::DriverResultExt;
use crate::error::Result;
use cudarc::driver::result::stream;
use cudarc::driver::sys::CUstream;

/// An owned non-blocking stream, destroyed on drop (the driver lets queued work finish).
#[derive(Debug)]
pub(crate) struct RawStream {
    raw: CUstream,
    device: &'static Device,
}

// SAFETY: a stream handle may be used from any thread with its context bound; ongpu binds
// before every call. Queuing work from several threads is allowed by the driver.
unsafe impl Send for RawStream {}
// SAFETY: as above.
unsafe impl Sync for RawStream {}

impl RawStream {
    /// Creates a stream on `device`.
    pub(crate) fn create(device: &'static Device) -> Result<Self> {
        device.bind()?;
        let raw = crate::trace::step(
            || "creating a stream".into(),
            || stream::create(stream::StreamKind::NonBlocking),
        )
        .during("creating a stream")?;
        Ok(RawStream { raw, device })
    }

    /// Creates a stream on `device` with the device's highest priority: its blocks are
    /// dispatched before those of streams of the default priority (the legacy default
    /// stream's) as soon as a multiprocessor frees up. A split lattice's halo copies and
    /// boundary go there, so that the boundary does not wait behind its interior's blocks.
    pub(crate) fn create_urgent(device: &'static Device) -> Result<Self> {
        use cudarc::driver::sys;
        device.bind()?;
        let mut greatest = 0;
        // SAFETY: writes one integer (the least priority is not asked for); the context is
        // bound.
        unsafe { sys::cuCtxGetStreamPriorityRange(std::ptr::null_mut(), &mut greatest) }
            .result()
            .during("reading the stream priority range")?;
        let mut raw = std::ptr::null_mut();
        crate::trace::step(
            || "creating a stream of the highest priority".into(),
            // SAFETY: writes the new stream's handle; the context is bound.
            || {
                unsafe {
                    sys::cuStreamCreateWithPriority(
                        &mut raw,
                        sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32,
                        greatest,
                    )
                }
                .result()
            },
        )
        .during("creating a stream")?;
        Ok(RawStream { raw, device })
    }

    /// The handle.
    #[inline(always)]
    pub(crate) fn raw(&self) -> CUstream {
        self.raw
    }

    /// The device the stream belongs to.
    pub(crate) fn device(&self) -> &'static Device {
        self.device
    }

    /// Blocks until all work queued on the stream has finished.
    pub(crate) fn synchronize(&self) -> Result<()> {
        self.device.bind()?;
        // SAFETY: a live stream.
        crate::trace::step(
            || "synchronizing a stream".into(),
            || unsafe { stream::synchronize(self.raw) },
        )
        .during("synchronizing a stream")
    }
}

impl Drop for RawStream {
    fn drop(&mut self) {
        if self.device.bind().is_ok() {
            // SAFETY: created in `create`, destroyed once. Work still queued completes and
            // its resources are released by the driver afterwards.
            let _ = unsafe { stream::destroy(self.raw) };
        }
    }
}

/// Where a piece of work on a field goes.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Queue {
    /// The legacy default stream: `on_gpu!` outside any stream scope, and ongpu's
    /// synchronous copies.
    Default,
    /// A stream; `id` tells streams apart (never 0).
    Stream {
        /// The [`crate::Stream`]'s id.
        id: u64,
        /// Its handle.
        raw: CUstream,
    },
    /// The calling host thread: it waits on the host and leaves nothing queued.
    Host,
}

/// The id of [`Queue::Default`].
pub(crate) const DEFAULT_QUEUE: u64 = 0;
/// The id of [`Queue::Host`].
pub(crate) const HOST_QUEUE: u64 = u64::MAX;

impl Queue {
    /// Tells queues apart.
    #[inline(always)]
    pub(crate) fn id(self) -> u64 {
        match self {
            Queue::Default => DEFAULT_QUEUE,
            Queue::Stream { id, .. } => id,
            Queue::Host => HOST_QUEUE,
        }
    }

    /// The stream handle work is queued on (null: the legacy default stream).
    #[inline(always)]
    pub(crate) fn raw(self) -> CUstream {
        match self {
            Queue::Stream { raw, .. } => raw,
            Queue::Default | Queue::Host => std::ptr::null_mut(),
        }
    }
}

/// A stream as launches pass it: null is the legacy default stream.
pub(crate) type StreamHandle = CUstream;

/// Waits for the work queued on `stream` (`what`: the error's wording).
///
/// # Safety
/// `stream` is null or a live stream of the bound context.
pub(crate) unsafe fn wait_for(stream: StreamHandle, what: impl FnOnce() -> String) -> Result<()> {
    cudarc::driver::result::stream::synchronize(stream).map_err(|e| super::driver_error(what(), e))
}

/// Queues the copy of `dst.len()` values from device address `src` to host memory on
/// `stream`, and waits for it.
///
/// # Safety
/// `src` holds that many values on the bound context's device; `stream` as in [`wait_for`].
pub(crate) unsafe fn read_on<T: bytemuck::Pod>(
    dst: &mut [T],
    src: u64,
    stream: StreamHandle,
    what: &str,
) -> Result<()> {
    cudarc::driver::result::memcpy_dtoh_async(dst, src, stream)
        .and_then(|()| cudarc::driver::result::stream::synchronize(stream))
        .map_err(|e| super::driver_error(what, e))
}

/// Queues on `stream` the zeroing of `bytes` bytes at device address `dst`.
///
/// # Safety
/// `dst` holds that many bytes on the bound context's device; `stream` as in [`wait_for`].
pub(crate) unsafe fn zero_on(
    dst: u64,
    bytes: usize,
    stream: StreamHandle,
    what: &str,
) -> Result<()> {
    cudarc::driver::result::memset_d8_async(dst, 0, bytes, stream)
        .map_err(|e| super::driver_error(what, e))
}
