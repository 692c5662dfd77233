//! Inspection of generated kernels: collect the CUDA source of every `on_gpu!` a piece of
//! code runs (on any backend), and compile a source with NVRTC without a GPU.
//!
//! This is how the tests check, on machines with no GPU, that every construct of the body
//! language translates to CUDA C++ that NVRTC accepts.

use crate::error::Location;
use crate::launch::call_site::CallSite;
use std::cell::RefCell;

/// One generated kernel.
#[derive(Debug, Clone)]
pub struct KernelSource {
    /// The `on_gpu!` it was generated for.
    pub location: Location,
    /// The complete CUDA C++ source.
    pub source: String,
}

thread_local! {
    static COLLECTED: RefCell<Option<Vec<KernelSource>>> = const { RefCell::new(None) };
}

/// Runs `f`, returning its result and the source of each kernel that calls on this thread
/// generated (one entry per call; the calls still run on their backend).
///
/// ```
/// let ((), sources) = ongpu_runtime::inspect::collect_kernel_sources(|| ());
/// assert!(sources.is_empty());
/// ```
pub fn collect_kernel_sources<R>(f: impl FnOnce() -> R) -> (R, Vec<KernelSource>) {
    let previous = COLLECTED.with(|c| c.replace(Some(Vec::new())));
    let r = f();
    let got = COLLECTED.with(|c| c.replace(previous)).unwrap_or_default();
    (r, got)
}

/// Records a kernel's source if a collection is active on this thread (`make` runs only then).
#[inline]
pub(crate) fn observe(site: &CallSite, make: impl FnOnce() -> String) {
    observe_at(site.location(), make)
}

/// Records the source of the kernel defined at `location` (an `on_gpu!` or an
/// `#[ongpu::kernel]`), if a collection is active on this thread.
#[inline]
pub(crate) fn observe_at(location: Location, make: impl FnOnce() -> String) {
    COLLECTED.with(|c| {
        if let Some(v) = c.borrow_mut().as_mut() {
            v.push(KernelSource {
                location,
                source: make(),
            });
        }
    });
}

#[cfg(feature = "cuda")]
pub use crate::cuda::nvrtc_warnings::warnings;

/// Compiles `source` with NVRTC for `arch` (`sm_90`, `compute_90`, ...) and returns NVRTC's
/// log, including ptxas' resource report (registers, spills). Needs NVRTC, not a GPU.
#[cfg(feature = "cuda")]
///
/// Each source compiled here is made unique with a `__device__` variable named by the
/// process and a counter and set to the time: on a machine with a GPU, the NVRTC of CUDA
/// 13.0 reuses the image of a program whose compiled form it has seen before, in this
/// process or an earlier one, without running ptxas, and then prints no report. A numbered
/// comment did not stop it (comments never reach the compiled form), nor a variable
/// numbered per process (the next process numbers the same way).
pub fn compile(source: &KernelSource, arch: &str) -> crate::Result<String> {
    static COMPILED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let k = COMPILED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let unique = format!(
        "{}\n__device__ unsigned long long ongpu_inspection_{}_{k} = {nanos}ull;\n",
        source.source,
        std::process::id()
    );
    let what = format!("the kernel of on_gpu! at {}", source.location);
    crate::cuda::nvrtc::compile(&unique, arch, &what, &["--ptxas-options=-v"]).map(|c| c.log)
}
