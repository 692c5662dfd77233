//! Reductions over sites: `on_gpu!(sum: ...)`, `on_gpu!(min: ...)`, `on_gpu!(max: ...)`
//! (the body's last expression is each site's value; the call returns the reduced value),
//! and the field methods built on them ([`Field::norm2`](crate::Field::norm2),
//! [`Field::dot`](crate::Field::dot), [`Field::sum`](crate::Field::sum)).
//!
//! This module holds the entry point (sites checked as for element-wise calls, then the
//! backend); `ops` the reductions and their value types, `source` the kernel source, `cpu`
//! and `cuda` the backends, `field` the field methods.

mod cpu;
#[cfg(feature = "cuda")]
mod cuda;
mod exact;
#[cfg(all(feature = "cuda", feature = "mpi"))]
mod exact_cuda;
#[cfg(all(feature = "cuda", feature = "mpi"))]
mod exact_device;
mod field;
mod ops;
#[cfg(feature = "mpi")]
mod ranks;
pub(crate) mod source;

pub use exact::ExactSum;
pub use field::InnerProduct;
pub use ops::{compared, summand, Max, Min, MinMax, Reduction, Sum, Summable};

use crate::backend::Backend;
use crate::capture::{CaptureArg, HostFacet, Uniform};
use crate::element::Element;
use crate::error::Result;
use crate::lattice::space::{route, Route, SiteCount};
use crate::launch::call_site::{CallSite, SiteInfo};
use crate::launch::limits::backend_for;
use crate::launch::sites::Sites;
use crate::scalar::DeviceScalar;
use source::ReductionKind;

/// One reduction call site: what the macro knows of it (as for an element-wise call) and
/// the kernels compiled for it.
#[derive(Debug)]
pub struct ReduceSite {
    /// The call site's facts (its element-wise kernel list stays empty).
    pub site: CallSite,
    #[cfg(feature = "cuda")]
    kernels: cuda::ReduceKernels,
}

impl ReduceSite {
    /// A call site with no kernel compiled yet.
    pub const fn new(info: SiteInfo) -> Self {
        ReduceSite {
            site: CallSite::new(info),
            #[cfg(feature = "cuda")]
            kernels: cuda::ReduceKernels::new(),
        }
    }
}

/// The facts about `Op` over `V` that the kernel source needs.
pub(crate) fn kind<Op: Reduction<V>, V>() -> ReductionKind {
    ReductionKind {
        op: Op::CUDA_OP,
        value: Op::cuda_value(),
        acc: Op::cuda_acc(),
        identity: Op::cuda_identity(),
    }
}

/// A reduction's body as the CPU backend runs it: at lone sites, and at the lanes of whole
/// groups (where a shifting body reads nearest neighbours from gathered buffers).
pub trait ReduceBody<C: HostFacet, V>: Sync {
    /// The body at site `s`: the fields it writes and its value.
    fn site(&self, s: usize, values: C::Site) -> (C::Site, V);
    /// The body at lane site `s` of a group.
    fn lane(&self, s: usize, values: C::LaneSite) -> (C::LaneSite, V);
}

/// The body at lone sites and the body at lanes.
pub struct Lowered<F, G>(pub F, pub G);

impl<C, V, F, G> ReduceBody<C, V> for Lowered<F, G>
where
    C: HostFacet,
    F: Fn(usize, C::Site) -> (C::Site, V) + Sync,
    G: Fn(usize, C::LaneSite) -> (C::LaneSite, V) + Sync,
{
    #[inline(always)]
    fn site(&self, s: usize, values: C::Site) -> (C::Site, V) {
        (self.0)(s, values)
    }
    #[inline(always)]
    fn lane(&self, s: usize, values: C::LaneSite) -> (C::LaneSite, V) {
        (self.1)(s, values)
    }
}

/// A body that shifts nothing, at lone sites and lanes alike.
pub struct Unlowered<F>(pub F);

impl<C, V, F> ReduceBody<C, V> for Unlowered<F>
where
    C: HostFacet,
    F: Fn(usize, C::Site) -> (C::Site, V) + Sync,
{
    #[inline(always)]
    fn site(&self, s: usize, values: C::Site) -> (C::Site, V) {
        (self.0)(s, values)
    }
    #[inline(always)]
    fn lane(&self, s: usize, values: C::LaneSite) -> (C::LaneSite, V) {
        let (out, v) = (self.0)(s, C::lane_to_site(values));
        (C::site_to_lane(out, values), v)
    }
}

/// Runs a reduction: `body(site, values) -> (values, value)` for every site (storing the
/// fields the body writes), and returns the values reduced by `Op` (its identity for no
/// sites). For a body that shifts nothing.
pub fn run<Op, C, V, F>(
    site: &'static ReduceSite,
    _op: Op,
    count: SiteCount,
    threads_per_block: Option<Result<u32>>,
    caps: C,
    body: F,
) -> Result<Op::Acc>
where
    Op: Reduction<V>,
    C: CaptureArg,
    V: 'static,
    F: Fn(usize, C::Site) -> (C::Site, V) + Sync,
{
    reduce_with::<Op, C, V, _>(site, count, threads_per_block, caps, Unlowered(body))
}

/// [`run`] for a body that shifts: `lane_body` runs at the lanes of whole groups on the CPU.
pub fn run_lowered<Op, C, V, F, G>(
    site: &'static ReduceSite,
    _op: Op,
    count: SiteCount,
    threads_per_block: Option<Result<u32>>,
    caps: C,
    body: F,
    lane_body: G,
) -> Result<Op::Acc>
where
    Op: Reduction<V>,
    C: CaptureArg,
    V: 'static,
    F: Fn(usize, C::Site) -> (C::Site, V) + Sync,
    G: Fn(usize, C::LaneSite) -> (C::LaneSite, V) + Sync,
{
    reduce_with::<Op, C, V, _>(
        site,
        count,
        threads_per_block,
        caps,
        Lowered(body, lane_body),
    )
}

/// Runs a reduction like [`run`] and writes the result into `dest` instead of returning it:
/// `on_gpu!(sum -> dest: ...)`. On the GPU the result stays on the device and the call
/// returns once the kernel is queued (a later call can read `dest` as a captured value, and
/// a [`Graph`](crate::Graph) can record it); on the CPU backend it is stored on the host.
pub fn run_into<Op, C, V, F>(
    site: &'static ReduceSite,
    _op: Op,
    count: SiteCount,
    threads_per_block: Option<Result<u32>>,
    caps: C,
    body: F,
    dest: &mut DeviceScalar<Op::Acc>,
) -> Result<()>
where
    Op: Reduction<V>,
    Op::Acc: Element + Uniform,
    C: CaptureArg,
    V: 'static,
    F: Fn(usize, C::Site) -> (C::Site, V) + Sync,
{
    let body = Unlowered(body);
    reduce_into_with::<Op, C, V, _>(site, count, threads_per_block, caps, body, dest)
}

/// [`run_into`] for a body that shifts (see [`run_lowered`]).
#[allow(clippy::too_many_arguments)]
pub fn run_into_lowered<Op, C, V, F, G>(
    site: &'static ReduceSite,
    _op: Op,
    count: SiteCount,
    threads_per_block: Option<Result<u32>>,
    caps: C,
    body: F,
    lane_body: G,
    dest: &mut DeviceScalar<Op::Acc>,
) -> Result<()>
where
    Op: Reduction<V>,
    Op::Acc: Element + Uniform,
    C: CaptureArg,
    V: 'static,
    F: Fn(usize, C::Site) -> (C::Site, V) + Sync,
    G: Fn(usize, C::LaneSite) -> (C::LaneSite, V) + Sync,
{
    let body = Lowered(body, lane_body);
    reduce_into_with::<Op, C, V, _>(site, count, threads_per_block, caps, body, dest)
}

/// The reduction of [`run`] over either body.
fn reduce_with<Op, C, V, F>(
    site: &'static ReduceSite,
    count: SiteCount,
    threads_per_block: Option<Result<u32>>,
    mut caps: C,
    body: F,
) -> Result<Op::Acc>
where
    Op: Reduction<V>,
    C: CaptureArg,
    V: 'static,
    F: ReduceBody<C, V>,
{
    let tpb = threads_per_block.transpose()?;
    observe::<Op, C, V>(site);
    match route(&site.site, count, &caps)? {
        Route::Sites(sites) => run_sites::<Op, C, V, F>(site, &sites, tpb, &mut caps, &body),
        Route::Split(subset) => split_reduce::<Op, C, V, F>(site, &subset, tpb, &mut caps, &body),
        #[cfg(feature = "mpi")]
        Route::Ranks(subset) => {
            ranks::rank_reduce::<Op, C, V, F>(site, &subset, tpb, &mut caps, &body)
        }
    }
}

/// Shows the reduction's kernel source where `ONGPU_SHOW_SOURCE` asks for it.
fn observe<Op: Reduction<V>, C: CaptureArg, V>(site: &'static ReduceSite) {
    crate::inspect::observe(&site.site, || {
        source::reduction(
            &site.site.info,
            &C::kinds(),
            &kind::<Op, V>(),
            crate::launch::bounds::bounds_checks().unwrap_or(false),
        )
    });
}

/// Reduces over checked sites on the current backend.
fn run_sites<Op, C, V, F>(
    site: &'static ReduceSite,
    sites: &Sites,
    tpb: Option<u32>,
    caps: &mut C,
    body: &F,
) -> Result<Op::Acc>
where
    Op: Reduction<V>,
    C: CaptureArg,
    V: 'static,
    F: ReduceBody<C, V>,
{
    match backend_for(site.site.location(), tpb)? {
        Backend::Cpu => {
            crate::lowering::note(&site.site);
            cpu::run::<Op, C, V, F>(&site.site, &sites.range, caps, body)
        }
        #[cfg(feature = "cuda")]
        Backend::Cuda => cuda::run::<Op, C, V>(site, sites, tpb, caps),
        #[cfg(not(feature = "cuda"))]
        Backend::Cuda => unreachable!("backend::current() refuses CUDA when it is not compiled in"),
    }
}

/// Reduces over a split lattice: each part's sites on its device, the partial results
/// combined on the host in part order (then parity order), a fixed order for a given split.
fn split_reduce<Op, C, V, F>(
    site: &'static ReduceSite,
    subset: &crate::lattice::split::SplitSubset,
    tpb: Option<u32>,
    caps: &mut C,
    body: &F,
) -> Result<Op::Acc>
where
    Op: Reduction<V>,
    C: CaptureArg,
    V: 'static,
    F: ReduceBody<C, V>,
{
    let mut acc = Op::identity();
    // On the GPU every part's kernels are queued before any is waited for (one scratch per
    // device: a second part on a device waits for the first); a part on the host computes
    // meanwhile. Values combine in the order of the parts' ranges.
    #[cfg(feature = "cuda")]
    let mut queued: Vec<cuda::Queued<Op::Acc>> = Vec::new();
    let mut on_host: Vec<Op::Acc> = Vec::new();
    let settle = |acc: &mut Op::Acc,
                  #[cfg(feature = "cuda")] queued: &mut Vec<cuda::Queued<Op::Acc>>,
                  on_host: &mut Vec<Op::Acc>|
     -> Result<()> {
        #[cfg(feature = "cuda")]
        for q in queued.drain(..) {
            *acc = Op::combine(*acc, q.wait()?);
        }
        for v in on_host.drain(..) {
            *acc = Op::combine(*acc, v);
        }
        Ok(())
    };
    crate::lattice::split::run::for_each_part(&site.site, subset, caps, false, |caps, sites| {
        #[cfg(feature = "cuda")]
        if crate::backend::current()? == Backend::Cuda {
            let dev = crate::cuda::device()?;
            if !on_host.is_empty() || queued.iter().any(|q| std::ptr::eq(q.device(), dev)) {
                settle(&mut acc, &mut queued, &mut on_host)?;
            }
            queued.extend(cuda::run_queued::<Op, C, V>(site, sites, tpb, caps)?);
            return Ok(());
        }
        on_host.push(run_sites::<Op, C, V, F>(site, sites, tpb, caps, body)?);
        Ok(())
    })?;
    #[cfg(feature = "cuda")]
    let waited = !queued.is_empty();
    settle(
        &mut acc,
        #[cfg(feature = "cuda")]
        &mut queued,
        &mut on_host,
    )?;
    #[cfg(feature = "cuda")]
    if waited {
        // Waiting bound each part's device: the thread's device again.
        crate::cuda::device()?;
    }
    Ok(acc)
}

/// The reduction of [`run_into`] over either body.
fn reduce_into_with<Op, C, V, F>(
    site: &'static ReduceSite,
    count: SiteCount,
    threads_per_block: Option<Result<u32>>,
    mut caps: C,
    body: F,
    dest: &mut DeviceScalar<Op::Acc>,
) -> Result<()>
where
    Op: Reduction<V>,
    Op::Acc: Element + Uniform,
    C: CaptureArg,
    V: 'static,
    F: ReduceBody<C, V>,
{
    let tpb = threads_per_block.transpose()?;
    observe::<Op, C, V>(site);
    let sites = match route(&site.site, count, &caps)? {
        Route::Sites(sites) => sites,
        // The parts' partial results meet on the host.
        Route::Split(subset) => {
            return dest.set(split_reduce::<Op, C, V, F>(
                site, &subset, tpb, &mut caps, &body,
            )?)
        }
        #[cfg(feature = "mpi")]
        Route::Ranks(subset) => {
            return ranks::rank_reduce_into::<Op, C, V, F>(
                site, &subset, tpb, &mut caps, &body, dest,
            )
        }
    };
    // On the GPU the result is reduced into `dest` on the device; elsewhere it is the
    // returned value, stored.
    #[cfg(feature = "cuda")]
    if crate::backend::current()? == Backend::Cuda {
        return cuda::run_into::<Op, C, V>(site, &sites, tpb, &mut caps, dest);
    }
    dest.set(run_sites::<Op, C, V, F>(
        site, &sites, tpb, &mut caps, &body,
    )?)
}
