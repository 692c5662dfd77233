//! `ONGPU_TRACE=1`: one stderr line per expensive step (NVRTC, the disk cache, module loads,
//! allocations, copies) with its duration, to see where a program's time goes. When off, a
//! step costs one check of a flag read once.

use std::sync::OnceLock;
use std::time::Instant;

/// True when `ONGPU_TRACE` is set (to anything but `0`).
#[inline]
pub(crate) fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var("ONGPU_TRACE").is_ok_and(|v| !v.is_empty() && v != "0"))
}

/// Runs `f`, and when tracing prints `what` (built only then) with the time `f` took.
#[inline]
pub(crate) fn step<R>(what: impl FnOnce() -> String, f: impl FnOnce() -> R) -> R {
    if !enabled() {
        return f();
    }
    let t = Instant::now();
    let r = f();
    eprintln!(
        "ongpu trace: {:>9.3} ms  {}",
        t.elapsed().as_secs_f64() * 1e3,
        what()
    );
    r
}
