//! Backend choice: CUDA when a device is present, else CPU threads (with one warning line);
//! `ONGPU_BACKEND=cuda|cpu` forces one, and [`with_backend`] overrides it on one thread.

use crate::error::{Error, Result};
use std::cell::Cell;
use std::sync::OnceLock;

/// Where `on_gpu!` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Backend {
    /// A CUDA kernel compiled by NVRTC, on the GPU.
    Cuda,
    /// The same body on CPU threads (rayon; one thread without the `rayon` feature).
    Cpu,
}

/// What `ONGPU_BACKEND` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Requested {
    Auto,
    Cuda,
    Cpu,
}

thread_local! {
    static OVERRIDE: Cell<Option<Backend>> = const { Cell::new(None) };
}

fn requested() -> Result<Requested> {
    static REQUESTED: OnceLock<std::result::Result<Requested, String>> = OnceLock::new();
    REQUESTED
        .get_or_init(|| match std::env::var("ONGPU_BACKEND") {
            Err(_) => Ok(Requested::Auto),
            Ok(v) => match v.trim().to_ascii_lowercase().as_str() {
                "" | "auto" => Ok(Requested::Auto),
                "cuda" | "gpu" => Ok(Requested::Cuda),
                "cpu" | "rayon" => Ok(Requested::Cpu),
                _ => Err(format!("ONGPU_BACKEND={v:?} is not one of cuda, cpu, auto")),
            },
        })
        .clone()
        .map_err(Error::InvalidArgument)
}

/// True if a CUDA device can be used (the driver loads and reports a device).
pub fn cuda_available() -> bool {
    #[cfg(feature = "cuda")]
    {
        crate::cuda::probe().is_ok()
    }
    #[cfg(not(feature = "cuda"))]
    {
        false
    }
}

fn auto() -> Backend {
    static AUTO: OnceLock<Backend> = OnceLock::new();
    *AUTO.get_or_init(|| {
        #[cfg(feature = "cuda")]
        if let Err(reason) = crate::cuda::probe() {
            eprintln!(
                "ongpu: no CUDA device ({reason}); running on the CPU backend ({}). \
                 Set ONGPU_BACKEND=cpu to choose it explicitly.",
                describe_threads()
            );
            return Backend::Cpu;
        } else {
            return Backend::Cuda;
        }
        #[allow(unreachable_code)]
        Backend::Cpu
    })
}

/// The backend the next `on_gpu!` on this thread will use.
pub fn current() -> Result<Backend> {
    if let Some(b) = OVERRIDE.with(Cell::get) {
        return check_compiled(b);
    }
    match requested()? {
        Requested::Auto => Ok(auto()),
        Requested::Cpu => Ok(Backend::Cpu),
        Requested::Cuda => check_compiled(Backend::Cuda),
    }
}

fn check_compiled(b: Backend) -> Result<Backend> {
    if b == Backend::Cuda && !cfg!(feature = "cuda") {
        return Err(Error::BackendNotCompiled {
            backend: "CUDA",
            feature: "cuda",
        });
    }
    Ok(b)
}

/// Runs `f` with every `on_gpu!` on this thread going to `backend` (then restores the
/// previous choice), e.g. to compare the backends in one program.
///
/// ```
/// use ongpu_runtime::{with_backend, Backend, backend};
/// with_backend(Backend::Cpu, || assert_eq!(backend().unwrap(), Backend::Cpu));
/// ```
pub fn with_backend<R>(backend: Backend, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Backend>);
    impl Drop for Restore {
        fn drop(&mut self) {
            OVERRIDE.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(OVERRIDE.with(|c| c.replace(Some(backend))));
    f()
}

/// Waits for all queued device work, on every stream, and reports an error it raised (a
/// no-op on the CPU backend, whose calls finish before they return).
pub fn synchronize() -> Result<()> {
    #[cfg(feature = "cuda")]
    if let Ok(dev) = crate::cuda::probe() {
        return crate::trace::step(|| "synchronizing the device".into(), || dev.synchronize());
    }
    Ok(())
}

/// "N rayon threads" (or "1 thread" without rayon), for messages.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn describe_threads() -> String {
    #[cfg(feature = "rayon")]
    {
        format!("{} rayon threads", rayon::current_num_threads())
    }
    #[cfg(not(feature = "rayon"))]
    {
        "1 thread: the rayon feature is off".to_string()
    }
}
