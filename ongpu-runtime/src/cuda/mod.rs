//! The CUDA backend's safe layer over cudarc's raw driver and NVRTC calls: the device,
//! device buffers, page-locked host buffers, streams and events, run-time compilation,
//! modules and launches, graphs and the conditional nodes of device loops.

mod buffer;
pub(crate) mod conditional;
mod copy;
mod device;
pub mod disk_cache;
mod error;
mod event;
pub(crate) mod graph;
mod host_buffer;
#[cfg(feature = "mpi")]
pub(crate) mod ipc;
pub(crate) mod launch;
pub mod loop_condition;
mod module;
#[cfg(feature = "mpi")]
pub(crate) mod nccl;
pub mod nvrtc;
pub mod nvrtc_warnings;
pub(crate) mod peer;
pub(crate) mod stream;
pub(crate) mod sync_event;

pub use buffer::DeviceBuffer;
#[cfg(feature = "mpi")]
pub(crate) use device::choose_default_device;
pub(crate) use device::with_device;
pub(crate) use device::{check_same_device, probe};
pub use device::{device, device_count, Device, DeviceInfo, MAX_DEVICES};
pub(crate) use error::driver_error;
pub use event::{time_device, Event};
pub use host_buffer::HostBuffer;
pub(crate) use host_buffer::MappedResult;
pub(crate) use launch::launch_bound_on;
pub use launch::{launch, ParamList, Shape, MAX_PARAMS};
pub use module::{load_function, Function};
pub use sync_event::sync_events_recorded;
