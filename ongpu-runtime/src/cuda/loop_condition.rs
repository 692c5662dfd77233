//! The test kernel of a device loop ([`GraphLoop`](crate::GraphLoop)): one thread that
//! counts the iteration, compares a device scalar with a bound and sets the WHILE node's
//! handle with `cudaGraphSetConditional`, so the loop goes on or stops with no host.
//!
//! `cudaGraphSetConditional` belongs to the device runtime, and NVRTC declares it only for
//! relocatable code (`-rdc=true`), which would need a link step. The kernel declares it
//! itself instead and is compiled whole, like every other kernel: ptxas knows the function
//! and leaves its address to the driver, which fills it in when it loads the module (as for
//! the same kernel compiled by nvcc). So the kernel is the device's own cubin, loaded as
//! usual.

use super::device::Device;
use super::module::{load_function, Function};
use super::nvrtc::{self, Compiled};
use crate::error::Result;
use std::collections::HashMap;
use std::sync::Mutex;

/// The kernel's name in its module.
pub const NAME: &str = "ongpu_loop_test";

/// The CUDA types a loop can test (the real types; a complex scalar is tested by its real
/// part, which is stored first).
pub const VALUE_TYPES: &[&str] = &["double", "float", "int", "unsigned int"];

/// The kernel's source for values of CUDA type `value` (one of [`VALUE_TYPES`]).
///
/// Parameters: the handle; the tested value; the bound, and after it the largest iteration
/// count and whether the loop goes on while the value is below the bound (else above): the
/// loop's limits buffer, so that they change without recording again; the iteration
/// counter; whether this is the entry test (the counter starts at 0) or the test after an
/// iteration (it counts one more).
pub fn source(value: &str) -> String {
    format!(
        r#"// ongpu: the test of a device loop (GraphLoop), for {value} values.
// The device runtime's function (declared by NVRTC only for relocatable code).
extern "C" __device__ void cudaGraphSetConditional(
    cudaGraphConditionalHandle handle, unsigned int value);

extern "C" __global__ void {NAME}(
    cudaGraphConditionalHandle handle,
    const {value}* __restrict__ value,
    const {value}* __restrict__ bound,
    const unsigned int* __restrict__ limits,
    unsigned int* __restrict__ count,
    unsigned int entry)
{{
    const unsigned int c = entry ? 0u : *count + 1u;
    *count = c;
    const unsigned int max_iterations = limits[0];
    const unsigned int below = limits[1];
    const {value} v = *value;
    const {value} b = *bound;
    const bool go = c < max_iterations && (below ? v < b : v > b);
    cudaGraphSetConditional(handle, go ? 1u : 0u);
}}
"#
    )
}

/// Compiles the kernel for `value` for `arch` (`sm_90`: a cubin; `compute_90`: PTX), with
/// [`nvrtc::BASE_OPTIONS`] and `extra` options.
pub fn compile(value: &str, arch: &str, extra: &[&str]) -> Result<Compiled> {
    let what = format!("the test kernel of a device loop ({value})");
    nvrtc::compile(&source(value), arch, &what, extra)
}

/// The loaded kernel for `value` on `device`, compiled and loaded once per process.
pub(crate) fn function(device: &'static Device, value: &'static str) -> Result<Function> {
    static LOADED: Mutex<Option<HashMap<&'static str, Function>>> = Mutex::new(None);
    let mut loaded = LOADED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(f) = loaded.as_ref().and_then(|m| m.get(value)) {
        return Ok(*f);
    }
    let (arch, _) = nvrtc::target_for(device.info().compute_capability);
    let f = load_function(device, &compile(value, &arch, &[])?, NAME)?;
    loaded.get_or_insert_with(HashMap::new).insert(value, f);
    Ok(f)
}
