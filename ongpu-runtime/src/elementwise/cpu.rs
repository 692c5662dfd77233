//! The CPU backend: the body's Rust closure over every site, on rayon threads in chunks of
//! whole layout blocks, each run as groups of 32 sites gathered into private component-major
//! buffers, so that the compiler can vectorise the body across the sites of a group.

use crate::capture::{lcm, Captures};
use crate::error::{panic_message, Error, Result};
use crate::field::site_io::LANES;
use crate::launch::site::CallSite;
use std::panic::{catch_unwind, AssertUnwindSafe};

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
    let run_range = |start: usize, end: usize| {
        let mut s0 = start;
        // Whole groups of LANES sites: gather, run the body lane by lane, scatter.
        while C::GROUPS_PAY && s0 + LANES <= end {
            // SAFETY: `s0 + LANES <= n` and the views were made for `n` sites; every lane is
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
            // SAFETY: as above, `s < n`.
            unsafe {
                let out = body(s, C::load(&views, s));
                C::store(&views, s, out);
            }
        }
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        #[cfg(feature = "rayon")]
        if n > chunk {
            use rayon::prelude::*;
            (0..n.div_ceil(chunk))
                .into_par_iter()
                .for_each(|c| run_range(c * chunk, ((c + 1) * chunk).min(n)));
            return;
        }
        run_range(0, n)
    }));
    outcome.map_err(|panic| Error::BodyPanicked {
        site: site.location(),
        message: panic_message(&*panic),
    })
}
