//! The entry point of an element-wise `on_gpu!`: checks the site count against the captured
//! fields, then hands the call to the chosen backend.

pub(crate) mod cpu;
#[cfg(feature = "cuda")]
mod cuda;
mod lane_group;

pub use lane_group::{LaneGroup, LaneVar, GROUP_LANES};

pub use crate::lattice::space::{sites, threads_per_block, SiteCount};

use crate::backend::Backend;
use crate::capture::CaptureArg;
use crate::error::Result;
use crate::lattice::space::{drive, route};
use crate::launch::call_site::CallSite;
use crate::launch::limits::backend_for;
use crate::launch::sites::Sites;

/// Runs an element-wise call: `body(site, values) -> values` for every site (a body that
/// shifts nothing: its lanes see what its lone sites see).
pub fn run<C, F>(
    site: &'static CallSite,
    count: SiteCount,
    threads_per_block: Option<Result<u32>>,
    caps: C,
    body: F,
) -> Result<()>
where
    C: CaptureArg,
    F: Fn(usize, C::Site) -> C::Site + Sync,
{
    run_lowered(
        site,
        count,
        threads_per_block,
        caps,
        &body,
        #[inline(always)]
        |s: usize, lane: C::LaneSite| C::site_to_lane(body(s, C::lane_to_site(lane)), lane),
    )
}

/// Runs an element-wise call whose body shifts: `body` at lone sites, `lane_body` (the
/// same statements, reading nearest neighbours from each group's gathered buffers) at the
/// lanes of whole groups on the CPU.
pub fn run_lowered<C, F, G>(
    site: &'static CallSite,
    count: SiteCount,
    threads_per_block: Option<Result<u32>>,
    caps: C,
    body: F,
    lane_body: G,
) -> Result<()>
where
    C: CaptureArg,
    F: Fn(usize, C::Site) -> C::Site + Sync,
    G: Fn(usize, C::LaneSite) -> C::LaneSite + Sync,
{
    run_groups(
        site,
        count,
        threads_per_block,
        caps,
        &body,
        &cpu::PerLane(&lane_body),
    )
}

/// Runs an element-wise call whose body the macro lowered in chunks: `body` at lone sites,
/// `group_body` over whole groups on the CPU, each chunk of its statements over every lane
/// before the next (`lane_group`).
pub fn run_chunked<C, F, H>(
    site: &'static CallSite,
    count: SiteCount,
    threads_per_block: Option<Result<u32>>,
    caps: C,
    body: F,
    group_body: H,
) -> Result<()>
where
    C: CaptureArg,
    F: Fn(usize, C::Site) -> C::Site + Sync,
    H: for<'g> Fn(usize, &mut LaneGroup<'g, C>) + Sync,
{
    run_groups(
        site,
        count,
        threads_per_block,
        caps,
        &body,
        &cpu::Chunked(&group_body),
    )
}

/// Checks the call and runs it over its sites: the lanes of whole groups on the CPU through
/// `group`.
fn run_groups<C, F>(
    site: &'static CallSite,
    count: SiteCount,
    threads_per_block: Option<Result<u32>>,
    mut caps: C,
    body: &F,
    group: &impl cpu::GroupRun<C>,
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
    let route = route(site, count, &caps)?;
    drive(site, &route, &mut caps, true, |caps, sites| {
        run_sites(site, sites, tpb, caps, body, group)
    })
}

/// Runs the call over checked sites on the current backend.
fn run_sites<C, F>(
    site: &'static CallSite,
    sites: &Sites,
    tpb: Option<u32>,
    caps: &mut C,
    body: &F,
    group: &impl cpu::GroupRun<C>,
) -> Result<()>
where
    C: CaptureArg,
    F: Fn(usize, C::Site) -> C::Site + Sync,
{
    match backend_for(site.location(), tpb)? {
        Backend::Cpu => {
            crate::lowering::note(site);
            cpu::run(site, &sites.range, caps, body, group)
        }
        #[cfg(feature = "cuda")]
        Backend::Cuda => cuda::run(site, sites, tpb, caps),
        #[cfg(not(feature = "cuda"))]
        Backend::Cuda => unreachable!("backend::current() refuses CUDA when it is not compiled in"),
    }
}
