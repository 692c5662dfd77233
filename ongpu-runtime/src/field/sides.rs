//! The two copies of a field's data (host and device) and which of them is current. Each side
//! is allocated only when first needed, and a copy is made only when the side that is needed
//! is stale.

use super::host_mem::HostMem;
use super::storage::Storage;
use crate::element::Scalar;
use crate::error::{Error, Result};

/// Which copy of a field holds its current contents, once the work queued so far has
/// finished (a field written by a kernel queued on a stream is `Device` at once).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Residency {
    /// All zeros, and neither side holds a copy yet (what [`Field::zeros`](crate::Field::zeros)
    /// makes: nothing is allocated until a side is used).
    Zeros,
    /// Only the host copy is current.
    Host,
    /// Only the device copy is current.
    Device,
    /// Both copies are current (for a [`Storage::Mapped`] field on a device: its one copy,
    /// which kernels and the host share).
    Both,
}

impl Residency {
    /// True if the host copy is current.
    pub fn host_is_current(self) -> bool {
        matches!(self, Residency::Host | Residency::Both)
    }

    /// True if the device copy is current.
    pub fn device_is_current(self) -> bool {
        matches!(self, Residency::Device | Residency::Both)
    }
}

/// How many copies a field made between host and device, and how many bytes they moved.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Transfers {
    /// Host-to-device copies.
    pub uploads: u64,
    /// Device-to-host copies.
    pub downloads: u64,
    /// Bytes copied host-to-device.
    pub bytes_up: u64,
    /// Bytes copied device-to-host.
    pub bytes_down: u64,
}

/// Why a field can never hold storage, found when it was made (its size overflows, or its
/// host copy could not be allocated). Such a field has no copy on either side, and every
/// allocation of its storage returns the error instead, so no use of it can reach memory.
#[derive(Debug, Clone)]
pub(crate) enum Unusable {
    /// The storage's bytes overflow what one allocation can hold.
    TooLarge {
        len: usize,
        element: &'static str,
        layout: String,
        bytes: u128,
    },
    /// The constructor could not allocate the host copy for its values.
    OutOfHostMemory { what: String, requested: usize },
}

impl Unusable {
    /// The error every use of the field returns.
    pub(crate) fn error(&self) -> Error {
        match self.clone() {
            Unusable::TooLarge {
                len,
                element,
                layout,
                bytes,
            } => Error::FieldTooLarge {
                len,
                element,
                layout,
                bytes,
            },
            Unusable::OutOfHostMemory { what, requested } => {
                Error::OutOfHostMemory { what, requested }
            }
        }
    }
}

/// The storage of a field: `scalars` values per copy, in layout order.
#[derive(Debug)]
pub(crate) struct Sides<S: Scalar> {
    pub(crate) scalars: usize,
    /// Set for a field that can hold no storage (then `scalars` is 0, nothing is allocated,
    /// and `newest` stays `Zeros`); every allocation returns its error.
    pub(crate) unusable: Option<Box<Unusable>>,
    pub(crate) storage: Storage,
    pub(crate) host: Option<HostMem<S>>,
    #[cfg(feature = "cuda")]
    pub(crate) device: Option<crate::cuda::DeviceBuffer>,
    pub(crate) newest: Residency,
    pub(crate) transfers: Transfers,
    /// Queued work that uses the host copy (asynchronous copies; kernels, if mapped).
    #[cfg(feature = "cuda")]
    pub(crate) host_pending: super::pending::Pending,
    /// Queued work that uses the device copy.
    #[cfg(feature = "cuda")]
    pub(crate) device_pending: super::pending::Pending,
}

impl<S: Scalar> Sides<S> {
    /// Storage of `scalars` values whose contents are all zero (nothing allocated).
    pub(crate) fn zeros(scalars: usize) -> Self {
        Sides {
            scalars,
            unusable: None,
            storage: Storage::Pageable,
            host: None,
            #[cfg(feature = "cuda")]
            device: None,
            newest: Residency::Zeros,
            transfers: Transfers::default(),
            #[cfg(feature = "cuda")]
            host_pending: Default::default(),
            #[cfg(feature = "cuda")]
            device_pending: Default::default(),
        }
    }

    /// Storage whose current copy is `host`.
    pub(crate) fn on_host(host: Vec<S>) -> Self {
        let mut sides = Self::zeros(host.len());
        sides.host = Some(HostMem::Pageable(host));
        sides.newest = Residency::Host;
        sides
    }

    /// Storage of a field that can hold none: every use returns `why`'s error.
    pub(crate) fn unusable(why: Unusable) -> Self {
        let mut sides = Self::zeros(0);
        sides.unusable = Some(Box::new(why));
        sides
    }

    /// The error of a field that can hold no storage; `Ok` for every other field.
    #[inline]
    pub(crate) fn check_usable(&self) -> Result<()> {
        match &self.unusable {
            None => Ok(()),
            Some(why) => Err(why.error()),
        }
    }

    /// Allocates the host copy (zeros) in the memory the storage asks for, if it has none.
    pub(crate) fn host_alloc(&mut self) -> Result<()> {
        self.check_usable()?;
        if self.host.is_none() {
            let n = self.scalars;
            let what = || {
                format!(
                    "the host copy of a field ({n} values of {})",
                    std::any::type_name::<S>()
                )
            };
            self.host = Some(HostMem::alloc(self.storage, n, &what)?);
        }
        Ok(())
    }

    /// The host copy, which exists.
    #[inline]
    pub(crate) fn host_slice(&self) -> &[S] {
        self.host.as_ref().expect("the host copy exists").as_slice()
    }

    /// The host copy, which exists.
    #[inline]
    pub(crate) fn host_slice_mut(&mut self) -> &mut [S] {
        self.host
            .as_mut()
            .expect("the host copy exists")
            .as_mut_slice()
    }

    /// True if the host copy is the device's too (mapped memory): then both are current.
    fn host_is_shared(&self) -> bool {
        #[cfg(feature = "cuda")]
        {
            self.host.as_ref().is_some_and(|h| h.mapped_ptr().is_some())
        }
        #[cfg(not(feature = "cuda"))]
        {
            false
        }
    }

    /// The residency after a host write: only the host copy is current (unless it is the
    /// device's too).
    fn host_written(&self) -> Residency {
        if self.host_is_shared() {
            Residency::Both
        } else {
            Residency::Host
        }
    }

    /// Makes the host copy current (downloading if the device is newer, after waiting for
    /// queued work that writes it) and returns it.
    pub(crate) fn host_for_read(&mut self) -> Result<&mut [S]> {
        crate::graph_pass::forbid_host(&host_access)?;
        match self.newest {
            Residency::Host | Residency::Both => {
                #[cfg(feature = "cuda")]
                self.host_pending
                    .before_read(crate::cuda::stream::Queue::Host)?;
            }
            Residency::Zeros => {
                self.host_alloc()?;
                self.newest = self.host_written();
            }
            Residency::Device => {
                self.download()?;
                self.newest = Residency::Both;
            }
        }
        Ok(self.host_slice_mut())
    }

    /// Prepares the host copy to be written: current unless every value will be overwritten
    /// (`overwrite_all`), no queued work using it, and afterwards the only current copy.
    pub(crate) fn host_for_write(&mut self, overwrite_all: bool) -> Result<&mut [S]> {
        crate::graph_pass::forbid_host(&host_access)?;
        if overwrite_all {
            self.host_alloc()?;
        } else {
            self.host_for_read()?;
        }
        #[cfg(feature = "cuda")]
        self.host_pending
            .before_write(crate::cuda::stream::Queue::Host)?;
        self.newest = self.host_written();
        Ok(self.host_slice_mut())
    }

    /// Copies the device copy into a (new or stale) host copy, synchronously.
    fn download(&mut self) -> Result<()> {
        self.host_alloc()?;
        #[cfg(feature = "cuda")]
        self.host_pending
            .before_write(crate::cuda::stream::Queue::Host)?;
        let mut host = self.host.take().expect("allocated above");
        let copied = self.download_into(host.as_mut_slice());
        self.host = Some(host);
        copied
    }

    /// Copies the current device copy into `dst` (on the default stream, after the last
    /// queued write), synchronously.
    #[cfg(feature = "cuda")]
    pub(crate) fn download_into(&mut self, dst: &mut [S]) -> Result<()> {
        self.device_pending
            .before_read(crate::cuda::stream::Queue::Default)?;
        let dev = self.device.as_ref().expect("a current device copy exists");
        dev.download(dst)?;
        self.transfers.downloads += 1;
        self.transfers.bytes_down += std::mem::size_of_val(dst) as u64;
        Ok(())
    }

    #[cfg(not(feature = "cuda"))]
    pub(crate) fn download_into(&mut self, _dst: &mut [S]) -> Result<()> {
        unreachable!("without the CUDA backend no device copy exists")
    }

    /// Frees the device copy (the caller has waited for queued work that uses it).
    pub(crate) fn drop_device_copy(&mut self) {
        #[cfg(feature = "cuda")]
        {
            self.device = None;
            self.device_pending = Default::default();
        }
    }

    /// Runs `f` on the current data, on the host. A device-only field whose only current
    /// copy is on the device is read through a temporary copy that is not kept.
    pub(crate) fn with_host_data<R>(&mut self, f: impl FnOnce(&[S]) -> R) -> Result<R> {
        self.check_usable()?;
        crate::graph_pass::forbid_host(&host_access)?;
        #[cfg(feature = "cuda")]
        if self.storage == Storage::DeviceOnly && !self.newest.host_is_current() {
            let n = self.scalars;
            let mut temp = super::host_mem::try_zeroed_vec(n, &|| {
                format!(
                    "a temporary host copy of a device-only field ({n} values of {})",
                    std::any::type_name::<S>()
                )
            })?;
            if self.newest == Residency::Device {
                self.download_into(&mut temp)?;
            }
            return Ok(f(&temp));
        }
        Ok(f(self.host_for_read()?))
    }
}

/// What a host access is, for the error inside a graph's closure.
fn host_access() -> String {
    "a host access to a field (to_vec, get, set, as_host_mut, a CPU-backend call, ...)".to_string()
}
