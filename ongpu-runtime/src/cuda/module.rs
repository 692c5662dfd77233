//! Loaded modules and their kernel functions. Kernels compiled for a call site live as long
//! as the process, so a loaded module is never unloaded.

use super::device::Device;
use super::error::DriverResultExt;
use super::nvrtc::Compiled;
use crate::error::Result;
use cudarc::driver::result;
use cudarc::driver::sys::{CUfunction, CUmodule};
use std::ffi::CString;

/// A kernel function ready to launch.
#[derive(Debug, Clone, Copy)]
pub struct Function {
    pub(crate) raw: CUfunction,
    /// The device address of the module's `ongpu_index_report` (a kernel compiled with
    /// bounds checks), else 0.
    pub(crate) index_report: u64,
    /// The device address of the module's `ongpu_print_buffer` (a kernel whose body
    /// prints), else 0.
    pub(crate) print_buffer: u64,
}

// SAFETY: a CUfunction handle is valid in every thread that has its context current, and
// ongpu binds the context before each launch.
unsafe impl Send for Function {}
// SAFETY: as above; launching does not mutate the handle.
unsafe impl Sync for Function {}

impl Function {
    /// The most threads a block of this function may have (its registers and the device's
    /// limit), as the driver reports it.
    pub(crate) fn max_threads_per_block(&self, what: impl FnOnce() -> String) -> Result<u32> {
        use cudarc::driver::sys::CUfunction_attribute_enum as A;
        // SAFETY: a loaded function; a plain query.
        let n = unsafe {
            cudarc::driver::result::function::get_function_attribute(
                self.raw,
                A::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
            )
        }
        .map_err(|e| crate::cuda::driver_error(what(), e))?;
        Ok(n.max(1) as u32)
    }

    /// How many blocks of `tpb` threads using `shared_bytes` of dynamic shared memory fit
    /// on one multiprocessor at once (at least 1).
    pub(crate) fn blocks_per_multiprocessor(&self, tpb: u32, shared_bytes: usize) -> Result<u32> {
        // SAFETY: a loaded function; a plain query.
        let n = unsafe {
            cudarc::driver::result::occupancy::max_active_block_per_multiprocessor(
                self.raw,
                tpb as i32,
                shared_bytes,
            )
        }
        .map_err(|e| crate::cuda::driver_error("querying the kernel's occupancy", e))?;
        Ok(n.max(1) as u32)
    }

    /// Lets a launch of this function use up to `bytes` of dynamic shared memory (a kernel
    /// gets 48 KiB unasked; an H100 or H200 gives a block up to 227 KiB when asked). An
    /// error if the device allows less.
    pub fn allow_dynamic_shared(&self, bytes: u32) -> Result<()> {
        use cudarc::driver::sys::CUfunction_attribute_enum as A;
        // SAFETY: a loaded function; a plain attribute.
        unsafe {
            result::function::set_function_attribute(
                self.raw,
                A::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes as i32,
            )
        }
        .during("allowing a kernel more dynamic shared memory")
    }
}

/// Loads `compiled` into the device's context and returns its function `name`.
pub fn load_function(device: &Device, compiled: &Compiled, name: &str) -> Result<Function> {
    device.bind()?;
    let mut image = compiled.image.clone();
    if compiled.kind == super::nvrtc::ImageKind::Ptx && image.last() != Some(&0) {
        image.push(0);
    }
    // SAFETY: the image is a complete cubin or NUL-terminated PTX from NVRTC; the driver
    // copies it during the call.
    let module: CUmodule = crate::trace::step(
        || format!("loading a module of {} bytes", image.len()),
        || unsafe { result::module::load_data(image.as_ptr().cast()) },
    )
    .during("loading a compiled kernel")?;
    let cname = CString::new(name).expect("kernel names contain no NUL");
    // SAFETY: the module was just loaded and is never unloaded.
    let raw = unsafe { result::module::get_function(module, cname) }
        .during("finding the kernel in its module")?;
    // Only a module compiled with bounds checks defines the report (and only one whose body
    // prints the buffer); its name is then in the image's symbol table. Asking a module
    // without it would be a failed driver call, which compute-sanitizer reports as an API
    // error on every load.
    let global = |name: &[u8]| {
        if !image.windows(name.len()).any(|w| w == name) {
            return 0;
        }
        let cname = CString::new(name).expect("no NUL");
        // SAFETY: as above; a module without the variable answers an error, taken as "none".
        unsafe { result::module::get_global(module, cname) }.map_or(0, |(p, _)| p)
    };
    Ok(Function {
        raw,
        index_report: global(b"ongpu_index_report"),
        print_buffer: global(b"ongpu_print_buffer"),
    })
}
