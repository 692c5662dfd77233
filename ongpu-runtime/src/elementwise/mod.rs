//! The entry point of an element-wise `on_gpu!`: checks the site count against the captured
//! fields, then hands the call to the chosen backend.

pub(crate) mod cpu;
#[cfg(feature = "cuda")]
mod cuda;

pub use crate::lattice::space::{sites, threads_per_block, SiteCount};

use crate::backend::{self, Backend};
use crate::capture::CaptureArg;
use crate::error::Result;
use crate::lattice::space::resolve_sites;
use crate::launch::call_site::CallSite;
use crate::launch::limits::check_threads_per_block;
use crate::launch::sites::Sites;

/// Runs an element-wise call: `body(site, values) -> values` for every site.
pub fn run<C, F>(
    site: &'static CallSite,
    count: SiteCount,
    threads_per_block: Option<Result<u32>>,
    mut caps: C,
    body: F,
) -> Result<()>
where
    C: CaptureArg,
    F: Fn(usize, C::Site) -> C::Site + Sync,
{
    let tpb = threads_per_block.transpose()?;
    crate::inspect::observe(site, || {
        crate::launch::source::elementwise(
            &site.info,
            &C::kinds(),
            crate::launch::bounds::bounds_checks().unwrap_or(false),
        )
    });
    match count {
        SiteCount::Split(subset) => crate::lattice::split::run::for_each_part(
            site,
            &subset,
            &mut caps,
            true,
            |caps, sites| run_sites(site, sites, tpb, caps, &body),
        ),
        #[cfg(feature = "mpi")]
        SiteCount::Ranks(subset) => {
            crate::lattice::ranks::run::for_rank(site, &subset, &mut caps, |caps, sites| {
                run_sites(site, sites, tpb, caps, &body)
            })
        }
        count => {
            let sites = resolve_sites(site, count, &caps)?;
            run_sites(site, &sites, tpb, &mut caps, &body)
        }
    }
}

/// Runs the call over checked sites on the current backend.
fn run_sites<C, F>(
    site: &'static CallSite,
    sites: &Sites,
    tpb: Option<u32>,
    caps: &mut C,
    body: &F,
) -> Result<()>
where
    C: CaptureArg,
    F: Fn(usize, C::Site) -> C::Site + Sync,
{
    match backend::current()? {
        Backend::Cpu => {
            if let Some(t) = tpb {
                check_threads_per_block(site.location(), t, None)?;
            }
            cpu::run(site, &sites.range, caps, body)
        }
        #[cfg(feature = "cuda")]
        Backend::Cuda => cuda::run(site, sites, tpb, caps),
        #[cfg(not(feature = "cuda"))]
        Backend::Cuda => unreachable!("backend::current() refuses CUDA when it is not compiled in"),
    }
}
