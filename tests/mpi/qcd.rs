//! The physics library over a lattice cut over ranks, under `mpirun` (`scripts/mpi-tests.sh`
//! runs it with 1, 2 and 4 ranks): the hot start and heatbath and overrelaxation sweeps
//! (random numbers keyed by whole-lattice sites) give every link bit for bit what the same
//! chain gives on the whole lattice in one process; the plaquette agrees to rounding; and 20
//! iterations of the staggered CG give the same solution on every process grid of the run,
//! and so does a whole solve by the CG whose scalars stay on the devices (its sums over the
//! ranks added on the GPUs where NCCL serves).
//! Sums over ranks are exact on both backends, so that solution is the same bits for every
//! grid and every rank count: rank 0 prints its digest, which the script compares between
//! the runs with 1, 2 and 4 ranks. NERSC files written from a lattice cut over ranks
//! hold the bytes the whole lattice writes, read back onto every grid they give the same
//! links, and a truncated file or one of another lattice is the same error on every rank.
//! ILDG files likewise: written from the ranks with the whole lattice's links and checksum,
//! read back with each rank reading only its own sites, and a flipped byte the same checksum
//! error on every rank. Domain-wall quarks: the Möbius operator, its adjoint and the even-odd
//! operator give the whole lattice's bits, and 20 CGNR iterations its 4-D propagator. HISQ
//! quarks over ranks with halos three deep: the fat and Naik links and the Dslash bit for
//! bit, and a whole RHMC trajectory (heatbath, multi-shift solves, the force through the
//! smearing, Metropolis): the same bits for every rank count (in the digest), and with one
//! rank the whole lattice's links and `ΔH` to rounding.

use ongpu::mpi::World;
use ongpu::prelude::*;
use ongpu::qcd::boundary::TimeBoundary;
use ongpu::qcd::domain_wall::{
    DomainWall, DomainWallEvenOdd, FiveFieldOf, FiveSpinor, MobiusParams,
};
use ongpu::qcd::gauge::GaugeField;
use ongpu::qcd::hisq::Hisq;
use ongpu::qcd::hmc::{Action, HisqFlavour, HisqQuarks, Hmc, Integrator, MdParams};
use ongpu::qcd::nersc;
use ongpu::qcd::quenched::QuenchedUpdate;
use ongpu::qcd::solver::Cgnr;
use ongpu::qcd::solver::{LinearSolver, SolverError};
use ongpu::qcd::staggered::{self, Cg, DeviceCg, FermionOf, Staggered};
use ongpu::qcd::wilson::{random_spinors, HostSpinor, SpinorFieldOf};
use ongpu::{ProcessGrid, RankLattice};

const DIMS: [usize; 4] = [4, 4, 4, 8];
const SEED: u64 = 5;
const BETA: f64 = 5.8;
const MASS: f64 = 0.05;
const ITERATIONS: usize = 20;
/// The fifth dimension of the domain-wall check.
const DW_LS: usize = 4;
/// The lattice of the HISQ check: 16 time slices leave blocks of 4 or more sites and halos
/// three deep that do not meet on 1, 2 and 4 ranks.
const HISQ_DIMS: [usize; 4] = [4, 4, 4, 16];

/// Process grids of `ranks` ranks over `lat`: along t, along z and t, and the automatic one.
fn grids(lat: &Lattice, ranks: usize) -> Vec<[usize; 4]> {
    let mut out = Vec::new();
    let mut candidates = vec![[1, 1, 1, ranks]];
    if ranks % 2 == 0 {
        candidates.push([1, 1, 2, ranks / 2]);
        candidates.push([2, 1, 1, ranks / 2]);
    }
    if let Ok(g) = ProcessGrid::auto(lat, ranks) {
        candidates.push(g.dims());
    }
    for d in candidates {
        if ProcessGrid::new(lat, ranks, d).is_ok() && !out.contains(&d) {
            out.push(d);
        }
    }
    out
}

/// A hot start and one heatbath plus one overrelaxation sweep at β = 5.8.
fn chain<S: Space>(lat: S) -> GaugeField<S> {
    let mut u = GaugeField::hot(lat, SEED).unwrap();
    let mut update = QuenchedUpdate::resume(lat, SEED, 1);
    update.sweep(&mut u, BETA, 1).unwrap();
    u
}

/// The CG's iterate after `ITERATIONS` iterations from a random even source, and its
/// relative residual by the recursion.
fn cg_iterate<S: Space>(u: &GaugeField<S>) -> (Vec<ColorVector<f64>>, f64) {
    let lat = u.lattice();
    let whole = lat.whole();
    let b_host = staggered::even_part(&whole, &staggered::random_vector(&whole, SEED + 1));
    let b: FermionOf<S> = lat.field_from_fn(|i| b_host[i]).unwrap();
    let mut x: FermionOf<S> = lat.zeros().unwrap();
    let op = Staggered::new(u, MASS).unwrap();
    let residual = match Cg::new(lat, 1e-30, ITERATIONS).solve(&op, &b, &mut x) {
        Err(SolverError::NotConverged {
            iterations,
            relative_residual,
        }) => {
            assert_eq!(iterations, ITERATIONS);
            relative_residual
        }
        other => panic!("20 iterations cannot reach 1e-30: {other:?}"),
    };
    (x.values().unwrap(), residual)
}

/// A whole solve by the CG with device scalars: its solution (even sites), iterations and
/// relative residual, which meets the tolerance.
fn device_cg_solution<S: Space>(u: &GaugeField<S>) -> (Vec<ColorVector<f64>>, usize, f64) {
    let lat = u.lattice();
    let whole = lat.whole();
    let b_host = staggered::even_part(&whole, &staggered::random_vector(&whole, SEED + 3));
    let b: FermionOf<S> = lat.field_from_fn(|i| b_host[i]).unwrap();
    let mut x: FermionOf<S> = lat.zeros().unwrap();
    let op = Staggered::new(u, MASS).unwrap();
    let mut cg = DeviceCg::new(lat, 1e-10, 1000);
    let sol = cg.solve(&op, &b, &mut x).unwrap();
    assert!(sol.relative_residual <= 1e-10, "{sol:?}");
    assert!(
        cg.looks() < sol.iterations,
        "{} looks for {sol:?}",
        cg.looks()
    );
    (x.values().unwrap(), sol.iterations, sol.relative_residual)
}

/// The halo refreshes of a second CG solve (the first has refreshed the links) and its
/// operator applications: each application's two hops refresh one parity each.
fn cg_exchanges<S: Space>(u: &GaugeField<S>) -> (ongpu::HaloRefreshes, u64) {
    let lat = u.lattice();
    let whole = lat.whole();
    let b_host = staggered::even_part(&whole, &staggered::random_vector(&whole, SEED + 2));
    let b: FermionOf<S> = lat.field_from_fn(|i| b_host[i]).unwrap();
    let mut x: FermionOf<S> = lat.zeros().unwrap();
    let op = Staggered::new(u, MASS).unwrap();
    let mut cg = Cg::new(lat, 1e-8, 500);
    cg.solve(&op, &b, &mut x).unwrap();
    let before = lat.halo_refreshes();
    cg.solve(&op, &b, &mut x).unwrap();
    (
        lat.halo_refreshes().since(before),
        cg.passes().applications as u64,
    )
}

fn bits(v: &[ColorVector<f64>]) -> Vec<u64> {
    v.iter()
        .flat_map(|c| (0..3).flat_map(move |k| [c[k].re.to_bits(), c[k].im.to_bits()]))
        .collect()
}

/// FNV-1a over the bits: a short fingerprint to compare between runs.
fn digest(words: &[u64]) -> u64 {
    words.iter().fold(0xcbf2_9ce4_8422_2325, |h, w| {
        w.to_le_bytes()
            .iter()
            .fold(h, |h, &b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
    })
}

/// The NERSC checks on `u` (a chain on a lattice cut over ranks, whose links on the whole
/// lattice are `links`).
fn check_files(world: &World, u: &GaugeField<RankLattice>, links: &[[ColorMatrix<f64>; 4]]) {
    let ranks = u.lattice();
    let stem = std::env::temp_dir().join(format!(
        "mpi-qcd-{}",
        world.gather(&[std::process::id()])[0]
    ));
    let (whole_path, ranks_path, bad_path) = (
        stem.with_extension("whole.nersc"),
        stem.with_extension("ranks.nersc"),
        stem.with_extension("bad.nersc"),
    );
    let ensemble = nersc::Ensemble::default();
    if world.rank() == 0 {
        let whole = GaugeField::from_host(ranks.whole(), links.to_vec()).unwrap();
        whole
            .write_nersc(&whole_path, Default::default(), &ensemble)
            .unwrap();
        let bytes = std::fs::read(&whole_path).unwrap();
        std::fs::write(&bad_path, &bytes[..bytes.len() - 1000]).unwrap();
    }
    world.barrier();
    let header = u
        .write_nersc(&ranks_path, Default::default(), &ensemble)
        .unwrap();
    world.barrier();
    let data = |path: &std::path::Path| {
        let bytes = std::fs::read(path).unwrap();
        let end = bytes.windows(10).position(|w| w == b"END_HEADER").unwrap();
        bytes[end..].to_vec()
    };
    assert!(
        data(&ranks_path) == data(&whole_path),
        "{ranks}: the file's links differ"
    );
    let (back, read_header) = GaugeField::read_nersc_onto(ranks, &ranks_path).unwrap();
    assert_eq!(read_header.checksum, header.checksum);
    assert!(
        back.to_host().unwrap() == links,
        "{ranks}: links read back differ"
    );
    let bad = GaugeField::read_nersc_onto(ranks, &bad_path).map(drop);
    let message = bad.expect_err("a truncated file is an error").to_string();
    assert!(
        message.contains("truncated") && message.contains(&format!("rank {} of", world.size() - 1)),
        "{ranks}: {message}"
    );
    let other = Lattice::new([4, 4, 8, 8])
        .unwrap()
        .over_ranks(world, ranks.grid().dims())
        .unwrap();
    let wrong = GaugeField::read_nersc_onto(other, &ranks_path).map(drop);
    assert!(
        wrong.is_err(),
        "{ranks}: a file of another lattice was read"
    );
    check_ildg(world, u, links, &stem);
    world.barrier();
    if world.rank() == 0 {
        for p in [&whole_path, &ranks_path, &bad_path] {
            std::fs::remove_file(p).ok();
        }
    }
}

/// The ILDG checks on `u` (as [`check_files`]).
fn check_ildg(
    world: &World,
    u: &GaugeField<RankLattice>,
    links: &[[ColorMatrix<f64>; 4]],
    stem: &std::path::Path,
) {
    use ongpu::qcd::nersc::Precision;
    let ranks = u.lattice();
    let (whole_path, ranks_path, bad_path) = (
        stem.with_extension("whole.lime"),
        stem.with_extension("ranks.lime"),
        stem.with_extension("bad.lime"),
    );
    let whole_info = if world.rank() == 0 {
        let whole = GaugeField::from_host(ranks.whole(), links.to_vec()).unwrap();
        let info = whole.write_ildg(&whole_path, Precision::Double).unwrap();
        let mut bytes = std::fs::read(&whole_path).unwrap();
        let at = bytes.len() / 2;
        bytes[at] ^= 0x01;
        std::fs::write(&bad_path, &bytes).unwrap();
        Some(info)
    } else {
        None
    };
    world.barrier();
    let info = u.write_ildg(&ranks_path, Precision::Double).unwrap();
    world.barrier();
    if let Some(whole_info) = whole_info {
        assert_eq!(
            info.checksum, whole_info.checksum,
            "{ranks}: the checksums differ"
        );
    }
    let (back, read_info) = GaugeField::read_ildg_onto(ranks, &ranks_path).unwrap();
    assert_eq!(read_info.checksum, info.checksum);
    assert!(
        back.to_host().unwrap() == links,
        "{ranks}: ILDG links read back differ"
    );
    // Across rank counts: the file the whole lattice wrote, read by these ranks, and the
    // file these ranks wrote, read by one process.
    let (from_whole, _) = GaugeField::read_ildg_onto(ranks, &whole_path).unwrap();
    assert!(
        from_whole.to_host().unwrap() == links,
        "{ranks}: the whole lattice's ILDG file read over ranks differs"
    );
    if world.rank() == 0 {
        let (one, _) = GaugeField::read_ildg(&ranks_path).unwrap();
        assert!(
            one.to_host().unwrap() == links,
            "{ranks}: the ranks' ILDG file read by one process differs"
        );
    }
    let bad = GaugeField::read_ildg_onto(ranks, &bad_path).map(drop);
    let message = bad.expect_err("a flipped byte is an error").to_string();
    assert!(message.contains("checksum"), "{ranks}: {message}");
    world.barrier();
    if world.rank() == 0 {
        for p in [&whole_path, &ranks_path, &bad_path] {
            std::fs::remove_file(p).ok();
        }
    }
}

/// Domain-wall quarks over ranks: `D`, `D†` and `M̂` of a random 5-D field, and the 4-D
/// propagator of a few even-odd CGNR iterations, as the site values of the whole lattice.
fn domain_wall_results<S: Space>(
    u: &GaugeField<S>,
    psi: &[FiveSpinor<f64, DW_LS>],
    eta: &[HostSpinor],
) -> (Vec<Vec<FiveSpinor<f64, DW_LS>>>, Vec<HostSpinor>) {
    let lat = u.lattice();
    let d = DomainWall::<DW_LS, S>::new(u, MobiusParams::mobius(1.6, 0.1, 1.5, 0.5)).unwrap();
    let eo = DomainWallEvenOdd::new(&d).unwrap();
    let x: FiveFieldOf<S, DW_LS> = lat.field_from_vec(psi.to_vec()).unwrap();
    let (mut s1, mut s2, mut out): (
        FiveFieldOf<S, DW_LS>,
        FiveFieldOf<S, DW_LS>,
        FiveFieldOf<S, DW_LS>,
    ) = (
        lat.zeros().unwrap(),
        lat.zeros().unwrap(),
        lat.zeros().unwrap(),
    );
    let mut results = Vec::new();
    d.apply(&x, &mut s1, &mut out).unwrap();
    results.push(out.values().unwrap());
    d.apply_dagger(&x, &mut s1, &mut s2, &mut out).unwrap();
    results.push(out.values().unwrap());
    eo.apply(&x, &mut s1, &mut out).unwrap();
    results.push(out.values().unwrap());
    let eta: SpinorFieldOf<S> = lat.field_from_vec(eta.to_vec()).unwrap();
    let mut q: SpinorFieldOf<S> = lat.zeros().unwrap();
    let mut x5: FiveFieldOf<S, DW_LS> = lat.zeros().unwrap();
    let solve = |b: &FiveFieldOf<S, DW_LS>, x: &mut FiveFieldOf<S, DW_LS>| {
        match eo.solve(&mut Cgnr::new(1e-14, ITERATIONS), b, x) {
            Ok(s) => Ok(s),
            // A fixed number of iterations: the iterate is compared, not a converged answer.
            Err(SolverError::NotConverged { iterations, .. }) => Ok(ongpu::qcd::solver::Solution {
                iterations,
                restarts: 0,
                reliable_updates: 0,
                relative_residual: f64::NAN,
                seconds: 0.0,
            }),
            Err(e) => Err(e),
        }
    };
    d.propagator(solve, &eta, &mut x5, &mut q).unwrap();
    (results, q.values().unwrap())
}

/// The whole lattice's domain-wall results against those over ranks: the operators bit for
/// bit, the propagator's iterate to rounding (its sums are exact over ranks, the whole
/// lattice's are not).
fn check_domain_wall<S: Space>(
    ur: &GaugeField<S>,
    psi: &[FiveSpinor<f64, DW_LS>],
    eta: &[HostSpinor],
    want: &(Vec<Vec<FiveSpinor<f64, DW_LS>>>, Vec<HostSpinor>),
) {
    let lat = ur.lattice();
    let (got, got_q) = domain_wall_results(ur, psi, eta);
    for (k, (g, w)) in got.iter().zip(&want.0).enumerate() {
        assert!(
            g == w,
            "{lat}: domain-wall operator {k} differs from the whole lattice's"
        );
    }
    let scale = want
        .1
        .iter()
        .map(|s| s.iter().map(|c| c.norm2()).sum::<f64>())
        .sum::<f64>();
    let diff = got_q
        .iter()
        .zip(&want.1)
        .map(|(a, b)| (0..4).map(|s| (a[s] - b[s]).norm2()).sum::<f64>())
        .sum::<f64>();
    assert!(
        diff <= 1e-20 * scale,
        "{lat}: domain-wall propagator iterate off by {:e}",
        (diff / scale).sqrt()
    );
}

/// The HISQ fat and Naik links and Dslash of a random gauge field, as bits: the smearing
/// reaches two sites aside and the Naik hop three, so the lattice over ranks is cut with
/// halos three deep.
fn hisq_bits<S: Space>(
    lat: S,
    links: &ongpu::qcd::gauge::HostLinks,
    psi: &[ColorVector<f64>],
) -> Vec<u64> {
    let u = GaugeField::from_host(lat, links.clone()).unwrap();
    let op = Hisq::new(&u, 0.1, -0.1, TimeBoundary::Antiperiodic).unwrap();
    let x: FermionOf<S> = lat.field_from_vec(psi.to_vec()).unwrap();
    let mut out: FermionOf<S> = lat.zeros().unwrap();
    op.dslash(&x, &mut out).unwrap();
    let mut words: Vec<u64> = [&op.links().fat, &op.links().naik]
        .iter()
        .flat_map(|l| l.values().unwrap())
        .flat_map(|site| site.into_iter().flat_map(|m| m.m.into_iter().flatten()))
        .flat_map(|z| [z.re.to_bits(), z.im.to_bits()])
        .collect();
    words.extend(bits(&out.values().unwrap()));
    words
}

/// HISQ over ranks cut along time with three-deep halos: the whole lattice's bits.
fn check_hisq(world: &World) {
    let lat = Lattice::new(HISQ_DIMS).unwrap();
    let links = GaugeField::random(lat, 90).unwrap().to_host().unwrap();
    let psi = staggered::random_vector(&lat, 91);
    let want = hisq_bits(lat, &links, &psi);
    let grid = ProcessGrid::new(&lat, world.size(), [1, 1, 1, world.size()]).unwrap();
    let ranks = RankLattice::new(world, &grid, 3).unwrap();
    assert!(
        hisq_bits(ranks, &links, &psi) == want,
        "{ranks}: HISQ links or Dslash differ from the whole lattice's"
    );
}

/// One RHMC trajectory with a rooted HISQ field from `links`: the new links and `ΔH` (the
/// heatbath, its power method, the multi-shift solves, the force through both smearing
/// levels and the Metropolis step, all over ranks with three-deep halos).
fn rhmc_trajectory<S: Space>(
    lat: S,
    links: &ongpu::qcd::gauge::HostLinks,
) -> (ongpu::qcd::gauge::HostLinks, f64) {
    let mut u = GaugeField::from_host(lat, links.clone()).unwrap();
    let quarks =
        HisqQuarks::<4, S>::new(lat, &[HisqFlavour::new(1, 0.5)], 8.0, 1e-10, 1e-8, 2000).unwrap();
    let action = Action::wilson(BETA).unwrap().with_quarks(quarks);
    let mut hmc = Hmc::with_action(lat, action, 11);
    let md = MdParams {
        length: 0.2,
        steps: 1,
        integrator: Integrator::omelyan(),
    };
    let t = hmc.trajectory(&mut u, &md).unwrap();
    (u.to_host().unwrap(), t.delta_h)
}

/// An RHMC trajectory over ranks cut along time; returns its bits, which exact sums over
/// ranks make the same for every rank count (the script compares the digests of the runs
/// with 1, 2 and 4 ranks). The run with one rank also checks that it ends where the whole
/// lattice's does (links to 1e-10, `ΔH` to 1e-8: the whole lattice's sums are rounded), so
/// every rank count does; the runs with more ranks do not repeat the whole lattice's
/// trajectory on every rank.
fn check_rhmc(world: &World) -> Vec<u64> {
    let lat = Lattice::new(HISQ_DIMS).unwrap();
    let links = chain(lat).to_host().unwrap();
    let grid = ProcessGrid::new(&lat, world.size(), [1, 1, 1, world.size()]).unwrap();
    let ranks = RankLattice::new(world, &grid, 3).unwrap();
    let (got, dh) = rhmc_trajectory(ranks, &links);
    if world.size() == 1 {
        let (want, want_dh) = rhmc_trajectory(lat, &links);
        let off = got
            .iter()
            .zip(&want)
            .flat_map(|(a, b)| (0..4).map(move |mu| (a[mu] - b[mu]).norm2().sqrt()))
            .fold(0.0, f64::max);
        assert!(off <= 1e-10, "{ranks}: RHMC links off by {off:e}");
        assert!(
            (dh - want_dh).abs() <= 1e-8,
            "{ranks}: RHMC ΔH {dh} vs {want_dh}"
        );
    }
    let mut words: Vec<u64> = got
        .iter()
        .flat_map(|site| site.iter().flat_map(|m| m.m.into_iter().flatten()))
        .flat_map(|z| [z.re.to_bits(), z.im.to_bits()])
        .collect();
    words.push(dh.to_bits());
    words
}

fn main() {
    let world = World::init().expect("MPI starts");
    world.abort_on_panic();
    let lat = Lattice::new(DIMS).unwrap();
    let u = chain(lat);
    let links = u.to_host().unwrap();
    let plaquette = u.plaquette().unwrap();
    let (x_whole, _) = cg_iterate(&u);
    let slices: Vec<_> = (0..DW_LS)
        .map(|s| random_spinors(&lat, 70 + s as u64))
        .collect();
    let psi: Vec<FiveSpinor<f64, DW_LS>> = (0..lat.volume())
        .map(|x| FiveSpinor(std::array::from_fn(|s| slices[s][x])))
        .collect();
    let eta = random_spinors(&lat, 80);
    let dw_whole = domain_wall_results(&u, &psi, &eta);
    let mut first: Option<Vec<u64>> = None;
    for dims in grids(&lat, world.size()) {
        let ranks = lat.over_ranks(&world, dims).unwrap();
        let ur = chain(ranks);
        let got = ur.to_host().unwrap();
        assert!(
            got.iter()
                .zip(&links)
                .all(|(a, b)| (0..4).all(|mu| a[mu] == b[mu])),
            "{ranks}: the chain's links differ from the whole lattice's"
        );
        let p = ur.plaquette().unwrap();
        assert!(
            (p - plaquette).abs() <= 1e-13,
            "{ranks}: plaquette {p} vs {plaquette}"
        );
        check_files(&world, &ur, &links);
        check_domain_wall(&ur, &psi, &eta, &dw_whole);
        let (x, residual) = cg_iterate(&ur);
        let (refreshes, applications) = cg_exchanges(&ur);
        let per_hop = if world.size() > 1 { applications } else { 0 };
        assert_eq!(
            refreshes,
            ongpu::HaloRefreshes {
                even: per_hop,
                odd: per_hop
            },
            "{ranks}: {applications} CG applications"
        );
        let scale = x_whole.iter().map(|v| v.norm2()).sum::<f64>().sqrt();
        let diff = x
            .iter()
            .zip(&x_whole)
            .map(|(a, b)| (*a - *b).norm2())
            .sum::<f64>()
            .sqrt();
        assert!(diff <= 1e-10 * scale, "{ranks}: CG iterate off by {diff:e}");
        let mut words = bits(&x);
        words.push(residual.to_bits());
        words.push(p.to_bits());
        let (xd, iterations, relative) = device_cg_solution(&ur);
        words.extend(bits(&xd));
        words.push(iterations as u64);
        words.push(relative.to_bits());
        match &first {
            None => first = Some(words),
            Some(w) => assert!(*w == words, "{ranks}: CG bits differ between grids"),
        }
    }
    check_hisq(&world);
    let rhmc = check_rhmc(&world);
    world.barrier();
    if world.rank() == 0 {
        let mut words = first.expect("at least one grid");
        words.extend(rhmc);
        println!(
            "mpi_qcd: {} rank(s), {:?} backend: chains bit for bit as on the whole lattice, an \
             RHMC trajectory with HISQ quarks to rounding; CG and RHMC digest {:016x} (exact \
             sums)",
            world.size(),
            ongpu::backend().unwrap(),
            digest(&words)
        );
    }
}
