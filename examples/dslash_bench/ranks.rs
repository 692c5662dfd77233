//! `--mpi`: the Dslash of `ours` over a lattice cut over the ranks of the MPI run along t
//! (f32, AoSoA<32>), run under `mpirun -np N`: weak scaling at `--local L` (default 32)
//! sites per direction per rank, strong scaling on `--strong` (default 32,32,32,32). Each
//! result is checked bit for bit against the same lattice run whole in one process (on
//! rank 0). Per rank count it reports the call (each call shifts what the call before it
//! wrote, `D_oe` then `D_eo` as in a solver, so each refreshes one parity's halos), its
//! unhidden halo exchange (the call minus the same call on a source whose halos are current)
//! and its share of the call, and, measured in the same run, MPI's own time for the same messages (each rank
//! sends a face of the same bytes to the ranks below and above and receives theirs, from
//! host memory, with `Isend`/`Irecv`): the exchange's bandwidth against MPI's.
//!
//! Timings: wall clock of `--reps` calls between a synchronisation and a barrier of every
//! rank, median of five.

use crate::scaling::Seconds;
use crate::BenchResult;
use ongpu::mpi::{Incoming, Outgoing, World};
use ongpu::prelude::*;
use ongpu::AoSoA;

type L32 = AoSoA<32>;

/// The stencil of `ours` on the sites of parity `parity` of any space.
fn dslash<S: Space>(
    lat: S,
    parity: usize,
    u: &S::Field<[ColorMatrix<f32>; 4], L32>,
    psi: &S::Field<ColorVector<f32>, L32>,
    chi: &mut S::Field<ColorVector<f32>, L32>,
) -> ongpu::Result<()> {
    on_gpu!(lat.of_parity(parity), 128, |i| {
        let mut r = ColorVector::zero();
        for mu in 0..4 {
            r += u[mu] * psi.shift(mu, 1) - u.shift(mu, -1)[mu].adj() * psi.shift(mu, -1);
        }
        chi = r;
    })
}

/// `chi = D_oe psi`, then `eta = D_eo chi` (which shifts what the first call wrote), and
/// the work vector the timing passes back and forth.
struct Fields<S: Space> {
    u: S::Field<[ColorMatrix<f32>; 4], L32>,
    psi: S::Field<ColorVector<f32>, L32>,
    chi: S::Field<ColorVector<f32>, L32>,
    eta: S::Field<ColorVector<f32>, L32>,
    work: S::Field<ColorVector<f32>, L32>,
}

impl<S: Space> Fields<S> {
    fn new(lat: S) -> ongpu::Result<Self> {
        Ok(Fields {
            u: lat.field_from_fn(|i| std::array::from_fn(|mu| crate::scaling::matrix(i, mu)))?,
            psi: lat.field_from_fn(crate::scaling::vector)?,
            chi: lat.zeros()?,
            eta: lat.zeros()?,
            work: lat.field_from_fn(crate::scaling::vector)?,
        })
    }

    fn twice(&mut self, lat: S) -> ongpu::Result<()> {
        dslash(lat, 1, &self.u, &self.psi, &mut self.chi)?;
        dslash(lat, 0, &self.u, &self.chi, &mut self.eta)
    }

    /// `chi = D_oe work`, `work = D_eo chi`: each call refreshes the halos the one before
    /// wrote (the values grow without bound; the time does not depend on them).
    fn back_and_forth(&mut self, lat: S) -> ongpu::Result<()> {
        dslash(lat, 1, &self.u, &self.work, &mut self.chi)?;
        dslash(lat, 0, &self.u, &self.chi, &mut self.work)
    }

    /// `chi = D_oe psi`, `psi` never written: no exchange.
    fn current(&mut self, lat: S) -> ongpu::Result<()> {
        dslash(lat, 1, &self.u, &self.psi, &mut self.chi)
    }
}

/// Median over five batches of `reps` runs of `f`, each between a synchronisation and a
/// barrier of every rank.
fn time(world: &World, reps: usize, f: impl FnMut() -> ongpu::Result<()>) -> BenchResult<f64> {
    Ok(time_host(world, reps, f)?.call)
}

/// [`time`], with this rank's host time to queue a call beside it.
fn time_host(
    world: &World,
    reps: usize,
    f: impl FnMut() -> ongpu::Result<()>,
) -> BenchResult<Seconds> {
    Ok(Seconds::of_batches(reps, f, || {
        ongpu::synchronize()?;
        world.barrier();
        Ok(())
    })?)
}

/// MPI's own time for one round of the exchange's messages: a face of `bytes` bytes to the
/// ranks below and above along the cut, theirs received (host memory, `Isend`/`Irecv`).
fn mpi_round(world: &World, bytes: usize, reps: usize) -> BenchResult<f64> {
    let (r, n) = (world.rank(), world.size());
    let (below, above) = ((r + n - 1) % n, (r + 1) % n);
    let send = [vec![1u8; bytes], vec![2u8; bytes]];
    let mut recv = [vec![0u8; bytes], vec![0u8; bytes]];
    time(world, reps, || {
        let outgoing = [
            Outgoing {
                rank: below,
                tag: 1,
                data: &send[0],
            },
            Outgoing {
                rank: above,
                tag: 0,
                data: &send[1],
            },
        ];
        let [from_below, from_above] = &mut recv;
        let mut incoming = [
            Incoming {
                rank: below,
                tag: 0,
                data: from_below,
            },
            Incoming {
                rank: above,
                tag: 1,
                data: from_above,
            },
        ];
        world.exchange(&outgoing, &mut incoming)
    })
}

/// Weak and strong scaling at the run's rank count.
pub fn run(local: usize, strong: [usize; 4], reps: usize) -> BenchResult<()> {
    let world = World::init()?;
    world.abort_on_panic();
    let n = world.size();
    let root = world.rank() == 0;
    if root {
        println!(
            "Dslash over MPI ranks (f32, AoSoA<32>, one parity per call), {n} rank(s) cut along t, {}; \
             MPI: {}, CUDA-aware: {}",
            crate::common::device_name(ongpu::backend()?),
            world.library_version().lines().next().unwrap_or(""),
            world.cuda_aware()
        );
    }
    // A collective on the GPU: every rank asks.
    let transport = world.halo_transport()?;
    if root {
        println!("halos: {transport}");
        println!(
            "{:<7} {:>3}  {:<14} {:<14} {:>10} {:>9} {:>8} {:>10} {:>8} {:>10} {:>10} {:>7} {:>8}",
            "scaling",
            "n",
            "lattice",
            "per rank",
            "us/call",
            "GFLOP/s",
            "face KB",
            "exch. us",
            "share",
            "MPI us",
            "MPI GB/s",
            "exch/MPI",
            "host us"
        );
    }
    for (mode, dims) in [
        ("weak", [local, local, local, local * n]),
        ("strong", strong),
    ] {
        let lat = Lattice::new(dims)?;
        let ranks = lat.over_ranks(&world, [1, 1, 1, n])?;
        let mut f = Fields::new(ranks)?;
        let timed = time_host(&world, reps, || f.back_and_forth(ranks))? / 2.0;
        let call = timed.call;
        f.twice(ranks)?;
        let (chi, eta) = (f.chi.to_vec()?, f.eta.to_vec()?);
        let mut mismatch = false;
        if root {
            let mut whole = Fields::new(lat)?;
            whole.twice(lat)?;
            use crate::scaling::bits;
            mismatch = bits(&chi) != bits(&whole.chi.to_vec()?)
                || bits(&eta) != bits(&whole.eta.to_vec()?);
        }
        if world.gather(&[u8::from(mismatch)]).contains(&1) {
            return Err(format!("{mode} scaling on {n} ranks differs from one process").into());
        }
        let current = time(&world, reps, || f.current(ranks))?;
        let exchange = (call - current).max(0.0);
        let mut per = dims;
        per[3] /= n;
        // A face: one layer of the written parity, 24 bytes a site.
        let face = per[0] * per[1] * per[2] / 2 * 24;
        let mpi = if n > 1 {
            Some(mpi_round(&world, face, reps)?)
        } else {
            None
        };
        if root {
            let flops = crate::FLOPS_PER_SITE * (lat.volume() / 2) as f64;
            let dash = || "-".to_string();
            // Bytes a rank sends and receives per round: two faces each way.
            let moved = 4.0 * face as f64;
            println!(
                "{:<7} {:>3}  {:<14} {:<14} {:>10.1} {:>9.0} {:>8.0} {:>10} {:>7} {:>10} {:>10} {:>7} {:>8.1}",
                mode,
                n,
                format!("{}x{}x{}x{}", dims[0], dims[1], dims[2], dims[3]),
                format!("{}x{}x{}x{}", per[0], per[1], per[2], per[3]),
                call * 1e6,
                flops / call / 1e9,
                face as f64 / 1e3,
                mpi.map_or_else(dash, |_| format!("{:.1}", exchange * 1e6)),
                mpi.map_or_else(dash, |_| format!("{:.1}%", 100.0 * exchange / call)),
                mpi.map_or_else(dash, |m| format!("{:.1}", m * 1e6)),
                mpi.map_or_else(dash, |m| format!("{:.2}", moved / m / 1e9)),
                mpi.map_or_else(dash, |m| format!("{:.0}%", 100.0 * m / exchange.max(1e-12))),
                timed.host * 1e6,
            );
        }
    }
    if root {
        println!(
            "exch. us: the call minus the same call on a source whose halos are current (the \
             exchange: faces packed, sent, received, unpacked; unhidden); share: exch. / the Dslash call; MPI us: Isend/Irecv of the \
             same faces between host buffers, to and from both neighbours; exch/MPI: MPI's \
             time over the exchange's (the exchange's bandwidth as a share of MPI's); host us: rank \
             0's time to queue a call (the GPU waits for the host where it nears us/call)"
        );
    }
    Ok(())
}
