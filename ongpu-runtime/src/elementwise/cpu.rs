//! The CPU backend: the body's Rust closure over every site, on rayon threads in chunks of
//! whole layout blocks, each run as groups of 32 sites gathered into private component-major
//! buffers, so that the compiler can vectorise the body across the sites of a group.

use crate::capture::{lcm, Captures};
use crate::error::{panic_message, Error, Result};
use crate::field::site_io::LANES;
use crate::launch::site::CallSite;
use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};

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
    let run_range = |start: usize, end: usize| {
        let mut s0 = start;
        // Whole groups of LANES sites: gather, run the body lane by lane, scatter.
        while C::GROUPS_PAY && s0 + LANES <= end {
            // SAFETY: `s0 + LANES <= end` and the views were made for these sites; every lane is
            // set before the store. Tasks own disjoint site ranges, so no two threads touch
            // the same site (see `HostPtr`).
            unsafe {
                let mut lanes = C::load_lanes(&views, s0);
                for l in 0..LANES {
                    let out = body(s0 + l, C::lane(&lanes, l));
                    C::set_lane(&mut lanes, l, out);
                }
                C::store_lanes(&views, s0, &lanes);
            }
            s0 += LANES;
        }
        // The remaining sites one by one.
        for s in s0..end {
            // SAFETY: as above, `s < end`.
            unsafe {
                let out = body(s, C::load(&views, s));
                C::store(&views, s, out);
            }
        }
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let (first, last) = (sites.start / chunk, sites.end.div_ceil(chunk));
        let clip = |c: usize| (c * chunk).max(sites.start)..((c + 1) * chunk).min(sites.end);
        #[cfg(feature = "rayon")]
        if last - first > 1 {
            use rayon::prelude::*;
            (first..last).into_par_iter().for_each(|c| {
                let r = clip(c);
                run_range(r.start, r.end)
            });
            return;
        }
        for c in first..last {
            let r = clip(c);
            run_range(r.start, r.end)
        }
    }));
    outcome.map_err(|panic| Error::BodyPanicked {
        site: site.location(),
        message: panic_message(&*panic),
    })
}
