//! Run-time compilation with NVRTC: CUDA C++ source to the device's own machine code
//! (cubin), or PTX where this NVRTC does not know the device's architecture.

use crate::error::{Error, Result};
use cudarc::nvrtc::{result, sys};
use std::ffi::CString;

/// What NVRTC produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageKind {
    /// Machine code for one architecture: the driver loads it with no JIT.
    Cubin,
    /// PTX, compiled by the driver when loaded.
    Ptx,
}

/// A compiled kernel image.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// The image bytes (a PTX image ends with a NUL).
    pub image: Vec<u8>,
    /// Cubin or PTX.
    pub kind: ImageKind,
    /// NVRTC's log (warnings, and the ptxas report when asked for).
    pub log: String,
}

/// The options every kernel is compiled with (besides the architecture).
pub const BASE_OPTIONS: &[&str] = &["-std=c++17", "-default-device", "--generate-line-info"];

fn nvrtc_missing(what: &str, source: &str) -> Error {
    Error::compile(
        what,
        "the NVRTC library (libnvrtc.so.13) was not found; install the CUDA toolkit or \
         `pip install nvidia-cuda-nvrtc` and put its lib folder on LD_LIBRARY_PATH",
        source,
    )
}

/// True if NVRTC can be loaded (probed once).
pub fn available() -> bool {
    static PRESENT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    // SAFETY: only probes whether the library can be loaded.
    *PRESENT.get_or_init(|| {
        crate::trace::step(
            || "loading NVRTC".into(),
            || unsafe { sys::is_culib_present() },
        )
    })
}

/// NVRTC's version `(major, minor)`, or `None` without NVRTC.
pub fn version() -> Option<(i32, i32)> {
    if !available() {
        return None;
    }
    let (mut major, mut minor) = (0, 0);
    // SAFETY: plain out-parameters.
    unsafe { sys::nvrtcVersion(&mut major, &mut minor) }
        .result()
        .ok()?;
    Some((major, minor))
}

/// The architectures (`90` for sm_90) this NVRTC can emit machine code for.
pub fn supported_archs() -> Vec<i32> {
    if !available() {
        return Vec::new();
    }
    let mut n = 0;
    // SAFETY: out-parameter, then a buffer of the size NVRTC reported.
    unsafe {
        if sys::nvrtcGetNumSupportedArchs(&mut n).result().is_err() || n <= 0 {
            return Vec::new();
        }
        let mut archs = vec![0i32; n as usize];
        if sys::nvrtcGetSupportedArchs(archs.as_mut_ptr())
            .result()
            .is_err()
        {
            return Vec::new();
        }
        archs
    }
}

/// The `--gpu-architecture` value for a device of compute capability `cc`: its own `sm_XY`
/// if NVRTC supports it (cubin), else the newest `compute_XY` not above it (PTX).
pub fn target_for(cc: (u32, u32)) -> (String, ImageKind) {
    let want = (cc.0 * 10 + cc.1) as i32;
    let archs = supported_archs();
    if archs.is_empty() || archs.contains(&want) {
        return (format!("sm_{want}"), ImageKind::Cubin);
    }
    let best = archs
        .iter()
        .copied()
        .filter(|&a| a <= want)
        .max()
        .unwrap_or(want);
    (format!("compute_{best}"), ImageKind::Ptx)
}

fn c_chars_to_string(v: Vec<std::ffi::c_char>) -> String {
    let bytes: Vec<u8> = v
        .into_iter()
        .map(|c| c as u8)
        .take_while(|&b| b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Compiles `source` for `arch` (`sm_90` gives a cubin, `compute_90` PTX). `what` names
/// the kernel in errors; `extra` options follow [`BASE_OPTIONS`].
pub fn compile(source: &str, arch: &str, what: &str, extra: &[&str]) -> Result<Compiled> {
    crate::trace::step(
        || format!("NVRTC compile of {what} for {arch}"),
        || compile_untraced(source, arch, what, extra),
    )
}

fn compile_untraced(source: &str, arch: &str, what: &str, extra: &[&str]) -> Result<Compiled> {
    if !available() {
        return Err(nvrtc_missing(what, source));
    }
    let src = CString::new(source)
        .map_err(|_| Error::compile(what, "the kernel source contains a NUL byte", source))?;
    let name = CString::new("ongpu_kernel.cu").expect("no NUL");
    let prog = result::create_program(&src, Some(&name))
        .map_err(|e| Error::compile(what, format!("nvrtcCreateProgram failed: {e:?}"), source))?;
    let mut options: Vec<String> = vec![format!("--gpu-architecture={arch}")];
    options.extend(BASE_OPTIONS.iter().chain(extra).map(|s| s.to_string()));
    // SAFETY: `prog` is live until destroyed below; the source outlives it.
    let compiled = unsafe { result::compile_program(prog, &options) };
    // SAFETY: as above.
    let log = unsafe { result::get_program_log(prog) }
        .map(c_chars_to_string)
        .unwrap_or_default();
    let out = match compiled {
        Err(e) => Err(Error::compile(
            what,
            if log.trim().is_empty() {
                format!("{e:?}")
            } else {
                log.clone()
            },
            source,
        )),
        Ok(()) => {
            let kind = if arch.starts_with("sm_") {
                ImageKind::Cubin
            } else {
                ImageKind::Ptx
            };
            // SAFETY: as above; the buffers are sized by NVRTC's own size queries.
            let image = unsafe {
                match kind {
                    ImageKind::Cubin => {
                        let mut size = 0usize;
                        sys::nvrtcGetCUBINSize(prog, &mut size)
                            .result()
                            .and_then(|()| {
                                let mut buf = vec![0u8; size];
                                sys::nvrtcGetCUBIN(prog, buf.as_mut_ptr().cast())
                                    .result()
                                    .map(|()| buf)
                            })
                    }
                    ImageKind::Ptx => {
                        result::get_ptx(prog).map(|v| v.into_iter().map(|c| c as u8).collect())
                    }
                }
            };
            image
                .map(|image| Compiled {
                    image,
                    kind,
                    log: log.clone(),
                })
                .map_err(|e| {
                    Error::compile(
                        what,
                        format!("reading NVRTC's output failed: {e:?}"),
                        source,
                    )
                })
        }
    };
    // SAFETY: created above, destroyed once.
    let _ = unsafe { result::destroy_program(prog) };
    out
}
