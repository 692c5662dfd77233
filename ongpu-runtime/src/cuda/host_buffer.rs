//! [`HostBuffer`]: page-locked host memory (`cuMemHostAlloc`), which the device's copy
//! engines read and write by DMA at the link's full speed, optionally mapped into the
//! device's address space so that kernels read and write it directly (zero-copy).

use super::device::Device;
use super::error::driver_error;
use crate::error::{Error, Result};
use bytemuck::Pod;
use cudarc::driver::{result, sys};
use std::ffi::c_void;

/// Page-locked host memory of a fixed size, zeroed when allocated and freed on drop. A
/// zero-byte buffer holds no allocation.
///
/// ```no_run
/// use ongpu_runtime::cuda::{device, HostBuffer};
/// let mut b = HostBuffer::alloc(device()?, 1 << 20, false, "a staging buffer")?;
/// b.as_mut_slice::<f32>()[0] = 1.0;
/// # Ok::<(), ongpu_runtime::Error>(())
/// ```
#[derive(Debug)]
pub struct HostBuffer {
    ptr: *mut u8,
    bytes: usize,
    /// The address kernels use, for mapped memory.
    mapped: Option<u64>,
    device: &'static Device,
}

// SAFETY: the buffer owns its memory; shared access only reads it (`&self`), writes need
// `&mut self`, as for a `Vec<u8>`.
unsafe impl Send for HostBuffer {}
// SAFETY: as above.
unsafe impl Sync for HostBuffer {}

impl HostBuffer {
    /// Allocates `bytes` bytes of page-locked host memory for `device` (portable to every
    /// context), mapped into the device's address space if `mapped`; `what` names the owner
    /// in errors. Failure is [`Error::HostAllocation`].
    pub fn alloc(device: &'static Device, bytes: usize, mapped: bool, what: &str) -> Result<Self> {
        let kind = if mapped {
            "mapped page-locked"
        } else {
            "page-locked"
        };
        let fail = |reason: String| Error::HostAllocation {
            what: what.to_string(),
            kind,
            requested: bytes,
            reason,
        };
        if mapped && !device.info().can_map_host_memory {
            return Err(fail(format!(
                "{} cannot map host memory",
                device.info().name
            )));
        }
        if bytes == 0 {
            return Ok(HostBuffer {
                ptr: std::ptr::null_mut(),
                bytes,
                mapped: mapped.then_some(0),
                device,
            });
        }
        device.bind()?;
        let mut flags = sys::CU_MEMHOSTALLOC_PORTABLE;
        if mapped {
            flags |= sys::CU_MEMHOSTALLOC_DEVICEMAP;
        }
        // SAFETY: a plain allocation; the pointer is owned by the returned value.
        let ptr = crate::trace::step(
            || format!("allocating {bytes} bytes of {kind} host memory for {what}"),
            || unsafe { result::malloc_host(bytes, flags) },
        )
        .map_err(|e| fail(describe_driver_error(&e)))?
        .cast::<u8>();
        let mut buffer = HostBuffer {
            ptr,
            bytes,
            mapped: None,
            device,
        };
        if mapped {
            let mut dptr: sys::CUdeviceptr = 0;
            // SAFETY: `ptr` was allocated above with DEVICEMAP; flags must be 0.
            let r = unsafe { sys::cuMemHostGetDevicePointer_v2(&mut dptr, ptr.cast(), 0) };
            r.result()
                .map_err(|e| fail(format!("no device address: {}", describe_driver_error(&e))))?;
            buffer.mapped = Some(dptr);
        }
        // Page-locked memory is resident already; zeroing it touches no new page.
        // SAFETY: `bytes` writable bytes at `ptr`, owned here.
        unsafe { std::ptr::write_bytes(ptr, 0, bytes) };
        Ok(buffer)
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The device address of mapped memory (kernels read and write the host memory through
    /// it), `None` if the buffer is not mapped.
    pub fn device_ptr(&self) -> Option<u64> {
        self.mapped
    }

    /// The device the memory was allocated for.
    pub(crate) fn device(&self) -> &'static Device {
        self.device
    }

    /// The contents as values of `S` (`bytes / size_of::<S>()` of them).
    pub fn as_slice<S: Pod>(&self) -> &[S] {
        if self.bytes == 0 {
            return &[];
        }
        // SAFETY: `bytes` initialised bytes (zeroed at allocation); cuMemHostAlloc returns
        // page-aligned memory, aligned for every `Pod` scalar; any bits are a valid `S`.
        unsafe {
            std::slice::from_raw_parts(self.ptr.cast::<S>(), self.bytes / std::mem::size_of::<S>())
        }
    }

    /// The contents as mutable values of `S`.
    pub fn as_mut_slice<S: Pod>(&mut self) -> &mut [S] {
        if self.bytes == 0 {
            return &mut [];
        }
        // SAFETY: as in `as_slice`; `&mut self` makes the access exclusive.
        unsafe {
            std::slice::from_raw_parts_mut(
                self.ptr.cast::<S>(),
                self.bytes / std::mem::size_of::<S>(),
            )
        }
    }
}

impl Drop for HostBuffer {
    fn drop(&mut self) {
        if !self.ptr.is_null() && self.device.bind().is_ok() {
            // SAFETY: allocated by `malloc_host` in `alloc`, freed only here. Owners wait for
            // the queued work that uses the memory before dropping it (see `field::pending`).
            let _ = unsafe { result::free_host(self.ptr.cast::<c_void>()) };
        }
    }
}

/// `NAME: description` of a driver error.
fn describe_driver_error(e: &result::DriverError) -> String {
    match driver_error("", *e) {
        Error::Driver {
            name, description, ..
        } => format!("{name}: {description}"),
        other => other.to_string(),
    }
}

/// Page-locked host memory mapped for the device, where kernels write their results.
pub(crate) struct MappedResult {
    pub(crate) host: *mut u8,
    pub(crate) device: u64,
}

impl MappedResult {
    pub(crate) fn alloc(bytes: usize) -> Result<Self> {
        use cudarc::driver::{result, sys};
        let flags = sys::CU_MEMHOSTALLOC_DEVICEMAP | sys::CU_MEMHOSTALLOC_PORTABLE;
        // SAFETY: a plain allocation, owned by the returned value.
        let host = unsafe { result::malloc_host(bytes, flags) }
            .map_err(|e| super::driver_error("allocating the result slot of reductions", e))?
            .cast::<u8>();
        let mut device = 0;
        // SAFETY: `host` was allocated above with DEVICEMAP. With unified addressing (every
        // 64-bit platform CUDA supports) the host address is also the device address, which
        // is what a context without mapped-memory support reports no address for.
        let mapped = unsafe { sys::cuMemHostGetDevicePointer_v2(&mut device, host.cast(), 0) };
        if mapped != sys::CUresult::CUDA_SUCCESS {
            device = host as u64;
        }
        Ok(MappedResult { host, device })
    }
}

impl Drop for MappedResult {
    fn drop(&mut self) {
        // SAFETY: allocated by `malloc_host` in `alloc`, freed once.
        let _ = unsafe { cudarc::driver::result::free_host(self.host.cast()) };
    }
}
