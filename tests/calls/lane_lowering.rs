//! Bodies lowered lane-major on the CPU backend: nearest-neighbour shifts read each group's
//! gathered buffers and constant loops are unrolled. The lanes must give the bits of the
//! same body run site by site: an `AoS` call runs every site alone (its groups do not pay),
//! so each body is run on `AoSoA<32>` (lane groups), `SoA` (lane groups, gathered
//! neighbours copied) and `AoS` (sites) and compared bit for bit; the call sites' lowering
//! is read back from `ongpu::cpu_lowerings()`.

use ongpu::prelude::*;
use ongpu::{Backend, Layout, Lowering};
use rand::{Rng, SeedableRng};

/// A lattice of whole groups and odd-looking extents (neighbours along x, y and z are not
/// whole blocks).
const DIMS: [usize; 4] = [6, 4, 8, 4];

fn rng(seed: u64) -> rand::rngs::StdRng {
    rand::rngs::StdRng::seed_from_u64(seed)
}

fn matrix(r: &mut impl Rng) -> ColorMatrix<f64> {
    ColorMatrix::new(std::array::from_fn(|_| {
        std::array::from_fn(|_| Complex::new(r.random_range(-1.0..1.0), r.random_range(-1.0..1.0)))
    }))
}

fn vector(r: &mut impl Rng) -> ColorVector<f64> {
    ColorVector::new(std::array::from_fn(|_| {
        Complex::new(r.random_range(-1.0..1.0), r.random_range(-1.0..1.0))
    }))
}

/// Random links and colour vectors for every site of `lat`, from `seed`.
fn links_and_vectors(
    lat: Lattice,
    seed: u64,
) -> (Vec<[ColorMatrix<f64>; 4]>, Vec<ColorVector<f64>>) {
    let mut r = rng(seed);
    let links = (0..lat.volume())
        .map(|_| std::array::from_fn(|_| matrix(&mut r)))
        .collect();
    let psi = (0..lat.volume()).map(|_| vector(&mut r)).collect();
    (links, psi)
}

/// Random reals and links for every site of `lat`, from `seed`.
fn reals_and_links(lat: Lattice, seed: u64) -> (Vec<f64>, Vec<[ColorMatrix<f64>; 4]>) {
    let mut r = rng(seed);
    let a = (0..lat.volume())
        .map(|_| r.random_range(-1.0..1.0))
        .collect();
    let links = (0..lat.volume())
        .map(|_| std::array::from_fn(|_| matrix(&mut r)))
        .collect();
    (a, links)
}

/// How the CPU backend lowered the call at `line` of this file.
fn lowering_at(line: u32) -> Lowering {
    ongpu::cpu_lowerings()
        .into_iter()
        .find(|(at, _)| at.file == file!() && at.line == line)
        .map(|(_, l)| l)
        .unwrap_or_else(|| panic!("no call at line {line} ran on the CPU"))
}

/// The fields of a hop in layout `L`: the links, the source, and the output poisoned with
/// NaN.
#[allow(clippy::type_complexity)]
fn hop_fields<L: Layout>(
    lat: Lattice,
    links: &[[ColorMatrix<f64>; 4]],
    psi: &[ColorVector<f64>],
) -> (
    Field<[ColorMatrix<f64>; 4], L>,
    Field<ColorVector<f64>, L>,
    Field<ColorVector<f64>, L>,
) {
    let out = Field::filled(
        lat.volume(),
        ColorVector::new([Complex::new(f64::NAN, 0.0); 3]),
    );
    (
        Field::from_vec(links.to_vec()),
        Field::from_vec(psi.to_vec()),
        out,
    )
}

/// The staggered hop on the even sites, in layout `L`, and the line of its call.
fn dslash<L: Layout>(
    lat: Lattice,
    links: &[[ColorMatrix<f64>; 4]],
    psi: &[ColorVector<f64>],
) -> (Vec<ColorVector<f64>>, u32) {
    let (u, psi, mut chi) = hop_fields::<L>(lat, links, psi);
    let line = line!() + 1;
    on_gpu!(lat.even(), |i| {
        let mut r = ColorVector::zero();
        for mu in 0..4 {
            r += u[mu] * psi.shift(mu, 1) - u.shift(mu, -1)[mu].adj() * psi.shift(mu, -1);
        }
        chi = r;
    })
    .unwrap();
    (chi.to_vec().unwrap()[..lat.volume() / 2].to_vec(), line)
}

/// The bits of reals: compared as bits, a NaN equals a NaN and -0.0 differs from 0.0, as the
/// lanes' contract (the same bits) asks.
fn real_bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// Panics unless the call at `line` of this file was lowered lane-major (in one loop or in
/// runs).
fn assert_lane_major(line: u32) {
    let l = lowering_at(line);
    assert!(
        matches!(l, Lowering::LaneMajor | Lowering::Runs(_)),
        "{l:?}"
    );
}

fn on_cpu(f: impl FnOnce()) {
    ongpu::with_backend(Backend::Cpu, f);
}

fn bits(v: &[ColorVector<f64>]) -> Vec<u64> {
    v.iter()
        .flat_map(|c| c.v.iter().flat_map(|z| [z.re.to_bits(), z.im.to_bits()]))
        .collect()
}

#[test]
fn the_dslash_is_lowered_lane_major_and_gives_the_bits_of_single_sites() {
    on_cpu(|| {
        let lat = Lattice::new(DIMS).unwrap();
        let (links, psi) = links_and_vectors(lat, 7);
        let (sites, _) = dslash::<AoS>(lat, &links, &psi);
        let (lanes, line) = dslash::<AoSoA<32>>(lat, &links, &psi);
        let (soa, _) = dslash::<SoA>(lat, &links, &psi);
        assert_eq!(lowering_at(line), Lowering::LaneMajor);
        assert!(sites.iter().all(|c| c.v.iter().all(|z| z.re.is_finite())));
        assert_eq!(
            bits(&lanes),
            bits(&sites),
            "AoSoA<32> lanes against AoS sites"
        );
        assert_eq!(bits(&soa), bits(&sites), "SoA lanes against AoS sites");
    });
}

/// A long body, in layout `L`: nearest neighbours along every direction read in statements
/// of their own, locals bound again (`f`, `g`), handed from one statement to later ones
/// (`r`, `s`) and assigned there, the site index, an `if`, and the output written in several
/// statements; with the line of its call.
fn long_body<L: Layout>(
    lat: Lattice,
    links: &[[ColorMatrix<f64>; 4]],
    psi: &[ColorVector<f64>],
) -> (Vec<ColorVector<f64>>, u32) {
    let (u, psi, mut out) = hop_fields::<L>(lat, links, psi);
    let half = 0.5;
    let line = line!() + 1;
    on_gpu!(lat.even(), |i| {
        let mut r = ColorVector::zero();
        let mut s = ColorVector::zero();
        let f = psi.shift(0, 1);
        r += u[0] * f;
        let g = psi.shift(0, -1);
        s -= u.shift(0, -1)[0].adj() * g;
        out = r - s;
        let f = psi.shift(1, 1);
        r += u[1] * f + s;
        let g = psi.shift(1, -1);
        let t = s + u.shift(1, -1)[1].adj() * g;
        s = t;
        let k = (i % 7) as f64;
        let f = psi.shift(2, 1);
        r += u[2] * f * k;
        out += r;
        let g = psi.shift(2, -1);
        let w = u.shift(2, -1)[2].adj();
        s += w * g;
        let f = psi.shift(3, 1);
        let g = psi.shift(3, -1);
        out += s + u[3] * f - u.shift(3, -1)[3].adj() * g;
        if k > 3.0 {
            let scaled = out * half;
            out = scaled;
        }
    })
    .unwrap();
    (out.to_vec().unwrap()[..lat.volume() / 2].to_vec(), line)
}

#[test]
fn a_long_body_runs_in_runs_and_gives_the_bits_of_single_sites() {
    on_cpu(|| {
        let lat = Lattice::new(DIMS).unwrap();
        let (links, psi) = links_and_vectors(lat, 8);
        let (sites, _) = long_body::<AoS>(lat, &links, &psi);
        let (lanes, line) = long_body::<AoSoA<32>>(lat, &links, &psi);
        let (soa, _) = long_body::<SoA>(lat, &links, &psi);
        match lowering_at(line) {
            Lowering::Runs(n) => assert!(n >= 3, "{n} runs"),
            l => panic!("a long body lowered as {l:?}"),
        }
        assert!(sites.iter().all(|c| c.v.iter().all(|z| z.re.is_finite())));
        assert_eq!(
            bits(&lanes),
            bits(&sites),
            "AoSoA<32> runs against AoS sites"
        );
        assert_eq!(bits(&soa), bits(&sites), "SoA runs against AoS sites");
    });
}

/// Three fields written in different runs of a long body, in layouts `L` (the read field)
/// and `M` (two of the written ones; the third is `AoS`); with the line of the call.
#[allow(clippy::type_complexity)]
fn outputs_in_runs<L: Layout, M: Layout>(
    lat: Lattice,
    a: &[f64],
    links: &[[ColorMatrix<f64>; 4]],
) -> (Vec<f64>, Vec<f64>, Vec<ColorMatrix<f64>>, u32) {
    let a: Field<f64, L> = Field::from_vec(a.to_vec());
    let u: Field<[ColorMatrix<f64>; 4], L> = Field::from_vec(links.to_vec());
    let mut s: Field<f64, M> = Field::filled(lat.volume(), f64::NAN);
    let mut d: Field<f64, M> = Field::filled(lat.volume(), 1.5);
    let mut w: Field<ColorMatrix<f64>, AoS> = Field::filled(lat.volume(), ColorMatrix::zero());
    let line = line!() + 1;
    on_gpu!(lat, {
        s = a.shift(2, -1) + a.shift(3, 1);
        d += a.shift(0, 1) * 10.0 + a;
        w = u.shift(3, -1)[3] * u[1].adj() + u.shift(1, 1)[0].adj() * u.shift(0, 1)[0];
    })
    .unwrap();
    (
        s.to_vec().unwrap(),
        d.to_vec().unwrap(),
        w.to_vec().unwrap(),
        line,
    )
}

#[test]
fn fields_written_in_different_runs_keep_what_each_run_wrote() {
    on_cpu(|| {
        let lat = Lattice::new(DIMS).unwrap();
        let (a, links) = reals_and_links(lat, 12);
        let (s0, d0, w0, _) = outputs_in_runs::<AoS, AoS>(lat, &a, &links);
        // Against the lattice's own shifts, term by term as the body adds.
        for i in 0..lat.volume() {
            let sh = |mu: usize, k: i64| lat.shift(i, mu, k);
            assert_eq!(
                s0[i].to_bits(),
                (a[sh(2, -1)] + a[sh(3, 1)]).to_bits(),
                "s at {i}"
            );
            assert_eq!(
                d0[i].to_bits(),
                (1.5 + (a[sh(0, 1)] * 10.0 + a[i])).to_bits(),
                "d at {i}"
            );
            let w = links[sh(3, -1)][3] * links[i][1].adj()
                + links[sh(1, 1)][0].adj() * links[sh(0, 1)][0];
            assert_eq!(w0[i], w, "w at {i}");
        }
        let (s1, d1, w1, line) = outputs_in_runs::<AoSoA<32>, AoSoA<32>>(lat, &a, &links);
        let (s2, d2, w2, _) = outputs_in_runs::<SoA, AoSoA<32>>(lat, &a, &links);
        let (s3, d3, w3, _) = outputs_in_runs::<AoSoA<32>, SoA>(lat, &a, &links);
        match lowering_at(line) {
            Lowering::Runs(n) => assert!(n >= 2, "{n} runs"),
            l => panic!("a body of four shifts lowered as {l:?}"),
        }
        for (s, d, w) in [(s1, d1, w1), (s2, d2, w2), (s3, d3, w3)] {
            assert_eq!(real_bits(&s), real_bits(&s0));
            assert_eq!(real_bits(&d), real_bits(&d0));
            assert_eq!(w, w0);
        }
    });
}

/// Two long bodies whose top-level `let` binds a written field's name, in layout `L`: the
/// field keeps what the body wrote to it before, the local only shadows it. In the first,
/// three runs would name the written fields; in the second, one (which would set the group's
/// field from the local). The outputs of both, and the lines of the calls.
fn shadowed_fields<L: Layout>(lat: Lattice, a: &[f64]) -> ([Vec<f64>; 4], [u32; 2]) {
    let a: Field<f64, L> = Field::from_vec(a.to_vec());
    let poisoned = || Field::<f64, L>::filled(lat.volume(), f64::NAN);
    let (mut s, mut d, mut t, mut e) = (poisoned(), poisoned(), poisoned(), poisoned());
    let first = line!() + 1;
    on_gpu!(lat, {
        s = a.shift(2, -1) + a.shift(3, 1);
        d = a.shift(0, 1) + a.shift(1, 1);
        let s = 2.0 * a.shift(0, -1) + a.shift(1, -1);
        d += s + a.shift(2, 1);
    })
    .unwrap();
    let second = line!() + 1;
    on_gpu!(lat, {
        let p = a.shift(0, 1) + a.shift(1, 1);
        let q = a.shift(2, 1) + a.shift(3, 1);
        t = p + q;
        let t = 2.0 * p + a.shift(0, -1);
        e = t;
    })
    .unwrap();
    let out = [s, d, t, e].map(|f| f.to_vec().unwrap());
    (out, [first, second])
}

#[test]
fn a_local_that_shadows_a_written_field_is_not_stored_in_it() {
    on_cpu(|| {
        let lat = Lattice::new(DIMS).unwrap();
        let (a, _) = reals_and_links(lat, 13);
        let (sites, _) = shadowed_fields::<AoS>(lat, &a);
        for i in 0..lat.volume() {
            let sh = |mu: usize, k: i64| a[lat.shift(i, mu, k)];
            let local = 2.0 * sh(0, -1) + sh(1, -1);
            let (p, q) = (sh(0, 1) + sh(1, 1), sh(2, 1) + sh(3, 1));
            let want = [
                sh(2, -1) + sh(3, 1),
                p + (local + sh(2, 1)),
                p + q,
                2.0 * p + sh(0, -1),
            ];
            for (k, w) in want.iter().enumerate() {
                assert_eq!(sites[k][i].to_bits(), w.to_bits(), "output {k} at {i}");
            }
        }
        for (lanes, lines) in [
            shadowed_fields::<AoSoA<32>>(lat, &a),
            shadowed_fields::<SoA>(lat, &a),
        ] {
            // One lane loop each: runs would set the group's field from the local.
            for line in lines {
                assert_eq!(lowering_at(line), Lowering::LaneMajor);
            }
            for (got, want) in lanes.iter().zip(&sites) {
                assert_eq!(real_bits(got), real_bits(want));
            }
        }
    });
}

/// Every kind of shift in one body: along constant and loop directions, one and three steps,
/// entries of the neighbour (its own direction's and another's), a direction captured as a
/// value, and longer shifts of constant hops (two steps, two hops, a staple's chain read at
/// an entry, a shift that wraps around), each gathered into a slot of its own.
fn shifts<L: Layout>(lat: Lattice, a: &[f64], links: &[[ColorMatrix<f64>; 4]]) -> (Vec<f64>, u32) {
    let a: Field<f64, L> = Field::from_vec(a.to_vec());
    let u: Field<[ColorMatrix<f64>; 4], L> = Field::from_vec(links.to_vec());
    let dir = 2usize;
    let mut out: Field<f64, L> = Field::filled(lat.volume(), f64::NAN);
    let line = line!() + 1;
    on_gpu!(lat, |i| {
        let mut t = a.shift(0, 1) - a.shift(dir, -1);
        for mu in 0..4 {
            for nu in mu + 1..4 {
                let p = u[mu] * u.shift(mu, 1)[nu] * u.shift(nu, 1)[mu].adj() * u[nu].adj();
                let q = u.shift(mu, 1).shift(nu, -1)[nu].adj()
                    * u.shift(nu, -1)[mu].adj()
                    * u.shift(nu, -1)[nu];
                t += p.trace().re * a.shift(nu, -1) + q.trace().im;
            }
            t += u.shift(mu, -1)[mu].trace().im + 0.5 * a.shift(mu, -3) - a.shift(mu, 3);
            t += 0.125 * a.shift(mu, -2);
        }
        let w = u.shift(2, 2);
        out = t + 0.25 * a.shift(1, 2) + a.shift(0, 1).shift(3, -1) + w[1].trace().re
            - a.shift(3, 5).shift(3, -4);
    })
    .unwrap();
    (out.to_vec().unwrap(), line)
}

#[test]
fn shifts_of_every_kind_give_the_bits_of_single_sites() {
    on_cpu(|| {
        let lat = Lattice::new(DIMS).unwrap();
        let (a, links) = reals_and_links(lat, 8);
        let (sites, _) = shifts::<AoS>(lat, &a, &links);
        let (lanes, line) = shifts::<AoSoA<32>>(lat, &a, &links);
        let (soa, _) = shifts::<SoA>(lat, &a, &links);
        assert!(sites.iter().all(|x| x.is_finite()));
        assert_eq!(
            real_bits(&lanes),
            real_bits(&sites),
            "AoSoA<32> lanes against AoS sites"
        );
        assert_eq!(
            real_bits(&soa),
            real_bits(&sites),
            "SoA lanes against AoS sites"
        );
        assert_lane_major(line);
    });
}

/// Shifts directed by captured values, in layout `L`: HISQ's staple with `mu` and `nu`
/// captured (a chain of two hops read at the entry `nu`, a single step along a captured
/// direction, two steps), a captured distance, and a distance read from a field at each
/// site (its groups run site by site); with the line of the call.
fn captured_shifts<L: Layout>(
    lat: Lattice,
    a: &[f64],
    links: &[[ColorMatrix<f64>; 4]],
    mu: usize,
    nu: usize,
) -> (Vec<f64>, u32) {
    let a: Field<f64, L> = Field::from_vec(a.to_vec());
    let u: Field<[ColorMatrix<f64>; 4], L> = Field::from_vec(links.to_vec());
    let steps: Field<i32, L> = Field::from_fn(lat.volume(), |i| (i % 5) as i32 - 2);
    let mut out: Field<f64, L> = Field::filled(lat.volume(), f64::NAN);
    let far = -5i64;
    let line = line!() + 1;
    on_gpu!(lat, {
        let up = u[nu] * u.shift(mu, 1)[nu].adj();
        let down = u.shift(nu, -1)[nu].adj() * u.shift(nu, -1).shift(mu, 1)[nu];
        out = (up + down).trace().re + a.shift(nu, 2) * a.shift(mu, far)
            - a.shift(nu, steps).shift(mu, -1);
    })
    .unwrap();
    (out.to_vec().unwrap(), line)
}

#[test]
fn shifts_directed_by_captured_values_are_gathered_and_give_the_bits_of_single_sites() {
    on_cpu(|| {
        let lat = Lattice::new(DIMS).unwrap();
        let (a, links) = reals_and_links(lat, 11);
        for (mu, nu) in [(0, 1), (3, 2), (1, 3)] {
            let (sites, _) = captured_shifts::<AoS>(lat, &a, &links, mu, nu);
            let (lanes, line) = captured_shifts::<AoSoA<32>>(lat, &a, &links, mu, nu);
            let (soa, _) = captured_shifts::<SoA>(lat, &a, &links, mu, nu);
            assert!(sites.iter().all(|x| x.is_finite()));
            assert_eq!(
                real_bits(&lanes),
                real_bits(&sites),
                "AoSoA<32>, mu {mu} nu {nu}"
            );
            assert_eq!(real_bits(&soa), real_bits(&sites), "SoA, mu {mu} nu {nu}");
            assert_lane_major(line);
        }
    });
}

/// Two bodies the lowering must not get wrong, in layout `L`: an entry of a longer shift
/// named by a field's value at each site (the call site cannot read it: the whole element is
/// gathered), and a loop of run-time bounds whose variable shadows an unrolled loop's (its
/// shifts are the inner variable's, not the outer constant's); with the two outputs.
fn shadowed_and_per_site_entries<L: Layout>(
    lat: Lattice,
    a: &[f64],
    links: &[[ColorMatrix<f64>; 4]],
) -> (Vec<f64>, Vec<f64>) {
    let a: Field<f64, L> = Field::from_vec(a.to_vec());
    let u: Field<[ColorMatrix<f64>; 4], L> = Field::from_vec(links.to_vec());
    let e: Field<i32, L> = Field::from_fn(lat.volume(), |i| (i % 4) as i32);
    let mut out: Field<f64, L> = Field::filled(lat.volume(), f64::NAN);
    let mut inner: Field<f64, L> = Field::filled(lat.volume(), f64::NAN);
    let (mu, n) = (2usize, 3usize);
    on_gpu!(lat, {
        out = u.shift(1, 2)[e].trace().re + u.shift(mu, -1).shift(0, 2)[e].trace().im;
    })
    .unwrap();
    on_gpu!(lat, {
        let mut t = 0.0;
        for mu in 0..4 {
            t += a.shift(mu, 2);
            for mu in 0..n {
                t += 0.5 * a.shift(mu, 2);
            }
        }
        inner = t;
    })
    .unwrap();
    (out.to_vec().unwrap(), inner.to_vec().unwrap())
}

#[test]
fn per_site_entries_and_shadowed_loop_variables_give_the_bits_of_single_sites() {
    on_cpu(|| {
        let lat = Lattice::new(DIMS).unwrap();
        let (a, links) = reals_and_links(lat, 13);
        let (out, inner) = shadowed_and_per_site_entries::<AoS>(lat, &a, &links);
        assert!(out.iter().chain(&inner).all(|x| x.is_finite()));
        for (o, i) in [
            shadowed_and_per_site_entries::<AoSoA<32>>(lat, &a, &links),
            shadowed_and_per_site_entries::<SoA>(lat, &a, &links),
        ] {
            assert_eq!(real_bits(&o), real_bits(&out), "an entry named per site");
            assert_eq!(real_bits(&i), real_bits(&inner), "a shadowed loop variable");
        }
    });
}

/// The shifts the lanes do not gather, in layout `L`: a distance set per site, and more
/// longer shifts of one field than a group gathers; with the lines of the two calls.
fn ungathered_shifts<L: Layout>(lat: Lattice, a: &[f64]) -> (Vec<f64>, [u32; 2]) {
    let a: Field<f64, L> = Field::from_vec(a.to_vec());
    let mut out: Field<f64, L> = Field::filled(lat.volume(), f64::NAN);
    let per_site = line!() + 1;
    on_gpu!(lat, |i| {
        let far = (i % 4) as i64 + 1;
        out = a.shift(1, far) + a.shift(0, 1);
    })
    .unwrap();
    let too_many = line!() + 1;
    on_gpu!(lat, {
        let mut t = out;
        for k in 4..14 {
            t += a.shift(0, k) * (k as f64) - a.shift(1, -k);
        }
        out = t;
    })
    .unwrap();
    (out.to_vec().unwrap(), [per_site, too_many])
}

#[test]
fn shifts_the_lanes_do_not_gather_fall_back_and_give_the_bits_of_single_sites() {
    on_cpu(|| {
        let lat = Lattice::new(DIMS).unwrap();
        let mut r = rng(10);
        let a: Vec<f64> = (0..lat.volume())
            .map(|_| r.random_range(-1.0..1.0))
            .collect();
        let (sites, _) = ungathered_shifts::<AoS>(lat, &a);
        let (lanes, [per_site, too_many]) = ungathered_shifts::<AoSoA<32>>(lat, &a);
        assert!(sites.iter().all(|x| x.is_finite()));
        assert_eq!(real_bits(&lanes), real_bits(&sites));
        match lowering_at(per_site) {
            Lowering::Fallback(why) => assert!(why.contains("set per site"), "{why}"),
            l => panic!("a shift of a distance set per site lowered as {l:?}"),
        }
        match lowering_at(too_many) {
            Lowering::Fallback(why) => assert!(why.contains("more than 16"), "{why}"),
            l => panic!("20 longer shifts of one field lowered as {l:?}"),
        }
    });
}

#[test]
fn a_reduction_with_shifts_sums_in_the_order_of_single_sites() {
    on_cpu(|| {
        let lat = Lattice::new(DIMS).unwrap();
        let mut r = rng(9);
        let links: Vec<[ColorMatrix<f64>; 4]> = (0..lat.volume())
            .map(|_| std::array::from_fn(|_| matrix(&mut r)))
            .collect();
        fn plaquette<L: Layout>(lat: Lattice, links: &[[ColorMatrix<f64>; 4]]) -> (f64, u32) {
            let u: Field<[ColorMatrix<f64>; 4], L> = Field::from_vec(links.to_vec());
            let line = line!() + 1;
            let s: f64 = on_gpu!(sum: lat, {
                let mut p = 0.0;
                for mu in 0..4 {
                    for nu in mu + 1..4 {
                        p += (u[mu] * u.shift(mu, 1)[nu] * u.shift(nu, 1)[mu].adj() * u[nu].adj())
                            .trace()
                            .re;
                    }
                }
                p
            })
            .unwrap();
            (s, line)
        }
        let (sites, _) = plaquette::<AoS>(lat, &links);
        let (lanes, line) = plaquette::<AoSoA<32>>(lat, &links);
        assert_eq!(lanes.to_bits(), sites.to_bits());
        assert_eq!(lowering_at(line), Lowering::LaneMajor);
    });
}

#[test]
fn a_direction_out_of_range_in_a_lane_names_its_site() {
    on_cpu(|| {
        let lat = Lattice::new(DIMS).unwrap();
        let a: Field<f64, AoSoA<32>> = Field::from_fn(lat.volume(), |i| i as f64);
        let mut out: Field<f64, AoSoA<32>> = Field::zeros(lat.volume());
        let dir = 4usize;
        let e = on_gpu!(lat, |i| {
            out = a.shift(dir, 1);
        })
        .unwrap_err();
        match e {
            ongpu::Error::BodyPanicked { index, message, .. } => {
                assert_eq!(index, Some(0));
                assert!(message.contains("direction 4"), "{message}");
            }
            e => panic!("unexpected error {e}"),
        }
    });
}

/// `a · b + c`, as a device function with a constant loop of its own.
#[ongpu::device]
fn fused(a: ColorMatrix<f64>, b: ColorVector<f64>, c: ColorVector<f64>) -> ColorVector<f64> {
    let mut out = c;
    for i in 0..3 {
        let mut s = out.v[i];
        for k in 0..3 {
            s += a.m[i][k] * b.v[k];
        }
        out.v[i] = s;
    }
    out
}

/// `|v|²` of a colour vector, as a device function called from another.
#[ongpu::device]
fn weight(v: ColorVector<f64>) -> f64 {
    v.norm2()
}

/// A hop whose products are device functions, one calling another through the body's
/// value, in layout `L`; with the line of its call.
fn device_hop<L: Layout>(
    lat: Lattice,
    links: &[[ColorMatrix<f64>; 4]],
    psi: &[ColorVector<f64>],
) -> (Vec<ColorVector<f64>>, u32) {
    let (u, psi, mut chi) = hop_fields::<L>(lat, links, psi);
    let line = line!() + 1;
    on_gpu!(lat.even(), {
        let mut r = ColorVector::zero();
        for mu in 0..4 {
            r = fused(u[mu], psi.shift(mu, 1), r);
            r = fused(u.shift(mu, -1)[mu].adj(), psi.shift(mu, -1), r);
        }
        chi = r * weight(r);
    })
    .unwrap();
    (chi.to_vec().unwrap()[..lat.volume() / 2].to_vec(), line)
}

#[test]
fn a_body_that_calls_device_functions_is_lowered_and_gives_the_bits_of_single_sites() {
    on_cpu(|| {
        let lat = Lattice::new(DIMS).unwrap();
        let (links, psi) = links_and_vectors(lat, 9);
        let (sites, _) = device_hop::<AoS>(lat, &links, &psi);
        let (lanes, line) = device_hop::<AoSoA<32>>(lat, &links, &psi);
        let (soa, _) = device_hop::<SoA>(lat, &links, &psi);
        assert_lane_major(line);
        assert!(sites.iter().all(|c| c.v.iter().all(|z| z.re.is_finite())));
        assert_eq!(
            bits(&lanes),
            bits(&sites),
            "AoSoA<32> lanes against AoS sites"
        );
        assert_eq!(bits(&soa), bits(&sites), "SoA lanes against AoS sites");
    });
}
