//! Lattices split over emulated devices (the CPU backend, as CI runs it): every program
//! gives the whole lattice's results for 1 to 4 parts along every direction that allows
//! them; misuse is an error.

use crate::split;

use ongpu::prelude::*;
use ongpu::{AoSoA, Backend, Error};
use rand::Rng;
use split::*;

const DIMS: [usize; 4] = [4, 6, 8, 8];

/// Every (parts, direction) the extents allow, parts 1 to 4.
fn splits(lat: &Lattice) -> Vec<SplitLattice> {
    let mut out = Vec::new();
    for k in 1..=4 {
        for mu in 0..4 {
            if lat.extents()[mu] >= 2 * k {
                out.push(lat.split_along(&Devices::first(k).unwrap(), mu).unwrap());
            }
        }
    }
    out
}

fn on_cpu(f: impl FnOnce()) {
    ongpu::with_backend(Backend::Cpu, || {
        f();
        Ok::<(), Error>(())
    })
    .unwrap();
}

#[test]
fn staggered_hops_are_bitwise_those_of_the_whole_lattice() {
    on_cpu(|| {
        let lat = Lattice::new(DIMS).unwrap();
        let (chi, eta) = staggered_twice!(lat, AoS);
        assert!(
            chi.iter().any(|v| v[0].re.is_nan()),
            "even sites keep their poison"
        );
        for split in splits(&lat) {
            let (c, e) = staggered_twice!(split, AoS);
            assert_eq!(bits_of_vectors(&c), bits_of_vectors(&chi), "{split}");
            assert_eq!(bits_of_vectors(&e), bits_of_vectors(&eta), "{split}");
        }
    });
}

#[test]
fn every_layout_splits() {
    on_cpu(|| {
        let lat = Lattice::new(DIMS).unwrap();
        let (_, eta) = staggered_twice!(lat, AoS);
        for split in splits(&lat).into_iter().filter(|s| s.parts() > 1) {
            let (_, soa) = staggered_twice!(split, SoA);
            assert_eq!(bits_of_vectors(&soa), bits_of_vectors(&eta), "SoA, {split}");
            let (_, blocks) = staggered_twice!(split, AoSoA<32>);
            assert_eq!(
                bits_of_vectors(&blocks),
                bits_of_vectors(&eta),
                "AoSoA, {split}"
            );
        }
    });
}

#[test]
fn diagonal_and_far_shifts_are_those_of_the_whole_lattice() {
    on_cpu(|| {
        let lat = Lattice::new(DIMS).unwrap();
        for split in splits(&lat) {
            // A shift by two along a direction that is not split (any, for one part).
            let far = (0..4)
                .find(|&mu| split.parts() == 1 || mu != split.direction())
                .unwrap();
            let want = diagonal_shifts!(lat, far);
            let got = diagonal_shifts!(split, far);
            assert_eq!(bits_of(&got), bits_of(&want), "{split}");
        }
    });
}

#[test]
fn reductions_agree_and_written_fields_are_whole() {
    on_cpu(|| {
        let lat = Lattice::new(DIMS).unwrap();
        let (plaq, odd, t) = plaquette_sum!(lat);
        for split in splits(&lat) {
            let (p, o, ts) = plaquette_sum!(split);
            assert!(
                (p - plaq).abs() <= 1e-12 * plaq.abs().max(1.0),
                "{split}: {p} vs {plaq}"
            );
            assert!(
                (o - odd).abs() <= 1e-12 * odd.abs().max(1.0),
                "{split}: {o} vs {odd}"
            );
            assert_eq!(bits_of(&ts), bits_of(&t), "{split}");
        }
    });
}

/// Reductions whose result does not depend on the order of combination (integer sums,
/// maxima, minima) give the whole lattice's bits for every split.
#[test]
fn order_free_reductions_are_bitwise_the_whole_lattice() {
    on_cpu(|| {
        let lat = Lattice::new(DIMS).unwrap();
        let t_whole = lat.field_from_fn::<f64, AoS>(spread_value).unwrap();
        let want = exact_reductions!(lat, &t_whole);
        for split in splits(&lat) {
            let t = SplitField::<f64>::from_field(&split, &t_whole).unwrap();
            assert_eq!(exact_reductions!(split, &t), want, "{split}");
        }
    });
}

#[test]
fn slabs_are_even_and_balanced() {
    on_cpu(|| {
        let lat = Lattice::new([4, 4, 4, 10]).unwrap();
        let split = lat.split_over(&Devices::first(3).unwrap()).unwrap();
        assert_eq!(split.direction(), 3);
        let slabs: Vec<_> = (0..3).map(|p| split.slab(p)).collect();
        assert_eq!(slabs, vec![0..4, 4..8, 8..10]);
        // Too many parts for any direction, and for the one asked for.
        assert!(lat.split_over(&Devices::first(6).unwrap()).is_err());
        let e = lat
            .split_along(&Devices::first(3).unwrap(), 0)
            .unwrap_err()
            .to_string();
        assert!(e.contains("fewer than two sites per device"), "{e}");
        assert!(Devices::first(0).is_err());
    });
}

#[test]
fn weighted_slabs_follow_the_weights() {
    on_cpu(|| {
        let lat = Lattice::new([4, 4, 4, 16]).unwrap();
        let devices = Devices::first(2).unwrap().with_host().unwrap();
        assert_eq!(devices.len(), 3);
        assert!(devices.has_host() && devices.on_host(2) && !devices.on_host(1));
        assert_eq!(devices.ordinal(2), None);
        let slabs = |w: &[f64]| {
            let split = lat.split_weighted(&devices, 3, w).unwrap();
            (0..3).map(|p| split.slab(p).len()).collect::<Vec<_>>()
        };
        // Shares of 8 pairs 3.5, 3.5, 1: whole pairs, the one left over to the first.
        assert_eq!(slabs(&[7.0, 7.0, 2.0]), vec![8, 6, 2]);
        assert_eq!(slabs(&[1.0, 1.0, 1.0]), vec![6, 6, 4]);
        // A part far below one pair still gets two sites.
        assert_eq!(slabs(&[1000.0, 1000.0, 1.0]), vec![8, 6, 2]);
        assert_eq!(slabs(&[1.0, 3.0, 4.0]), vec![2, 6, 8]);
        // Different widths are different splits; the same widths the same split.
        let a = lat.split_weighted(&devices, 3, &[7.0, 7.0, 2.0]).unwrap();
        let b = lat
            .split_weighted(&devices, 3, &[70.0, 70.0, 20.0])
            .unwrap();
        let c = lat.split_weighted(&devices, 3, &[1.0, 1.0, 1.0]).unwrap();
        assert!(a == b && a != c);
        assert!(a.to_string().contains("host"), "{a}");
        for bad in [&[1.0, 1.0][..], &[1.0, 0.0, 1.0], &[1.0, f64::NAN, 1.0]] {
            let e = lat
                .split_weighted(&devices, 3, bad)
                .unwrap_err()
                .to_string();
            assert!(e.contains("3 finite positive weights"), "{e}");
        }
        let e = devices.clone().with_host().unwrap_err().to_string();
        assert!(e.contains("host part already"), "{e}");
    });
}

/// A part on the host's threads beside the devices' parts, with a slab sized by weight:
/// every program gives the whole lattice's bits (on the CPU backend the host part is one
/// more emulated part; the GPU test runs it beside real GPU parts).
#[test]
fn host_parts_give_the_whole_lattice() {
    on_cpu(|| {
        let lat = Lattice::new(DIMS).unwrap();
        let whole = whole_results!(lat, AoS);
        for gpus in 1..=2 {
            let devices = Devices::first(gpus).unwrap().with_host().unwrap();
            let mut weights = vec![3.0; gpus];
            weights.push(1.0);
            let split = lat.split_weighted(&devices, 3, &weights).unwrap();
            assert_eq!(split.slab(gpus).len(), 2, "{split}");
            assert_split_gives!(split, AoSoA<32>, &whole, &split);
        }
    });
}

#[test]
fn whole_lattice_fields_in_a_split_call_are_errors() {
    on_cpu(|| {
        let lat = Lattice::new(DIMS).unwrap();
        let split = lat.split_over(&Devices::first(2).unwrap()).unwrap();
        let plain: Field<f64> = Field::filled(lat.volume(), 1.0);
        let mut out: SplitField<f64> = SplitField::filled(&split, 0.0).unwrap();
        let e = on_gpu!(split.even(), {
            out = plain.shift(0, 1);
        })
        .unwrap_err();
        assert!(matches!(e, Error::NotOnSplit { field: "plain", .. }), "{e}");
        assert!(e.to_string().contains("a Field of a whole lattice"), "{e}");
        // A field of another split of the same lattice (equal splits are the same one).
        assert_eq!(
            lat.split_over(&Devices::first(2).unwrap())
                .unwrap()
                .direction(),
            3
        );
        let other = lat.split_along(&Devices::first(2).unwrap(), 2).unwrap();
        let foreign: SplitField<f64> = SplitField::filled(&other, 1.0).unwrap();
        let e = on_gpu!(split, {
            out = foreign;
        })
        .unwrap_err();
        assert!(e.to_string().contains("another split"), "{e}");
        // Nothing was written.
        assert!(out.to_vec().unwrap().iter().all(|&x| x == 0.0));
    });
}

#[test]
fn a_shift_beyond_the_halo_is_an_error() {
    on_cpu(|| {
        let lat = Lattice::new(DIMS).unwrap();
        let split = lat.split_along(&Devices::first(2).unwrap(), 3).unwrap();
        let a: SplitField<f64> = SplitField::filled(&split, 1.0).unwrap();
        let mut out: SplitField<f64> = SplitField::zeros(&split).unwrap();
        let e = on_gpu!(split, {
            out = a.shift(3, 2);
        })
        .unwrap_err();
        assert!(e.to_string().contains("beyond the halo"), "{e}");
    });
}

#[test]
fn split_fields_round_trip_through_whole_fields() {
    on_cpu(|| {
        let lat = Lattice::new(DIMS).unwrap();
        let whole: Field<f64, SoA> = Field::from_fn(lat.volume(), |i| i as f64);
        for split in splits(&lat) {
            let s: SplitField<f64, AoS> = SplitField::from_field(&split, &whole).unwrap();
            let back: Field<f64, SoA> = s.to_field().unwrap();
            assert_eq!(back.to_vec().unwrap(), whole.to_vec().unwrap(), "{split}");
        }
        let short: Field<f64> = Field::zeros(10);
        let split = lat.split_over(&Devices::first(2).unwrap()).unwrap();
        assert!(SplitField::<f64>::from_field(&split, &short).is_err());
    });
}

/// On the GPU with a part on the host's threads: the host part's sites of a call that reads
/// only unsplit data are the CPU backend's bits, the GPU parts' sites the GPU's; results
/// that mix both backends' neighbours agree to rounding; order-free reductions are exact.
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_and_host_parts_are_the_whole_lattice() {
    ongpu::with_backend(Backend::Cuda, || {
        let lat = Lattice::new(DIMS).unwrap();
        let (chi_gpu, eta_gpu) = staggered_twice!(lat, AoSoA<32>);
        let (chi_cpu, _) = ongpu::with_backend(Backend::Cpu, || {
            Ok::<_, Error>(staggered_twice!(lat, AoSoA<32>))
        })?;
        let far_gpu = diagonal_shifts!(lat, 0);
        let (plaq, _, t_gpu) = plaquette_sum!(lat);
        let t_whole = lat.field_from_fn::<f64, AoS>(spread_value).unwrap();
        let exact = exact_reductions!(lat, &t_whole);
        let gpus = Devices::all().unwrap().len();
        let mut lists = vec![(Devices::first(1)?.with_host()?, vec![3.0, 1.0])];
        lists.push((Devices::emulated(2)?.with_host()?, vec![1.0, 2.0, 1.0]));
        if gpus >= 2 {
            lists.push((Devices::first(2)?.with_host()?, vec![2.0, 1.0, 1.0]));
        }
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * (1.0 + b.abs());
        for (devices, weights) in &lists {
            let split = lat.split_weighted(devices, 3, weights)?;
            let host = split.slab(split.parts() - 1);
            let (c, e) = staggered_twice!(split, AoSoA<32>);
            for i in (0..lat.volume()).filter(|&i| chi_gpu[i][0].re.is_finite()) {
                let want = if host.contains(&lat.coords(i)[3]) {
                    chi_cpu[i]
                } else {
                    chi_gpu[i]
                };
                assert_eq!(
                    bits_of_vectors(&[c[i]]),
                    bits_of_vectors(&[want]),
                    "{split}: site {i}"
                );
            }
            for (a, b) in e.iter().zip(&eta_gpu) {
                for k in 0..3 {
                    if b[k].re.is_nan() {
                        assert!(a[k].re.is_nan(), "{split}: odd sites keep their poison");
                        continue;
                    }
                    assert!(
                        close(a[k].re, b[k].re) && close(a[k].im, b[k].im),
                        "{split}"
                    );
                }
            }
            let far = diagonal_shifts!(split, 0);
            assert!(
                far.iter().zip(&far_gpu).all(|(&a, &b)| close(a, b)),
                "{split}"
            );
            let (p, _, ts) = plaquette_sum!(split);
            assert!(
                (p - plaq).abs() <= 1e-12 * plaq.abs(),
                "{split}: {p} vs {plaq}"
            );
            assert!(ts.iter().zip(&t_gpu).all(|(&a, &b)| close(a, b)), "{split}");
            let t_split = SplitField::<f64>::from_field(&split, &t_whole)?;
            assert_eq!(exact_reductions!(split, &t_split), exact, "{split}");
        }
        Ok::<(), Error>(())
    })
    .unwrap();
}

/// On the GPU: the same programs over parts emulated on one device and, where the machine
/// has them, over two and more GPUs, bit for bit those of the whole lattice on one GPU.
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_splits_are_bitwise_the_whole_lattice() {
    ongpu::with_backend(Backend::Cuda, || {
        let lat = Lattice::new(DIMS).unwrap();
        let whole = whole_results!(lat, AoSoA<32>);
        let t_whole = lat.field_from_fn::<f64, AoS>(spread_value).unwrap();
        let exact = exact_reductions!(lat, &t_whole);
        let gpus = Devices::all().unwrap().len();
        let mut devices: Vec<Devices> = (2..=4).map(|k| Devices::emulated(k).unwrap()).collect();
        devices.extend((2..=gpus.min(4)).map(|k| Devices::first(k).unwrap()));
        println!("{gpus} GPU(s); splits over {} device lists", devices.len());
        for d in &devices {
            let split = lat.split_along(d, 3).unwrap();
            assert_split_gives!(split, AoSoA<32>, &whole, format!("{split} {d:?}"));
            let t_split = SplitField::<f64>::from_field(&split, &t_whole)?;
            assert_eq!(exact_reductions!(split, &t_split), exact, "{split} {d:?}");
        }
        // And the GPU's whole lattice is the CPU's (to rounding: the GPU contracts to FMA).
        let (_, eta_cpu) =
            ongpu::with_backend(Backend::Cpu, || Ok::<_, Error>(staggered_twice!(lat, AoS)))?;
        for (a, b) in whole.eta.iter().zip(&eta_cpu) {
            for c in 0..3 {
                // Odd sites keep their poison (NaN) on both backends.
                if b[c].re.is_nan() {
                    assert!(a[c].re.is_nan());
                    continue;
                }
                assert!((a[c] - b[c]).norm() <= 1e-12 * (1.0 + b[c].norm()));
            }
        }
        // Split calls order their kernels and halo copies on each device's default stream:
        // inside a stream scope they are refused, and nothing is written.
        let split = lat.split_along(&Devices::emulated(2)?, 3)?;
        let x = SplitField::<f64>::filled(&split, 1.0)?;
        let mut y = SplitField::<f64>::filled(&split, 7.0)?;
        let stream = ongpu::Stream::new();
        let err = stream
            .scope(|| {
                on_gpu!(split.all(), {
                    y = x.shift(3, 1) + x;
                })
            })
            .unwrap_err();
        assert!(
            matches!(&err, Error::InvalidArgument(m) if m.contains("Stream::scope")),
            "{err}"
        );
        assert!(y.to_vec()?.iter().all(|&v| v == 7.0));
        Ok::<(), Error>(())
    })
    .unwrap();
}

/// Halos move only where a call shifts a field written since its last exchange (the
/// counts of `exchange_counts`), and the shifted reads are the whole lattice's.
#[test]
fn halos_are_exchanged_only_where_a_call_shifts_them() {
    on_cpu(|| {
        // Extents no other test uses: the split's refresh count is this test's alone.
        let lat = Lattice::new([2, 4, 4, 12]).unwrap();
        let want = exchange_counts!(lat, false, true);
        for parts in 2..=3 {
            let split = lat.split_along(&Devices::first(parts).unwrap(), 3).unwrap();
            let got = exchange_counts!(split, true, true);
            assert_eq!(bits_of(&got), bits_of(&want), "{split}");
        }
    });
}

/// A CG iteration exchanges exactly what its two hops read: each application of the normal
/// operator refreshes the even halos of the vector it hops and the odd halos of the hop's
/// result, once each; the links, never written, are not exchanged.
#[cfg(feature = "qcd")]
#[test]
fn a_cg_application_exchanges_one_halo_per_hop() {
    use ongpu::qcd::gauge::GaugeField;
    use ongpu::qcd::solver::LinearSolver;
    use ongpu::qcd::staggered::{self, Cg, FermionOf, Staggered};
    on_cpu(|| {
        // Extents no other test uses.
        let lat = Lattice::new([4, 4, 4, 12]).unwrap();
        let split = lat.split_along(&Devices::first(3).unwrap(), 3).unwrap();
        let u = GaugeField::random(split, 5).unwrap();
        let b_host = staggered::even_part(&lat, &staggered::random_vector(&lat, 6));
        let b: FermionOf<SplitLattice> = split.field_from_fn(|i| b_host[i]).unwrap();
        let mut x: FermionOf<SplitLattice> = split.zeros().unwrap();
        let op = Staggered::new(&u, 0.2).unwrap();
        let mut cg = Cg::new(split, 1e-10, 200);
        cg.solve(&op, &b, &mut x).unwrap();
        let before = split.halo_refreshes();
        let solution = cg.solve(&op, &b, &mut x).unwrap();
        let applications = cg.passes().applications as u64;
        assert!(solution.iterations > 5 && applications > solution.iterations as u64);
        let got = split.halo_refreshes().since(before);
        assert_eq!(
            got,
            ongpu::HaloRefreshes {
                even: applications,
                odd: applications
            },
            "{} applications",
            applications
        );
    });
}

/// Domain-wall quarks on split lattices: the Möbius operator, its adjoint and the even-odd
/// operator give the whole lattice's bits at every site, and the 4-D propagator of an
/// even-odd solve its values, for every split the extents allow along time.
#[cfg(feature = "qcd")]
#[test]
fn domain_wall_operators_are_those_of_the_whole_lattice() {
    use ongpu::qcd::domain_wall::{
        DomainWall, DomainWallEvenOdd, FiveFieldOf, FiveSpinor, MobiusParams,
    };
    use ongpu::qcd::gauge::GaugeField;
    use ongpu::qcd::solver::Cgnr;
    use ongpu::qcd::wilson::{random_spinors, SpinorFieldOf};
    const LS: usize = 4;
    fn run<S: Space>(
        lat: S,
        links: &ongpu::qcd::gauge::HostLinks,
        psi: &[FiveSpinor<f64, LS>],
        eta: &[ongpu::qcd::wilson::HostSpinor],
    ) -> (
        Vec<Vec<FiveSpinor<f64, LS>>>,
        Vec<ongpu::qcd::wilson::HostSpinor>,
    ) {
        let u = GaugeField::from_host(lat, links.clone()).unwrap();
        let params = MobiusParams::mobius(1.6, 0.1, 1.5, 0.5);
        let d = DomainWall::<LS, S>::new(&u, params).unwrap();
        let eo = DomainWallEvenOdd::new(&d).unwrap();
        let x: FiveFieldOf<S, LS> = lat.field_from_vec(psi.to_vec()).unwrap();
        let mut outs = Vec::new();
        let (mut s1, mut s2): (FiveFieldOf<S, LS>, FiveFieldOf<S, LS>) =
            (lat.zeros().unwrap(), lat.zeros().unwrap());
        let mut out: FiveFieldOf<S, LS> = lat.zeros().unwrap();
        d.apply(&x, &mut s1, &mut out).unwrap();
        outs.push(out.values().unwrap());
        d.apply_dagger(&x, &mut s1, &mut s2, &mut out).unwrap();
        outs.push(out.values().unwrap());
        eo.apply(&x, &mut s1, &mut out).unwrap();
        outs.push(out.values().unwrap());
        let eta: SpinorFieldOf<S> = lat.field_from_vec(eta.to_vec()).unwrap();
        let mut q: SpinorFieldOf<S> = lat.zeros().unwrap();
        let mut x5: FiveFieldOf<S, LS> = lat.zeros().unwrap();
        d.propagator(
            |b, x| eo.solve(&mut Cgnr::new(1e-12, 5000), b, x),
            &eta,
            &mut x5,
            &mut q,
        )
        .unwrap();
        (outs, q.values().unwrap())
    }
    on_cpu(|| {
        let lat = Lattice::new([4, 4, 4, 8]).unwrap();
        let links = GaugeField::random(lat, 51).unwrap().to_host().unwrap();
        let spinors: Vec<_> = (0..LS)
            .map(|s| random_spinors(&lat, 52 + s as u64))
            .collect();
        let psi: Vec<FiveSpinor<f64, LS>> = (0..lat.volume())
            .map(|i| FiveSpinor(std::array::from_fn(|s| spinors[s][i])))
            .collect();
        let eta = random_spinors(&lat, 60);
        let (want, want_q) = run(lat, &links, &psi, &eta);
        let flat = |v: &[FiveSpinor<f64, LS>]| -> Vec<u64> {
            v.iter()
                .flat_map(|site| site.0.iter().flatten().flat_map(|c| c.v))
                .flat_map(|z| [z.re.to_bits(), z.im.to_bits()])
                .collect()
        };
        for parts in [2, 4] {
            let split = lat.split_along(&Devices::first(parts).unwrap(), 3).unwrap();
            let (got, got_q) = run(split, &links, &psi, &eta);
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(flat(g), flat(w), "{split}: operator {k}");
            }
            let diff = got_q
                .iter()
                .zip(&want_q)
                .flat_map(|(g, w)| (0..4).map(move |s| (g[s] - w[s]).norm2()))
                .fold(0.0f64, f64::max);
            assert!(diff < 1e-20, "{split}: propagators differ by {diff:e}");
        }
    });
}

/// The bits of HISQ's smeared fat and Naik links and of its Dslash on a random vector.
#[cfg(feature = "qcd")]
fn hisq_bits<S: Space>(
    lat: S,
    links: &ongpu::qcd::gauge::HostLinks,
    psi: &[ColorVector<f64>],
) -> ongpu::Result<Vec<u64>> {
    use ongpu::qcd::boundary::TimeBoundary;
    use ongpu::qcd::gauge::GaugeField;
    use ongpu::qcd::hisq::Hisq;
    use ongpu::qcd::staggered::FermionOf;
    let u = GaugeField::from_host(lat, links.clone())?;
    let op = Hisq::new(&u, 0.1, -0.05, TimeBoundary::Antiperiodic)?;
    let x: FermionOf<S> = lat.field_from_vec(psi.to_vec())?;
    let mut out: FermionOf<S> = lat.zeros()?;
    op.dslash(&x, &mut out)?;
    let mut bits = bits_of_vectors(&out.values()?);
    for f in [&op.links().fat, &op.links().naik] {
        for site in f.values()? {
            for m in site {
                let rows = (0..3).flat_map(|r| (0..3).map(move |c| (r, c)));
                bits.extend(rows.flat_map(|(r, c)| [m[r][c].re.to_bits(), m[r][c].im.to_bits()]));
            }
        }
    }
    Ok(bits)
}

/// HISQ on splits with halos three deep (2 and 4 parts along time, 2 along x, over the
/// devices `devices(k)`) gives the whole lattice's bits; with one-layer halos it is an error
/// that says the shift reaches beyond the halo.
#[cfg(feature = "qcd")]
fn check_hisq_with_deep_halos(devices: &dyn Fn(usize) -> Devices) {
    use ongpu::qcd::gauge::GaugeField;
    use ongpu::qcd::staggered::random_vector;
    let lat = Lattice::new([8, 4, 4, 16]).unwrap();
    let links = GaugeField::random(lat, 71).unwrap().to_host().unwrap();
    let psi = random_vector(&lat, 72);
    let want = hisq_bits(lat, &links, &psi).unwrap();
    let shallow = lat.split_along(&devices(2), 3).unwrap();
    let e = hisq_bits(shallow, &links, &psi).expect_err("halos one layer deep cannot serve HISQ");
    assert!(e.to_string().contains("beyond the halo"), "{e}");
    for (parts, mu) in [(2, 3), (4, 3), (2, 0)] {
        let split = lat
            .split_along(&devices(parts), mu)
            .unwrap()
            .with_halo_depth(3)
            .unwrap();
        assert_eq!(split.halo_depth(), 3);
        assert!(
            hisq_bits(split, &links, &psi).unwrap() == want,
            "{split}: not the whole lattice's bits"
        );
    }
}

/// HISQ quarks on split lattices: the smearing's paths reach two sites aside and the Naik
/// hop three. With the default one-layer halos the first such call is an error that says
/// so, not a wrong answer; with halos three deep (`with_halo_depth(3)`) the smeared fat and
/// Naik links and the Dslash are the whole lattice's, bit for bit.
#[cfg(feature = "qcd")]
#[test]
fn hisq_on_a_split_lattice_needs_and_gets_deeper_halos() {
    on_cpu(|| check_hisq_with_deep_halos(&|k| Devices::first(k).unwrap()));
}

/// `out = a(x+3) − 2 a(x−3) + a(x−2)` along time, as values in the whole lattice's order.
fn reach_three<S: Space>(lat: S, a_host: &[f64]) -> Vec<f64> {
    let a = lat.field_from_fn::<f64, AoS>(|i| a_host[i]).unwrap();
    let mut out = lat.field_from_fn::<f64, AoS>(|_| f64::NAN).unwrap();
    on_gpu!(lat, {
        out = a.shift(3, 3) - 2.0 * a.shift(3, -3) + a.shift(3, -2);
    })
    .unwrap();
    out.values().unwrap()
}

/// Shifts by two and three along the split direction over halos two and three deep (2 and
/// 3 parts over `devices(k)`) give the whole lattice's bits; hops are unchanged.
fn check_deep_shifts(devices: &dyn Fn(usize) -> Devices) {
    let lat = Lattice::new(DIMS).unwrap();
    let want = diagonal_shifts!(lat, 3);
    let (_, eta) = staggered_twice!(lat, AoSoA<32>);
    for parts in [2, 3] {
        let split = lat.split_along(&devices(parts), 3).unwrap();
        assert_eq!(split.halo_depth(), 1);
        assert_eq!(split.with_halo_depth(1).unwrap(), split);
        let deep = split.with_halo_depth(2).unwrap();
        assert_eq!(deep.halo_depth(), 2);
        assert_eq!(
            bits_of(&diagonal_shifts!(deep, 3)),
            bits_of(&want),
            "{deep}"
        );
        let (_, e) = staggered_twice!(deep, AoSoA<32>);
        assert_eq!(bits_of_vectors(&e), bits_of_vectors(&eta), "{deep}");
    }
    let a_host: Vec<f64> = (0..lat.volume()).map(spread_value).collect();
    let split = lat
        .split_along(&devices(2), 3)
        .unwrap()
        .with_halo_depth(3)
        .unwrap();
    assert_eq!(
        bits_of(&reach_three(split, &a_host)),
        bits_of(&reach_three(lat, &a_host))
    );
}

/// Halos deeper than one layer: far shifts along the split read them (above); depth 1 is
/// the split as made; depth 0 or beyond a slab's width is an error, and a split into one
/// part has no halos to deepen.
#[test]
fn deeper_halos_serve_far_shifts_along_the_split() {
    on_cpu(|| {
        check_deep_shifts(&|k| Devices::first(k).unwrap());
        let lat = Lattice::new(DIMS).unwrap();
        let three = lat.split_along(&Devices::first(3).unwrap(), 3).unwrap();
        for depth in [0, 3] {
            let e = three.with_halo_depth(depth).unwrap_err();
            assert!(e.to_string().contains("narrowest slab"), "{e}");
        }
        let one = lat.split_along(&Devices::first(1).unwrap(), 3).unwrap();
        assert_eq!(one.with_halo_depth(3).unwrap(), one);
        assert_eq!(one.halo_depth(), 0);
    });
}

/// On the GPU: the deeper halos over parts emulated on one device and, where the machine
/// has them, over two and more GPUs (the exchange's device copies of several layers).
#[test]
#[ignore = "needs a CUDA device"]
fn deeper_halos_on_the_gpu() {
    ongpu::with_backend(Backend::Cuda, || {
        let gpus = Devices::all()?.len();
        let mut lists: Vec<Box<dyn Fn(usize) -> Devices>> =
            vec![Box::new(|k| Devices::emulated(k).unwrap())];
        if gpus >= 4 {
            lists.push(Box::new(|k| Devices::first(k).unwrap()));
        }
        for devices in &lists {
            check_deep_shifts(devices);
            #[cfg(feature = "qcd")]
            check_hisq_with_deep_halos(devices);
        }
        Ok::<(), Error>(())
    })
    .unwrap();
}
