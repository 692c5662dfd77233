//! The CUDA backend's safe layer over cudarc's raw driver and NVRTC calls: the device,
//! device buffers, run-time compilation, modules and launches.

mod buffer;
mod device;
pub mod disk_cache;
mod error;
mod event;
pub(crate) mod launch;
mod module;
pub mod nvrtc;

pub use buffer::DeviceBuffer;
pub(crate) use device::probe;
pub use device::{device, Device, DeviceInfo};
pub(crate) use error::driver_error;
pub use event::{time_device, Event};
pub(crate) use launch::launch_bound;
pub use launch::{launch, ParamList, Shape, MAX_PARAMS};
pub use module::{load_function, Function};
