//! Lattice programs over a lattice cut over ranks, under `mpirun` (`scripts/mpi-tests.sh`
//! runs this program with 1, 2 and 4 ranks). Every rank also runs each program over the
//! whole lattice by itself, in the same process, and compares: element-wise results,
//! shifts (±1, by two, diagonal chains), subsets, the staggered hop and fields written by
//! one call and shifted by the next must be the same bits; order-free reductions (integer
//! sums, max, min) the same bits; floating-point sums (exact over ranks) the same bits on
//! every rank and every grid, and equal to the whole lattice's to rounding. Process grids: along each direction, along two at
//! once, along all four when the rank count allows, and the automatic one; halos one and two
//! sites deep. Halos move only where a call shifts a field written since its last exchange
//! (counted). Wrong grids and foreign fields are errors. A failed check panics, which
//! `World::abort_on_panic` turns into the end of every rank.

#[path = "../calls/split/mod.rs"]
mod split;

use ongpu::mpi::World;
use ongpu::prelude::*;
use ongpu::{AoSoA, Error, ExactSum, ProcessGrid, RankField, RankLattice};
use rand::Rng;
use split::*;

const DIMS: [usize; 4] = [4, 8, 8, 8];

/// The process grids of `ranks` ranks this program runs over `lat` (those that fit).
fn grids(lat: &Lattice, ranks: usize) -> Vec<[usize; 4]> {
    let mut out: Vec<[usize; 4]> = Vec::new();
    let mut push = |d: [usize; 4]| {
        if ProcessGrid::new(lat, ranks, d).is_ok() && !out.contains(&d) {
            out.push(d);
        }
    };
    for mu in 0..4 {
        let mut d = [1; 4];
        d[mu] = ranks;
        push(d);
    }
    if ranks % 2 == 0 {
        for (mu, nu) in [(0, 3), (1, 2), (2, 3)] {
            let mut d = [1; 4];
            d[mu] = 2;
            d[nu] = ranks / 2;
            push(d);
        }
    }
    if ranks == 4 {
        push([1, 2, 2, 1]);
    }
    if let Ok(g) = ProcessGrid::auto(lat, ranks) {
        push(g.dims());
    }
    out
}

fn main() {
    let world = World::init().expect("MPI starts");
    world.abort_on_panic();
    // The backend ONGPU_BACKEND picks: the CPU in CI, the GPU where there is one.
    run(&world);
    world.barrier();
    if world.rank() == 0 {
        println!(
            "mpi_lattice: {} rank(s), {:?} backend: every program over every process grid \
             matches the whole lattice",
            world.size(),
            ongpu::backend().unwrap()
        );
    }
}

fn run(world: &World) {
    let lat = Lattice::new(DIMS).unwrap();
    let (chi, eta) = staggered_twice!(lat, AoS);
    let (_, eta_blocks) = staggered_twice!(lat, AoSoA<16>);
    let diagonal = diagonal_shifts!(lat, 3);
    let (plaq, odd, t_values) = plaquette_sum!(lat);
    let t_whole = lat.field_from_fn::<f64, AoS>(spread_value).unwrap();
    let exact = exact_reductions!(lat, &t_whole);
    // Values from subnormals to 1e300, of both signs, whose largest cancel exactly: a sum
    // over ranks is their correctly rounded sum (ExactSum's on the host) on either backend.
    let wild = lat.field_from_fn::<f64, AoS>(wild_value).unwrap();
    let wild_sum = (0..lat.volume())
        .fold(ExactSum::ZERO, |s, i| s.plus(wild_value(i)))
        .value();
    let wild_even_f32 = (0..lat.volume())
        .filter(|&i| lat.parity(i) == 0)
        .fold(ExactSum::ZERO, |s, i| s.plus(wild_value(i) as f32 as f64))
        .value();
    let counted = exchange_counts!(lat, false, true);
    let mut first_sums = None;
    for dims in grids(&lat, world.size()) {
        let ranks = lat.over_ranks(world, dims).unwrap();
        let what = format!("{ranks}");
        let (c, e) = staggered_twice!(ranks, AoS);
        assert_eq!(bits_of_vectors(&c), bits_of_vectors(&chi), "{what}");
        assert_eq!(bits_of_vectors(&e), bits_of_vectors(&eta), "{what}");
        let (_, e) = staggered_twice!(ranks, AoSoA<16>);
        assert_eq!(
            bits_of_vectors(&e),
            bits_of_vectors(&eta_blocks),
            "AoSoA, {what}"
        );
        // Shifts by two along any direction need halos two deep.
        let grid = ProcessGrid::new(&lat, world.size(), dims).unwrap();
        if let Ok(deep) = RankLattice::new(world, &grid, 2) {
            let got = diagonal_shifts!(deep, 3);
            assert_eq!(bits_of(&got), bits_of(&diagonal), "depth 2, {what}");
        }
        let (p, o, ts) = plaquette_sum!(ranks);
        assert_eq!(bits_of(&ts), bits_of(&t_values), "{what}");
        let sums = (p.to_bits(), o.to_bits());
        assert_eq!(
            *first_sums.get_or_insert(sums),
            sums,
            "{what}: sums differ between grids"
        );
        for (x, want, name) in [(p, plaq, "plaquette"), (o, odd, "odd sum")] {
            assert!(
                (x - want).abs() <= 1e-12 * want.abs().max(1.0),
                "{what}: {name} {x} vs {want}"
            );
            let everywhere = world.gather(&[x.to_bits()]);
            assert!(
                everywhere.iter().all(|&b| b == x.to_bits()),
                "{what}: {name} differs between ranks: {everywhere:?}"
            );
        }
        let t = RankField::<f64>::from_field(&ranks, &t_whole).unwrap();
        assert_eq!(exact_reductions!(ranks, &t), exact, "{what}");
        let w = RankField::<f64>::from_field(&ranks, &wild).unwrap();
        let got = on_gpu!(sum: ranks, |i| { w }).unwrap();
        assert_eq!(
            got.to_bits(),
            wild_sum.to_bits(),
            "{what}: {got:e} vs {wild_sum:e}"
        );
        let got = on_gpu!(sum: ranks.even(), |i| { w as f32 }).unwrap();
        assert_eq!(got.to_bits(), wild_even_f32.to_bits(), "{what}: f32 values");
        wrong_fields_are_errors(&ranks, &lat);
        let got = exchange_counts!(ranks, world.size() > 1, true);
        assert_eq!(
            bits_of(&got),
            bits_of(&counted),
            "{what}: exchange counts' values"
        );
    }
    wrong_grids_are_errors(world, &lat);
}

/// Site `i`'s value of the exact-sum check: ±1e300 pairs, subnormals, and integers scaled
/// by 2^-100..2^100.
fn wild_value(i: usize) -> f64 {
    match i % 50 {
        1 => 1e300,
        2 => -1e300,
        3 => f64::from_bits(i as u64), // subnormal
        _ => (((i * 7919) % 1013) as f64 - 506.0) * 2f64.powi((i * 31 % 200) as i32 - 100),
    }
}

/// A whole-lattice field, or a field of another rank lattice, in a call over a rank lattice
/// is an error before anything runs; a shift beyond the halo is a body panic (on the GPU,
/// in kernels with bounds checks).
fn wrong_fields_are_errors(ranks: &RankLattice, lat: &Lattice) {
    let plain = lat.field_from_fn::<f64, AoS>(|i| i as f64).unwrap();
    let mut out = RankField::<f64>::zeros(ranks).unwrap();
    let e = on_gpu!(ranks.even(), {
        out = plain;
    })
    .unwrap_err();
    assert!(matches!(e, Error::NotOnRanks { field: "plain", .. }), "{e}");
    assert!(out.to_vec().unwrap().iter().all(|&x| x == 0.0));
    let cut = (0..4).find(|&mu| ranks.grid().is_cut(mu));
    if let Some(mu) = cut {
        let a = RankField::<f64>::filled(ranks, 1.0).unwrap();
        // Checked kernels report it on the GPU (as for split lattices); the CPU always does.
        let e = ongpu::with_bounds_checks(true, || {
            on_gpu!(ranks, {
                out = a.shift(mu, 2);
            })
        })
        .unwrap_err();
        assert!(e.to_string().contains("beyond the halo"), "{e}");
        // A graph would replay the call without marking halos stale or refreshing them: a
        // call over a cut lattice is refused there, whether or not it exchanges.
        if ongpu::backend().unwrap() == ongpu::Backend::Cuda {
            let e = ongpu::Graph::new()
                .run(|| {
                    on_gpu!(ranks, {
                        out = a;
                    })
                })
                .unwrap_err();
            assert!(matches!(e, Error::Graph(_)), "{e}");
        }
    }
}

/// Grids that do not fit the lattice or the run are errors naming the extents.
fn wrong_grids_are_errors(world: &World, lat: &Lattice) {
    let n = world.size();
    let e = lat.over_ranks(world, [1, 1, 1, n + 1]).unwrap_err();
    assert!(matches!(e, Error::InvalidLattice { .. }), "{e}");
    assert!(e.to_string().contains("[4, 8, 8, 8]"), "{e}");
    if n > 1 {
        // 6 sites along t: not 2 blocks of even width, nor 4 blocks.
        let odd = Lattice::new([4, 8, 8, 6]).unwrap();
        let e = odd.over_ranks(world, [1, 1, 1, n]).unwrap_err();
        assert!(e.to_string().contains("extent 6"), "{e}");
        let grid = ProcessGrid::new(lat, n, [1, 1, 1, n]).unwrap();
        let e = RankLattice::new(world, &grid, 5).unwrap_err();
        assert!(e.to_string().contains("5 sites deep"), "{e}");
    }
}
