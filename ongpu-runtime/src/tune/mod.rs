//! Launch autotuning of element-wise calls on the GPU.
//!
//! The first calls of a kernel at a size class (sites rounded down to a power of two) on a
//! device each run with another launch shape from a small set (threads per block, and the
//! grid: 1, 2 or 4 waves of resident blocks, or one thread per site), timed with CUDA events
//! that the host reads once they are done, so that tuning adds no synchronisation. When
//! every shape has two times, the fastest is kept (the default one unless another beats it
//! by more than 3%), written to a file next to the kernel cache (`tuning.txt`, keyed by the
//! kernel's source, the device and the size class), and used from then on, by this process
//! and later ones. Every call does its work exactly once, with whatever shape it is given:
//! an element-wise call's result does not depend on its shape, so tuning changes no bit.
//!
//! Not tuned: calls of fewer than 2^16 sites (launch latency dominates), reductions (the
//! bits of a floating-point sum depend on the grid), explicit kernels (their launch shape is
//! the user's), calls recorded into graphs, and the threads per block of a call that names
//! them (`on_gpu!(n, 256, ..)`: only its grid is tuned).
//!
//! `ONGPU_TUNE=off|on|force` (default `on`; `force` tunes again and replaces what the file
//! holds), `ONGPU_TUNE_LOG=1` prints each choice, and [`choices`] lists them.

// Without CUDA only the mode and the file format remain (and their tests).
#![cfg_attr(not(feature = "cuda"), allow(dead_code))]

mod store;
#[cfg(feature = "cuda")]
pub(crate) mod trials;

use crate::error::{Error, Result};
use std::cell::Cell;
use std::sync::{Mutex, OnceLock};

/// Whether launches are tuned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TuneMode {
    /// Each kernel's default shape.
    Off,
    /// Shapes from the tuning file, and tuning where it has none (the default).
    On,
    /// Tuning again, ignoring the file's choices (and replacing them).
    Force,
}

thread_local! {
    static OVERRIDE: Cell<Option<TuneMode>> = const { Cell::new(None) };
}

/// `ONGPU_TUNE`, read once.
fn from_env() -> Result<TuneMode> {
    static ENV: OnceLock<std::result::Result<TuneMode, String>> = OnceLock::new();
    ENV.get_or_init(|| parse_mode(std::env::var("ONGPU_TUNE").ok().as_deref()))
        .clone()
        .map_err(Error::InvalidArgument)
}

fn parse_mode(v: Option<&str>) -> std::result::Result<TuneMode, String> {
    match v.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
        None | Some("") | Some("on") | Some("1") => Ok(TuneMode::On),
        Some("off") | Some("0") => Ok(TuneMode::Off),
        Some("force") => Ok(TuneMode::Force),
        Some(other) => Err(format!("ONGPU_TUNE={other:?} is not off, on or force")),
    }
}

/// The tuning mode of this thread's next launches: [`with_tuning`]'s, else `ONGPU_TUNE`'s.
pub fn mode() -> Result<TuneMode> {
    match OVERRIDE.with(Cell::get) {
        Some(m) => Ok(m),
        None => from_env(),
    }
}

/// Runs `f` with this thread's launches tuned as `mode` says (then restores the previous
/// choice).
///
/// ```
/// use ongpu_runtime::tune::{mode, with_tuning, TuneMode};
/// with_tuning(TuneMode::Off, || assert_eq!(mode().unwrap(), TuneMode::Off));
/// ```
pub fn with_tuning<R>(mode: TuneMode, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<TuneMode>);
    impl Drop for Restore {
        fn drop(&mut self) {
            OVERRIDE.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(OVERRIDE.with(|c| c.replace(Some(mode))));
    f()
}

/// One tuning decision of this process.
#[derive(Debug, Clone, PartialEq)]
pub struct TuneChoice {
    /// What was tuned (`on_gpu! at file:line:column`).
    pub what: String,
    /// The device.
    pub device: String,
    /// The size class: calls of `2^class` to `2^(class+1) - 1` sites.
    pub class: u32,
    /// The shape kept.
    pub shape: LaunchChoice,
    /// Its time, and the default shape's, in milliseconds (0 for a choice read from the
    /// tuning file).
    pub ms: f32,
    /// The default shape's time.
    pub default_ms: f32,
}

/// A launch shape of an element-wise kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LaunchChoice {
    /// Threads per block.
    pub threads_per_block: u32,
    /// Waves of resident blocks the grid spans; 0: one thread per site (per iteration's
    /// sites).
    pub waves: u32,
}

/// The smallest call that is tuned.
pub(crate) const MIN_TUNED_SITES: usize = 1 << 16;

/// The size class of a call of `n` sites.
pub(crate) fn class_of(n: usize) -> u32 {
    n.max(1).ilog2()
}

/// The shapes tried: `fixed` threads per block (the call's), or those of 128, 256 and 512
/// that the kernel allows (`max_threads`: its registers limit its blocks); each with grids
/// of 1, 2 and 4 waves and of one thread per site; `default` first.
pub(crate) fn candidates(
    default: LaunchChoice,
    fixed_tpb: bool,
    max_threads: u32,
) -> Vec<LaunchChoice> {
    let tpbs: &[u32] = if fixed_tpb {
        &[default.threads_per_block]
    } else {
        &[128, 256, 512]
    };
    let mut out = vec![default];
    for &threads_per_block in tpbs.iter().filter(|&&t| t <= max_threads) {
        for waves in [1, 2, 4, 0] {
            let c = LaunchChoice {
                threads_per_block,
                waves,
            };
            if !out.contains(&c) {
                out.push(c);
            }
        }
    }
    out
}

/// The shape to keep from each candidate's best time (the first candidate is the default):
/// the fastest, unless the default is within 3% of it (timing noise is no reason to move).
pub(crate) fn decide(times: &[(LaunchChoice, f32)]) -> (LaunchChoice, f32) {
    let (default, default_ms) = times[0];
    let &(best, best_ms) = times
        .iter()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .expect("candidates");
    if default_ms <= best_ms * 1.03 {
        (default, default_ms)
    } else {
        (best, best_ms)
    }
}

/// The decisions of this process, in order.
fn log() -> &'static Mutex<Vec<TuneChoice>> {
    static LOG: OnceLock<Mutex<Vec<TuneChoice>>> = OnceLock::new();
    LOG.get_or_init(|| Mutex::new(Vec::new()))
}

/// Notes a decision (and prints it with `ONGPU_TUNE_LOG=1`).
pub(crate) fn note(choice: TuneChoice) {
    static PRINT: OnceLock<bool> = OnceLock::new();
    if *PRINT
        .get_or_init(|| std::env::var("ONGPU_TUNE_LOG").is_ok_and(|v| !v.is_empty() && v != "0"))
    {
        let how = if choice.ms > 0.0 {
            format!(
                "{:.4} ms, the default {:.4} ms",
                choice.ms, choice.default_ms
            )
        } else {
            "from the tuning file".to_string()
        };
        eprintln!(
            "ongpu: tuned {} on {} for 2^{} sites: {} threads per block, {} ({how})",
            choice.what,
            choice.device,
            choice.class,
            choice.shape.threads_per_block,
            match choice.shape.waves {
                0 => "one thread per site".to_string(),
                w => format!("{w} wave{}", if w == 1 { "" } else { "s" }),
            },
        );
    }
    log().lock().unwrap_or_else(|e| e.into_inner()).push(choice);
}

/// The tuning decisions this process made or read, in order.
pub fn choices() -> Vec<TuneChoice> {
    log().lock().unwrap_or_else(|e| e.into_inner()).clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn shape(threads_per_block: u32, waves: u32) -> LaunchChoice {
        LaunchChoice {
            threads_per_block,
            waves,
        }
    }

    #[test]
    fn modes_parse_and_bad_values_are_errors() {
        assert_eq!(parse_mode(None), Ok(TuneMode::On));
        assert_eq!(parse_mode(Some(" OFF ")), Ok(TuneMode::Off));
        assert_eq!(parse_mode(Some("force")), Ok(TuneMode::Force));
        assert!(parse_mode(Some("sometimes"))
            .unwrap_err()
            .contains("off, on or force"));
    }

    #[test]
    fn candidates_start_with_the_default_and_keep_a_fixed_block() {
        let free = candidates(shape(256, 1), false, 1024);
        assert_eq!(free[0], shape(256, 1));
        assert_eq!(free.len(), 12);
        assert!(free.contains(&shape(512, 0)));
        let heavy = candidates(shape(256, 0), false, 384);
        assert_eq!(heavy.len(), 8);
        assert!(heavy.iter().all(|c| c.threads_per_block <= 256));
        let fixed = candidates(shape(64, 0), true, 1024);
        assert_eq!(
            fixed,
            vec![shape(64, 0), shape(64, 1), shape(64, 2), shape(64, 4)]
        );
    }

    #[test]
    fn the_default_stays_unless_clearly_beaten() {
        let t = [
            (shape(256, 1), 1.00),
            (shape(128, 2), 0.98),
            (shape(512, 0), 1.2),
        ];
        assert_eq!(decide(&t).0, shape(256, 1));
        let t = [(shape(256, 1), 1.00), (shape(128, 2), 0.90)];
        assert_eq!(decide(&t), (shape(128, 2), 0.90));
        assert_eq!(class_of(1 << 20), 20);
        assert_eq!(class_of((1 << 21) - 1), 20);
    }
}
