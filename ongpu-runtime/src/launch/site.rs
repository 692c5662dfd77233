//! Call sites: what the macro knows about one `on_gpu!` (names, the translated body, the
//! device functions it calls), kept in a `static` next to the call, together with the
//! kernels compiled for it.

use crate::error::Location;

/// The element-wise kernels of one call site.
#[cfg(feature = "cuda")]
pub(crate) type KernelSlots =
    crate::launch::kernel_list::KernelList<crate::launch::compile::LoadedKernel>;

/// A function marked `#[ongpu::device]`: its CUDA C++ definition and those it calls.
#[derive(Debug)]
pub struct DeviceFnInfo {
    /// The C++ name.
    pub name: &'static str,
    /// The C++ definition (`__device__ ... name(...) { ... }`).
    pub source: &'static str,
    /// The device functions it calls.
    pub calls: &'static [&'static DeviceFnInfo],
}

/// Implemented by `#[ongpu::device]` for each marked function (the macro checks calls from
/// bodies through it).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an #[ongpu::device] function",
    label = "called from a GPU body here",
    note = "mark the function with #[ongpu::device] so that it is translated to CUDA too; \
            bodies can also call the maths functions sqrt, exp, ln, sin, cos, tan, abs, min, max, \
            floor, ceil, round, trunc, powf, powi, atan2 and hypot"
)]
pub trait DeviceFunction {
    /// The function's translation.
    const INFO: &'static DeviceFnInfo;
}

/// The translation of a device function called from a body (the macro calls this in a
/// `static`'s initializer; a function that is not marked fails to compile here).
pub const fn device_fn<F: DeviceFunction>(_f: &F) -> &'static DeviceFnInfo {
    F::INFO
}

/// What the macro knows of one call site.
#[derive(Debug)]
pub struct SiteInfo {
    /// Where the call is.
    pub location: Location,
    /// Rust names of the captures, in the order they are passed.
    pub captures: &'static [&'static str],
    /// C++ names of the captures (same order).
    pub cuda_names: &'static [&'static str],
    /// C++ name of the site-index parameter (`|i|`), if the body names it.
    pub site_index: Option<&'static str>,
    /// The translated body: C++ statements.
    pub body: &'static str,
    /// Device functions the body calls.
    pub device_fns: &'static [&'static DeviceFnInfo],
}

/// One call site: its facts and the kernels compiled for it (one per tuple of capture types,
/// since a generic caller can reach the same call with different types).
#[derive(Debug)]
pub struct CallSite {
    /// What the macro knows.
    pub info: SiteInfo,
    #[cfg(feature = "cuda")]
    pub(crate) kernels: KernelSlots,
}

impl CallSite {
    /// A call site with no kernel compiled yet.
    pub const fn new(info: SiteInfo) -> Self {
        CallSite {
            info,
            #[cfg(feature = "cuda")]
            kernels: KernelSlots::new(),
        }
    }

    /// Where the call is.
    pub fn location(&self) -> Location {
        self.info.location
    }
}
