//! Kernel launches: parameters gathered on the stack (no allocation, no boxing) and one
//! `cuLaunchKernel`.

use super::device::Device;
use super::error::driver_error;
use super::module::Function;
use crate::error::Result;
use std::ffi::c_void;
use std::marker::PhantomData;
use std::mem::MaybeUninit;

/// Most kernel parameters one launch can take.
pub const MAX_PARAMS: usize = 96;

/// The addresses of a launch's parameter values. The values are borrowed for `'a`, so they
/// outlive the launch (the driver copies them during `cuLaunchKernel`).
pub struct ParamList<'a> {
    /// The first `len` entries are written; the rest are never read.
    ptrs: [MaybeUninit<*mut c_void>; MAX_PARAMS],
    /// The size in bytes of each parameter (for [`fingerprint`](ParamList::fingerprint)).
    sizes: [u16; MAX_PARAMS],
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
            ptrs: [MaybeUninit::uninit(); MAX_PARAMS],
            sizes: [0; MAX_PARAMS],
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
        self.ptrs[self.len] = MaybeUninit::new(value as *const T as *mut c_void);
        self.sizes[self.len] = std::mem::size_of::<T>() as u16;
        self.len += 1;
    }

    /// A hash of the launch of `f` with `shape` and these parameters' bytes: a graph
    /// replay compares it with the recorded launch's, so that a field whose device memory
    /// moved, or a value that changed, is an error rather than a stale kernel argument.
    pub(crate) fn fingerprint(&self, f: Function, shape: Shape) -> u64 {
        // FNV-1a: no allocation, and the bytes are few (a pointer and a stride per field).
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |bytes: &[u8]| {
            for &b in bytes {
                h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
            }
        };
        eat(&(f.raw as usize).to_le_bytes());
        for d in [shape.grid, shape.block] {
            for v in [d.0, d.1, d.2] {
                eat(&v.to_le_bytes());
            }
        }
        eat(&shape.shared_bytes.to_le_bytes());
        for k in 0..self.len {
            // SAFETY: entry k was written by `push` from a `&'a T` of `sizes[k]` bytes, still
            // borrowed; any initialised bytes may be read as `u8` (kernel parameters are
            // plain data: pointers, integers, floats and their aggregates).
            let bytes = unsafe {
                std::slice::from_raw_parts(
                    self.ptrs[k].assume_init().cast::<u8>(),
                    usize::from(self.sizes[k]),
                )
            };
            eat(bytes);
        }
        h
    }

    /// The array of parameter addresses a driver call takes (`kernelParams`); valid while
    /// the list and the values it borrows are.
    pub(crate) fn raw(&mut self) -> *mut *mut c_void {
        self.ptrs.as_mut_ptr().cast::<*mut c_void>()
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
    launch_bound(f, shape, params, what)
}

/// [`launch`] for a caller that has just bound the device's context (the hot path).
///
/// # Safety
/// As for [`launch`], and the device's context is current on this thread.
#[inline]
pub(crate) unsafe fn launch_bound(
    f: Function,
    shape: Shape,
    params: &mut ParamList<'_>,
    what: impl FnOnce() -> String,
) -> Result<()> {
    launch_bound_on(std::ptr::null_mut(), f, shape, params, what)
}

/// [`launch_bound`] on `stream` (null: the legacy default stream).
///
/// # Safety
/// As for [`launch_bound`], and `stream` is a live stream of the bound context.
#[inline]
pub(crate) unsafe fn launch_bound_on(
    stream: cudarc::driver::sys::CUstream,
    f: Function,
    shape: Shape,
    params: &mut ParamList<'_>,
    what: impl FnOnce() -> String,
) -> Result<()> {
    // SAFETY: the first `len` entries were written by `push`.
    let ptrs =
        std::slice::from_raw_parts_mut(params.ptrs.as_mut_ptr().cast::<*mut c_void>(), params.len);
    cudarc::driver::result::launch_kernel(
        f.raw,
        shape.grid,
        shape.block,
        shape.shared_bytes,
        stream,
        ptrs,
    )
    .map_err(|e| driver_error(format!("launching {}", what()), e))
}
