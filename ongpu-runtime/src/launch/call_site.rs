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
    /// True if it calls `sync_threads()`, itself or through the functions it calls: then
    /// only kernels call it, and they run their threads in phases on the CPU.
    pub barriers: bool,
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

/// [`device_fn`] for a call from an `on_gpu!` body, where a function with barriers is a
/// compile error (evaluating the call site's `static` fails with this message).
pub const fn site_device_fn<F: DeviceFunction>(_f: &F) -> &'static DeviceFnInfo {
    if F::INFO.barriers {
        panic!(
            "a device function with sync_threads() (itself or in a function it calls) can only \
             be called from an #[ongpu::kernel]: an on_gpu! body runs each site on its own, with \
             no block of threads to synchronise"
        );
    }
    F::INFO
}

/// True if any of `fns` has barriers (a kernel that calls one runs its threads in phases
/// on the CPU backend).
pub const fn any_barriers(fns: &[&'static DeviceFnInfo]) -> bool {
    let mut k = 0;
    while k < fns.len() {
        if fns[k].barriers {
            return true;
        }
        k += 1;
    }
    false
}

/// How a body's Rust calls a device function: `f.__ongpu_fn()` is the function as a plain
/// `fn` pointer (of the instantiation the arguments select, for a generic one). Each
/// `#[ongpu::device]` item has an inherent `__ongpu_fn`; this trait, imported by the call,
/// gives every other callee one that returns the callee itself, so that a call of an
/// unmarked function type-checks as written and reports only the error of
/// [`DeviceFunction`] (which says to mark it).
pub trait NotDeviceFn {
    /// The callee itself.
    #[inline(always)]
    fn __ongpu_fn(&self) -> &Self {
        self
    }
}

impl<F: ?Sized> NotDeviceFn for F {}

/// What the macro knows of one call site.
#[derive(Debug)]
pub struct SiteInfo {
    /// Where the call is.
    pub location: Location,
    /// Rust names of the captures, in the order they are passed.
    pub captures: &'static [&'static str],
    /// C++ names of the captures (same order).
    pub cuda_names: &'static [&'static str],
    /// C++ names of the written captures that the body uses only entry by entry (`x[k]`,
    /// `x[k] = v`, `x[k] += v`): for a field of element arrays each entry is read and
    /// stored in the field (`ONGPU_SITE_ENTRY`, `ONGPU_SITE_STORE`), and the element is
    /// neither loaded nor stored whole.
    pub entry_stores: &'static [&'static str],
    /// C++ name of the site-index parameter (`|i|`), if the body names it.
    pub site_index: Option<&'static str>,
    /// The translated body: C++ statements.
    pub body: &'static str,
    /// Device functions the body calls.
    pub device_fns: &'static [&'static DeviceFnInfo],
    /// The formats of the body's prints, if it prints.
    pub prints: Option<crate::print::PrintFormat>,
    /// How the CPU backend runs the lanes of a group.
    pub lowering: Lowering,
}

/// How the CPU backend runs a body over the lanes of a group of sites (the macro decides it
/// from the body's constructs; [`cpu_lowerings`](crate::cpu_lowerings) lists the call sites
/// that ran).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lowering {
    /// Lowered lane-major: nearest-neighbour shifts read gathered lane buffers and constant
    /// loops are unrolled, so that every operation runs over the lanes once the compiler
    /// vectorises the lane loop.
    LaneMajor,
    /// Lowered lane-major, a long body in this many runs of its statements, each over the
    /// group's lanes before the next (the locals one run hands to a later one kept per
    /// lane): one lane loop over the whole body would read more addresses than the
    /// compiler's alias analysis follows, and stay scalar.
    Runs(u32),
    /// The body holds a construct the lowering cannot express (named here): it runs
    /// correctly, but its lanes one after another.
    Fallback(&'static str),
}

/// One call site: its facts and the kernels compiled for it (one per tuple of capture types,
/// since a generic caller can reach the same call with different types).
#[derive(Debug)]
pub struct CallSite {
    /// What the macro knows.
    pub info: SiteInfo,
    #[cfg(feature = "cuda")]
    pub(crate) kernels: KernelSlots,
    /// Set once the CPU backend has run the call (it is then in [`crate::cpu_lowerings`]).
    pub(crate) ran_on_cpu: std::sync::atomic::AtomicBool,
}

impl CallSite {
    /// A call site with no kernel compiled yet.
    pub const fn new(info: SiteInfo) -> Self {
        CallSite {
            info,
            #[cfg(feature = "cuda")]
            kernels: KernelSlots::new(),
            ran_on_cpu: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Where the call is.
    pub fn location(&self) -> Location {
        self.info.location
    }
}
