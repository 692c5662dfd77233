//! The entry point of an element-wise `on_gpu!`: checks the site count against the captured
//! fields, then hands the call to the chosen backend.

mod cpu;
#[cfg(feature = "cuda")]
mod cuda;

pub use crate::launch::sites::{sites, threads_per_block, SiteCount};

use crate::backend::{self, Backend};
use crate::capture::Captures;
use crate::error::{Error, Result};
use crate::launch::site::CallSite;
use crate::launch::sites::resolve_sites;

/// Runs an element-wise call: `body(site, values) -> values` for every site.
pub fn run<C, F>(
    site: &'static CallSite,
    count: SiteCount,
    threads_per_block: Option<Result<u32>>,
    mut caps: C,
    body: F,
) -> Result<()>
where
    C: Captures,
    F: Fn(usize, C::Sites) -> C::Sites + Sync,
{
    let n = resolve_sites(site, count, &caps)?;
    let tpb = threads_per_block.transpose()?;
    crate::codegen::observe(site, || {
        crate::launch::source::elementwise(&site.info, &C::kinds())
    });
    match backend::current()? {
        Backend::Cpu => {
            if tpb == Some(0) || tpb.is_some_and(|t| t > 1024) {
                return Err(Error::InvalidLaunch {
                    site: site.location(),
                    reason: format!(
                        "{} threads per block; CUDA allows 1 to 1024",
                        tpb.unwrap_or(0)
                    ),
                });
            }
            cpu::run(site, n, &mut caps, &body)
        }
        #[cfg(feature = "cuda")]
        Backend::Cuda => cuda::run(site, n, tpb, &mut caps),
        #[cfg(not(feature = "cuda"))]
        Backend::Cuda => unreachable!("backend::current() refuses CUDA when it is not compiled in"),
    }
}
