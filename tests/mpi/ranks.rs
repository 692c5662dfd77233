//! The multi-process layer under `mpirun`: `scripts/mpi-tests.sh` runs this program with 1,
//! 2 and 4 ranks (and twice more to check that a failing rank ends the run). Every rank runs
//! every check; a failed check panics, and `World::abort_on_panic` turns that into the end
//! of every rank with the check's message, so a failure can never hang the others.
//!
//! - the world: ranks, sizes and node-local ranks agree with what `mpirun` says;
//! - `gather`: every rank's values on every rank in rank order;
//! - sums that do not depend on the rank count: terms owned by blocks of a fixed global
//!   order, gathered and added in that order, give the bits of the one-process sum for any
//!   number of ranks (the scheme the lattice reductions build on);
//! - `agree`: one rank's error becomes the same error on every rank;
//! - process grids: every rank's block, origin and neighbours, seen from every rank, tile
//!   the lattice exactly once;
//! - `exchange`: faces sent up and down every cut direction of a process grid arrive from
//!   the right neighbours with the right bytes (one of 1 MiB, past the eager protocol),
//!   empty messages pair, and a rank out of range is refused.
//!
//! `ONGPU_MPI_TEST_FAULT=abort` makes the last rank call `World::abort`, and `=panic` makes
//! it panic while the others wait in a barrier: the run must end, not hang.

use ongpu::mpi::World;
use ongpu::prelude::*;
use ongpu::ProcessGrid;

fn main() {
    let world = World::init().expect("MPI starts");
    world.abort_on_panic();
    match std::env::var("ONGPU_MPI_TEST_FAULT").as_deref() {
        Ok("abort") if world.rank() + 1 == world.size() => {
            world.abort("a deliberate abort of the fault test")
        }
        Ok("panic") if world.rank() + 1 == world.size() => {
            panic!("a deliberate panic of the fault test")
        }
        Ok("abort") | Ok("panic") => {
            world.barrier(); // never returns: the last rank ends the run
            unreachable!("the last rank did not end the run");
        }
        _ => {}
    }
    the_world_is_what_mpirun_started(&world);
    gather_is_in_rank_order(&world);
    sums_do_not_depend_on_the_rank_count(&world);
    agree_spreads_one_rank_s_error(&world);
    process_grids_tile_the_lattice(&world);
    faces_reach_the_neighbours(&world);
    world.barrier();
    if world.rank() == 0 {
        println!(
            "mpi_ranks: {} rank(s) of {} (CUDA-aware: {}; rank 0's GPU: {:?}): all checks \
             passed",
            world.size(),
            world.library_version(),
            world.cuda_aware(),
            world.gpu()
        );
    }
}

fn the_world_is_what_mpirun_started(world: &World) {
    assert!(world.rank() < world.size());
    let env = |name: &str| {
        std::env::var(name)
            .ok()
            .and_then(|s| s.parse::<usize>().ok())
    };
    if let Some(size) = env("OMPI_COMM_WORLD_SIZE") {
        assert_eq!(world.size(), size);
        assert_eq!(Some(world.rank()), env("OMPI_COMM_WORLD_RANK"));
        assert_eq!(Some(world.local_rank()), env("OMPI_COMM_WORLD_LOCAL_RANK"));
        assert_eq!(Some(world.local_size()), env("OMPI_COMM_WORLD_LOCAL_SIZE"));
    } else {
        assert_eq!(
            (world.rank(), world.size()),
            (0, 1),
            "started without mpirun"
        );
    }
    assert!(world.local_rank() < world.local_size() && world.local_size() <= world.size());
    // Without a GPU no device is chosen; with one, the node-local rank picks it.
    if let Some(gpu) = world.gpu() {
        if std::env::var_os("ONGPU_DEVICE").is_none() {
            let count = ongpu::cuda::device_count().unwrap();
            assert_eq!(gpu, world.local_rank() % count);
        }
    }
    let _ = world.cuda_aware(); // answers on any MPI, CUDA-aware or not
}

fn gather_is_in_rank_order(world: &World) {
    // Rank r sends r + 1 values r*100 + k: different counts per rank.
    let mine: Vec<u64> = (0..=world.rank() as u64)
        .map(|k| world.rank() as u64 * 100 + k)
        .collect();
    let all = world.gather(&mine);
    let want: Vec<u64> = (0..world.size() as u64)
        .flat_map(|r| (0..=r).map(move |k| r * 100 + k))
        .collect();
    assert_eq!(all, want);
    let pairs = world.gather(&[Complex::new(world.rank() as f64, -1.0)]);
    assert_eq!(pairs.len(), world.size());
    assert!(pairs
        .iter()
        .enumerate()
        .all(|(r, z)| z.re == r as f64 && z.im == -1.0));
    assert_eq!(world.gather::<f32>(&[]), Vec::<f32>::new());
}

fn sums_do_not_depend_on_the_rank_count(world: &World) {
    // 64 terms of wildly different magnitudes: any change of the order of additions changes
    // the rounding of their sum.
    let rng = Philox::new(7);
    let term = |k: usize| rng.normal_f64(k, 0) * 10f64.powi((k % 9) as i32 - 4);
    let serial = (0..64).map(term).fold(0.0, |s, t| s + t);
    // Rank r owns the terms r·64/n .. (r+1)·64/n: consecutive blocks of the global order.
    let (r, n) = (world.rank(), world.size());
    let mine: Vec<f64> = (r * 64 / n..(r + 1) * 64 / n).map(term).collect();
    let ordered = world.gather(&mine).into_iter().fold(0.0, |s, t| s + t);
    assert_eq!(
        ordered.to_bits(),
        serial.to_bits(),
        "{ordered} against {serial}"
    );
    // Partial sums per rank, added in rank order: the same bits on every rank.
    let partial = mine.iter().fold(0.0, |s, t| s + t);
    let total = world.sum_in_rank_order(partial);
    let all = world.gather(&[total]);
    assert!(all.iter().all(|t| t.to_bits() == total.to_bits()));
    if world.size() == 1 {
        assert_eq!(total.to_bits(), serial.to_bits());
    }
}

fn agree_spreads_one_rank_s_error(world: &World) {
    let n = world.size();
    assert_eq!(
        world.agree(Ok::<_, ongpu::Error>(world.rank())).unwrap(),
        world.rank()
    );
    let last_fails = if world.rank() + 1 == n {
        Err(ongpu::Error::InvalidArgument(
            "no such file: part-7.cfg".into(),
        ))
    } else {
        Ok(())
    };
    let e = world.agree(last_fails).unwrap_err().to_string();
    assert!(
        e.contains(&format!("rank {} of {n}: no such file: part-7.cfg", n - 1)),
        "rank {}: {e}",
        world.rank()
    );
    // A failure of the runtime itself on some ranks: a lattice they cannot make.
    if n > 1 {
        let t = if world.rank() == 0 { 8 } else { 7 };
        let e = world
            .agree(Lattice::new([4, 4, 4, t]))
            .unwrap_err()
            .to_string();
        for r in 1..n {
            assert!(e.contains(&format!("rank {r} of {n}")), "{e}");
        }
        assert!(!e.contains("rank 0 of"), "{e}");
    }
}

/// A lattice that every rank count cuts: 4x4x4x(4n).
fn test_lattice(world: &World) -> Lattice {
    Lattice::new([4, 4, 4, 4 * world.size()]).unwrap()
}

fn process_grids_tile_the_lattice(world: &World) {
    let (n, rank) = (world.size(), world.rank());
    let lat = test_lattice(world);
    let mut grids = vec![ProcessGrid::auto(&lat, n).unwrap()];
    if n == 4 {
        grids.push(ProcessGrid::new(&lat, n, [1, 1, 2, 2]).unwrap());
        grids.push(ProcessGrid::new(&lat, n, [2, 2, 1, 1]).unwrap());
    }
    if n == 2 {
        grids.push(ProcessGrid::new(&lat, n, [2, 1, 1, 1]).unwrap());
    }
    for grid in grids {
        // Every rank reports the sites of its block; together they are every site once.
        let o = grid.origin(rank);
        let b = grid.local_extents();
        let mut mine = Vec::new();
        for t in 0..b[3] {
            for z in 0..b[2] {
                for y in 0..b[1] {
                    for x in 0..b[0] {
                        mine.push(lat.index([o[0] + x, o[1] + y, o[2] + z, o[3] + t]) as u64);
                    }
                }
            }
        }
        let mut all = world.gather(&mine);
        all.sort_unstable();
        assert_eq!(all, (0..lat.volume() as u64).collect::<Vec<_>>(), "{grid}");
        // The neighbour across each face owns the site across it.
        for mu in 0..4 {
            let mut x = o;
            x[mu] = (x[mu] + b[mu]) % lat.extents()[mu];
            assert_eq!(grid.owner(x), grid.neighbour(rank, mu, 1), "{grid}");
        }
    }
    // A grid that does not fit is the same error on every rank, before anything exists.
    let e = ProcessGrid::new(&lat, n, [1, 1, 1, 3 * n]).unwrap_err();
    assert!(
        e.to_string().contains(&format!("[4, 4, 4, {}]", 4 * n)),
        "{e}"
    );
}

fn faces_reach_the_neighbours(world: &World) {
    use ongpu::mpi::{Incoming, Outgoing};
    let (n, rank) = (world.size(), world.rank());
    let lat = test_lattice(world);
    let grid = match n {
        4 => ProcessGrid::new(&lat, n, [1, 1, 2, 2]).unwrap(),
        _ => ProcessGrid::auto(&lat, n).unwrap(),
    };
    // A face of each cut direction and side: 1 byte per site of the face, and a large one
    // (beyond the eager protocol's size) along the first cut direction.
    let face = |from: usize, mu: usize, up: bool, len: usize| -> Vec<u8> {
        (0..len)
            .map(|k| (from * 31 + mu * 7 + usize::from(up) * 3 + k) as u8)
            .collect()
    };
    let cut: Vec<usize> = (0..4).filter(|&mu| grid.is_cut(mu)).collect();
    let len = |mu: usize| {
        if Some(&mu) == cut.first() {
            1 << 20
        } else {
            64
        }
    };
    let sends: Vec<(usize, u16, Vec<u8>)> = cut
        .iter()
        .flat_map(|&mu| [(mu, true), (mu, false)])
        .map(|(mu, up)| {
            let to = grid.neighbour(rank, mu, if up { 1 } else { -1 });
            (
                to,
                (2 * mu + usize::from(up)) as u16,
                face(rank, mu, up, len(mu)),
            )
        })
        .collect();
    let mut received: Vec<(usize, u16, Vec<u8>, Vec<u8>)> = cut
        .iter()
        .flat_map(|&mu| [(mu, true), (mu, false)])
        .map(|(mu, up)| {
            // The face a neighbour sent "up" arrives from the neighbour below, and so on.
            let from = grid.neighbour(rank, mu, if up { -1 } else { 1 });
            let want = face(from, mu, up, len(mu));
            (
                from,
                (2 * mu + usize::from(up)) as u16,
                vec![0u8; want.len()],
                want,
            )
        })
        .collect();
    let outgoing: Vec<Outgoing> = sends
        .iter()
        .map(|(rank, tag, data)| Outgoing {
            rank: *rank,
            tag: *tag,
            data,
        })
        .collect();
    let mut incoming: Vec<Incoming> = received
        .iter_mut()
        .map(|(rank, tag, data, _)| Incoming {
            rank: *rank,
            tag: *tag,
            data,
        })
        .collect();
    world.exchange(&outgoing, &mut incoming).unwrap();
    for (from, tag, got, want) in &received {
        assert!(
            got == want,
            "rank {rank}: the face with tag {tag} from rank {from} differs"
        );
    }
    // Empty messages pair like any other; a rank out of range is refused before posting.
    let next = (rank + 1) % n;
    let prev = (rank + n - 1) % n;
    let mut nothing: [u8; 0] = [];
    world
        .exchange(
            &[Outgoing {
                rank: next,
                tag: 9,
                data: &[],
            }],
            &mut [Incoming {
                rank: prev,
                tag: 9,
                data: &mut nothing,
            }],
        )
        .unwrap();
    let e = world
        .exchange(
            &[Outgoing {
                rank: n,
                tag: 0,
                data: &[1],
            }],
            &mut [],
        )
        .unwrap_err();
    assert!(e.to_string().contains(&format!("rank {n}")), "{e}");
}
