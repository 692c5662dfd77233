//! How many sites a call runs: the count of `on_gpu!(n, ...)` or the common length of the
//! captured fields, checked against every captured field before anything runs; and threads
//! per block as given.

use crate::capture::Captures;
use crate::error::{Error, Result};
use crate::launch::site::CallSite;

/// How many sites a call runs.
#[derive(Debug)]
pub enum SiteCount {
    /// Given as `on_gpu!(n, ...)` (already converted to `usize`, or why it could not be).
    Given(Result<usize>),
    /// The common length of the captured fields.
    FromFields,
}

/// An integer type accepted for `n` and for threads per block.
pub trait CountArg: Copy + std::fmt::Display {
    /// The value as `u64`, or `None` if negative.
    fn to_u64(self) -> Option<u64>;
}

macro_rules! count_arg {
    ($($t:ty),*) => {$(
        impl CountArg for $t {
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn to_u64(self) -> Option<u64> {
                if self < 0 as $t { None } else { Some(self as u64) }
            }
        }
    )*};
}
count_arg!(usize, u64, u32, u16, u8, isize, i64, i32, i16, i8);

/// `n` of `on_gpu!(n, ...)` as a site count.
#[inline(always)]
pub fn sites<N: CountArg>(n: N) -> SiteCount {
    SiteCount::Given(
        n.to_u64()
            .and_then(|v| usize::try_from(v).ok())
            .ok_or_else(|| Error::InvalidSiteCount {
                value: n.to_string(),
            }),
    )
}

/// Threads per block of `on_gpu!(n, tpb, ...)`.
#[inline(always)]
pub fn threads_per_block<N: CountArg>(tpb: N) -> Result<u32> {
    tpb.to_u64()
        .and_then(|v| u32::try_from(v).ok())
        .ok_or_else(|| Error::InvalidArgument(format!("invalid threads per block {tpb}")))
}

/// The number of sites to run, checked against every captured field's length.
pub(crate) fn resolve_sites<C: Captures>(
    site: &CallSite,
    count: SiteCount,
    caps: &C,
) -> Result<usize> {
    let names = site.info.captures;
    match count {
        SiteCount::Given(n) => {
            let n = n?;
            let mut err = None;
            caps.for_each_len(|i, len| match len {
                Some(len) if len < n && err.is_none() => {
                    err = Some(Error::SitesExceedField {
                        site: site.location(),
                        n,
                        field: names[i],
                        len,
                    })
                }
                _ => {}
            });
            err.map_or(Ok(n), Err)
        }
        SiteCount::FromFields => {
            let mut first: Option<(usize, usize)> = None;
            let mut err = None;
            caps.for_each_len(|i, len| {
                let Some(len) = len else { return };
                match first {
                    None => first = Some((i, len)),
                    Some((j, first_len)) if first_len != len && err.is_none() => {
                        err = Some(Error::UnequalLengths {
                            site: site.location(),
                            first: names[j],
                            first_len,
                            other: names[i],
                            other_len: len,
                        })
                    }
                    _ => {}
                }
            });
            if let Some(e) = err {
                return Err(e);
            }
            first.map(|(_, len)| len).ok_or(Error::NoSiteCount {
                site: site.location(),
            })
        }
    }
}
