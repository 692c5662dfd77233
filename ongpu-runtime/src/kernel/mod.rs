//! Explicit kernels (`#[ongpu::kernel]`): a Rust function run by every thread of a grid of
//! blocks, with thread indices, `shared!` arrays, barriers and atomics.
//!
//! The macro keeps the body as Rust (the CPU backend runs it, rustc checks it) with array
//! accesses rewritten onto views ([`views`]), translates it to CUDA C++, and generates a
//! launcher that calls [`launch_straight`] (no barriers) or [`launch_phased`] (barriers).
//! Both check the launch shape on the host, then run the kernel on the current backend.

pub(crate) mod args;
pub(crate) mod atomics;
pub(crate) mod call_site;
pub(crate) mod cpu;
#[cfg(feature = "cuda")]
pub(crate) mod cuda;
pub(crate) mod shape;
pub(crate) mod source;
pub(crate) mod unmarked;
pub(crate) mod views;

use crate::backend::{self, Backend};
use crate::error::{Error, Result};
use args::KernelParam;
use call_site::KernelSite;
use cpu::{BlockBody, Phased, Straight, ThreadCtx};
use shape::LaunchShape;
use std::future::Future;
use views::SharedSpecs;

/// Most bytes of `shared!` arrays a kernel may declare (CUDA's limit on static shared
/// memory per block).
pub const MAX_SHARED_BYTES: usize = 48 * 1024;

/// Launches a kernel whose body has no barrier: `body` runs one thread to its end.
pub fn launch_straight<A, S, F>(
    site: &'static KernelSite,
    shape: LaunchShape,
    args: A,
    shared: S,
    body: F,
) -> Result<()>
where
    A: KernelParam,
    S: SharedSpecs,
    F: Fn(ThreadCtx, A::View, S::Views) + Sync,
{
    launch(site, shape, args, shared, &Straight(body))
}

/// Launches a kernel whose body has barriers: `body` returns one thread as a future that
/// yields at each `sync_threads()`.
pub fn launch_phased<A, S, F, Fut>(
    site: &'static KernelSite,
    shape: LaunchShape,
    args: A,
    shared: S,
    body: F,
) -> Result<()>
where
    A: KernelParam,
    S: SharedSpecs,
    F: Fn(ThreadCtx, A::View, S::Views) -> Fut + Sync,
    Fut: Future<Output = ()>,
{
    launch(site, shape, args, shared, &Phased(body))
}

fn launch<A, S, B>(
    site: &'static KernelSite,
    shape: LaunchShape,
    mut args: A,
    shared: S,
    body: &B,
) -> Result<()>
where
    A: KernelParam,
    S: SharedSpecs,
    B: BlockBody<A::View, S::Views>,
{
    let info = &site.info;
    shape::check(
        &shape,
        crate::launch::limits::MAX_THREADS_PER_BLOCK,
        info.name,
        info.location,
    )?;
    if info.shared_bytes() > MAX_SHARED_BYTES {
        return Err(Error::InvalidLaunch {
            site: info.location,
            reason: format!(
                "kernel `{}` declares {} bytes of shared! arrays; CUDA allows at most {MAX_SHARED_BYTES} \
                 bytes of static shared memory per block",
                info.name,
                info.shared_bytes()
            ),
        });
    }
    let checked = crate::launch::bounds::bounds_checks()?;
    crate::inspect::observe_at(info.location, || {
        source::assemble(info, &A::kinds(), checked)
    });
    match backend::current()? {
        Backend::Cpu => cpu::run(site, shape, &mut args, shared, body),
        #[cfg(feature = "cuda")]
        Backend::Cuda => cuda::launch(site, shape, &mut args, checked),
        #[cfg(not(feature = "cuda"))]
        Backend::Cuda => unreachable!("backend::current() refuses CUDA when it is not compiled in"),
    }
}
