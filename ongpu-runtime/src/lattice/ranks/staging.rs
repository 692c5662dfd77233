//! The buffers a call's halo exchange sends from and receives into, kept between calls:
//! on the GPU a device buffer the face kernels pack into and unpack from, and page-locked
//! host memory that the copy engines fill from it and empty into it (asynchronous copies on
//! the face stream) and MPI sends and receives as host memory: the staging an MPI
//! without CUDA support needs. Between the ranks of one node the faces stay on the GPUs:
//! packed into device memory exported through CUDA IPC and unpacked straight from the
//! neighbour's (`node_peers`). NCCL sends and receives device buffers directly. On the CPU
//! ordinary vectors.

use crate::capture::{FaceBuffer, FaceBuffers};
use crate::error::Result;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// Where a buffer's bytes live.
enum Memory {
    Host(Vec<u8>),
    #[cfg(feature = "cuda")]
    Staged {
        host: crate::cuda::HostBuffer,
        device: crate::cuda::DeviceBuffer,
    },
    /// Device memory the neighbour ranks of this node open (a face sent through IPC), with
    /// the id that tells them when it has been replaced.
    #[cfg(feature = "cuda")]
    Exported {
        buffer: crate::cuda::ipc::ExportedBuffer,
        id: u64,
    },
    /// A neighbour rank's exported buffer, opened in this process (a face received
    /// through IPC).
    #[cfg(feature = "cuda")]
    Peer(u64),
    /// Device memory alone (a face NCCL sends or receives).
    #[cfg(feature = "cuda")]
    Device(crate::cuda::DeviceBuffer),
}

/// The kind of buffers a round's faces use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FaceMemory {
    /// Vectors (the CPU backend).
    Host,
    /// Device buffers staged through page-locked host memory (MPI carries the bytes).
    #[cfg(feature = "cuda")]
    Staged,
    /// Device buffers exported through CUDA IPC (MPI carries descriptors).
    #[cfg(feature = "cuda")]
    Exported,
    /// Device buffers NCCL sends from and receives into.
    #[cfg(feature = "cuda")]
    Device,
}

/// One face's buffer: at least `len` bytes, of which the first `len` are the face.
pub(crate) struct Slot {
    memory: Memory,
    len: usize,
}

impl Slot {
    /// The face's length in bytes.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The face's bytes in host memory (host and staged faces).
    pub(crate) fn bytes(&self) -> &[u8] {
        match &self.memory {
            Memory::Host(v) => &v[..self.len],
            #[cfg(feature = "cuda")]
            Memory::Staged { host, .. } => &host.as_slice::<u8>()[..self.len],
            #[cfg(feature = "cuda")]
            Memory::Exported { .. } | Memory::Peer(_) | Memory::Device(_) => {
                unreachable!("faces exchanged through IPC or NCCL stay in device memory")
            }
        }
    }

    /// The face's bytes, to fill (host and staged faces).
    pub(crate) fn bytes_mut(&mut self) -> &mut [u8] {
        match &mut self.memory {
            Memory::Host(v) => &mut v[..self.len],
            #[cfg(feature = "cuda")]
            Memory::Staged { host, .. } => &mut host.as_mut_slice::<u8>()[..self.len],
            #[cfg(feature = "cuda")]
            Memory::Exported { .. } | Memory::Peer(_) | Memory::Device(_) => {
                unreachable!("faces exchanged through IPC or NCCL stay in device memory")
            }
        }
    }

    /// The device address of the face's device buffer (the face kernels' side).
    #[cfg(feature = "cuda")]
    pub(crate) fn device_ptr(&self) -> Option<u64> {
        match &self.memory {
            Memory::Host(_) => None,
            Memory::Staged { device, .. } => Some(device.ptr()),
            Memory::Exported { buffer, .. } => Some(buffer.ptr()),
            Memory::Peer(ptr) => Some(*ptr),
            Memory::Device(buffer) => Some(buffer.ptr()),
        }
    }

    /// A face of `len` bytes in a neighbour's exported buffer, opened at `ptr`.
    #[cfg(feature = "cuda")]
    pub(crate) fn peer(ptr: u64, len: usize) -> Slot {
        Slot {
            memory: Memory::Peer(ptr),
            len,
        }
    }

    /// The exported buffer's id and IPC handle (faces sent through IPC).
    #[cfg(feature = "cuda")]
    pub(crate) fn exported(&self) -> Option<(u64, crate::cuda::ipc::Handle)> {
        match &self.memory {
            Memory::Exported { buffer, id } => Some((*id, buffer.handle())),
            _ => None,
        }
    }

    /// Queues the copy of the face from its device buffer to its host memory (after the
    /// pack kernel, on the face kernels' stream: `face_kernels::queue`).
    ///
    /// # Safety
    /// Nothing reads the host memory until that stream has been waited for.
    #[cfg(feature = "cuda")]
    pub(crate) unsafe fn queue_to_host(&mut self) -> Result<()> {
        let len = self.len;
        if let Memory::Staged { host, device } = &mut self.memory {
            let stream = crate::launch::queue::side_stream();
            device.download_on(&mut host.as_mut_slice::<u8>()[..len], stream)?;
        }
        Ok(())
    }

    /// Queues the copy of the face from its host memory to its device buffer (before the
    /// unpack kernel, on the face kernels' stream).
    ///
    /// # Safety
    /// Nothing writes the host memory until that stream has been waited for.
    #[cfg(feature = "cuda")]
    pub(crate) unsafe fn queue_to_device(&mut self) -> Result<()> {
        let len = self.len;
        if let Memory::Staged { host, device } = &mut self.memory {
            let stream = crate::launch::queue::side_stream();
            device.upload_on(&host.as_slice::<u8>()[..len], stream)?;
        }
        Ok(())
    }

    fn capacity(&self) -> usize {
        match &self.memory {
            Memory::Host(v) => v.len(),
            #[cfg(feature = "cuda")]
            Memory::Staged { host, .. } => host.bytes(),
            #[cfg(feature = "cuda")]
            Memory::Exported { buffer, .. } => buffer.bytes(),
            #[cfg(feature = "cuda")]
            Memory::Peer(_) => self.len,
            #[cfg(feature = "cuda")]
            Memory::Device(buffer) => buffer.bytes(),
        }
    }

    fn is_exported(&self) -> bool {
        #[cfg(feature = "cuda")]
        if let Memory::Exported { .. } = self.memory {
            return true;
        }
        false
    }

    fn kind(&self) -> Option<FaceMemory> {
        match &self.memory {
            Memory::Host(_) => Some(FaceMemory::Host),
            #[cfg(feature = "cuda")]
            Memory::Staged { .. } => Some(FaceMemory::Staged),
            #[cfg(feature = "cuda")]
            Memory::Exported { .. } => Some(FaceMemory::Exported),
            #[cfg(feature = "cuda")]
            Memory::Peer(_) => None,
            #[cfg(feature = "cuda")]
            Memory::Device(_) => Some(FaceMemory::Device),
        }
    }
}

/// A list of faces, filled in order during one exchange round.
pub(crate) struct Faces {
    slots: Vec<Slot>,
    used: usize,
    /// The kind of buffer the round takes.
    kind: FaceMemory,
    /// Exported buffers replaced by larger ones, kept alive.
    retired: Vec<Slot>,
}

impl Faces {
    pub(crate) const fn new() -> Self {
        Faces {
            slots: Vec::new(),
            used: 0,
            kind: FaceMemory::Host,
            retired: Vec::new(),
        }
    }

    /// The next face's buffer, of `len` bytes (its contents are unspecified until written).
    pub(crate) fn take(&mut self, len: usize) -> Result<&mut Slot> {
        let k = self.used;
        let fits = self
            .slots
            .get(k)
            .is_some_and(|s| s.capacity() >= len && s.kind() == Some(self.kind));
        if !fits {
            let slot = Slot {
                memory: self.alloc(len)?,
                len,
            };
            if k < self.slots.len() {
                let old = std::mem::replace(&mut self.slots[k], slot);
                if old.is_exported() {
                    // The neighbours keep exported buffers mapped: freed, its address could
                    // go to a new buffer while their mapping of it stands (which the driver
                    // refuses). Faces grow by powers of two, so the kept ones at most double
                    // the memory.
                    self.retired.push(old);
                }
            } else {
                self.slots.push(slot);
            }
        }
        self.used += 1;
        let slot = &mut self.slots[k];
        slot.len = len;
        Ok(slot)
    }

    /// The faces taken since the last [`clear`](Self::clear), in order.
    pub(crate) fn taken(&self) -> &[Slot] {
        &self.slots[..self.used]
    }

    /// The faces taken, to fill.
    pub(crate) fn taken_mut(&mut self) -> &mut [Slot] {
        &mut self.slots[..self.used]
    }

    /// Starts a round: no face taken, buffers of `kind`.
    pub(crate) fn clear(&mut self, kind: FaceMemory) {
        self.used = 0;
        self.kind = kind;
    }

    fn alloc(&self, len: usize) -> Result<Memory> {
        #[cfg(feature = "cuda")]
        if self.kind != FaceMemory::Host {
            let dev = crate::cuda::device()?;
            // Rounded up, so that slightly larger faces later reuse the buffers.
            let bytes = len.next_power_of_two().max(4096);
            if self.kind == FaceMemory::Exported {
                static IDS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
                let what = "the exported buffer of a halo face";
                return Ok(Memory::Exported {
                    buffer: crate::cuda::ipc::ExportedBuffer::alloc(dev, bytes, what)?,
                    id: IDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
                });
            }
            if self.kind == FaceMemory::Device {
                let what = "the device buffer of a halo face";
                return Ok(Memory::Device(crate::cuda::DeviceBuffer::alloc(
                    dev, bytes, what,
                )?));
            }
            let what = "the staging buffer of a halo face";
            return Ok(Memory::Staged {
                host: crate::cuda::HostBuffer::alloc(dev, bytes, false, what)?,
                device: crate::cuda::DeviceBuffer::alloc(dev, bytes, what)?,
            });
        }
        Ok(Memory::Host(vec![0u8; len]))
    }
}

/// The faces a rank sends and those it receives, for the neighbour below and the one above
/// (each side has its own buffers, as each may have its own transport).
pub(crate) struct Staging {
    pub send: [Faces; 2],
    pub recv: [Faces; 2],
}

/// The process's staging buffers, held by one call at a time. The buffers are only reused
/// after the device has finished with them: a round's sends complete before the round ends,
/// and a round's receives are refilled only after the next round's packing is waited for,
/// which is queued after the unpacking of the previous one.
pub(crate) fn staging() -> MutexGuard<'static, Staging> {
    static STAGING: Mutex<Staging> = Mutex::new(Staging {
        send: [Faces::new(), Faces::new()],
        recv: [Faces::new(), Faces::new()],
    });
    STAGING.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The face kernels and host copies of a shifted rank field's argument pack into and unpack
/// from a slot without knowing how it travels.
impl FaceBuffer for Slot {
    fn bytes(&self) -> &[u8] {
        Slot::bytes(self)
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        Slot::bytes_mut(self)
    }

    #[cfg(feature = "cuda")]
    fn device_ptr(&self) -> Option<u64> {
        Slot::device_ptr(self)
    }

    #[cfg(feature = "cuda")]
    unsafe fn queue_to_host(&mut self) -> Result<()> {
        Slot::queue_to_host(self)
    }

    #[cfg(feature = "cuda")]
    unsafe fn queue_to_device(&mut self) -> Result<()> {
        Slot::queue_to_device(self)
    }
}

impl FaceBuffers for Faces {
    fn take(&mut self, len: usize) -> Result<&mut dyn FaceBuffer> {
        Ok(Faces::take(self, len)?)
    }

    fn take_two(&mut self, len0: usize, len1: usize) -> Result<[&mut dyn FaceBuffer; 2]> {
        Faces::take(self, len0)?;
        Faces::take(self, len1)?;
        let [a, b] = &mut self.slots[self.used - 2..self.used] else {
            unreachable!("two slots taken")
        };
        Ok([a, b])
    }
}
