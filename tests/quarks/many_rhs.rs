//! Many right-hand sides at once (`ongpu::qcd::staggered::{hop_many, MultiCg}`): one call
//! over `N` vectors per site gives each vector the bits of a single-vector call, in f64 and
//! f32, on the whole lattice and on one parity; `N` solves sharing every operator
//! application give each system the bits of its own CG solve, with sources of different
//! difficulty (so the systems stop at different iterations) and a zero source. Both
//! backends (`cargo test --test quarks many_rhs:: -- --include-ignored` on a GPU).

use ongpu::prelude::*;
use ongpu::qcd::gauge::{GaugeField, LinksOf};
use ongpu::qcd::solver::LinearSolver;
use ongpu::qcd::staggered::passes::hop;
use ongpu::qcd::staggered::{
    even_part, hop_many, random_vector, Cg, Fermion, FermionOf, Fermions, HostVector, MultiCg,
    Staggered,
};
use ongpu::Element;

/// The right-hand sides of the tests.
const N: usize = 5;

/// `N` host vectors as one field of `N` vectors per site.
fn pack<T: Real>(vectors: &[HostVector], narrow: impl Fn(f64) -> T) -> Fermions<N, T>
where
    [ColorVector<T>; N]: Element,
{
    let v = vectors[0].len();
    Field::from_fn(v, |i| {
        std::array::from_fn(|k| {
            ColorVector::new(
                vectors[k][i]
                    .v
                    .map(|z| Complex::new(narrow(z.re), narrow(z.im))),
            )
        })
    })
}

/// `hop_many` over `sites` against `N` calls of `hop` on the same vectors, bit for bit, in
/// the precision `T`; the sites the call does not run keep their poison.
fn hop_many_matches_single_calls_in<T: Real>(narrow: impl Fn(f64) -> T + Copy)
where
    ColorVector<T>: Element,
    ColorMatrix<T>: Element,
    [ColorMatrix<T>; 4]: Element,
    [ColorVector<T>; N]: Element,
{
    let lat = Lattice::new([4, 2, 4, 6]).unwrap();
    let u = GaugeField::random(lat, 11).unwrap();
    let host_links = u.links().to_vec().unwrap();
    let links: LinksOf<Lattice, T> = Field::from_fn(lat.volume(), |i| {
        host_links[i].map(|m| {
            ColorMatrix::new(m.m.map(|row| row.map(|z| Complex::new(narrow(z.re), narrow(z.im)))))
        })
    });
    let vectors: Vec<HostVector> = (0..N).map(|k| random_vector(&lat, 20 + k as u64)).collect();
    let psi = pack(&vectors, narrow);
    let nan = ColorVector::new([Complex::new(narrow(f64::NAN), narrow(f64::NAN)); 3]);
    for parity in [None, Some(0), Some(1)] {
        let mut many: Fermions<N, T> = Field::filled(lat.volume(), [nan; N]);
        match parity {
            None => hop_many(lat.all(), &links, &psi, &mut many).unwrap(),
            Some(0) => hop_many(lat.even(), &links, &psi, &mut many).unwrap(),
            Some(_) => hop_many(lat.odd(), &links, &psi, &mut many).unwrap(),
        }
        let many = many.to_vec().unwrap();
        for (k, vector) in vectors.iter().enumerate() {
            let one: FermionOf<Lattice, T> = Field::from_fn(lat.volume(), |i| {
                ColorVector::new(
                    vector[i]
                        .v
                        .map(|z| Complex::new(narrow(z.re), narrow(z.im))),
                )
            });
            let mut out: FermionOf<Lattice, T> = Field::filled(lat.volume(), nan);
            match parity {
                None => hop(lat.all(), &links, &one, &mut out).unwrap(),
                Some(0) => hop(lat.even(), &links, &one, &mut out).unwrap(),
                Some(_) => hop(lat.odd(), &links, &one, &mut out).unwrap(),
            }
            for (i, want) in out.to_vec().unwrap().iter().enumerate() {
                let got = many[i][k];
                let bits = |v: &ColorVector<T>| {
                    v.v.map(|z| {
                        (
                            z.re.to_f64().unwrap().to_bits(),
                            z.im.to_f64().unwrap().to_bits(),
                        )
                    })
                };
                let run = parity.map_or(true, |p| lat.parity(i) == p);
                if run {
                    assert_eq!(
                        bits(&got),
                        bits(want),
                        "vector {k}, site {i}, parity {parity:?}"
                    );
                } else {
                    assert!(
                        got.v.iter().all(|z| z.re.to_f64().unwrap().is_nan()),
                        "site {i} written outside the call"
                    );
                }
            }
        }
    }
}

fn hop_many_matches_single_calls() {
    hop_many_matches_single_calls_in::<f64>(|x| x);
    hop_many_matches_single_calls_in::<f32>(|x| x as f32);
}

/// `MultiCg` on `N` sources (scaled differently, one zero) against `N` single `Cg` solves:
/// the same solution bits, iteration counts and residuals per system.
fn multi_cg_matches_single_solves() {
    let lat = Lattice::new([4, 4, 4, 4]).unwrap();
    let u = GaugeField::random(lat, 3).unwrap();
    let op = Staggered::new(&u, 0.3).unwrap();
    let mut sources: Vec<HostVector> = (0..N)
        .map(|k| {
            let v = even_part(&lat, &random_vector(&lat, 40 + k as u64));
            // Sources of different sizes and one zero: the systems stop at different times.
            let scale = [1.0, 1e3, 0.0, 1e-2, 7.0][k];
            v.iter().map(|x| *x * scale).collect()
        })
        .collect();
    // One a point source: it converges at another iteration than the random ones.
    sources[3] = (0..lat.volume())
        .map(|i| {
            let one = if i == 0 { 1.0 } else { 0.0 };
            ColorVector::new([
                Complex::new(one, 0.0),
                Complex::new(0.0, -one),
                Complex::new(0.0, 0.0),
            ])
        })
        .collect();
    let tol = 1e-10;
    let b = pack(&sources, |x| x);
    let mut x: Fermions<N> = Field::filled(
        lat.volume(),
        [ColorVector::new([Complex::new(f64::NAN, 0.0); 3]); N],
    );
    let multi = MultiCg::new(lat, tol, 1000).solve(&op, &b, &mut x).unwrap();
    let x = x.to_vec().unwrap();
    for (k, source) in sources.iter().enumerate() {
        let b1 = Fermion::from_vec(source.clone());
        let mut x1 = Fermion::zeros(lat.volume());
        let single = Cg::new(lat, tol, 1000).solve(&op, &b1, &mut x1).unwrap();
        assert_eq!(multi.iterations[k], single.iterations, "system {k}");
        assert_eq!(
            multi.relative_residuals[k].to_bits(),
            single.relative_residual.to_bits(),
            "system {k}"
        );
        assert!(multi.relative_residuals[k] <= tol, "system {k}");
        for (i, want) in x1.to_vec().unwrap().iter().enumerate() {
            if lat.parity(i) == 0 {
                let bits = |v: &ColorVector<f64>| v.v.map(|z| (z.re.to_bits(), z.im.to_bits()));
                assert_eq!(bits(&x[i][k]), bits(want), "system {k}, site {i}");
            }
        }
    }
    assert_eq!(multi.iterations[2], 0, "the zero source needs no iteration");
    let slowest = *multi.iterations.iter().max().unwrap();
    assert!(
        multi.iterations.iter().any(|&n| n != 0 && n < slowest),
        "the systems stopped together: {:?}",
        multi.iterations
    );
    assert!(
        multi.applications > slowest,
        "{} applications for {slowest} iterations",
        multi.applications
    );
}

on_both_backends!(
    hop_many_matches_single_calls,
    multi_cg_matches_single_solves
);

/// The kernels of many right-hand sides (the hops in f32 and f64, the solver's passes)
/// compile for sm_90 and sm_80 and keep every vector in registers: no local array of the
/// `N` vectors of a site.
#[cfg(feature = "cuda")]
#[test]
fn many_rhs_kernels_compile_without_local_memory() {
    if !crate::support::require_nvrtc() {
        return;
    }
    let kernels = crate::support::cpu_kernel_sources(|| {
        hop_many_matches_single_calls();
        multi_cg_matches_single_solves();
    });
    assert!(
        kernels.len() >= 8,
        "only {} distinct kernels",
        kernels.len()
    );
    crate::support::check_kernels_stay_in_registers(&kernels);
}
