//! Whether GPU kernels check their array indices: `ONGPU_CHECK_BOUNDS=1|0`, on by default
//! in debug builds, and [`with_bounds_checks`] for one thread's launches. (The CPU backend
//! always checks, as Rust does.)

use crate::error::{Error, Result};
use std::cell::Cell;
use std::sync::OnceLock;

thread_local! {
    static OVERRIDE: Cell<Option<bool>> = const { Cell::new(None) };
}

fn from_env() -> Result<bool> {
    static ENV: OnceLock<std::result::Result<bool, String>> = OnceLock::new();
    ENV.get_or_init(|| match std::env::var("ONGPU_CHECK_BOUNDS") {
        Err(_) => Ok(cfg!(debug_assertions)),
        Ok(v) => match v.trim().to_ascii_lowercase().as_str() {
            "" => Ok(cfg!(debug_assertions)),
            "1" | "on" | "true" | "yes" => Ok(true),
            "0" | "off" | "false" | "no" => Ok(false),
            _ => Err(format!("ONGPU_CHECK_BOUNDS={v:?} is not 1 or 0")),
        },
    })
    .clone()
    .map_err(Error::InvalidArgument)
}

/// True if the next kernel launched on this thread checks its array indices on the GPU
/// (a violation makes the launch return [`Error::KernelIndexOutOfRange`]).
pub fn bounds_checks() -> Result<bool> {
    match OVERRIDE.with(Cell::get) {
        Some(on) => Ok(on),
        None => from_env(),
    }
}

/// Runs `f` with GPU bounds checks on or off for this thread's kernel launches (then
/// restores the previous choice); the checked and unchecked kernels are compiled separately.
///
/// ```
/// use ongpu_runtime::{bounds_checks, with_bounds_checks};
/// with_bounds_checks(true, || assert!(bounds_checks().unwrap()));
/// ```
pub fn with_bounds_checks<R>(on: bool, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<bool>);
    impl Drop for Restore {
        fn drop(&mut self) {
            OVERRIDE.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(OVERRIDE.with(|c| c.replace(Some(on))));
    f()
}
