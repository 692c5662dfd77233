//! Reductions over a lattice cut over ranks. On the CPU every site's value goes into the
//! reduction's rank accumulator ([`Reduction::RankAcc`]: an exact sum for floating-point
//! sums), and the ranks' accumulators are gathered and combined; exact sums do not depend on
//! the order of their additions, so the result is the same bits for every cut of the
//! lattice, every rank count and every thread count. On the GPU floating-point sums are
//! exact too (the exact-sum kernel, `exact_cuda`), so they are the same bits as the CPU's;
//! other reductions (integer sums, min, max) come from the ordinary kernel, whose results
//! do not depend on the order of the sites.

use super::{cpu, run_sites, ReduceSite, Reduction};
use crate::backend::Backend;
use crate::capture::{CaptureArg, Uniform};
use crate::element::Element;
use crate::error::Result;
use crate::lattice::ranks::RankSubset;
use crate::launch::limits::backend_for;
use crate::scalar::DeviceScalar;
use std::marker::PhantomData;

/// `Op` accumulating in its rank accumulator (what the CPU backend runs per box).
#[derive(Clone, Copy)]
struct OnRanks<Op>(PhantomData<Op>);

impl<V, Op: Reduction<V>> Reduction<V> for OnRanks<Op> {
    type Acc = Op::RankAcc;
    const KEYWORD: &'static str = Op::KEYWORD;
    const CUDA_OP: &'static str = Op::CUDA_OP;
    fn identity() -> Op::RankAcc {
        Op::rank_identity()
    }
    #[inline(always)]
    fn add(acc: Op::RankAcc, v: V) -> Op::RankAcc {
        Op::rank_add(acc, v)
    }
    fn combine(a: Op::RankAcc, b: Op::RankAcc) -> Op::RankAcc {
        Op::rank_combine(a, b)
    }
    fn cuda_value() -> &'static str {
        Op::cuda_value()
    }
    fn cuda_acc() -> &'static str {
        unreachable!("rank accumulators have no CUDA twin: the GPU path runs Op itself")
    }
    fn cuda_identity() -> &'static str {
        unreachable!("rank accumulators have no CUDA twin: the GPU path runs Op itself")
    }
    type RankAcc = Op::RankAcc;
    fn rank_identity() -> Op::RankAcc {
        Op::rank_identity()
    }
    fn rank_add(acc: Op::RankAcc, v: V) -> Op::RankAcc {
        Op::rank_add(acc, v)
    }
    fn rank_combine(a: Op::RankAcc, b: Op::RankAcc) -> Op::RankAcc {
        Op::rank_combine(a, b)
    }
    fn rank_result(acc: Op::RankAcc) -> Op::RankAcc {
        acc
    }
    fn rank_of(acc: Op::RankAcc) -> Op::RankAcc {
        acc
    }
}

/// Reduces over this rank's boxes of `subset`, then over every rank's accumulator, so that
/// every rank returns the same bits.
pub(super) fn rank_reduce<Op, C, V, F>(
    site: &'static ReduceSite,
    subset: &RankSubset,
    tpb: Option<u32>,
    caps: &mut C,
    body: &F,
) -> Result<Op::Acc>
where
    Op: Reduction<V>,
    C: CaptureArg,
    V: 'static,
    F: super::ReduceBody<C, V>,
{
    let mut acc = Op::rank_identity();
    let cpu = backend_for(site.site.location(), tpb)? == Backend::Cpu;
    #[cfg(feature = "cuda")]
    if !cpu && Op::EXACT_PARTS > 0 {
        // Every box's sums queued as the call runs it, read after one wait at the end.
        let mut queued = super::exact_cuda::Queued::new(Op::EXACT_PARTS);
        crate::lattice::ranks::run::for_rank(&site.site, subset, caps, |caps, sites| {
            queued.queue::<Op, C, V>(site, sites, tpb, caps)
        })?;
        for parts in queued.finish()? {
            acc = Op::rank_combine(acc, Op::rank_of_exact(&parts));
        }
        return all_ranks::<Op, V>(acc);
    }
    crate::lattice::ranks::run::for_rank(&site.site, subset, caps, |caps, sites| {
        let part = if cpu {
            crate::lowering::note(&site.site);
            cpu::run::<OnRanks<Op>, C, V, F>(&site.site, &sites.range, caps, body)?
        } else {
            Op::rank_of(run_sites::<Op, C, V, F>(site, sites, tpb, caps, body)?)
        };
        acc = Op::rank_combine(acc, part);
        Ok(())
    })?;
    all_ranks::<Op, V>(acc)
}

/// [`rank_reduce`] into `dest`. On the GPU, a floating-point sum stays on the devices
/// where it can (`exact_device`): the boxes' exact sums, the ranks' digits added by NCCL
/// and the rounding are queued without a host wait. Elsewhere the sum meets on the host.
pub(super) fn rank_reduce_into<Op, C, V, F>(
    site: &'static ReduceSite,
    subset: &RankSubset,
    tpb: Option<u32>,
    caps: &mut C,
    body: &F,
    dest: &mut DeviceScalar<Op::Acc>,
) -> Result<()>
where
    Op: Reduction<V>,
    Op::Acc: Element + Uniform,
    C: CaptureArg,
    V: 'static,
    F: super::ReduceBody<C, V>,
{
    #[cfg(feature = "cuda")]
    if Op::EXACT_PARTS > 0
        && std::mem::size_of::<Op::Acc>() == 8 * Op::EXACT_PARTS
        && backend_for(site.site.location(), tpb)? == Backend::Cuda
    {
        let comm = crate::mpi::world::world_comm()?;
        if super::exact_device::enabled(&comm)? {
            let mut queued = super::exact_cuda::Queued::new(Op::EXACT_PARTS);
            crate::lattice::ranks::run::for_rank(&site.site, subset, caps, |caps, sites| {
                queued.queue::<Op, C, V>(site, sites, tpb, caps)
            })?;
            // What can fail before the scalar is touched, first.
            let ready = super::exact_device::Ready::new(queued, Op::EXACT_PARTS)?;
            let at = dest.device_for_write(crate::cuda::device()?)?;
            return ready.finish(&comm, at);
        }
    }
    dest.set(rank_reduce::<Op, C, V, F>(site, subset, tpb, caps, body)?)
}

/// Combines this rank's accumulator with every other rank's (the same bits on every rank).
fn all_ranks<Op: Reduction<V>, V>(acc: Op::RankAcc) -> Result<Op::Acc> {
    let comm = crate::mpi::world::world_comm()?;
    let all = crate::mpi::gather::gather_on(&comm, &[acc]);
    Ok(Op::rank_result(
        all.into_iter().fold(Op::rank_identity(), Op::rank_combine),
    ))
}
