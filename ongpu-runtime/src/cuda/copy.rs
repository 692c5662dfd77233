//! Copies of [`DeviceBuffer`]s queued on a stream (asynchronous when the host memory is
//! page-locked), and synchronous copies of a few values at an offset (one site of a
//! device-only field).

use super::buffer::DeviceBuffer;
use super::error::DriverResultExt;
use crate::error::Result;
use bytemuck::Pod;
use cudarc::driver::result;
use cudarc::driver::sys::CUstream;

impl DeviceBuffer {
    /// Queues a copy of `src` to the start of the buffer on `stream`.
    ///
    /// # Safety
    /// `src` must stay alive and unwritten until the copy has finished (wait for an event
    /// recorded after it); from pageable memory the driver stages the copy before returning.
    pub(crate) unsafe fn upload_on<S: Pod>(&mut self, src: &[S], stream: CUstream) -> Result<()> {
        let n = std::mem::size_of_val(src);
        assert!(
            n <= self.bytes(),
            "upload of {n} bytes into {}",
            self.bytes()
        );
        if n == 0 {
            return Ok(());
        }
        self.device().bind()?;
        crate::trace::step(
            || format!("queuing a copy of {n} bytes to the device"),
            || result::memcpy_htod_async(self.ptr(), src, stream),
        )
        .during("queuing a copy of a field to the device")
    }

    /// Queues a copy of the start of the buffer into `dst` on `stream`.
    ///
    /// # Safety
    /// `dst` must stay alive and unaccessed until the copy has finished (wait for an event
    /// recorded after it).
    pub(crate) unsafe fn download_on<S: Pod>(&self, dst: &mut [S], stream: CUstream) -> Result<()> {
        let n = std::mem::size_of_val(dst);
        assert!(
            n <= self.bytes(),
            "download of {n} bytes from {}",
            self.bytes()
        );
        if n == 0 {
            return Ok(());
        }
        self.device().bind()?;
        crate::trace::step(
            || format!("queuing a copy of {n} bytes to the host"),
            || result::memcpy_dtoh_async(dst, self.ptr(), stream),
        )
        .during("queuing a copy of a field to the host")
    }

    /// Queues zeroing the whole buffer on `stream`.
    pub(crate) fn zero_on(&mut self, stream: CUstream) -> Result<()> {
        if self.bytes() == 0 {
            return Ok(());
        }
        self.device().bind()?;
        // SAFETY: the whole range belongs to this buffer, which outlives queued work (owners
        // wait for it before dropping the buffer).
        unsafe { result::memset_d8_async(self.ptr(), 0, self.bytes(), stream) }
            .during("zeroing a field on the device")
    }

    /// Copies `src` to byte `offset` of the buffer (on the default stream, synchronously).
    pub(crate) fn upload_at<S: Pod>(&mut self, offset: usize, src: &[S]) -> Result<()> {
        let n = std::mem::size_of_val(src);
        assert!(
            offset.checked_add(n).is_some_and(|end| end <= self.bytes()),
            "write past the end of a buffer"
        );
        self.device().bind()?;
        // SAFETY: the destination range lies inside this buffer (checked above).
        unsafe { result::memcpy_htod_sync(self.ptr() + offset as u64, src) }
            .during("copying one site to the device")
    }

    /// Copies the bytes at `offset` into `dst` (on the default stream, synchronously).
    pub(crate) fn download_at<S: Pod>(&self, offset: usize, dst: &mut [S]) -> Result<()> {
        let n = std::mem::size_of_val(dst);
        assert!(
            offset.checked_add(n).is_some_and(|end| end <= self.bytes()),
            "read past the end of a buffer"
        );
        self.device().bind()?;
        // SAFETY: the source range lies inside this buffer (checked above).
        unsafe { result::memcpy_dtoh_sync(dst, self.ptr() + offset as u64) }
            .during("copying one site to the host")
    }
}
