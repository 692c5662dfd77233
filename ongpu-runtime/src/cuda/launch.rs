//! Kernel launches: parameters gathered on the stack (no allocation, no boxing) and one
//! `cuLaunchKernel`.

use super::device::Device;
use super::error::driver_error;
use super::module::Function;
use crate::error::Result;
use std::ffi::c_void;
use std::marker::PhantomData;

/// Most kernel parameters one launch can take.
pub const MAX_PARAMS: usize = 96;

/// The addresses of a launch's parameter values. The values are borrowed for `'a`, so they
/// outlive the launch (the driver copies them during `cuLaunchKernel`).
pub struct ParamList<'a> {
    ptrs: [*mut c_void; MAX_PARAMS],
    len: usize,
    _values: PhantomData<&'a ()>,
}

impl Default for ParamList<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a> ParamList<'a> {
    /// An empty list.
    #[inline(always)]
    pub fn new() -> Self {
        ParamList {
            ptrs: [std::ptr::null_mut(); MAX_PARAMS],
            len: 0,
            _values: PhantomData,
        }
    }

    /// Appends one parameter; its type must match the kernel's declaration.
    #[inline(always)]
    pub fn push<T>(&mut self, value: &'a T) {
        assert!(
            self.len < MAX_PARAMS,
            "more than {MAX_PARAMS} kernel parameters"
        );
        self.ptrs[self.len] = value as *const T as *mut c_void;
        self.len += 1;
    }

    /// Number of parameters pushed.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when nothing was pushed.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// A grid and block shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Blocks in the grid (x, y, z).
    pub grid: (u32, u32, u32),
    /// Threads in a block (x, y, z).
    pub block: (u32, u32, u32),
    /// Dynamic shared memory per block, in bytes.
    pub shared_bytes: u32,
}

/// Launches `f` on the legacy default stream with `params`, which must match the kernel's
/// signature in number, order and types. `what` names the kernel in errors.
///
/// # Safety
/// The parameters must match the kernel's signature, and every device address among them
/// must stay valid until the kernel has finished.
#[inline]
pub unsafe fn launch(
    device: &Device,
    f: Function,
    shape: Shape,
    params: &mut ParamList<'_>,
    what: impl FnOnce() -> String,
) -> Result<()> {
    device.bind()?;
    cudarc::driver::result::launch_kernel(
        f.raw,
        shape.grid,
        shape.block,
        shape.shared_bytes,
        std::ptr::null_mut(),
        &mut params.ptrs[..params.len],
    )
    .map_err(|e| driver_error(format!("launching {}", what()), e))
}
