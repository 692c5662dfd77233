//! The two copies of a field's data (host and device) and which of them is current. Each side
//! is allocated only when first needed, and a copy is made only when the side that is needed
//! is stale.

use crate::element::Scalar;
use crate::error::Result;

/// Which copy of a field holds its current contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Residency {
    /// All zeros, and neither side holds a copy yet (what [`Field::zeros`](crate::Field::zeros)
    /// makes: nothing is allocated until a side is used).
    Zeros,
    /// Only the host copy is current.
    Host,
    /// Only the device copy is current.
    Device,
    /// Both copies are current.
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

/// The storage of a field: `scalars` values per copy, in layout order.
#[derive(Debug)]
pub(crate) struct Sides<S: Scalar> {
    pub(crate) scalars: usize,
    pub(crate) host: Option<Vec<S>>,
    #[cfg(feature = "cuda")]
    pub(crate) device: Option<crate::cuda::DeviceBuffer>,
    pub(crate) newest: Residency,
    pub(crate) transfers: Transfers,
}

impl<S: Scalar> Sides<S> {
    /// Storage of `scalars` values whose contents are all zero (nothing allocated).
    pub(crate) fn zeros(scalars: usize) -> Self {
        Sides {
            scalars,
            host: None,
            #[cfg(feature = "cuda")]
            device: None,
            newest: Residency::Zeros,
            transfers: Transfers::default(),
        }
    }

    /// Storage whose current copy is `host`.
    pub(crate) fn on_host(host: Vec<S>) -> Self {
        Sides {
            host: Some(host),
            newest: Residency::Host,
            ..Self::zeros(0)
        }
        .with_len()
    }

    fn with_len(mut self) -> Self {
        self.scalars = self.host.as_ref().map_or(0, Vec::len);
        self
    }

    fn host_alloc(&mut self) -> &mut Vec<S> {
        let n = self.scalars;
        self.host.get_or_insert_with(|| bytemuck::zeroed_vec(n))
    }

    /// Makes the host copy current (downloading if the device is newer) and returns it.
    pub(crate) fn host_for_read(&mut self) -> Result<&mut Vec<S>> {
        match self.newest {
            Residency::Host | Residency::Both => {}
            Residency::Zeros => {
                self.host_alloc();
                self.newest = Residency::Host;
            }
            Residency::Device => {
                self.download()?;
                self.newest = Residency::Both;
            }
        }
        Ok(self.host.as_mut().expect("a current host copy exists"))
    }

    /// Prepares the host copy to be written: current unless every value will be overwritten
    /// (`overwrite_all`), and afterwards the only current copy.
    pub(crate) fn host_for_write(&mut self, overwrite_all: bool) -> Result<&mut Vec<S>> {
        if overwrite_all {
            self.host_alloc();
        } else {
            self.host_for_read()?;
        }
        self.newest = Residency::Host;
        Ok(self.host.as_mut().expect("allocated above"))
    }

    #[cfg(feature = "cuda")]
    fn download(&mut self) -> Result<()> {
        let n = self.scalars;
        let dev = self.device.as_ref().expect("a current device copy exists");
        let host = self.host.get_or_insert_with(|| bytemuck::zeroed_vec(n));
        dev.download(host.as_mut_slice())?;
        self.transfers.downloads += 1;
        self.transfers.bytes_down += (n * std::mem::size_of::<S>()) as u64;
        Ok(())
    }

    #[cfg(not(feature = "cuda"))]
    fn download(&mut self) -> Result<()> {
        unreachable!("without the CUDA backend no device copy exists")
    }
}

#[cfg(feature = "cuda")]
mod device_side {
    use super::*;
    use crate::cuda::{Device, DeviceBuffer};

    impl<S: Scalar> Sides<S> {
        fn device_alloc(
            &mut self,
            dev: &'static Device,
            what: &dyn Fn() -> String,
        ) -> Result<&mut DeviceBuffer> {
            if self.device.is_none() {
                let bytes = self.scalars * std::mem::size_of::<S>();
                self.device = Some(DeviceBuffer::alloc(dev, bytes, &what())?);
            }
            Ok(self.device.as_mut().expect("allocated above"))
        }

        /// Makes the device copy current (uploading if the host is newer) and returns its
        /// address.
        pub(crate) fn device_for_read(
            &mut self,
            dev: &'static Device,
            what: &dyn Fn() -> String,
        ) -> Result<u64> {
            match self.newest {
                Residency::Device | Residency::Both => {}
                Residency::Zeros => {
                    self.device_alloc(dev, what)?.zero()?;
                    self.newest = Residency::Device;
                }
                Residency::Host => {
                    self.device_alloc(dev, what)?;
                    let host = self.host.as_ref().expect("a current host copy exists");
                    self.device
                        .as_mut()
                        .expect("allocated above")
                        .upload(host)?;
                    self.transfers.uploads += 1;
                    self.transfers.bytes_up += (host.len() * std::mem::size_of::<S>()) as u64;
                    self.newest = Residency::Both;
                }
            }
            Ok(self
                .device
                .as_ref()
                .expect("a current device copy exists")
                .ptr())
        }

        /// Prepares the device copy to be written (current unless `overwrite_all`); afterwards
        /// it is the only current copy.
        pub(crate) fn device_for_write(
            &mut self,
            dev: &'static Device,
            overwrite_all: bool,
            what: &dyn Fn() -> String,
        ) -> Result<u64> {
            let ptr = if overwrite_all {
                self.device_alloc(dev, what)?.ptr()
            } else {
                self.device_for_read(dev, what)?
            };
            self.newest = Residency::Device;
            Ok(ptr)
        }
    }
}
