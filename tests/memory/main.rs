//! Memory and coherence: field storage and its host and device copies, streams and what
//! waits for what, raw device access, the kernel cache on disk, and soundness under misuse.

#[macro_use]
#[path = "../support/mod.rs"]
mod support;

mod device_access_gpu;
mod kernel_cache_nvrtc;
mod soundness;
mod storage;
mod streams;
