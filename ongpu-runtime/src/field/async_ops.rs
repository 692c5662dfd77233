//! Copies of a field queued on a [`Stream`], and making the device copy current now.

use super::Field;
use crate::element::Element;
use crate::error::Result;
use crate::layout::Layout;
use crate::stream::Stream;

impl<T: Element, L: Layout> Field<T, L> {
    /// Queues a copy of the host data to the device on `stream`, if the device copy is stale,
    /// and returns without waiting for it. Kernels queued later on any stream see the copy
    /// (other streams wait for it); host writes to the field wait until it has been read.
    ///
    /// The copy overlaps other work only from page-locked memory ([`Storage::Pinned`]); from
    /// pageable memory the driver stages it before returning. Nothing is queued for a
    /// [`Storage::Mapped`] field (kernels read its host memory), and on the CPU backend.
    /// A [`Storage::DeviceOnly`] field is uploaded at once, on the default stream.
    ///
    /// [`Storage::Pinned`]: crate::Storage::Pinned
    /// [`Storage::Mapped`]: crate::Storage::Mapped
    /// [`Storage::DeviceOnly`]: crate::Storage::DeviceOnly
    ///
    /// ```
    /// use ongpu_runtime::{Field, Stream};
    /// let s = Stream::new();
    /// let x: Field<f32> = Field::from_fn(1 << 16, |i| i as f32).pinned()?;
    /// x.upload_async(&s)?; // the host goes on while the copy runs
    /// s.synchronize()?;
    /// # Ok::<(), ongpu_runtime::Error>(())
    /// ```
    pub fn upload_async(&self, stream: &Stream) -> Result<()> {
        if crate::backend::current()? == crate::backend::Backend::Cpu {
            return Ok(());
        }
        #[cfg(feature = "cuda")]
        {
            let dev = crate::cuda::device()?;
            let q = stream.queue(dev)?;
            let (len, stride) = (self.len, self.stride);
            let what = move || super::describe::<T, L>(len, stride);
            self.lock().upload_queued(dev, q, &what)
        }
        #[cfg(not(feature = "cuda"))]
        {
            let _ = stream;
            Ok(())
        }
    }

    /// Queues a copy of the device data to the host on `stream`, if the host copy is stale,
    /// and returns without waiting for it. A host read of the field ([`to_vec`], [`get`])
    /// waits for exactly this copy.
    ///
    /// Overlaps other work only into page-locked memory ([`Storage::Pinned`]). A
    /// [`Storage::DeviceOnly`] field keeps no host copy: downloading it is an error
    /// ([`Error::InvalidArgument`](crate::Error::InvalidArgument)), on every backend and
    /// whichever copy is current, so that a program that passes on the CPU does not fail
    /// on the GPU.
    ///
    /// [`to_vec`]: Field::to_vec
    /// [`get`]: Field::get
    /// [`Storage::Pinned`]: crate::Storage::Pinned
    /// [`Storage::DeviceOnly`]: crate::Storage::DeviceOnly
    pub fn download_async(&self, stream: &Stream) -> Result<()> {
        {
            let sides = self.lock();
            sides.check_usable()?;
            if sides.storage == super::Storage::DeviceOnly {
                return Err(crate::error::Error::InvalidArgument(format!(
                    "download_async of {}: a device-only field keeps no host copy; read it \
                     with to_vec or get, or give it Pinned storage to download it on a stream",
                    super::describe::<T, L>(self.len, self.stride)
                )));
            }
        }
        #[cfg(feature = "cuda")]
        {
            if self.lock().newest != super::Residency::Device {
                return Ok(()); // the host copy is current: nothing to queue
            }
            let dev = crate::cuda::device()?;
            let q = stream.queue(dev)?;
            let (len, stride) = (self.len, self.stride);
            let what = move || super::describe::<T, L>(len, stride);
            self.lock().download_queued(dev, q, &what)
        }
        #[cfg(not(feature = "cuda"))]
        {
            let _ = stream;
            Ok(())
        }
    }

    /// Makes the device copy current now (uploading on the default stream if the host copy
    /// is newer); nothing on the CPU backend. The device-side twin of
    /// [`sync_host`](Field::sync_host).
    pub fn sync_device(&self) -> Result<()> {
        if crate::backend::current()? == crate::backend::Backend::Cpu {
            return Ok(());
        }
        #[cfg(feature = "cuda")]
        {
            let dev = crate::cuda::device()?;
            let (len, stride) = (self.len, self.stride);
            let what = move || super::describe::<T, L>(len, stride);
            self.lock()
                .device_read_on(dev, crate::cuda::stream::Queue::Default, &what)
                .map(drop)
        }
        #[cfg(not(feature = "cuda"))]
        Ok(())
    }
}
