//! Which vector instructions the CPU backend's loops over lane groups are compiled for.
//!
//! A library is built for the baseline of its target (SSE2 on x86-64), so without help the
//! loops that run a body over 32 sites at once use 4-wide single-precision vectors and 16
//! registers, and a colour-matrix product spills. The loops over lane groups are therefore
//! compiled once more for AVX2 (with FMA) and for AVX-512, and each call runs the widest the
//! host has, found at run time. Rust never fuses a multiplication and an addition on its own
//! and never reorders a sum, so every version computes the same bits; only the vector width
//! (and the register count) differs.

use crate::error::{Error, Result};
use std::sync::atomic::{AtomicU8, Ordering};

/// The vector instructions of the CPU backend's lane loops.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CpuVectors {
    /// The target's baseline (SSE2 on x86-64; whatever the target has elsewhere).
    Baseline,
    /// AVX2 and FMA: 256-bit vectors, 16 registers.
    Avx2,
    /// AVX-512 (foundation): 512-bit vectors, 32 registers.
    Avx512,
}

impl CpuVectors {
    /// The widest the host supports.
    pub fn host_best() -> CpuVectors {
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx512f")
                && std::is_x86_feature_detected!("avx2")
                && std::is_x86_feature_detected!("fma")
            {
                return CpuVectors::Avx512;
            }
            if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
                return CpuVectors::Avx2;
            }
        }
        CpuVectors::Baseline
    }

    /// The name used by `ONGPU_CPU_VECTORS`.
    pub fn name(self) -> &'static str {
        match self {
            CpuVectors::Baseline => "baseline",
            CpuVectors::Avx2 => "avx2",
            CpuVectors::Avx512 => "avx512",
        }
    }

    fn from_name(name: &str) -> Option<CpuVectors> {
        [CpuVectors::Baseline, CpuVectors::Avx2, CpuVectors::Avx512]
            .into_iter()
            .find(|v| v.name() == name)
    }

    fn code(self) -> u8 {
        self as u8 + 1
    }

    fn from_code(code: u8) -> Option<CpuVectors> {
        [CpuVectors::Baseline, CpuVectors::Avx2, CpuVectors::Avx512]
            .into_iter()
            .find(|v| v.code() == code)
    }
}

/// The choice in force (`0`: not made yet).
static CHOSEN: AtomicU8 = AtomicU8::new(0);

/// The vector instructions the CPU backend's calls use: the widest the host has, at most
/// what `ONGPU_CPU_VECTORS=baseline|avx2|avx512` names (a name the host lacks, or an unknown
/// one, is warned about once and ignored), or what [`set_cpu_vectors`] chose.
pub fn cpu_vectors() -> CpuVectors {
    if let Some(v) = CpuVectors::from_code(CHOSEN.load(Ordering::Relaxed)) {
        return v;
    }
    let best = CpuVectors::host_best();
    let chosen = match std::env::var("ONGPU_CPU_VECTORS") {
        Err(_) => best,
        Ok(name) => match CpuVectors::from_name(name.trim()) {
            Some(v) if v <= best => v,
            _ => {
                eprintln!(
                    "ongpu: ONGPU_CPU_VECTORS={name} ignored: this host runs baseline{}{}",
                    if best >= CpuVectors::Avx2 {
                        ", avx2"
                    } else {
                        ""
                    },
                    if best >= CpuVectors::Avx512 {
                        ", avx512"
                    } else {
                        ""
                    },
                );
                best
            }
        },
    };
    // Another thread may have chosen meanwhile (the same, unless set explicitly): keep theirs.
    match CHOSEN.compare_exchange(0, chosen.code(), Ordering::Relaxed, Ordering::Relaxed) {
        Ok(_) => chosen,
        Err(code) => CpuVectors::from_code(code).unwrap_or(chosen),
    }
}

/// Makes the CPU backend's later calls use `vectors` (to compare them: every choice gives the
/// same results bit for bit). An instruction set the host lacks is an error, and changes
/// nothing.
pub fn set_cpu_vectors(vectors: CpuVectors) -> Result<()> {
    let best = CpuVectors::host_best();
    if vectors > best {
        return Err(Error::InvalidArgument(format!(
            "CPU vectors {}: this host has at most {}",
            vectors.name(),
            best.name()
        )));
    }
    CHOSEN.store(vectors.code(), Ordering::Relaxed);
    Ok(())
}

/// Runs `f` compiled for the vector instructions the CPU backend uses ([`cpu_vectors`]), as
/// the backend runs bodies: for host code written to vectorise (loops over lanes), so that
/// it gets the host's width without a `target-cpu` flag. `f`, and what it calls down to the
/// arithmetic, must be `#[inline(always)]` (a closure: mark it so at the call) for the width
/// to reach it. Every width computes the same bits.
#[inline(always)]
pub fn with_cpu_vectors<R>(f: impl FnOnce() -> R) -> R {
    run_with(cpu_vectors(), f)
}

/// Runs `f` compiled for `vectors`: `f` is inlined into a copy of this function built for
/// those instructions (so `f` and what it inlines must be `#[inline(always)]` down to the
/// arithmetic for the width to reach it).
///
/// `vectors` must be one the host has ([`cpu_vectors`] only gives those).
#[inline(always)]
pub(crate) fn run_with<R>(vectors: CpuVectors, f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx2,fma")]
        unsafe fn avx2<R>(f: impl FnOnce() -> R) -> R {
            f()
        }
        #[target_feature(enable = "avx512f,avx2,fma")]
        unsafe fn avx512<R>(f: impl FnOnce() -> R) -> R {
            f()
        }
        match vectors {
            // SAFETY: the host has these instructions (see `cpu_vectors`, `set_cpu_vectors`).
            CpuVectors::Avx512 => unsafe { avx512(f) },
            // SAFETY: as above.
            CpuVectors::Avx2 => unsafe { avx2(f) },
            CpuVectors::Baseline => f(),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = vectors;
        f()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_the_host_has_its_best() {
        for v in [CpuVectors::Baseline, CpuVectors::Avx2, CpuVectors::Avx512] {
            assert_eq!(CpuVectors::from_name(v.name()), Some(v));
            assert_eq!(CpuVectors::from_code(v.code()), Some(v));
        }
        assert_eq!(CpuVectors::from_name("sse9"), None);
        assert!(cpu_vectors() <= CpuVectors::host_best());
    }

    #[test]
    fn every_width_the_host_has_computes_the_same_bits() {
        // A product and a sum of products over 32 lanes, as a body's lane loop does it.
        let a: Vec<f32> = (0..96).map(|i| (i as f32 * 0.37).sin()).collect();
        let lanes = |v: CpuVectors| {
            run_with(v, || {
                let mut out = [0f32; 32];
                for (l, o) in out.iter_mut().enumerate() {
                    *o = a[l] * a[l + 32] + a[l + 64] * a[l] - a[l + 32] * a[l + 64];
                }
                out
            })
        };
        let want = lanes(CpuVectors::Baseline);
        for v in [CpuVectors::Avx2, CpuVectors::Avx512] {
            if v <= CpuVectors::host_best() {
                assert_eq!(lanes(v).map(f32::to_bits), want.map(f32::to_bits), "{v:?}");
            }
        }
    }
}
