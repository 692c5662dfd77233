//! CUDA IPC, the safe layer: device memory and events that another process on the node
//! opens by handle (the same GPU, or a peer GPU over NVLink or PCIe). What the halo exchange
//! of a lattice cut over ranks uses between ranks of one node: a face packed by one rank is
//! read by its neighbour's unpack kernel straight from the first rank's device memory, once
//! the neighbour's stream has waited for the first rank's event.

use super::buffer::DeviceBuffer;
use super::device::Device;
use super::error::DriverResultExt;
use crate::error::Result;
use cudarc::driver::result::{device, event, stream};
use cudarc::driver::sys::{self, CUevent, CUevent_flags, CUevent_wait_flags};

/// The bytes of an IPC handle (memory or event), as they travel between processes.
pub(crate) type Handle = [u8; 64];

fn handle_bytes(reserved: [core::ffi::c_char; 64]) -> Handle {
    reserved.map(|c| c as u8)
}

fn handle_chars(bytes: Handle) -> [core::ffi::c_char; 64] {
    bytes.map(|b| b as core::ffi::c_char)
}

/// Device memory exported for other processes.
#[derive(Debug)]
pub(crate) struct ExportedBuffer {
    buffer: DeviceBuffer,
    handle: Handle,
}

impl ExportedBuffer {
    /// Allocates `bytes` (more than 0) on `dev` and exports them.
    pub(crate) fn alloc(dev: &'static Device, bytes: usize, what: &str) -> Result<Self> {
        let buffer = DeviceBuffer::alloc(dev, bytes.max(1), what)?;
        let mut handle = sys::CUipcMemHandle_st { reserved: [0; 64] };
        // SAFETY: the base address of a live cuMemAlloc allocation of the bound context.
        unsafe { sys::cuIpcGetMemHandle(&mut handle, buffer.ptr()) }
            .result()
            .during("exporting a halo buffer to the ranks of this node (cuIpcGetMemHandle)")?;
        Ok(ExportedBuffer {
            buffer,
            handle: handle_bytes(handle.reserved),
        })
    }

    /// The device address in this process.
    pub(crate) fn ptr(&self) -> u64 {
        self.buffer.ptr()
    }

    /// Size in bytes.
    pub(crate) fn bytes(&self) -> usize {
        self.buffer.bytes()
    }

    /// The handle another process opens.
    pub(crate) fn handle(&self) -> Handle {
        self.handle
    }
}

/// An event that other processes can wait for.
#[derive(Debug)]
pub(crate) struct InterprocessEvent {
    raw: CUevent,
    dev: &'static Device,
    handle: Handle,
}

// SAFETY: the handle is used only with its context bound (each method binds it).
unsafe impl Send for InterprocessEvent {}

impl InterprocessEvent {
    /// A new event of `dev` (interprocess events keep no timing).
    pub(crate) fn new(dev: &'static Device) -> Result<Self> {
        dev.bind()?;
        let flags = CUevent_flags::CU_EVENT_DISABLE_TIMING as u32
            | CUevent_flags::CU_EVENT_INTERPROCESS as u32;
        let mut raw = std::ptr::null_mut();
        // SAFETY: creates an event of the bound context into `raw`.
        unsafe { sys::cuEventCreate(&mut raw, flags) }
            .result()
            .during("creating an interprocess event")?;
        let mut handle = sys::CUipcEventHandle_st { reserved: [0; 64] };
        // SAFETY: a live interprocess event.
        unsafe { sys::cuIpcGetEventHandle(&mut handle, raw) }
            .result()
            .during("exporting an event to the ranks of this node (cuIpcGetEventHandle)")?;
        Ok(InterprocessEvent {
            raw,
            dev,
            handle: handle_bytes(handle.reserved),
        })
    }

    /// Records the event after the work queued so far on `on` (a stream of the event's
    /// device; null: its default stream).
    pub(crate) fn record(&self, on: sys::CUstream) -> Result<()> {
        self.dev.bind()?;
        // SAFETY: a live event of the bound context; a stream of the same context.
        unsafe { event::record(self.raw, on) }.during("recording an event")
    }

    /// The handle another process opens.
    pub(crate) fn handle(&self) -> Handle {
        self.handle
    }
}

impl Drop for InterprocessEvent {
    fn drop(&mut self) {
        if self.dev.bind().is_ok() {
            // SAFETY: created in `new`, destroyed once.
            let _ = unsafe { event::destroy(self.raw) };
        }
    }
}

/// Another process's device memory, mapped into `dev`'s context (peer access enabled where
/// it is another GPU). Stays mapped until the process ends.
pub(crate) fn open_memory(dev: &'static Device, handle: Handle) -> Result<u64> {
    dev.bind()?;
    let mut ptr = 0;
    let h = sys::CUipcMemHandle_st {
        reserved: handle_chars(handle),
    };
    // SAFETY: maps the exported allocation into the bound context; the address is valid
    // until cuIpcCloseMemHandle, which is never called (the mapping lives with the process).
    unsafe {
        sys::cuIpcOpenMemHandle_v2(
            &mut ptr,
            h,
            sys::CUipcMem_flags::CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS as u32,
        )
    }
    .result()
    .during("opening a neighbour rank's halo buffer (cuIpcOpenMemHandle)")?;
    Ok(ptr)
}

/// Another process's event, opened in `dev`'s context.
#[derive(Debug)]
pub(crate) struct PeerEvent {
    raw: CUevent,
    dev: &'static Device,
}

// SAFETY: the handle is used only with its context bound (each method binds it).
unsafe impl Send for PeerEvent {}

impl PeerEvent {
    /// Opens the event of `handle`.
    pub(crate) fn open(dev: &'static Device, handle: Handle) -> Result<Self> {
        dev.bind()?;
        let mut raw = std::ptr::null_mut();
        let h = sys::CUipcEventHandle_st {
            reserved: handle_chars(handle),
        };
        // SAFETY: opens the exported event into `raw`, in the bound context.
        unsafe { sys::cuIpcOpenEventHandle(&mut raw, h) }
            .result()
            .during("opening a neighbour rank's event (cuIpcOpenEventHandle)")?;
        Ok(PeerEvent { raw, dev })
    }

    /// Makes later work on `on` (a stream of this process's device; null: its default
    /// stream) wait for the event's last recording in the other process (recorded there
    /// before this call, which its message guarantees).
    pub(crate) fn wait(&self, on: sys::CUstream) -> Result<()> {
        self.dev.bind()?;
        // SAFETY: a live event; a stream of the bound context.
        unsafe { stream::wait_event(on, self.raw, CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT) }
            .during("making a stream wait for a neighbour rank's event")
    }
}

/// The UUID of `dev`, which names the GPU the same way in every process of the node.
pub(crate) fn uuid(dev: &'static Device) -> Result<[u8; 16]> {
    let cu = device::get(dev.info().ordinal as i32).during("finding the device")?;
    uuid_of(cu)
}

/// Whether `dev` can read the memory of the GPU named `other` (the same GPU, or a peer it
/// has access to); false for a GPU this process does not see.
pub(crate) fn can_read(dev: &'static Device, other: [u8; 16]) -> Result<bool> {
    if uuid(dev)? == other {
        return Ok(true);
    }
    let mine = device::get(dev.info().ordinal as i32).during("finding the device")?;
    let count = device::get_count().during("counting the devices")?;
    for ordinal in 0..count {
        let cu = device::get(ordinal).during("finding a device")?;
        if uuid_of(cu)? == other {
            let mut access = 0;
            // SAFETY: two valid device handles.
            unsafe { sys::cuDeviceCanAccessPeer(&mut access, mine, cu) }
                .result()
                .during("asking whether two GPUs can access each other")?;
            return Ok(access == 1);
        }
    }
    Ok(false)
}

fn uuid_of(cu: sys::CUdevice) -> Result<[u8; 16]> {
    let id = device::get_uuid(cu).during("reading a device's UUID")?;
    Ok(id.bytes.map(|c| c as u8))
}
