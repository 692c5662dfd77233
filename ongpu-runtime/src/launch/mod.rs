//! What every call kind shares on its way to a launch: call sites and what the macro knows
//! of them (`site`), how many sites a call runs (`sites`), the assembly of a kernel's CUDA
//! C++ source (`source`), and on the CUDA backend compiling and loading (`compile`), the
//! lock-free kernel list of a call site (`kernel_list`) and where a launch is queued
//! (`queue`); the bounds-check mode (`bounds`) and the out-of-range report of checked
//! kernels over sites (`index_report`); the 16-byte path of kernels over 4-byte scalar
//! fields (`quads`) and the print buffer of kernels that print (`print_buffer`).

pub(crate) mod bounds;
pub(crate) mod call_site;
pub(crate) mod limits;
mod quads;
pub(crate) mod sites;
pub(crate) mod source;
mod staged;

#[cfg(feature = "cuda")]
pub(crate) mod compile;
#[cfg(feature = "cuda")]
pub(crate) mod index_report;
#[cfg(feature = "cuda")]
pub(crate) mod kernel_list;
#[cfg(feature = "cuda")]
pub(crate) mod print_buffer;
#[cfg(feature = "cuda")]
pub(crate) mod queue;
