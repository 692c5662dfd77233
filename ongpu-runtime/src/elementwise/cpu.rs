//! The CPU backend: the body's Rust closure over every site, on rayon threads in chunks of
//! whole layout blocks, each run as groups of 32 sites gathered into private component-major
//! buffers, so that the compiler can vectorise the body across the sites of a group.

use crate::capture::{lcm, Captures};
use crate::error::{catch_body, panic_message, Error, Result};
use crate::field::site_io::LANES;
use crate::launch::site::CallSite;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

/// Sites per task (rounded up to whole layout blocks); small calls run on the calling
/// thread alone.
const CHUNK_SITES: usize = 4096;

/// Runs `body` for sites `0..n`.
pub(crate) fn run<C, F>(site: &CallSite, n: usize, caps: &mut C, body: &F) -> Result<()>
where
    C: Captures,
    F: Fn(usize, C::Sites) -> C::Sites + Sync,
{
    if n == 0 {
        return Ok(());
    }
    let views = caps.host_views(n)?;
    // Chunks start on whole layout blocks and whole lane groups.
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
            // SAFETY: `s0 + LANES <= n` and the views were made for `n` sites; every lane is
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
            // SAFETY: as above, `s < n`.
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
    #[cfg(feature = "rayon")]
    if n > chunk {
        use rayon::prelude::*;
        (0..n.div_ceil(chunk)).into_par_iter().for_each(|c| {
            let start = c * chunk;
            run_chunk(start, start + (n - start).min(chunk))
        });
    } else {
        run_chunk(0, n);
    }
    #[cfg(not(feature = "rayon"))]
    run_chunk(0, n);
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
