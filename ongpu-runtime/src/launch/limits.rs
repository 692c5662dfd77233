//! Every thread-per-block and grid rule in one place: CUDA's own limits (checked on the CPU
//! backend too, so that a call valid there is valid on a GPU), and the device's, checked on
//! the host before a launch.

use crate::error::{Error, Location, Result};

/// Threads per block when the call does not say.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub const DEFAULT_THREADS_PER_BLOCK: u32 = 256;
/// The largest block extent in x, y and z on every CUDA device since compute capability 2.0.
pub const MAX_BLOCK: (u32, u32, u32) = (1024, 1024, 64);
/// The largest grid extent in x, y and z (compute capability 3.0 and later).
pub const MAX_GRID: (u32, u32, u32) = (i32::MAX as u32, 65535, 65535);
/// The most threads a block may have on any current CUDA device.
pub const MAX_THREADS_PER_BLOCK: u32 = 1024;

/// Checks the threads per block of an `on_gpu!` call against `max` (the device's limit, or
/// CUDA's where no device is used).
pub(crate) fn check_threads_per_block(site: Location, tpb: u32, max: Option<u32>) -> Result<()> {
    let (max, whose) = match max {
        Some(m) => (m, "this device"),
        None => (MAX_THREADS_PER_BLOCK, "CUDA"),
    };
    if tpb == 0 || tpb > max {
        return Err(Error::InvalidLaunch {
            site,
            reason: format!(
                "{tpb} threads per block; {whose} allows 1 to {max} (a multiple of 32 is best)"
            ),
        });
    }
    Ok(())
}

/// The backend a call at `site` runs on, decided once for every call kind: the threads per
/// block asked for (`tpb`) are checked here against CUDA's limit where the CPU runs the call
/// (on the GPU against the device's, when it launches).
pub(crate) fn backend_for(site: Location, tpb: Option<u32>) -> Result<crate::backend::Backend> {
    let backend = crate::backend::current()?;
    if let (crate::backend::Backend::Cpu, Some(t)) = (backend, tpb) {
        check_threads_per_block(site, t, None)?;
    }
    Ok(backend)
}

/// The current device and the threads per block of a launch at `site` (`tpb`, or the
/// default), checked against that device's limit.
#[cfg(feature = "cuda")]
pub(crate) fn device_and_block(
    site: Location,
    tpb: Option<u32>,
) -> Result<(&'static crate::cuda::Device, u32)> {
    let dev = crate::cuda::device()?;
    let tpb = tpb.unwrap_or(DEFAULT_THREADS_PER_BLOCK);
    check_threads_per_block(site, tpb, Some(dev.info().max_threads_per_block))?;
    Ok((dev, tpb))
}
