//! [`HostMem`]: a field's host copy, in ordinary (pageable) memory or in page-locked memory
//! (pinned, or mapped for kernels), as its [`Storage`] asks.

use super::storage::Storage;
use crate::element::Scalar;
use crate::error::{Error, Result};
#[cfg(feature = "cuda")]
use std::marker::PhantomData;

/// The host copy's memory.
#[derive(Debug)]
pub(crate) enum HostMem<S: Scalar> {
    /// Ordinary memory.
    Pageable(Vec<S>),
    /// Page-locked memory, mapped for the device if the storage is `Mapped`.
    #[cfg(feature = "cuda")]
    Locked(crate::cuda::HostBuffer, PhantomData<S>),
}

impl<S: Scalar> HostMem<S> {
    /// `n` zero values for a field of `storage`: page-locked for `Pinned` and `Mapped` when a
    /// CUDA device is present (without one there is nothing to copy to, and ordinary memory
    /// serves), else ordinary memory. `what` names the field in errors.
    pub(crate) fn alloc(storage: Storage, n: usize, what: &dyn Fn() -> String) -> Result<Self> {
        #[cfg(feature = "cuda")]
        if matches!(storage, Storage::Pinned | Storage::Mapped) {
            if let Ok(dev) = crate::cuda::probe() {
                let bytes = n.checked_mul(std::mem::size_of::<S>()).ok_or_else(|| {
                    Error::InvalidArgument(format!("{}: {n} values overflow usize bytes", what()))
                })?;
                let buf = crate::cuda::HostBuffer::alloc(
                    dev,
                    bytes,
                    storage == Storage::Mapped,
                    &what(),
                )?;
                return Ok(HostMem::Locked(buf, PhantomData));
            }
        }
        let _ = storage;
        Ok(HostMem::Pageable(try_zeroed_vec(n, what)?))
    }

    /// The values.
    #[inline]
    pub(crate) fn as_slice(&self) -> &[S] {
        match self {
            HostMem::Pageable(v) => v,
            #[cfg(feature = "cuda")]
            HostMem::Locked(b, _) => b.as_slice(),
        }
    }

    /// The values, mutable.
    #[inline]
    pub(crate) fn as_mut_slice(&mut self) -> &mut [S] {
        match self {
            HostMem::Pageable(v) => v,
            #[cfg(feature = "cuda")]
            HostMem::Locked(b, _) => b.as_mut_slice(),
        }
    }

    /// The device address of mapped memory.
    #[cfg(feature = "cuda")]
    #[inline]
    pub(crate) fn mapped_ptr(&self) -> Option<u64> {
        match self {
            HostMem::Pageable(_) => None,
            HostMem::Locked(b, _) => b.device_ptr(),
        }
    }

    /// True for page-locked memory.
    pub(crate) fn is_page_locked(&self) -> bool {
        match self {
            HostMem::Pageable(_) => false,
            #[cfg(feature = "cuda")]
            HostMem::Locked(..) => true,
        }
    }
}

/// `n` zero values in ordinary memory, or [`Error::OutOfHostMemory`] naming `what` when the
/// allocator refuses them (or their bytes overflow): never a panic or an abort. Zeroed by
/// the allocator, so pages are committed only when first touched.
pub(crate) fn try_zeroed_vec<S: Scalar>(n: usize, what: &dyn Fn() -> String) -> Result<Vec<S>> {
    bytemuck::allocation::try_zeroed_slice_box(n)
        .map(Vec::from)
        .map_err(|()| Error::OutOfHostMemory {
            what: what(),
            requested: n.saturating_mul(std::mem::size_of::<S>()),
        })
}
