//! Which bodies the CPU backend runs lane-major: the call sites that have run on the CPU,
//! with the macro's [`Lowering`] of each, so that a program (or a test) can list the bodies
//! whose lanes run one after another, and why.

use crate::error::Location;
use crate::launch::call_site::{CallSite, Lowering};
use std::sync::atomic::Ordering;
use std::sync::{Mutex, PoisonError};

/// The call sites that have run on the CPU backend, in the order they first ran.
static RAN: Mutex<Vec<&'static CallSite>> = Mutex::new(Vec::new());

/// Notes that `site` ran on the CPU backend (once per site: one atomic load after that).
pub(crate) fn note(site: &'static CallSite) {
    if !site.ran_on_cpu.swap(true, Ordering::Relaxed) {
        RAN.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(site);
    }
}

/// Every `on_gpu!` element-wise call and reduction that has run on the CPU backend in this
/// process, with how its lanes run: [`Lowering::LaneMajor`], or the construct that keeps
/// them one after another.
pub fn cpu_lowerings() -> Vec<(Location, Lowering)> {
    RAN.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
        .map(|s| (s.location(), s.info.lowering))
        .collect()
}
