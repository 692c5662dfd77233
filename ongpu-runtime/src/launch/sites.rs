//! The sites one launch runs (a range of site indices and the lattice they belong to) and
//! the kernel parameters that carry them. Which sites a call names is `space`'s job.

use crate::geometry::Lattice;
use std::ops::Range;

/// What a call runs: the site indices, and the lattice they belong to (shifts need it; a
/// count has none).
#[derive(Debug, Clone)]
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub struct Sites {
    /// The site indices.
    pub range: Range<usize>,
    /// The lattice of a call over a lattice or a subset.
    pub lattice: Option<Lattice>,
    /// A box of `lattice` (a block of sites with its own even-odd order) whose sites
    /// `range` counts, for calls over part of a lattice cut over ranks; `None`: `range`
    /// holds the lattice's own indices.
    pub within: Option<Lattice>,
    /// A second box of `within`'s extents and storage order whose sites the second half
    /// of `range` counts (as `within`'s, less half the range's length): a rank's two
    /// boundary boxes of one cut direction in one launch, which pays one latency-bound
    /// kernel instead of two.
    pub pair: Option<Lattice>,
}

#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
impl Sites {
    /// Number of sites.
    pub fn len(&self) -> usize {
        self.range.len()
    }

    /// True when the call runs no site.
    pub fn is_empty(&self) -> bool {
        self.range.is_empty()
    }

    /// The kernel parameters that say which sites to run (`launch::source::SITE_PARAMS`).
    #[cfg(feature = "cuda")]
    pub(crate) fn params(&self) -> SiteParams {
        SiteParams {
            begin: self.range.start as u64,
            n: self.range.len() as u64,
            lattice: self.lattice.unwrap_or_else(bytemuck::Zeroable::zeroed),
            within: self.within.unwrap_or_else(bytemuck::Zeroable::zeroed),
            pair: self.pair.unwrap_or_else(bytemuck::Zeroable::zeroed),
        }
    }
}

/// The values of a kernel's site parameters, kept alive for the launch.
#[cfg(feature = "cuda")]
pub(crate) struct SiteParams {
    begin: u64,
    n: u64,
    lattice: Lattice,
    within: Lattice,
    pair: Lattice,
}

#[cfg(feature = "cuda")]
impl SiteParams {
    /// Pushes them in the order of `launch::source::SITE_PARAMS`.
    pub(crate) fn push<'a>(&'a self, params: &mut crate::cuda::ParamList<'a>) {
        params.push(&self.begin);
        params.push(&self.n);
        params.push(&self.lattice);
        params.push(&self.within);
        params.push(&self.pair);
    }
}
