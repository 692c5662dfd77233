//! The CPU backend: the body's Rust closure over every site, on rayon threads in chunks of
//! whole layout blocks, each run as groups of 32 sites gathered into private component-major
//! buffers, so that the compiler can vectorise the body across the sites of a group.

use super::lane_group::LaneGroup;
use crate::capture::{lcm, CaptureArg};
use crate::cpu_vectors::{cpu_vectors, run_with};
use crate::error::{catch_body, panic_message, Error, Result};
use crate::field::site_io::LANES;
use crate::launch::call_site::CallSite;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

/// Sites per task (rounded up to whole layout blocks) at most; small calls run on the
/// calling thread alone.
const CHUNK_SITES: usize = 4096;

/// Sites per task at least, where a call has fewer than `CHUNK_SITES` per thread: below
/// it a task costs more to hand out than its sites take.
const MIN_CHUNK_SITES: usize = 1024;

/// Sites per task of a stencil (a call that reads neighbours), at most and at least: its
/// sites cost many times a vector add's, and many tasks let idle threads take work from a
/// thread the host slowed. Measured on a 16-core host (AVX-512) with the staggered Dslash
/// at 16^4 and 24^4: tasks of 512 sites ran at 95–118% of the hand-vectorised kernel's
/// speed (which hands out 512), tasks of 2048–4096 at 67–103%, from run to run.
const STENCIL_CHUNK_SITES: usize = 512;

/// Sites per task for a call of `n` sites on the pool's threads ([`chunk_sites_for`]).
fn chunk_sites(n: usize, align: usize, stencil: bool) -> usize {
    #[cfg(feature = "rayon")]
    let threads = rayon::current_num_threads();
    #[cfg(not(feature = "rayon"))]
    let threads = 1;
    chunk_sites_for(n, align, threads, stencil)
}

/// Sites per task for a call of `n` sites on `threads` threads: the sites shared evenly
/// among as many rounds of one task per thread as tasks of at most `CHUNK_SITES` need (of
/// `STENCIL_CHUNK_SITES` for a stencil), never below `MIN_CHUNK_SITES` (or the stencil's);
/// a multiple of `align`. Even rounds matter: a 24^4 lattice's 165 888 even sites in tasks
/// of 4096 are 41 tasks, which 16 threads run in three rounds, the last with 7 threads
/// idle; in tasks of 3456 they are 48, three to a thread. Element-wise results do not
/// depend on it.
fn chunk_sites_for(n: usize, align: usize, threads: usize, stencil: bool) -> usize {
    let (most, least) = if stencil {
        (STENCIL_CHUNK_SITES, STENCIL_CHUNK_SITES)
    } else {
        (CHUNK_SITES, MIN_CHUNK_SITES)
    };
    let threads = threads.max(1);
    let rounds = n.div_ceil(threads * most).max(1);
    let sites = n.div_ceil(threads * rounds).max(least);
    sites.div_ceil(align) * align
}

/// Where a chunk was when its body panicked.
#[derive(Clone, Copy)]
pub(crate) enum Place {
    /// At this site (run alone).
    Site(usize),
    /// In the group of lanes starting at this site.
    Group(usize),
}

/// The site of the group at `s0` whose body panics. A group's bodies only compute values
/// (the group is stored after its last lane, and a panic skips that), so running them again
/// from the same inputs, with panics caught and not printed, meets the same panic.
///
/// # Safety
/// As for `CaptureArg::load_lanes`: `s0 .. s0 + LANES` are sites of the views that no other
/// thread touches.
pub(crate) unsafe fn panicking_lane<C, R>(
    views: &C::HostView,
    s0: usize,
    lane_body: impl Fn(usize, C::LaneSite) -> R,
) -> usize
where
    C: CaptureArg,
{
    let mut lanes = C::load_lanes(views, s0);
    let access = C::lane_access(&mut lanes);
    let out = C::lane_out(views, s0);
    (0..LANES)
        .find(|&l| catch_body(|| lane_body(s0 + l, C::lane(&access, &out, l))).is_err())
        .map_or(s0, |l| s0 + l)
}

/// How the CPU loops run `start..end`: the sites before the first whole group of [`LANES`]
/// (a subset may start inside one) one by one, then whole groups (by group index, so that
/// the compiler sees each start on a multiple of `LANES`: whole layout blocks, whose gathers
/// and scatters become fixed-size copies) when `grouped`, then the remaining sites one by one.
#[inline(always)]
pub(crate) fn lane_groups(
    start: usize,
    end: usize,
    grouped: bool,
) -> (Range<usize>, Range<usize>, Range<usize>) {
    if !grouped {
        return (start..end, 0..0, end..end);
    }
    let head = start.next_multiple_of(LANES).min(end);
    let groups = head / LANES..(end / LANES).max(head / LANES);
    (
        (start..head),
        groups.clone(),
        (groups.end * LANES).max(head)..end,
    )
}

/// How the lanes of a whole group run: the body at each lane in turn ([`PerLane`]), or a body
/// the macro lowered in chunks, each run over every lane before the next ([`Chunked`]).
pub(crate) trait GroupRun<C: CaptureArg>: Sync {
    /// Runs the lanes of the group at `s0`, collecting the written lanes in `written`.
    ///
    /// # Safety
    /// `access` comes from `C::lane_access` of the group's live lanes.
    unsafe fn run_group(&self, s0: usize, access: &C::LaneAccess, written: &mut C::LaneOut);
}

/// The lane body, run at each lane of a group in turn.
pub(crate) struct PerLane<'a, G>(pub(crate) &'a G);

impl<C, G> GroupRun<C> for PerLane<'_, G>
where
    C: CaptureArg,
    G: Fn(usize, C::LaneSite) -> C::LaneSite + Sync,
{
    #[inline(always)]
    unsafe fn run_group(&self, s0: usize, access: &C::LaneAccess, written: &mut C::LaneOut) {
        for l in 0..LANES {
            let out = (self.0)(s0 + l, C::lane(access, written, l));
            C::set_lane(written, l, out);
        }
    }
}

/// A body lowered in chunks: given the group's first site and its lanes.
pub(crate) struct Chunked<'a, H>(pub(crate) &'a H);

impl<C, H> GroupRun<C> for Chunked<'_, H>
where
    C: CaptureArg,
    H: for<'g> Fn(usize, &mut LaneGroup<'g, C>) + Sync,
{
    #[inline(always)]
    unsafe fn run_group(&self, s0: usize, access: &C::LaneAccess, written: &mut C::LaneOut) {
        (self.0)(s0, &mut LaneGroup { access, written })
    }
}

/// Runs `body` for the sites `start..end`: lone sites one by one, whole groups of
/// [`LANES`] sites gathered, run by `group` and scattered. `at` is where a panic happened:
/// the site, or the first site of the group of lanes (`Place::Group`), which is found again
/// after the panic (see `panicking_site`), so that the lane loops keep no per-site
/// bookkeeping and stay vectorisable.
///
/// # Safety
/// `start..end` are sites the views were made for, which no other thread touches.
#[inline(always)]
unsafe fn run_sites<C, F>(
    views: &C::HostView,
    body: &F,
    group: &impl GroupRun<C>,
    start: usize,
    end: usize,
    at: &mut Place,
) where
    C: CaptureArg,
    F: Fn(usize, C::Site) -> C::Site + Sync,
{
    let run_one = |s: usize, at: &mut Place| {
        *at = Place::Site(s);
        // SAFETY: `s` is one of this task's sites (see the function's contract).
        unsafe {
            let out = body(s, C::load(views, s));
            C::store(views, s, out);
        }
    };
    let (head, groups, tail) = lane_groups(start, end, C::GROUPS_PAY);
    for s in head {
        run_one(s, at);
    }
    // Whole groups of LANES sites: gather, run the lanes, scatter.
    for g in groups {
        let s0 = g * LANES;
        *at = Place::Group(s0);
        // SAFETY: `s0 + LANES <= end` and these are this task's sites; every lane is set
        // before the store.
        unsafe {
            let mut lanes = C::load_lanes(views, s0);
            if !C::lanes_ready(&lanes) {
                // A neighbour the group could not gather: its sites one by one, where the
                // shift that fails reports its site.
                drop(lanes);
                for s in s0..s0 + LANES {
                    run_one(s, at);
                }
                continue;
            }
            let access = C::lane_access(&mut lanes);
            let mut written = C::lane_out(views, s0);
            group.run_group(s0, &access, &mut written);
            C::store_lanes(views, s0, &written);
        }
    }
    for s in tail {
        run_one(s, at);
    }
}

/// The site of the group at `s0` whose body panics, found by running the lone sites' body
/// at each site, from the same inputs (the group stored nothing), with panics caught and not
/// printed.
///
/// # Safety
/// As for [`panicking_lane`].
unsafe fn panicking_site<C, F>(views: &C::HostView, s0: usize, body: &F) -> usize
where
    C: CaptureArg,
    F: Fn(usize, C::Site) -> C::Site,
{
    (s0..s0 + LANES)
        .find(|&s| catch_body(|| body(s, C::load(views, s))).is_err())
        .unwrap_or(s0)
}

/// Runs `body` for the sites of `sites`: lone sites through `body`, the lanes of whole
/// groups through `group` (the same statements, whose shifted reads of nearest neighbours
/// read the group's gathered buffers).
pub(crate) fn run<C, F>(
    site: &CallSite,
    sites: &Range<usize>,
    caps: &mut C,
    body: &F,
    group: &impl GroupRun<C>,
) -> Result<()>
where
    C: CaptureArg,
    F: Fn(usize, C::Site) -> C::Site + Sync,
{
    if sites.is_empty() {
        return Ok(());
    }
    let views = caps.host_view(sites)?;
    // Chunks start on whole layout blocks and whole lane groups (counted from site 0, so
    // that a subset's chunks are those of the whole field, clipped).
    let align = lcm(C::BLOCK, LANES);
    let chunk = chunk_sites(sites.len(), align, C::STENCIL);
    // The first site found panicking (the lowest, if several threads find one) and its
    // message; once one is found, chunks not yet started are skipped.
    let panicked: Mutex<Option<(usize, String)>> = Mutex::new(None);
    let stop = AtomicBool::new(false);
    // The loops are compiled for the host's widest vectors (see `cpu_vectors`); the closure
    // and everything it calls down to the body are inlined into the copy of `run_with`
    // built for them.
    let vectors = cpu_vectors();
    let run_range = |start: usize, end: usize, at: &mut Place| {
        run_with(
            vectors,
            #[inline(always)]
            || {
                // SAFETY: `start..end` is a chunk of `sites`, for which the views were made,
                // and only this task's.
                unsafe { run_sites::<C, F>(&views, body, group, start, end, at) }
            },
        )
    };
    // Runs one chunk, catching a panic of the body (which is not printed: it is the error).
    let run_chunk = |start: usize, end: usize| {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        let mut place = Place::Site(start);
        if let Err(panic) = catch_body(|| run_range(start, end, &mut place)) {
            stop.store(true, Ordering::Relaxed);
            let message = panic_message(&*panic);
            let at = match place {
                Place::Site(s) => s,
                // SAFETY: the group's sites are this task's, and the panic left them unstored.
                Place::Group(s0) => unsafe { panicking_site::<C, F>(&views, s0, body) },
            };
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_are_whole_groups_between_the_bounds() {
        for n in [1, 31, 1000, 13_824, 32_768, 1 << 20] {
            for align in [32, 64, 96] {
                let c = chunk_sites_for(n, align, 2, false);
                assert_eq!(c % align, 0, "n {n}, align {align}: {c}");
                assert!(
                    c >= MIN_CHUNK_SITES && c < CHUNK_SITES + align,
                    "n {n}: {c}"
                );
            }
        }
        // A call with many sites a thread keeps the largest tasks.
        assert_eq!(chunk_sites_for(1 << 30, 32, 2, false), CHUNK_SITES);
    }

    #[test]
    fn tasks_fill_whole_rounds_of_the_threads() {
        // (even sites of L^4, threads, tasks): one task per thread per round.
        for (l, threads, tasks) in [(16, 16, 16), (24, 16, 48), (32, 16, 128), (24, 2, 42)] {
            let n = l * l * l * l / 2;
            let c = chunk_sites_for(n, 32, threads, false);
            assert!(c <= CHUNK_SITES, "{l}^4: {c}");
            assert_eq!(
                n.div_ceil(c),
                tasks,
                "{l}^4 on {threads} threads: tasks of {c}"
            );
        }
        // A stencil's tasks are of 512 sites: many rounds, whose last one is short.
        for (l, threads, tasks) in [(16, 16, 64), (24, 16, 324), (32, 16, 1024)] {
            let n = l * l * l * l / 2;
            let c = chunk_sites_for(n, 32, threads, true);
            assert!(c <= STENCIL_CHUNK_SITES, "{l}^4: {c}");
            assert_eq!(n.div_ceil(c), tasks, "{l}^4 stencil: tasks of {c}");
        }
    }

    #[test]
    fn lane_groups_cover_every_site_once_in_order() {
        for (start, end) in [
            (0, 0),
            (0, 100),
            (5, 10),
            (5, 40),
            (32, 64),
            (33, 200),
            (64, 70),
        ] {
            for grouped in [false, true] {
                let (head, groups, tail) = lane_groups(start, end, grouped);
                let sites: Vec<usize> = head
                    .clone()
                    .chain(groups.clone().flat_map(|g| g * LANES..(g + 1) * LANES))
                    .chain(tail)
                    .collect();
                assert_eq!(sites, (start..end).collect::<Vec<_>>(), "{start}..{end}");
                assert!(grouped || groups.is_empty());
                assert!(head.len() < LANES || !grouped);
            }
        }
    }
}
