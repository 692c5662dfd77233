//! The CPU backend of reductions: sites in chunks of fixed boundaries, each chunk's values
//! added in site order, and the chunks' partial results combined in a fixed tree over the
//! chunk index. Neither the boundaries nor the tree depend on the number of threads, so a
//! result is the same bit for bit whatever the thread count (and with or without rayon).

use super::Reduction;
use crate::capture::Captures;
use crate::cpu_vectors::{cpu_vectors, run_with};
use crate::error::{catch_body, panic_message, Error, Result};
use crate::launch::site::CallSite;
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

/// Reduces `body`'s values over `sites` (storing the fields it writes).
pub(crate) fn run<Op, C, V, F>(
    site: &CallSite,
    sites: &Range<usize>,
    caps: &mut C,
    body: &F,
) -> Result<Op::Acc>
where
    Op: Reduction<V>,
    C: Captures,
    F: Fn(usize, C::Sites) -> (C::Sites, V) + Sync,
{
    if sites.is_empty() {
        return Ok(Op::identity());
    }
    let views = caps.host_views(sites)?;
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
        let mut at = begin;
        // A panic of the body is caught (and not printed: it is the error).
        // Compiled for the host's widest vectors, as element-wise calls are (the sum's order
        // stays the sites' order, so the bits are those of every width).
        let outcome = catch_body(|| {
            run_with(
                vectors,
                #[inline(always)]
                || {
                    let mut acc = Op::identity();
                    for s in begin..end {
                        at = s;
                        // SAFETY: `s` is one of `sites`, for which the views were made. Chunks
                        // own disjoint site ranges, so no two threads touch the same site (see
                        // `HostPtr`).
                        unsafe {
                            let (out, v) = body(s, C::load(&views, s));
                            C::store(&views, s, out);
                            acc = Op::add(acc, v);
                        }
                    }
                    acc
                },
            )
        });
        outcome.unwrap_or_else(|panic| {
            stop.store(true, Ordering::Relaxed);
            let message = panic_message(&*panic);
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
