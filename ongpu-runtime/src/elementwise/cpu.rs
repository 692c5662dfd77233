//! The CPU backend: the body's Rust closure over every site, on rayon threads in chunks of
//! whole layout blocks, each run as groups of 32 sites gathered into private component-major
//! buffers, so that the compiler can vectorise the body across the sites of a group.

use crate::capture::{lcm, Captures};
use crate::error::{catch_body, panic_message, Error, Result};
use crate::field::site_io::LANES;
use crate::launch::site::CallSite;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

/// Sites per task (rounded up to whole layout blocks); small calls run on the calling
/// thread alone.
const CHUNK_SITES: usize = 4096;

/// Runs `body` for the sites of `sites`.
pub(crate) fn run<C, F>(site: &CallSite, sites: &Range<usize>, caps: &mut C, body: &F) -> Result<()>
where
    C: Captures,
    F: Fn(usize, C::Sites) -> C::Sites + Sync,
{
    if sites.is_empty() {
        return Ok(());
    }
    let views = caps.host_views(sites)?;
    // Chunks start on whole layout blocks and whole lane groups (counted from site 0, so
    // that a subset's chunks are those of the whole field, clipped).
    let align = lcm(C::BLOCK, LANES);
    let chunk = CHUNK_SITES.div_ceil(align) * align;
    // The first site found panicking (the lowest, if several threads find one) and its
    // message; once one is found, chunks not yet started are skipped.
    let panicked: Mutex<Option<(usize, String)>> = Mutex::new(None);
    let stop = AtomicBool::new(false);
    let run_range = |start: usize, end: usize, at: &mut usize| {
        let mut s0 = start;
        // Whole groups of LANES sites: gather, run the body lane by lane, scatter.
        while C::GROUPS_PAY && end - s0 >= LANES {
            // SAFETY: `s0 + LANES <= end` and the views were made for these sites; every lane is
            // set before the store. Tasks own disjoint site ranges, so no two threads touch
            // the same site (see `HostPtr`).
            unsafe {
                let mut lanes = C::load_lanes(&views, s0);
                for l in 0..LANES {
                    *at = s0 + l;
                    let out = body(s0 + l, C::lane(&lanes, l));
                    C::set_lane(&mut lanes, l, out);
                }
                C::store_lanes(&views, s0, &lanes);
            }
            s0 += LANES;
        }
        // The remaining sites one by one.
        for s in s0..end {
            *at = s;
            // SAFETY: as above, `s < end`.
            unsafe {
                let out = body(s, C::load(&views, s));
                C::store(&views, s, out);
            }
        }
    };
    // Runs one chunk, catching a panic of the body (which is not printed: it is the error).
    let run_chunk = |start: usize, end: usize| {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        let mut at = start;
        if let Err(panic) = catch_body(|| run_range(start, end, &mut at)) {
            stop.store(true, Ordering::Relaxed);
            let message = panic_message(&*panic);
            let mut first = panicked.lock().unwrap_or_else(PoisonError::into_inner);
            if first.as_ref().map_or(true, |(s, _)| at < *s) {
                *first = Some((at, message));
            }
        }
    };
    let (first, last) = (sites.start / chunk, sites.end.div_ceil(chunk));
    let clip = |c: usize| (c * chunk).max(sites.start)..((c + 1) * chunk).min(sites.end);
    #[cfg(feature = "rayon")]
    if last - first > 1 {
        use rayon::prelude::*;
        (first..last).into_par_iter().for_each(|c| {
            let r = clip(c);
            run_chunk(r.start, r.end)
        });
    } else {
        run_chunk(sites.start, sites.end);
    }
    #[cfg(not(feature = "rayon"))]
    for c in first..last {
        let r = clip(c);
        run_chunk(r.start, r.end)
    }
    match panicked
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
    {
        None => Ok(()),
        Some((index, message)) => Err(Error::BodyPanicked {
            site: site.location(),
            index: Some(index),
            message,
        }),
    }
}
