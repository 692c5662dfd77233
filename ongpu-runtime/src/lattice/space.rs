//! Which sites a call runs (its index space): the count of `on_gpu!(n, ...)`, the common
//! length of the captured fields, a lattice or one of its parities, or a split lattice;
//! checked against every captured field before anything runs. And threads per block as
//! given. Above `launch` (whose `Sites` it produces) and `split` (whose lattices it names).

use crate::capture::CaptureArg;
use crate::error::{Error, Result};
use crate::geometry::{Lattice, Subset};
use crate::lattice::split::SplitLattice;
use crate::launch::call_site::CallSite;
use crate::launch::sites::Sites;

/// How many sites a call runs.
#[derive(Debug)]
pub enum SiteCount {
    /// Given as `on_gpu!(n, ...)` (already converted to `usize`, or why it could not be).
    Given(Result<usize>),
    /// The common length of the captured fields.
    FromFields,
    /// The sites of a lattice, or of one parity.
    Lattice(Subset),
    /// The sites of a split lattice, or of one parity.
    Split(crate::lattice::split::SplitSubset),
    /// This rank's sites of a lattice cut over ranks, or of one parity.
    #[cfg(feature = "mpi")]
    Ranks(crate::lattice::ranks::RankSubset),
}

/// The first argument of `on_gpu!`: a site count (any integer type), a [`Lattice`] or a
/// [`Subset`] of one.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an index space of on_gpu!",
    label = "the sites of the call",
    note = "the first argument is a number of sites (an integer), a Lattice, or lat.even() / \
            lat.odd()"
)]
pub trait IndexSpace {
    /// The sites it names.
    fn into_sites(self) -> SiteCount;
}

impl IndexSpace for Lattice {
    #[inline(always)]
    fn into_sites(self) -> SiteCount {
        SiteCount::Lattice(self.all())
    }
}

impl IndexSpace for &Lattice {
    #[inline(always)]
    fn into_sites(self) -> SiteCount {
        SiteCount::Lattice(self.all())
    }
}

impl IndexSpace for Subset {
    #[inline(always)]
    fn into_sites(self) -> SiteCount {
        SiteCount::Lattice(self)
    }
}

impl IndexSpace for &Subset {
    #[inline(always)]
    fn into_sites(self) -> SiteCount {
        SiteCount::Lattice(*self)
    }
}

impl IndexSpace for crate::lattice::split::SplitLattice {
    #[inline(always)]
    fn into_sites(self) -> SiteCount {
        SiteCount::Split(self.all())
    }
}

impl IndexSpace for &crate::lattice::split::SplitLattice {
    #[inline(always)]
    fn into_sites(self) -> SiteCount {
        SiteCount::Split(self.all())
    }
}

impl IndexSpace for crate::lattice::split::SplitSubset {
    #[inline(always)]
    fn into_sites(self) -> SiteCount {
        SiteCount::Split(self)
    }
}

impl IndexSpace for &crate::lattice::split::SplitSubset {
    #[inline(always)]
    fn into_sites(self) -> SiteCount {
        SiteCount::Split(*self)
    }
}

/// Rank lattices and their subsets as index spaces (the `mpi` feature).
#[cfg(feature = "mpi")]
mod ranks {
    use super::{IndexSpace, LatticeSpace, SiteCount};
    use crate::geometry::Lattice;
    use crate::lattice::ranks::{RankLattice, RankSubset};

    impl IndexSpace for RankLattice {
        #[inline(always)]
        fn into_sites(self) -> SiteCount {
            SiteCount::Ranks(self.all())
        }
    }

    impl IndexSpace for &RankLattice {
        #[inline(always)]
        fn into_sites(self) -> SiteCount {
            SiteCount::Ranks(self.all())
        }
    }

    impl IndexSpace for RankSubset {
        #[inline(always)]
        fn into_sites(self) -> SiteCount {
            SiteCount::Ranks(self)
        }
    }

    impl IndexSpace for &RankSubset {
        #[inline(always)]
        fn into_sites(self) -> SiteCount {
            SiteCount::Ranks(*self)
        }
    }

    impl LatticeSpace for RankLattice {
        fn lattice(&self) -> Lattice {
            RankLattice::lattice(self)
        }
    }

    impl LatticeSpace for RankSubset {
        fn lattice(&self) -> Lattice {
            RankSubset::lattice(self).lattice()
        }
    }
}

/// An index space whose sites have neighbours: what a body with shifts runs over.
#[diagnostic::on_unimplemented(
    message = "a shift needs a lattice, but the sites of this call are a `{Self}`",
    label = "the sites of a call with shifts",
    note = "write on_gpu!(lat, ...), on_gpu!(lat.even(), ...) or on_gpu!(lat.odd(), ...) with \
            a Lattice whose volume is the fields' length"
)]
pub trait LatticeSpace {
    /// The lattice.
    fn lattice(&self) -> Lattice;
}

impl LatticeSpace for Lattice {
    fn lattice(&self) -> Lattice {
        *self
    }
}

impl LatticeSpace for Subset {
    fn lattice(&self) -> Lattice {
        Subset::lattice(self)
    }
}

impl LatticeSpace for crate::lattice::split::SplitLattice {
    fn lattice(&self) -> Lattice {
        SplitLattice::lattice(self)
    }
}

impl LatticeSpace for crate::lattice::split::SplitSubset {
    fn lattice(&self) -> Lattice {
        self.split().lattice()
    }
}

impl<S: LatticeSpace> LatticeSpace for &S {
    fn lattice(&self) -> Lattice {
        (**self).lattice()
    }
}

/// The lattice of a call whose body shifts (the macro calls this, so that shifts over a
/// plain count fail to compile).
#[inline(always)]
pub fn shift_lattice<S: LatticeSpace>(space: &S) -> Lattice {
    space.lattice()
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
        impl IndexSpace for $t {
            #[inline(always)]
            fn into_sites(self) -> SiteCount {
                count(self)
            }
        }

    )*};
}
count_arg!(usize, u64, u32, u16, u8, isize, i64, i32, i16, i8);

/// The first argument of `on_gpu!(n, ...)` as the call's sites.
#[inline(always)]
pub fn sites<N: IndexSpace>(n: N) -> SiteCount {
    n.into_sites()
}

/// A count of sites.
#[inline(always)]
fn count<N: CountArg>(n: N) -> SiteCount {
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

/// `f(index, length)` for each capture of `caps` (`None` for values).
fn indexed_lens<C: CaptureArg>(caps: &C, mut f: impl FnMut(usize, Option<usize>)) {
    let mut i = 0;
    caps.for_each_len(&mut |len| {
        f(i, len);
        i += 1;
    });
}

/// The route of a call, decided once for every call kind: the sites this process runs
/// (checked against the captured fields), or a decomposed lattice's subset, whose runner
/// takes the call part by part. (It lives on the stack for one call: boxing the sites would
/// allocate at every call.)
#[allow(clippy::large_enum_variant)]
pub(crate) enum Route {
    /// Sites of a whole lattice, a subset or a count.
    Sites(Sites),
    /// A lattice split over devices.
    Split(crate::lattice::split::SplitSubset),
    /// A lattice cut over MPI ranks.
    #[cfg(feature = "mpi")]
    Ranks(crate::lattice::ranks::RankSubset),
}

/// The route of a call over `count` with captures `caps`.
pub(crate) fn route<C: CaptureArg>(site: &CallSite, count: SiteCount, caps: &C) -> Result<Route> {
    Ok(match count {
        SiteCount::Split(subset) => Route::Split(subset),
        #[cfg(feature = "mpi")]
        SiteCount::Ranks(subset) => Route::Ranks(subset),
        count => Route::Sites(resolve_sites(site, count, caps)?),
    })
}

/// Runs `run(captures, sites)` over what this process runs of `route`: the sites once, or
/// each part of a decomposed lattice (its runner refreshes the halos the call reads and
/// marks those it writes; `overlap`: a split part's interior beside its halo copies).
pub(crate) fn drive<C: CaptureArg>(
    site: &CallSite,
    route: &Route,
    caps: &mut C,
    overlap: bool,
    mut run: impl FnMut(&mut C, &Sites) -> Result<()>,
) -> Result<()> {
    match route {
        Route::Sites(sites) => run(caps, sites),
        Route::Split(subset) => {
            crate::lattice::split::run::for_each_part(site, subset, caps, overlap, run)
        }
        #[cfg(feature = "mpi")]
        Route::Ranks(subset) => crate::lattice::ranks::run::for_rank(site, subset, caps, run),
    }
}

/// The sites to run, checked against every captured field's length.
fn resolve_sites<C: CaptureArg>(site: &CallSite, count: SiteCount, caps: &C) -> Result<Sites> {
    let names = site.info.captures;
    let plain = |n: usize| Sites {
        range: 0..n,
        lattice: None,
        within: None,
        pair: None,
    };
    match count {
        SiteCount::Lattice(subset) => {
            let lattice = subset.lattice();
            let volume = lattice.volume();
            let mut err = None;
            indexed_lens(caps, |i, len| match len {
                Some(len) if len != volume && err.is_none() => {
                    err = Some(Error::FieldNotOnLattice {
                        site: site.location(),
                        space: subset.to_string(),
                        field: names[i],
                        len,
                        volume,
                    })
                }
                _ => {}
            });
            err.map_or(
                Ok(Sites {
                    range: subset.range(),
                    lattice: Some(lattice),
                    within: None,
                    pair: None,
                }),
                Err,
            )
        }
        SiteCount::Split(_) => unreachable!("calls over split lattices run part by part"),
        #[cfg(feature = "mpi")]
        SiteCount::Ranks(_) => unreachable!("calls over rank lattices run box by box"),
        SiteCount::Given(n) => {
            let n = n?;
            let mut err = None;
            indexed_lens(caps, |i, len| match len {
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
            err.map_or(Ok(plain(n)), Err)
        }
        SiteCount::FromFields => {
            let mut first: Option<(usize, usize)> = None;
            let mut err = None;
            indexed_lens(caps, |i, len| {
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
            first.map(|(_, len)| plain(len)).ok_or(Error::NoSiteCount {
                site: site.location(),
            })
        }
    }
}
