//! [`DeviceBuffer`]: an owned allocation of device memory (the safe layer over
//! `cuMemAlloc`/`cuMemFree` and the synchronous copies).

use super::device::Device;
use super::error::{driver_error, is_out_of_memory, DriverResultExt};
use crate::error::{Error, Result};
use bytemuck::Pod;
use cudarc::driver::result;
use cudarc::driver::sys::CUdeviceptr;

/// Device memory of a fixed size, freed on drop. A zero-byte buffer holds no allocation.
#[derive(Debug)]
pub struct DeviceBuffer {
    ptr: CUdeviceptr,
    bytes: usize,
    device: &'static Device,
}

impl DeviceBuffer {
    /// Allocates `bytes` bytes (uninitialised) on `device`; `what` names the owner in errors.
    pub fn alloc(device: &'static Device, bytes: usize, what: &str) -> Result<Self> {
        if bytes == 0 {
            return Ok(DeviceBuffer {
                ptr: 0,
                bytes,
                device,
            });
        }
        device.bind()?;
        // SAFETY: a plain allocation; the pointer is owned by the returned value.
        let allocated = crate::trace::step(
            || format!("allocating {bytes} bytes for {what}"),
            || unsafe { result::malloc_sync(bytes) },
        );
        match allocated {
            Ok(ptr) => Ok(DeviceBuffer { ptr, bytes, device }),
            Err(e) if is_out_of_memory(&e) => {
                let (free, total) = device.memory().unwrap_or((0, 0));
                Err(Error::OutOfDeviceMemory {
                    what: what.to_string(),
                    requested: bytes,
                    free,
                    total,
                })
            }
            Err(e) => Err(driver_error(
                format!("allocating {bytes} bytes for {what}"),
                e,
            )),
        }
    }

    /// The device address (0 for an empty buffer).
    #[inline(always)]
    pub fn ptr(&self) -> CUdeviceptr {
        self.ptr
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The device the memory belongs to.
    #[inline(always)]
    pub(crate) fn device(&self) -> &'static Device {
        self.device
    }

    /// Copies `src` to the start of the buffer; waits until the host data may be reused.
    pub fn upload<S: Pod>(&mut self, src: &[S]) -> Result<()> {
        let n = std::mem::size_of_val(src);
        assert!(
            n <= self.bytes,
            "upload of {n} bytes into a buffer of {}",
            self.bytes
        );
        if n == 0 {
            return Ok(());
        }
        self.device.bind()?;
        // SAFETY: the destination holds at least `n` bytes (checked above) and is owned here.
        crate::trace::step(
            || format!("copying {n} bytes to the device"),
            || unsafe { result::memcpy_htod_sync(self.ptr, src) },
        )
        .during("copying a field to the device")
    }

    /// Copies the start of the buffer into `dst`, after all work queued before it.
    pub fn download<S: Pod>(&self, dst: &mut [S]) -> Result<()> {
        let n = std::mem::size_of_val(dst);
        assert!(
            n <= self.bytes,
            "download of {n} bytes from a buffer of {}",
            self.bytes
        );
        if n == 0 {
            return Ok(());
        }
        self.device.bind()?;
        // SAFETY: the source holds at least `n` bytes (checked above).
        crate::trace::step(
            || format!("copying {n} bytes to the host"),
            || unsafe { result::memcpy_dtoh_sync(dst, self.ptr) },
        )
        .during("copying a field to the host")
    }

    /// Copies all of `src` (no larger than `self`) on the device, queued on the default
    /// stream.
    pub fn copy_from(&mut self, src: &DeviceBuffer) -> Result<()> {
        assert!(
            src.bytes <= self.bytes,
            "copy of {} bytes into a buffer of {}",
            src.bytes,
            self.bytes
        );
        if src.bytes == 0 {
            return Ok(());
        }
        self.device.bind()?;
        // SAFETY: both ranges belong to live buffers; `&mut self` and `&src` cannot overlap.
        unsafe { result::memcpy_dtod_async(self.ptr, src.ptr, src.bytes, std::ptr::null_mut()) }
            .during("copying on the device")
    }

    /// Sets every byte to zero.
    pub fn zero(&mut self) -> Result<()> {
        if self.bytes == 0 {
            return Ok(());
        }
        self.device.bind()?;
        // SAFETY: the whole range belongs to this buffer.
        unsafe { result::memset_d8_sync(self.ptr, 0, self.bytes) }
            .during("zeroing a field on the device")
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        if self.ptr != 0 && self.device.bind().is_ok() {
            // SAFETY: allocated by `alloc` and freed only here. cuMemFree waits for work that
            // may still use the memory, so no in-flight kernel loses its buffer (owners also
            // wait for stream work first: see `field::pending`).
            let _ = unsafe { result::free_sync(self.ptr) };
        }
    }
}
