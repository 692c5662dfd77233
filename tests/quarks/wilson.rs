//! The Wilson operator of `ongpu::qcd::wilson`: the γ matrices' algebra; the `on_gpu!`
//! passes (spin projection) against the host operator (full γ matrices) at every site, over
//! the whole lattice and over one parity; γ5-hermiticity; gauge covariance; the free
//! operator on plane waves against its momentum-space form, and its zero mode at κ = 1/8;
//! BiCGStab and CGNR on the even-odd system, against each other, the host operator and a
//! dense solve.
//! Every check runs on the CPU backend, and on the GPU with
//! `cargo test --test quarks wilson:: -- --include-ignored`; on CPUs, the kernels are compiled by
//! NVRTC for sm_90 without spills.

#![allow(clippy::needless_range_loop)] // spin and colour indices read best as indices

#[cfg(feature = "cuda")]
use crate::support;
use crate::support::spinors;

use ongpu::prelude::*;
use ongpu::qcd::gauge::{su3::random_su3, GaugeField};
use ongpu::qcd::solver::LinearSolver;
use ongpu::qcd::wilson::gamma::{gamma, one_plus, spin_product, spin_times, SpinMatrix};
use ongpu::qcd::wilson::spin::{gamma_times, project, reconstruct};
use ongpu::qcd::wilson::{
    random_spinors, BiCgStab, Cgnr, HostSpinor, SpinorField, Wilson, WilsonEvenOdd,
};
use ongpu::{AoS, AoSoA, Layout, Real, SoA};
use ongpu_reference::wilson::HostWilson;
use rand::SeedableRng;
use spinors::{c, dense_solution, dot, even_source, flat, max_diff, poisoned};

const KAPPA: f64 = 0.124;

/// `D_W ψ` by the `on_gpu!` pass.
fn device_apply(u: &GaugeField, kappa: f64, psi: &[HostSpinor]) -> Vec<HostSpinor> {
    let lat = u.lattice();
    let psi = SpinorField::from_vec(psi.to_vec());
    let mut out = poisoned(&lat);
    Wilson::new(u, kappa).apply(&psi, &mut out).unwrap();
    out.to_vec().unwrap()
}

fn gamma_algebra() {
    let zero = c(0.0, 0.0);
    for mu in 0..4 {
        for nu in 0..4 {
            let (a, b) = (
                spin_product(&gamma(mu), &gamma(nu)),
                spin_product(&gamma(nu), &gamma(mu)),
            );
            for r in 0..4 {
                for k in 0..4 {
                    let want = if mu == nu && r == k {
                        c(2.0, 0.0)
                    } else {
                        zero
                    };
                    assert_eq!(a[r][k] + b[r][k], want, "{{γ{mu}, γ{nu}}} at ({r}, {k})");
                }
            }
        }
        let g = gamma(mu);
        for r in 0..4 {
            for k in 0..4 {
                assert_eq!(g[r][k], g[k][r].conj(), "γ{mu} is Hermitian");
            }
        }
    }
    let g5 = spin_product(
        &spin_product(&gamma(0), &gamma(1)),
        &spin_product(&gamma(2), &gamma(3)),
    );
    assert_eq!(g5, gamma(4), "γ5 = γ0 γ1 γ2 γ3 = diag(1, 1, −1, −1)");
}

/// The spin-projected passes against the host operator with full γ matrices.
fn operator_matches_host() {
    let lat = Lattice::new([4, 6, 4, 8]).unwrap();
    let u = GaugeField::random(lat, 21).unwrap();
    let psi = random_spinors(&lat, 22);
    let got = device_apply(&u, KAPPA, &psi);
    let want = HostWilson::from_gauge(&u, KAPPA).unwrap().apply(&psi);
    let (diff, scale) = max_diff(&got, &want);
    assert!(
        diff <= 1e-13 * scale,
        "D_W differs from the host's by {diff:e} (scale {scale})"
    );
}

/// `H` over one parity writes that parity's sites (the host's hop there) and no other.
fn parity_hops_match_host() {
    let lat = Lattice::new([4, 4, 4, 6]).unwrap();
    let u = GaugeField::random(lat, 23).unwrap();
    let psi_host = random_spinors(&lat, 24);
    let want = HostWilson::from_gauge(&u, KAPPA)
        .unwrap()
        .hopping(&psi_host);
    let psi = SpinorField::from_vec(psi_host);
    let op = Wilson::new(&u, KAPPA);
    for parity in 0..2 {
        let mut out = poisoned(&lat);
        let sites = if parity == 0 { lat.even() } else { lat.odd() };
        op.hop(sites, &psi, &mut out).unwrap();
        let got = out.to_vec().unwrap();
        for x in 0..lat.volume() {
            if lat.parity(x) == parity {
                let (diff, scale) = max_diff(&got[x..=x], &want[x..=x]);
                assert!(diff <= 1e-13 * scale.max(1.0), "site {x}: off by {diff:e}");
            } else {
                assert!(
                    got[x][0][0].re.is_nan(),
                    "site {x} of the other parity was written"
                );
            }
        }
    }
}

/// `⟨χ, γ5 D γ5 ψ⟩ = ⟨D χ, ψ⟩`.
fn gamma5_hermiticity() {
    let lat = Lattice::new([4, 4, 6, 4]).unwrap();
    let u = GaugeField::random(lat, 25).unwrap();
    let (chi, psi) = (random_spinors(&lat, 26), random_spinors(&lat, 27));
    let g5 = |v: &[HostSpinor]| -> Vec<HostSpinor> {
        v.iter().map(|s| spin_times(&gamma(4), s)).collect()
    };
    let lhs = dot(&chi, &g5(&device_apply(&u, KAPPA, &g5(&psi))));
    let rhs = dot(&device_apply(&u, KAPPA, &chi), &psi);
    assert!((lhs - rhs).norm() <= 1e-12 * rhs.norm(), "{lhs} vs {rhs}");
}

/// With `U'_mu(x) = g(x) U_mu(x) g(x+mû)†` and `ψ' = g ψ`, `D[U'] ψ' = g D[U] ψ`.
fn gauge_covariance() {
    let lat = Lattice::new([4, 4, 2, 6]).unwrap();
    let v = lat.volume();
    let u = GaugeField::random(lat, 28).unwrap().to_host().unwrap();
    let mut r = rand::rngs::SmallRng::seed_from_u64(29);
    let g: Vec<ColorMatrix<f64>> = (0..v).map(|_| random_su3(&mut r)).collect();
    let u_g: Vec<[ColorMatrix<f64>; 4]> = (0..v)
        .map(|i| std::array::from_fn(|mu| g[i] * u[i][mu] * g[lat.shift(i, mu, 1)].adj()))
        .collect();
    let psi = random_spinors(&lat, 30);
    let psi_g: Vec<HostSpinor> = (0..v).map(|i| psi[i].map(|s| g[i] * s)).collect();
    let d = device_apply(&GaugeField::from_host(lat, u).unwrap(), KAPPA, &psi);
    let got = device_apply(&GaugeField::from_host(lat, u_g).unwrap(), KAPPA, &psi_g);
    let want: Vec<HostSpinor> = (0..v).map(|i| d[i].map(|s| g[i] * s)).collect();
    let (diff, scale) = max_diff(&got, &want);
    assert!(
        diff <= 1e-12 * scale,
        "D[U'] g psi differs from g D[U] psi by {diff:e}"
    );
}

/// For `U = 1` and `ψ(x) = e^{ip·x} w`:
/// `D_W ψ = [1 − κ Σ_mu (2 cos p_mu − 2i γ_mu sin p_mu)] ψ`; at `p = 0` and `κ = 1/8` the
/// operator annihilates every constant spinor.
fn free_field_plane_waves() {
    let dims = [4, 4, 6, 8];
    let lat = Lattice::new(dims).unwrap();
    let u = GaugeField::unit(lat).unwrap();
    let w = random_spinors(&lat, 31)[0];
    for (n, kappa) in [
        ([1, 0, 2, 3], KAPPA),
        ([0, 3, 1, 7], 0.2),
        ([0, 0, 0, 0], 0.125),
    ] {
        let p: [f64; 4] =
            std::array::from_fn(|mu| 2.0 * std::f64::consts::PI * n[mu] as f64 / dims[mu] as f64);
        let psi: Vec<HostSpinor> = (0..lat.volume())
            .map(|x| {
                let cx = lat.coords(x);
                let phase = (0..4).map(|mu| p[mu] * cx[mu] as f64).sum::<f64>();
                w.map(|s| s * c(phase.cos(), phase.sin()))
            })
            .collect();
        let mut m: SpinMatrix = std::array::from_fn(|r| {
            std::array::from_fn(|k| if r == k { c(1.0, 0.0) } else { c(0.0, 0.0) })
        });
        for mu in 0..4 {
            let g = gamma(mu);
            for r in 0..4 {
                for k in 0..4 {
                    let diag = if r == k { 2.0 * p[mu].cos() } else { 0.0 };
                    m[r][k] -= (c(diag, 0.0) - c(0.0, 2.0 * p[mu].sin()) * g[r][k]) * kappa;
                }
            }
        }
        let want: Vec<HostSpinor> = psi.iter().map(|s| spin_times(&m, s)).collect();
        let got = device_apply(&u, kappa, &psi);
        let (diff, _) = max_diff(&got, &want);
        assert!(
            diff <= 1e-13,
            "momentum {n:?}, κ = {kappa}: off by {diff:e}"
        );
        if n == [0, 0, 0, 0] {
            let (zero, _) = max_diff(&got, &vec![[ColorVector::zero(); 4]; lat.volume()]);
            assert!(zero <= 1e-14, "κ = 1/8 annihilates constants: {zero:e}");
        }
    }
}

/// BiCGStab on `M̂ x_e = b_e`: its true residual meets the tolerance, CGNR finds the same
/// `x_e`, and the full solution
/// (`x_o = κ H_oe x_e`) solves `D_W x = b` at every site by the host operator.
fn bicgstab_solves_the_even_odd_system() {
    let lat = Lattice::new([4, 4, 4, 6]).unwrap();
    let u = GaugeField::random(lat, 34).unwrap();
    let kappa = 0.1;
    let op = Wilson::new(&u, kappa);
    let eo = WilsonEvenOdd::new(&op);
    let b_host = even_source(&lat, 35);
    let b = SpinorField::from_vec(b_host.clone());
    let mut x = poisoned(&lat);
    let solution = BiCgStab::new(1e-11, 200).solve(&eo, &b, &mut x).unwrap();
    assert!(
        solution.relative_residual <= 1e-10 && solution.iterations > 2,
        "{solution:?}"
    );
    // CGNR (no breakdown, a different recursion) reaches the same solution.
    let mut y = poisoned(&lat);
    let by_cgnr = Cgnr::new(1e-11, 500).solve(&eo, &b, &mut y).unwrap();
    assert!(by_cgnr.relative_residual <= 1e-10, "{by_cgnr:?}");
    let (x_e, y_e) = (x.to_vec().unwrap(), y.to_vec().unwrap());
    let even: Vec<usize> = (0..lat.volume()).filter(|&i| lat.parity(i) == 0).collect();
    let pick = |v: &[HostSpinor]| even.iter().map(|&i| v[i]).collect::<Vec<_>>();
    let (diff, scale) = max_diff(&pick(&y_e), &pick(&x_e));
    assert!(diff <= 1e-9 * scale, "BiCGStab and CGNR differ by {diff:e}");
    let mut tmp = poisoned(&lat);
    eo.reconstruct(&b, &mut x, &mut tmp).unwrap();
    let x = x.to_vec().unwrap();
    let dx = HostWilson::from_gauge(&u, kappa).unwrap().apply(&x);
    let r: Vec<HostSpinor> = (0..lat.volume())
        .map(|i| std::array::from_fn(|s| dx[i][s] - b_host[i][s]))
        .collect();
    let rel = (dot(&r, &r).re / dot(&b_host, &b_host).re).sqrt();
    assert!(
        rel <= 1e-9,
        "|D_W x − b| / |b| = {rel:e} by the host operator"
    );
}

/// The even-odd BiCGStab solution, completed on the odd sites, against a dense solve of the
/// full `D_W x = b` built column by column from the host operator (4×2×2×2 sites, 384
/// unknowns, so that the elimination stays fast in a debug build).
fn bicgstab_matches_a_dense_solve() {
    let lat = Lattice::new([4, 2, 2, 2]).unwrap();
    let u = GaugeField::random(lat, 36).unwrap();
    let kappa = 0.12;
    let host = HostWilson::from_gauge(&u, kappa).unwrap();
    let b_host = even_source(&lat, 37);
    let want = dense_solution(&host, &b_host);
    let op = Wilson::new(&u, kappa);
    let eo = WilsonEvenOdd::new(&op);
    let mut x = poisoned(&lat);
    let b = SpinorField::from_vec(b_host);
    BiCgStab::new(1e-12, 200).solve(&eo, &b, &mut x).unwrap();
    let mut tmp = poisoned(&lat);
    eo.reconstruct(&b, &mut x, &mut tmp).unwrap();
    let got = flat(&x.to_vec().unwrap());
    let scale = want.iter().map(|z| z.norm()).fold(0.0, f64::max);
    let diff = got
        .iter()
        .zip(&want)
        .map(|(g, w)| (g - w).norm())
        .fold(0.0, f64::max);
    assert!(
        diff <= 1e-10 * scale,
        "off the dense solve by {diff:e} (scale {scale})"
    );
}

/// `γ_mu ψ`, `(1 ± γ_mu) ψ` rebuilt from its projection, and the link on the half spinor, by
/// the device functions of `wilson::spin` in an `on_gpu!` body, for every direction and sign,
/// in precision `T` and layout `L`: against the host's γ matrices, exactly (each row is a
/// copy, a sign, a swap or one correctly rounded addition, the same in f64 and rounded to
/// `T`), and the link product to rounding.
fn spin_functions_in<T: Real, L: Layout>()
where
    [ColorVector<T>; 4]: ongpu::Element,
    ColorMatrix<T>: ongpu::Element,
{
    let lat = Lattice::new([4, 4, 2, 2]).unwrap();
    let n = lat.volume();
    let host: Vec<HostSpinor> = random_spinors(&lat, 71);
    let narrow = |x: f64| T::from_literal(x, x as f32);
    let to_t = |s: &HostSpinor| -> [ColorVector<T>; 4] {
        s.map(|v| ColorVector::new(v.v.map(|z| Complex::new(narrow(z.re), narrow(z.im)))))
    };
    let widen = |x: T| x.to_f64().unwrap();
    let psi: Field<[ColorVector<T>; 4], L> = Field::from_fn(n, |s| to_t(&host[s]));
    let mut rng = rand::rngs::SmallRng::seed_from_u64(72);
    let links: Vec<ColorMatrix<f64>> = (0..n).map(|_| random_su3(&mut rng)).collect();
    let u: Field<ColorMatrix<T>, L> = Field::from_fn(n, |s| {
        ColorMatrix::new(
            links[s]
                .m
                .map(|row| row.map(|z| Complex::new(narrow(z.re), narrow(z.im)))),
        )
    });
    // The host's value of `T` inputs, in f64.
    let input = |s: usize| -> HostSpinor {
        to_t(&host[s])
            .map(|v| ColorVector::new(v.v.map(|z| Complex::new(widen(z.re), widen(z.im)))))
    };
    let same = |got: &[ColorVector<T>; 4], want: &HostSpinor, what: &str| {
        for k in 0..4 {
            for c in 0..3 {
                let (g, w) = (got[k].v[c], want[k].v[c]);
                assert!(
                    widen(g.re) == narrow(w.re).to_f64().unwrap()
                        && widen(g.im) == narrow(w.im).to_f64().unwrap(),
                    "{what}: spin {k} colour {c}: {g:?}, want {w:?}"
                );
            }
        }
    };
    for mu in 0..5usize {
        let mut g: Field<[ColorVector<T>; 4], L> = Field::filled(n, [ColorVector::zero(); 4]);
        on_gpu!(n, {
            let p = psi;
            g = gamma_times(mu, p);
        })
        .unwrap();
        let g = g.to_vec().unwrap();
        for s in 0..n {
            same(
                &g[s],
                &spin_times(&gamma(mu), &input(s)),
                &format!("γ_{mu} ψ at {s}"),
            );
        }
    }
    for mu in 0..4usize {
        for sign in [-1i32, 1] {
            let mut r: Field<[ColorVector<T>; 4], L> = Field::zeros(n);
            let mut uh: Field<[ColorVector<T>; 4], L> = Field::zeros(n);
            on_gpu!(n, {
                let p = psi;
                let h = project(mu, sign, p);
                r = reconstruct(mu, sign, h);
                let w = u * h;
                uh[0] = w[0];
                uh[1] = w[1];
            })
            .unwrap();
            let (r, uh) = (r.to_vec().unwrap(), uh.to_vec().unwrap());
            let m = one_plus(sign as f64, mu);
            for s in 0..n {
                let want = spin_times(&m, &input(s));
                same(&r[s], &want, &format!("(1 + {sign} γ_{mu}) ψ at {s}"));
                // The link on the two projected rows, against the host's product of the
                // rounded rows.
                let tol = if std::mem::size_of::<T>() == 4 {
                    1e-6
                } else {
                    1e-14
                };
                for k in 0..2 {
                    let rows = r[s][k].v.map(|z| Complex::new(widen(z.re), widen(z.im)));
                    let ut = u.to_vec().unwrap()[s];
                    let uw = ColorMatrix::new(
                        ut.m.map(|row| row.map(|z| Complex::new(widen(z.re), widen(z.im)))),
                    );
                    let want = uw * ColorVector::new(rows);
                    for c in 0..3 {
                        let got = uh[s][k].v[c];
                        let d = (Complex::new(widen(got.re), widen(got.im)) - want.v[c]).norm();
                        assert!(
                            d <= tol * 8.0,
                            "u h, mu {mu} sign {sign} site {s}: off by {d:e}"
                        );
                    }
                }
            }
        }
    }
}

fn spin_functions() {
    spin_functions_in::<f64, AoSoA<32>>();
    spin_functions_in::<f64, SoA>();
    spin_functions_in::<f64, AoS>();
    spin_functions_in::<f32, AoSoA<32>>();
    spin_functions_in::<f32, AoS>();
}

on_both_backends!(
    gamma_algebra,
    spin_functions,
    operator_matches_host,
    parity_hops_match_host,
    gamma5_hermiticity,
    gauge_covariance,
    free_field_plane_waves,
    bicgstab_solves_the_even_odd_system,
    bicgstab_matches_a_dense_solve,
);

/// The Wilson, BiCGStab and spin-function kernels compile with NVRTC for Hopper with no warnings, spills or
/// stack frame
/// (no GPU needed: the kernels' sources come from a CPU run).
#[cfg(feature = "cuda")]
#[test]
fn wilson_kernels_compile_for_sm90_without_spills() {
    if !support::require_nvrtc() {
        return;
    }
    let kernels = support::cpu_kernel_sources(|| {
        let lat = Lattice::new([4; 4]).unwrap();
        let u = GaugeField::random(lat, 32).unwrap();
        let psi = SpinorField::from_vec(random_spinors(&lat, 33));
        let mut out = poisoned(&lat);
        let op = Wilson::new(&u, KAPPA);
        op.apply(&psi, &mut out).unwrap();
        op.hop(lat.even(), &psi, &mut out).unwrap();
        let eo = WilsonEvenOdd::new(&op);
        let mut x = poisoned(&lat);
        BiCgStab::new(1e-6, 50).solve(&eo, &psi, &mut x).unwrap();
        Cgnr::new(1e-6, 50).solve(&eo, &psi, &mut x).unwrap();
        spin_functions_in::<f64, AoSoA<32>>();
        spin_functions_in::<f32, AoS>();
    });
    assert!(
        kernels.len() >= 2,
        "only {} distinct kernels",
        kernels.len()
    );
    support::check_kernels_stay_in_registers(&kernels);
}
