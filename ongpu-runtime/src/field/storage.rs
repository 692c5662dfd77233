//! [`Storage`]: where a field keeps its data on the host side, chosen at construction
//! (`Field::zeros(n).pinned()?`) or changed later with [`Field::set_storage`].

use super::host_mem::HostMem;
use super::sides::{Residency, Sides};
use super::Field;
use crate::element::{Element, Scalar};
use crate::error::Result;
use crate::layout::Layout;

/// Where a [`Field`] keeps its host copy, if any.
///
/// | storage | host copy | copies to and from the device | kernels read |
/// |---|---|---|---|
/// | `Pageable` (default) | ordinary memory, allocated when first needed | staged by the driver | the device copy |
/// | `Pinned` | page-locked memory | DMA at the link's full speed; asynchronous on a [`Stream`](crate::Stream) | the device copy |
/// | `Mapped` | page-locked memory mapped for the device | none: there is no device copy | host memory, over the link |
/// | `DeviceOnly` | none while the device copy is current | host reads use a temporary | the device copy |
///
/// Without a CUDA device, `Pinned` and `Mapped` fields use ordinary memory (there is nothing
/// to copy to) and a `DeviceOnly` field keeps its data on the host (the CPU backend computes
/// there). See `docs/memory-and-streams.md`.
///
/// ```
/// use ongpu_runtime::{Field, Storage};
/// let x: Field<f32> = Field::zeros(1024).pinned()?;
/// assert_eq!(x.storage(), Storage::Pinned);
/// let y: Field<f32> = Field::from_fn(1024, |i| i as f32).device_only()?;
/// assert_eq!(y.get(7)?, 7.0);
/// # Ok::<(), ongpu_runtime::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Storage {
    /// Ordinary (pageable) host memory, allocated only when a host copy is needed.
    #[default]
    Pageable,
    /// Page-locked ("pinned") host memory: copies are DMA at full speed and can be queued
    /// on a stream without blocking the host. Page-locked memory is a limited system
    /// resource: pin what is copied often.
    Pinned,
    /// Page-locked host memory mapped into the device's address space: kernels read and
    /// write it directly over the link ("zero-copy"), and the field has no device copy. Best
    /// for data a kernel touches once.
    Mapped,
    /// No host copy while the device copy is current: host reads ([`Field::to_vec`],
    /// [`Field::get`]) copy into a temporary, [`Field::set`] writes the device copy, and a
    /// host copy made by [`Field::as_host_mut`] or the CPU backend is freed at the next
    /// write on the device (at once when the `HostMut` is dropped).
    DeviceOnly,
}

impl<T: Element, L: Layout> Field<T, L> {
    /// The field's storage option.
    pub fn storage(&self) -> Storage {
        self.lock().storage
    }

    /// True if the host copy exists and is page-locked (pinned or mapped).
    pub fn is_page_locked(&self) -> bool {
        self.lock()
            .host
            .as_ref()
            .is_some_and(HostMem::is_page_locked)
    }

    /// True if the field holds a host copy now (current or not).
    pub fn has_host_copy(&self) -> bool {
        self.lock().host.is_some()
    }

    /// Moves the field's data to `storage` (waiting first for queued work that uses it). On
    /// error (page-locked memory refused, a failed copy) the field is unchanged.
    ///
    /// ```
    /// use ongpu_runtime::{Field, Storage};
    /// let mut x: Field<f64> = Field::from_vec(vec![1.0, 2.0]);
    /// x.set_storage(Storage::Mapped)?;
    /// assert_eq!(x.to_vec()?, vec![1.0, 2.0]);
    /// # Ok::<(), ongpu_runtime::Error>(())
    /// ```
    pub fn set_storage(&mut self, storage: Storage) -> Result<()> {
        let (len, stride) = (self.len, self.stride);
        let what = move || super::describe::<T, L>(len, stride);
        self.sides_mut().set_storage(storage, &what)
    }

    /// The field with its data moved to `storage` (see [`set_storage`](Field::set_storage)).
    pub fn with_storage(mut self, storage: Storage) -> Result<Self> {
        self.set_storage(storage)?;
        Ok(self)
    }

    /// The field in page-locked host memory ([`Storage::Pinned`]).
    pub fn pinned(self) -> Result<Self> {
        self.with_storage(Storage::Pinned)
    }

    /// The field in page-locked host memory mapped for the device ([`Storage::Mapped`]).
    pub fn mapped(self) -> Result<Self> {
        self.with_storage(Storage::Mapped)
    }

    /// The field without a host copy ([`Storage::DeviceOnly`]): host data is uploaded now
    /// (when CUDA is the backend) and the host copy freed.
    pub fn device_only(self) -> Result<Self> {
        self.with_storage(Storage::DeviceOnly)
    }
}

impl<S: Scalar> Sides<S> {
    /// Moves the data to `to`. Allocates and copies before changing anything, so an error
    /// leaves the storage as it was.
    pub(crate) fn set_storage(&mut self, to: Storage, what: &dyn Fn() -> String) -> Result<()> {
        self.check_usable()?;
        if to == self.storage {
            return Ok(());
        }
        #[cfg(feature = "cuda")]
        {
            // Exclusive and blocking: nothing queued may use the memory being replaced.
            use crate::cuda::stream::Queue;
            self.host_pending.before_write(Queue::Host)?;
            self.device_pending.before_write(Queue::Host)?;
        }
        let host_current = self.newest.host_is_current();
        match to {
            Storage::Pageable | Storage::Pinned => {
                if host_current {
                    let mut new = HostMem::alloc(to, self.scalars, what)?;
                    new.as_mut_slice()
                        .copy_from_slice(self.host.as_ref().expect("current").as_slice());
                    self.host = Some(new);
                } else {
                    self.host = None; // stale: allocated again, in the new kind, when needed
                }
                if self.newest == Residency::Both && !self.has_device_copy() {
                    self.newest = Residency::Host; // it was mapped: the data is on the host
                }
            }
            Storage::Mapped => self.move_to_mapped(what)?,
            Storage::DeviceOnly => self.move_to_device_only(what)?,
        }
        self.storage = to;
        Ok(())
    }

    /// True if a device copy exists.
    pub(crate) fn has_device_copy(&self) -> bool {
        #[cfg(feature = "cuda")]
        {
            self.device.is_some()
        }
        #[cfg(not(feature = "cuda"))]
        {
            false
        }
    }

    fn move_to_mapped(&mut self, what: &dyn Fn() -> String) -> Result<()> {
        if self.newest == Residency::Zeros {
            self.host = None;
            self.drop_device_copy();
            return Ok(());
        }
        let mut new = HostMem::alloc(Storage::Mapped, self.scalars, what)?;
        if self.newest.host_is_current() {
            new.as_mut_slice()
                .copy_from_slice(self.host.as_ref().expect("current").as_slice());
        } else {
            self.download_into(new.as_mut_slice())?;
        }
        #[cfg(feature = "cuda")]
        let mapped = new.mapped_ptr().is_some();
        #[cfg(not(feature = "cuda"))]
        let mapped = false;
        self.host = Some(new);
        self.drop_device_copy();
        self.newest = if mapped {
            Residency::Both
        } else {
            Residency::Host
        };
        Ok(())
    }

    fn move_to_device_only(&mut self, what: &dyn Fn() -> String) -> Result<()> {
        #[cfg(feature = "cuda")]
        if matches!(crate::backend::current(), Ok(crate::backend::Backend::Cuda)) {
            let dev = crate::cuda::device()?;
            if self.newest != Residency::Zeros
                && !(self.has_device_copy() && self.newest.device_is_current())
            {
                // The data is on the host only (pageable, pinned or mapped): upload it.
                self.upload_now(dev, what)?;
            }
            self.host = None;
            if self.newest != Residency::Zeros {
                self.newest = Residency::Device;
            }
            return Ok(());
        }
        // The CPU backend computes on the host copy: keep it, in ordinary memory.
        let _ = what;
        if self.host.as_ref().is_some_and(HostMem::is_page_locked) {
            if self.newest.host_is_current() {
                let v = self.host.as_ref().expect("exists").as_slice().to_vec();
                self.host = Some(HostMem::Pageable(v));
            } else {
                self.host = None;
            }
        }
        if self.newest == Residency::Both && !self.has_device_copy() {
            self.newest = Residency::Host; // it was mapped: the data is on the host
        }
        Ok(())
    }
}
