//! The CPU backend of reductions: sites in chunks of fixed boundaries, each chunk's values
//! added in site order, and the chunks' partial results combined in a fixed tree over the
//! chunk index. Neither the boundaries nor the tree depend on the number of threads, so a
//! result is the same bit for bit whatever the thread count (and with or without rayon).

use super::{ReduceBody, Reduction};
use crate::capture::CaptureArg;
use crate::cpu_vectors::{cpu_vectors, run_with};
use crate::elementwise::cpu::{lane_groups, panicking_lane, Place};
use crate::error::{catch_body, panic_message, Error, Result};
use crate::field::site_io::LANES;
use crate::launch::call_site::CallSite;
use std::mem::MaybeUninit;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

/// Sites per chunk (rounded up to whole layout blocks).
pub(crate) const CHUNK_SITES: usize = 4096;

/// Combines `parts` (partial results of consecutive chunks) in a fixed tree: halves, first
/// half on the left.
fn tree<Op: Reduction<V>, V>(parts: &[Op::Acc]) -> Op::Acc {
    match parts.len() {
        0 => Op::identity(),
        1 => parts[0],
        k => {
            let (a, b) = parts.split_at(k / 2);
            Op::combine(tree::<Op, V>(a), tree::<Op, V>(b))
        }
    }
}

/// The values of `body` over `begin..end` added in site order, storing the fields it writes:
/// lone sites one by one, whole groups of [`LANES`] sites gathered and run lane by lane (so
/// that the body vectorises across them, as in element-wise calls) with their values kept
/// and added after the group, in the same order. `at` is where a panic happened.
///
/// # Safety
/// `begin..end` are sites the views were made for, which no other thread touches.
#[inline(always)]
unsafe fn reduce_sites<Op, C, V, F>(
    views: &C::HostView,
    body: &F,
    begin: usize,
    end: usize,
    at: &mut Place,
) -> Op::Acc
where
    Op: Reduction<V>,
    C: CaptureArg,
    F: ReduceBody<C, V>,
{
    let mut acc = Op::identity();
    let one = |s: usize, acc: &mut Op::Acc, at: &mut Place| {
        *at = Place::Site(s);
        // SAFETY: `s` is one of this task's sites (see the function's contract).
        unsafe {
            let (out, v) = body.site(s, C::load(views, s));
            C::store(views, s, out);
            *acc = Op::add(*acc, v);
        }
    };
    let (head, groups, tail) = lane_groups(begin, end, C::GROUPS_PAY);
    for s in head {
        one(s, &mut acc, at);
    }
    for group in groups {
        let s0 = group * LANES;
        *at = Place::Group(s0);
        let mut values = [const { MaybeUninit::<V>::uninit() }; LANES];
        // SAFETY: `s0 + LANES <= end`: this task's sites; every lane is set before the store.
        unsafe {
            let mut lanes = C::load_lanes(views, s0);
            if !C::lanes_ready(&lanes) {
                // A neighbour the group could not gather: its sites one by one, where the
                // shift that fails reports its site (the order of additions is the same).
                drop(lanes);
                for s in s0..s0 + LANES {
                    one(s, &mut acc, at);
                }
                continue;
            }
            let access = C::lane_access(&mut lanes);
            let mut written = C::lane_out(views, s0);
            for (l, value) in values.iter_mut().enumerate() {
                let (out, v) = body.lane(s0 + l, C::lane(&access, &written, l));
                C::set_lane(&mut written, l, out);
                value.write(v);
            }
            C::store_lanes(views, s0, &written);
        }
        for v in values {
            // SAFETY: every lane's value was written above.
            acc = Op::add(acc, unsafe { v.assume_init() });
        }
    }
    for s in tail {
        one(s, &mut acc, at);
    }
    acc
}

/// Reduces `body`'s values over `sites` (storing the fields it writes).
pub(crate) fn run<Op, C, V, F>(
    site: &CallSite,
    sites: &Range<usize>,
    caps: &mut C,
    body: &F,
) -> Result<Op::Acc>
where
    Op: Reduction<V>,
    C: CaptureArg,
    F: ReduceBody<C, V>,
{
    if sites.is_empty() {
        return Ok(Op::identity());
    }
    let views = caps.host_view(sites)?;
    let chunk = CHUNK_SITES.div_ceil(C::BLOCK) * C::BLOCK;
    // Chunk boundaries relative to the first site, so that a subset of a lattice reduces
    // in the same tree as a plain count of as many sites.
    let (start, n) = (sites.start, sites.len());
    let chunks = n.div_ceil(chunk);
    // The first site found panicking (the lowest, if several threads find one) and its
    // message; once one is found, chunks not yet started are skipped.
    let panicked: Mutex<Option<(usize, String)>> = Mutex::new(None);
    let stop = AtomicBool::new(false);
    let vectors = cpu_vectors();
    let chunk_value = |c: usize| {
        if stop.load(Ordering::Relaxed) {
            return Op::identity();
        }
        let first = c * chunk;
        let (begin, end) = (start + first, start + first + (n - first).min(chunk));
        let mut place = Place::Site(begin);
        // A panic of the body is caught (and not printed: it is the error). Compiled for the
        // host's widest vectors, as element-wise calls are (the sum's order stays the sites'
        // order, so the bits are those of every width).
        let outcome = catch_body(|| {
            run_with(
                vectors,
                #[inline(always)]
                || {
                    // SAFETY: `begin..end` are sites of `sites`, for which the views were
                    // made. Chunks own disjoint site ranges, so no two threads touch the same
                    // site (see `HostPtr`).
                    unsafe { reduce_sites::<Op, C, V, F>(&views, body, begin, end, &mut place) }
                },
            )
        });
        outcome.unwrap_or_else(|panic| {
            stop.store(true, Ordering::Relaxed);
            let message = panic_message(&*panic);
            let at = match place {
                Place::Site(s) => s,
                // SAFETY: the group's sites are this task's, and the panic left them unstored.
                Place::Group(s0) => unsafe {
                    panicking_lane::<C, _>(&views, s0, |s, v| body.lane(s, v))
                },
            };
            let mut found = panicked.lock().unwrap_or_else(PoisonError::into_inner);
            if found.as_ref().map_or(true, |(s, _)| at < *s) {
                *found = Some((at, message));
            }
            Op::identity()
        })
    };
    let value = if chunks == 1 {
        chunk_value(0)
    } else {
        #[cfg(feature = "rayon")]
        let parts: Vec<Op::Acc> = {
            use rayon::prelude::*;
            (0..chunks).into_par_iter().map(chunk_value).collect()
        };
        #[cfg(not(feature = "rayon"))]
        let parts: Vec<Op::Acc> = (0..chunks).map(chunk_value).collect();
        tree::<Op, V>(&parts)
    };
    match panicked
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
    {
        None => Ok(value),
        Some((index, message)) => Err(Error::BodyPanicked {
            site: site.location(),
            index: Some(index),
            message,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::super::Sum;
    use super::*;

    #[test]
    fn the_tree_splits_in_halves_left_first() {
        // With non-associative rounding the shape shows: ((a + b) + (c + (d + e))).
        let parts = [1e16, 1.0, -1e16, 1.0, 1.0];
        let got = tree::<Sum, f64>(&parts);
        let want: f64 = (1e16 + 1.0) + (-1e16 + (1.0 + 1.0));
        assert_eq!(got.to_bits(), want.to_bits());
        assert_eq!(tree::<Sum, f64>(&[]), 0.0);
    }
}
