//! The device side of a field's storage: making the device copy current for a kernel queued
//! on the default stream or on a stream, the copies that takes, what the kernel's access
//! leaves for later work to wait for, and waiting for queued work before memory is freed.

use super::host_mem::HostMem;
use super::pending::Mark;
use super::sides::{Residency, Sides};
use super::storage::Storage;
use crate::cuda::stream::Queue;
use crate::cuda::{check_same_device, Device, DeviceBuffer};
use crate::element::Scalar;
use crate::error::{Error, Result};

impl<S: Scalar> Sides<S> {
    #[inline]
    fn check_device(&self, dev: &'static Device, what: &dyn Fn() -> String) -> Result<()> {
        match &self.device {
            Some(b) => check_same_device(b.device(), dev, what),
            None => Ok(()),
        }
    }

    fn device_alloc(
        &mut self,
        dev: &'static Device,
        what: &dyn Fn() -> String,
    ) -> Result<&mut DeviceBuffer> {
        self.check_usable()?;
        if self.device.is_none() {
            // Cannot overflow for a usable field (its bytes were checked when it was made).
            let bytes = self
                .scalars
                .checked_mul(std::mem::size_of::<S>())
                .ok_or_else(|| {
                    Error::InvalidArgument(format!("{}: its size overflows usize bytes", what()))
                })?;
            self.device = Some(DeviceBuffer::alloc(dev, bytes, &what())?);
        }
        Ok(self.device.as_mut().expect("allocated above"))
    }

    /// Kernels read and write this field's host memory (mapped storage).
    #[inline(always)]
    fn kernels_use_host(&self) -> bool {
        self.storage == Storage::Mapped
    }

    /// The device address of mapped host memory, allocated (zeroed) if needed.
    fn mapped_ptr(&mut self, dev: &'static Device, what: &dyn Fn() -> String) -> Result<u64> {
        if self.host.is_none() {
            self.host_alloc()?;
            self.newest = Residency::Both;
        }
        match self.host.as_ref().expect("allocated above") {
            HostMem::Locked(b, _) => {
                check_same_device(b.device(), dev, what)?;
                b.device_ptr().ok_or_else(|| not_mapped(what))
            }
            HostMem::Pageable(_) => Err(not_mapped(what)),
        }
    }

    /// Makes the device copy current for a kernel that reads it, queued on `q`, and returns
    /// the address the kernel reads. Copies this takes are queued on `q` and recorded; the
    /// kernel's own access is recorded by [`mark_kernel_read`](Sides::mark_kernel_read)
    /// once it is queued.
    pub(crate) fn device_read_on(
        &mut self,
        dev: &'static Device,
        q: Queue,
        what: &dyn Fn() -> String,
    ) -> Result<u64> {
        if self.kernels_use_host() {
            let p = self.mapped_ptr(dev, what)?;
            self.host_pending.before_read(q)?;
            return Ok(p);
        }
        self.check_device(dev, what)?;
        match self.newest {
            Residency::Device | Residency::Both => {}
            Residency::Zeros => {
                self.device_alloc(dev, what)?;
                self.device_pending.before_write(q)?;
                let buf = self.device.as_mut().expect("allocated above");
                match q {
                    Queue::Stream { raw, .. } => buf.zero_on(raw)?,
                    Queue::Default | Queue::Host => buf.zero()?,
                }
                let m = Mark::now(q)?;
                self.device_pending.after_write(&m);
                self.newest = Residency::Device;
            }
            Residency::Host => self.upload(dev, q, what)?,
        }
        self.device_pending.before_read(q)?;
        Ok(self.device.as_ref().expect("current").ptr())
    }

    /// Prepares the device copy for a kernel that writes it, queued on `q` (current first
    /// unless `overwrite_all`); afterwards it is the only current copy. The kernel's access is
    /// recorded by [`mark_kernel_write`](Sides::mark_kernel_write).
    pub(crate) fn device_write_on(
        &mut self,
        dev: &'static Device,
        q: Queue,
        overwrite_all: bool,
        what: &dyn Fn() -> String,
    ) -> Result<u64> {
        if self.kernels_use_host() {
            let p = self.mapped_ptr(dev, what)?;
            self.host_pending.before_write(q)?;
            return Ok(p);
        }
        let p = if overwrite_all {
            self.check_device(dev, what)?;
            self.device_alloc(dev, what)?.ptr()
        } else {
            self.device_read_on(dev, q, what)?
        };
        self.device_pending.before_write(q)?;
        self.newest = Residency::Device;
        Ok(p)
    }

    /// Records a kernel's read, queued with mark `m`.
    #[inline]
    pub(crate) fn mark_kernel_read(&mut self, m: &Mark) {
        if self.kernels_use_host() {
            self.host_pending.after_read(m);
        } else {
            self.device_pending.after_read(m);
        }
    }

    /// Records a kernel's write, queued with mark `m`.
    #[inline]
    pub(crate) fn mark_kernel_write(&mut self, m: &Mark) {
        if self.kernels_use_host() {
            self.host_pending.after_write(m);
        } else {
            self.device_pending.after_write(m);
        }
    }

    /// Makes the device copy current for a kernel read on the default stream and returns its
    /// address (the path of every call outside a stream scope).
    #[inline]
    pub(crate) fn device_for_read(
        &mut self,
        dev: &'static Device,
        what: &dyn Fn() -> String,
    ) -> Result<u64> {
        let p = self.device_read_on(dev, Queue::Default, what)?;
        self.mark_kernel_read(&Mark::DEFAULT);
        Ok(p)
    }

    /// Prepares the device copy for a kernel write on the default stream (current unless
    /// `overwrite_all`); afterwards it is the only current copy.
    #[inline]
    pub(crate) fn device_for_write(
        &mut self,
        dev: &'static Device,
        overwrite_all: bool,
        what: &dyn Fn() -> String,
    ) -> Result<u64> {
        let p = self.device_write_on(dev, Queue::Default, overwrite_all, what)?;
        self.mark_kernel_write(&Mark::DEFAULT);
        Ok(p)
    }

    /// Copies the host copy to the device copy, queued on `q`. Device-only fields copy on the
    /// default stream, synchronously, so that their host copy can be freed right after.
    fn upload(&mut self, dev: &'static Device, q: Queue, what: &dyn Fn() -> String) -> Result<()> {
        let q = if self.storage == Storage::DeviceOnly {
            Queue::Default
        } else {
            q
        };
        self.device_alloc(dev, what)?;
        self.device_pending.before_write(q)?;
        self.host_pending.before_read(q)?;
        let host = self.host.as_ref().expect("a current host copy exists");
        let buf = self.device.as_mut().expect("allocated above");
        match q {
            // SAFETY: the host copy is neither written nor freed before the mark recorded
            // below has completed: host writes, conversions and drops wait for
            // `host_pending` first.
            Queue::Stream { raw, .. } => unsafe { buf.upload_on(host.as_slice(), raw)? },
            Queue::Default | Queue::Host => buf.upload(host.as_slice())?,
        }
        let bytes = std::mem::size_of_val(host.as_slice()) as u64;
        let m = Mark::now(q)?;
        self.device_pending.after_write(&m);
        if matches!(q, Queue::Stream { .. }) {
            // A synchronous copy has finished reading the host copy when it returns.
            self.host_pending.after_read(&m);
        }
        self.transfers.uploads += 1;
        self.transfers.bytes_up += bytes;
        self.newest = Residency::Both;
        Ok(())
    }

    /// Uploads the current host copy now, on the default stream.
    pub(crate) fn upload_now(
        &mut self,
        dev: &'static Device,
        what: &dyn Fn() -> String,
    ) -> Result<()> {
        self.upload(dev, Queue::Default, what)
    }

    /// Frees the host copy of a device-only field whose device copy is current. Call only
    /// with exclusive access to the field (a shared user may be reading the host copy).
    pub(crate) fn release_host_if_device_only(&mut self) -> Result<()> {
        if self.storage != Storage::DeviceOnly
            || self.host.is_none()
            || self.device.is_none()
            || !self.newest.device_is_current()
        {
            return Ok(());
        }
        self.host_pending.before_write(Queue::Host)?;
        self.host = None;
        self.newest = Residency::Device;
        Ok(())
    }

    /// Queues a copy of the host copy to the device on stream `q`, if the device copy is
    /// stale (for [`Field::upload_async`](crate::Field::upload_async)).
    pub(crate) fn upload_queued(
        &mut self,
        dev: &'static Device,
        q: Queue,
        what: &dyn Fn() -> String,
    ) -> Result<()> {
        if self.kernels_use_host() || self.newest != Residency::Host {
            return Ok(());
        }
        self.check_device(dev, what)?;
        self.upload(dev, q, what)
    }

    /// Queues a copy of the device copy to the host on stream `q`, if the host copy is stale
    /// (for [`Field::download_async`](crate::Field::download_async)).
    pub(crate) fn download_queued(
        &mut self,
        dev: &'static Device,
        q: Queue,
        what: &dyn Fn() -> String,
    ) -> Result<()> {
        if self.newest != Residency::Device {
            return Ok(());
        }
        if self.storage == Storage::DeviceOnly {
            return Err(Error::InvalidArgument(format!(
                "download_async of {}: a device-only field keeps no host copy; read it with \
                 to_vec or get, or give it Pinned storage to download it on a stream",
                what()
            )));
        }
        self.check_device(dev, what)?;
        self.host_alloc()?;
        self.host_pending.before_write(q)?;
        self.device_pending.before_read(q)?;
        let host = self.host.as_mut().expect("allocated above");
        let buf = self.device.as_ref().expect("a current device copy exists");
        // SAFETY: the host copy is neither read, written nor freed before the mark recorded
        // below has completed: every host access, conversion and drop waits for
        // `host_pending` first.
        unsafe { buf.download_on(host.as_mut_slice(), q.raw())? };
        let bytes = std::mem::size_of_val(host.as_slice()) as u64;
        let m = Mark::now(q)?;
        self.host_pending.after_write(&m);
        self.device_pending.after_read(&m);
        self.transfers.downloads += 1;
        self.transfers.bytes_down += bytes;
        self.newest = Residency::Both;
        Ok(())
    }

    /// True when a host read must go to the device: a device-only field whose only current
    /// copy is there.
    #[inline]
    pub(crate) fn reads_through_device(&self) -> bool {
        self.storage == Storage::DeviceOnly && self.newest == Residency::Device
    }

    /// Copies `out.len()` values from storage index `first` of the device copy.
    pub(crate) fn read_device_values(&mut self, first: usize, out: &mut [S]) -> Result<()> {
        crate::graph_pass::forbid_host(&|| "a host read of a device-only field".to_string())?;
        self.device_pending.before_read(Queue::Default)?;
        let buf = self.device.as_ref().expect("a current device copy exists");
        buf.download_at(first * std::mem::size_of::<S>(), out)
    }

    /// Copies `out.len()` values from storage index `first` of whichever copy is current
    /// (the host's where both are), synchronously: a halo read by a part on the host.
    pub(crate) fn read_current_values(&mut self, first: usize, out: &mut [S]) -> Result<()> {
        if self.newest == Residency::Device {
            return self.read_device_values(first, out);
        }
        let host = self.host_for_read()?;
        out.copy_from_slice(&host[first..first + out.len()]);
        Ok(())
    }

    /// Writes `values` at storage index `first` of every current copy, synchronously, so
    /// that the same copies stay current: a halo written from a part on the host.
    pub(crate) fn write_current_values(&mut self, first: usize, values: &[S]) -> Result<()> {
        let range = first..first + values.len();
        match self.newest {
            Residency::Device => self.write_device_values(first, values),
            Residency::Both => {
                self.write_device_values(first, values)?;
                self.host_pending.before_write(Queue::Host)?;
                self.host_slice_mut()[range].copy_from_slice(values);
                Ok(())
            }
            Residency::Host | Residency::Zeros => {
                self.host_for_write(false)?[range].copy_from_slice(values);
                Ok(())
            }
        }
    }

    /// Writes `values` at storage index `first` of the device copy.
    pub(crate) fn write_device_values(&mut self, first: usize, values: &[S]) -> Result<()> {
        crate::graph_pass::forbid_host(&|| "a host write of a device-only field".to_string())?;
        self.device_pending.before_write(Queue::Default)?;
        let buf = self.device.as_mut().expect("a current device copy exists");
        buf.upload_at(first * std::mem::size_of::<S>(), values)?;
        self.device_pending.after_write(&Mark::DEFAULT);
        Ok(())
    }
}

fn not_mapped(what: &dyn Fn() -> String) -> Error {
    Error::InvalidArgument(format!(
        "{} has mapped storage but its host memory is not mapped for the device",
        what()
    ))
}

impl<S: Scalar> Drop for Sides<S> {
    fn drop(&mut self) {
        if self.host_pending.is_idle() && !self.device_pending.has_stream_work() {
            return; // freeing device memory waits for the default stream's work itself
        }
        let waited = self
            .host_pending
            .before_write(Queue::Host)
            .and_then(|()| self.device_pending.wait_streams_on_host());
        if waited.is_err() {
            // The queued work could not be waited for (the context has failed): leak the
            // memory rather than free it under work that may still use it.
            std::mem::forget(self.host.take());
            std::mem::forget(self.device.take());
        }
    }
}
