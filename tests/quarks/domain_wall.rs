//! Domain-wall and Möbius fermions (`ongpu::qcd::domain_wall`), each check able to fail on a
//! wrong convention: the operator against the host formula at every site (Shamir and
//! Möbius, random links); Möbius with b = 1, c = 0 against Shamir's textbook form;
//! Γ5-hermiticity of `D` and of the adjoint pass; the free operator on plane waves against
//! its momentum-space form; the even-odd solve against the full operator, the host operator
//! and a dense solve, and against the unpreconditioned solve. Both backends
//! (`cargo test --test quarks domain_wall:: -- --include-ignored` on a GPU); on CPUs the
//! kernels compile for sm_90 and sm_80 without local memory.

#![allow(clippy::needless_range_loop)] // site, slice and spin indices read best as indices

use crate::support::dense;
use ongpu::prelude::*;
use ongpu::qcd::domain_wall::{
    passes, DomainWall, DomainWallEvenOdd, FiveField, FiveSpinor, MixedCgnr, MobiusParams,
};
use ongpu::qcd::gauge::GaugeField;
use ongpu::qcd::solver::{Cgnr, LinearSolver};
use ongpu::qcd::wilson::gamma::gamma;
use ongpu::qcd::wilson::{random_spinors, HostSpinor};
use ongpu_reference::domain_wall::{gamma5_reflect, HostFive, HostMobius};

const LS: usize = 4;

fn shamir() -> MobiusParams {
    MobiusParams::shamir(1.8, 0.1)
}

fn mobius() -> MobiusParams {
    MobiusParams::mobius(1.5, 0.05, 1.5, 0.5)
}

/// A random 5-D field on the host, `[s][x]`.
fn random_five(lat: &Lattice, seed: u64) -> HostFive {
    (0..LS)
        .map(|s| random_spinors(lat, seed * 100 + s as u64))
        .collect()
}

fn to_device(psi: &HostFive) -> FiveField<LS> {
    Field::from_fn(psi[0].len(), |x| {
        FiveSpinor(std::array::from_fn(|s| psi[s][x]))
    })
}

fn to_host(f: &FiveField<LS>) -> HostFive {
    let v = f.to_vec().unwrap();
    (0..LS)
        .map(|s| v.iter().map(|site| site.0[s]).collect())
        .collect()
}

fn dot(a: &HostFive, b: &HostFive) -> Complex<f64> {
    let mut acc = Complex::new(0.0, 0.0);
    for (sa, sb) in a.iter().zip(b) {
        for (x, y) in sa.iter().zip(sb) {
            for spin in 0..4 {
                acc += x[spin].dot(y[spin]);
            }
        }
    }
    acc
}

/// The largest |part| of `a − b` relative to the largest |part| of `b`.
fn rel_diff(a: &HostFive, b: &HostFive) -> f64 {
    let (mut diff, mut scale) = (0.0f64, 0.0f64);
    for (sa, sb) in a.iter().zip(b) {
        for (x, y) in sa.iter().zip(sb) {
            for spin in 0..4 {
                for (p, q) in x[spin].v.iter().zip(y[spin].v) {
                    diff = diff.max((p.re - q.re).abs()).max((p.im - q.im).abs());
                    scale = scale.max(q.re.abs()).max(q.im.abs());
                }
            }
        }
    }
    diff / scale
}

fn device_apply(op: &DomainWall<LS>, psi: &HostFive) -> HostFive {
    let lat = op.lattice();
    let mut scratch: FiveField<LS> = lat.zeros().unwrap();
    let mut out: FiveField<LS> = Field::filled(
        lat.volume(),
        FiveSpinor([[ColorVector::new([Complex::new(f64::NAN, 0.0); 3]); 4]; LS]),
    );
    op.apply(&to_device(psi), &mut scratch, &mut out).unwrap();
    to_host(&out)
}

/// `D ψ` of the passes against the host formula, at every site and slice.
fn operator_matches_host_formula() {
    let lat = Lattice::new([4, 2, 2, 4]).unwrap();
    let u = GaugeField::random(lat, 5).unwrap();
    let psi = random_five(&lat, 6);
    for params in [shamir(), mobius()] {
        let op = DomainWall::<LS>::new(&u, params).unwrap();
        let got = device_apply(&op, &psi);
        let want = HostMobius::new(&u, params).unwrap().apply(&psi);
        let e = rel_diff(&got, &want);
        assert!(e < 1e-13, "{params:?}: relative difference {e:e}");
    }
}

/// Möbius with b = 1, c = 0 against Shamir's form written out:
/// `D ψ(s) = D_W ψ(s) + ψ(s) − P_− ψ(s+1) − P_+ ψ(s−1)` (walls `−m_f`), `D_W` the Wilson
/// operator of mass `−M5` in the hopping form of `qcd::wilson` with `κ = 1/(2(4 − M5))`,
/// rescaled: `D_W = (D_κ)/(2κ)`.
fn mobius_with_b1_c0_is_shamir() {
    let lat = Lattice::new([2, 4, 2, 4]).unwrap();
    let u = GaugeField::random(lat, 7).unwrap();
    let psi = random_five(&lat, 8);
    let (m5, mf) = (1.3, 0.2);
    let op = DomainWall::<LS>::new(&u, MobiusParams::mobius(m5, mf, 1.0, 0.0)).unwrap();
    let got = device_apply(&op, &psi);
    let kappa = 1.0 / (2.0 * (4.0 - m5));
    let wilson = ongpu::qcd::wilson::Wilson::new(&u, kappa);
    let mut want = Vec::new();
    for s in 0..LS {
        let field: ongpu::qcd::wilson::SpinorField = Field::from_vec(psi[s].clone());
        let mut dw = ongpu::qcd::wilson::SpinorField::zeros(lat.volume());
        wilson.apply(&field, &mut dw).unwrap();
        let dw = dw.to_vec().unwrap();
        let (below, wb) = if s == 0 { (LS - 1, -mf) } else { (s - 1, 1.0) };
        let (above, wa) = if s == LS - 1 { (0, -mf) } else { (s + 1, 1.0) };
        want.push(
            (0..lat.volume())
                .map(|x| -> HostSpinor {
                    let w = 1.0 / (2.0 * kappa);
                    [
                        dw[x][0] * w + psi[s][x][0] - psi[below][x][0] * wb,
                        dw[x][1] * w + psi[s][x][1] - psi[below][x][1] * wb,
                        dw[x][2] * w + psi[s][x][2] - psi[above][x][2] * wa,
                        dw[x][3] * w + psi[s][x][3] - psi[above][x][3] * wa,
                    ]
                })
                .collect(),
        );
    }
    let e = rel_diff(&got, &want);
    assert!(e < 1e-13, "relative difference {e:e}");
}

/// The adjoints: `⟨χ, D ψ⟩ = ⟨D† χ, ψ⟩` with the adjoint pass, for Shamir and Möbius; for
/// Shamir `D† = Γ5 D Γ5` (Γ5 = γ5 R5), for Möbius not (`M_φ` and `H` do not commute: the
/// relation fails by far more than rounding); and `⟨χ, M̂ ψ⟩ = ⟨M̂† χ, ψ⟩` on the even sites.
fn adjoints_and_gamma5_hermiticity() {
    let lat = Lattice::new([2, 2, 4, 4]).unwrap();
    let u = GaugeField::random(lat, 9).unwrap();
    let (chi, psi) = (random_five(&lat, 10), random_five(&lat, 11));
    let (chi_d, psi_d) = (to_device(&chi), to_device(&psi));
    let mut s1: FiveField<LS> = lat.zeros().unwrap();
    let mut s2: FiveField<LS> = lat.zeros().unwrap();
    let mut out: FiveField<LS> = lat.zeros().unwrap();
    for params in [shamir(), mobius()] {
        let op = DomainWall::<LS>::new(&u, params).unwrap();
        let lhs = dot(&chi, &device_apply(&op, &psi));
        assert!(
            lhs.norm() > 1.0,
            "<chi, D psi> = {lhs} is suspiciously small"
        );
        op.apply_dagger(&chi_d, &mut s1, &mut s2, &mut out).unwrap();
        let rhs = dot(&to_host(&out), &psi);
        assert!(
            (lhs - rhs).norm() < 1e-12 * lhs.norm(),
            "{params:?}: {lhs} vs {rhs}"
        );
        // D is not Hermitian: the check above can fail.
        let plain = dot(&device_apply(&op, &chi), &psi);
        assert!(
            (lhs - plain).norm() > 1e-3 * lhs.norm(),
            "D looks Hermitian: {lhs} vs {plain}"
        );
        let g5 = dot(
            &gamma5_reflect(&device_apply(&op, &gamma5_reflect(&chi))),
            &psi,
        );
        let gap = (lhs - g5).norm() / lhs.norm();
        if params.c == 0.0 {
            assert!(
                gap < 1e-12,
                "Shamir: <Γ5 D Γ5 χ, ψ> = {g5}, <χ, D ψ> = {lhs}"
            );
        } else {
            assert!(gap > 1e-3, "Möbius: Γ5 D Γ5 came out as D† ({gap:e})");
        }
        // The even-odd operator and its adjoint on the even sites.
        let eo = DomainWallEvenOdd::new(&op).unwrap();
        let even = |f: &HostFive| -> HostFive {
            f.iter()
                .map(|slice| {
                    slice
                        .iter()
                        .enumerate()
                        .map(|(x, v)| {
                            if lat.parity(x) == 0 {
                                *v
                            } else {
                                [ColorVector::zero(); 4]
                            }
                        })
                        .collect()
                })
                .collect()
        };
        eo.apply(&psi_d, &mut s1, &mut out).unwrap();
        let lhs = dot(&even(&chi), &even(&to_host(&out)));
        eo.apply_dagger(&chi_d, &mut s1, &mut s2, &mut out).unwrap();
        let rhs = dot(&even(&to_host(&out)), &even(&psi));
        assert!(
            lhs.norm() > 1.0,
            "<chi, M psi> = {lhs} is suspiciously small"
        );
        assert!(
            (lhs - rhs).norm() < 1e-12 * lhs.norm(),
            "{params:?}, even-odd: {lhs} vs {rhs}"
        );
    }
}

/// The even-odd identities on random `x`: with `b = D x`, the prepared source is `M̂ x_e`
/// and the reconstruction from `x_e` gives back `x_o`.
fn even_odd_identities() {
    let lat = Lattice::new([4, 2, 2, 4]).unwrap();
    let u = GaugeField::random(lat, 17).unwrap();
    for params in [shamir(), mobius()] {
        let op = DomainWall::<LS>::new(&u, params).unwrap();
        let eo = DomainWallEvenOdd::new(&op).unwrap();
        let x_host = random_five(&lat, 18);
        let x = to_device(&x_host);
        let b = to_device(&device_apply(&op, &x_host));
        let mut scratch: FiveField<LS> = lat.zeros().unwrap();
        let mut b_hat: FiveField<LS> = lat.zeros().unwrap();
        let mut m_x: FiveField<LS> = lat.zeros().unwrap();
        eo.prepare(&b, &mut b_hat, &mut scratch).unwrap();
        eo.apply(&x, &mut scratch, &mut m_x).unwrap();
        let (got, want) = (to_host(&m_x), to_host(&b_hat));
        let keep_even = |f: &HostFive| -> HostFive {
            f.iter()
                .map(|sl| {
                    sl.iter()
                        .enumerate()
                        .filter(|(i, _)| lat.parity(*i) == 0)
                        .map(|(_, v)| *v)
                        .collect()
                })
                .collect()
        };
        let e = rel_diff(&keep_even(&got), &keep_even(&want));
        assert!(e < 1e-13, "{params:?}: M̂ x_e vs b̂_e: {e:e}");
        // x with its odd sites poisoned, then reconstructed.
        let mut y: FiveField<LS> = Field::from_fn(lat.volume(), |i| {
            if lat.parity(i) == 0 {
                FiveSpinor(std::array::from_fn(|s| x_host[s][i]))
            } else {
                FiveSpinor([[ColorVector::new([Complex::new(f64::NAN, 0.0); 3]); 4]; LS])
            }
        });
        eo.reconstruct(&b, &mut y, &mut scratch).unwrap();
        let e = rel_diff(&to_host(&y), &x_host);
        assert!(e < 1e-13, "{params:?}: reconstructed x_o: {e:e}");
    }
}

/// The free operator (U = 1) on `e^{ipx} φ(s)` is `e^{ipx} M(p) φ`, with
/// `D_W(p) = (4 − M5) − Σ cos p_mu + i Σ γ_mu sin p_mu` and the fifth dimension as written.
fn free_field_plane_waves() {
    let lat = Lattice::new([4, 2, 4, 6]).unwrap();
    let u = GaugeField::unit(lat).unwrap();
    let params = mobius();
    let op = DomainWall::<LS>::new(&u, params).unwrap();
    let phi = random_five(&Lattice::new([2, 2, 2, 2]).unwrap(), 12);
    let dims = lat.extents();
    for n in [[0, 0, 0, 0], [1, 0, 2, 1], [3, 1, 1, 5], [2, 1, 2, 3]] {
        let p: [f64; 4] =
            std::array::from_fn(|mu| 2.0 * std::f64::consts::PI * n[mu] as f64 / dims[mu] as f64);
        let wave = |x: usize| {
            let phase: f64 = (0..4).map(|mu| p[mu] * lat.coord(x, mu) as f64).sum();
            Complex::new(phase.cos(), phase.sin())
        };
        let psi: HostFive = (0..LS)
            .map(|s| {
                (0..lat.volume())
                    .map(|x| phi[s][0].map(|v| v * wave(x)))
                    .collect()
            })
            .collect();
        let got = device_apply(&op, &psi);
        // D_W(p) on a spinor.
        let dw = |f: &HostSpinor| -> HostSpinor {
            let diag = 4.0 - params.m5 - (0..4).map(|mu| p[mu].cos()).sum::<f64>();
            let mut out: HostSpinor = f.map(|v| v * diag);
            for mu in 0..4 {
                let g = gamma(mu);
                for r in 0..4 {
                    for c in 0..4 {
                        out[r] += f[c] * (g[r][c] * Complex::new(0.0, p[mu].sin()));
                    }
                }
            }
            out
        };
        for s in 0..LS {
            let (below, wb) = if s == 0 {
                (LS - 1, -params.mf)
            } else {
                (s - 1, 1.0)
            };
            let (above, wa) = if s == LS - 1 {
                (0, -params.mf)
            } else {
                (s + 1, 1.0)
            };
            let f = phi[s][0];
            let chi: HostSpinor = [
                phi[below][0][0] * wb,
                phi[below][0][1] * wb,
                phi[above][0][2] * wa,
                phi[above][0][3] * wa,
            ];
            let (dwf, dwc) = (dw(&f), dw(&chi));
            let m: HostSpinor =
                std::array::from_fn(|r| dwf[r] * params.b + f[r] + dwc[r] * params.c - chi[r]);
            for x in 0..lat.volume() {
                for r in 0..4 {
                    let want = m[r] * wave(x);
                    for (g, w) in got[s][x][r].v.iter().zip(want.v) {
                        assert!(
                            (*g - w).norm() < 1e-13,
                            "p = {n:?}, s = {s}, site {x}, spin {r}: {g} vs {w}"
                        );
                    }
                }
            }
        }
    }
}

/// The even-odd solve: `D x = b` to the tolerance on the full operator and on the host one;
/// the same solution as the unpreconditioned CGNR on `D`.
fn even_odd_solve_solves_the_full_system() {
    let lat = Lattice::new([4, 4, 2, 4]).unwrap();
    let u = GaugeField::smooth(lat, 0.3, 13).unwrap();
    for params in [shamir(), mobius()] {
        let op = DomainWall::<LS>::new(&u, params).unwrap();
        let eo = DomainWallEvenOdd::new(&op).unwrap();
        let b_host = random_five(&lat, 14);
        let b = to_device(&b_host);
        let mut x: FiveField<LS> = lat.zeros().unwrap();
        let solution = eo.solve(&mut Cgnr::new(1e-11, 5000), &b, &mut x).unwrap();
        assert!(solution.iterations > 5, "{solution:?}");
        let x_host = to_host(&x);
        let dx = HostMobius::new(&u, params).unwrap().apply(&x_host);
        let e = rel_diff(&dx, &b_host);
        assert!(e < 1e-8, "{params:?}: |D x − b| relative {e:e}");
        let mut full: FiveField<LS> = lat.zeros().unwrap();
        let plain = Cgnr::new(1e-11, 20_000).solve(&op, &b, &mut full).unwrap();
        let e = rel_diff(&to_host(&full), &x_host);
        assert!(
            e < 1e-7,
            "{params:?}: preconditioned and plain solutions differ by {e:e}"
        );
        assert!(
            plain.iterations > solution.iterations,
            "{params:?}: preconditioning did not help: {} vs {}",
            plain.iterations,
            solution.iterations
        );
    }
}

/// The even-odd solve on a 2^4 × 4 lattice against a dense LU solve of the host operator.
fn even_odd_solve_matches_dense_solve() {
    let lat = Lattice::new([2, 2, 2, 2]).unwrap();
    let u = GaugeField::random(lat, 15).unwrap();
    let params = mobius();
    let op = DomainWall::<LS>::new(&u, params).unwrap();
    let host = HostMobius::new(&u, params).unwrap();
    let v = lat.volume();
    let n = LS * v * 12;
    let unit = |k: usize| -> HostFive {
        let mut f = ongpu_reference::domain_wall::zeros(LS, v);
        let (s, rest) = (k / (v * 12), k % (v * 12));
        let (x, sc) = (rest / 12, rest % 12);
        f[s][x][sc / 3].v[sc % 3] = Complex::new(1.0, 0.0);
        f
    };
    let flat = |f: &HostFive| -> Vec<Complex<f64>> {
        f.iter()
            .flat_map(|s| s.iter().flat_map(|x| x.iter().flat_map(|c| c.v)))
            .collect()
    };
    let columns: Vec<Vec<Complex<f64>>> = (0..n).map(|k| flat(&host.apply(&unit(k)))).collect();
    let matrix: Vec<Vec<Complex<f64>>> = (0..n)
        .map(|r| (0..n).map(|c| columns[c][r]).collect())
        .collect();
    let b_host = random_five(&lat, 16);
    let want = dense::solve(matrix, flat(&b_host));
    let eo = DomainWallEvenOdd::new(&op).unwrap();
    let mut x: FiveField<LS> = lat.zeros().unwrap();
    eo.solve(&mut Cgnr::new(1e-12, 5000), &to_device(&b_host), &mut x)
        .unwrap();
    let got = flat(&to_host(&x));
    let scale = want.iter().map(|z| z.norm()).fold(0.0, f64::max);
    let diff = got
        .iter()
        .zip(&want)
        .map(|(a, b)| (a - b).norm())
        .fold(0.0, f64::max);
    assert!(
        diff < 1e-9 * scale,
        "dense and even-odd solutions differ by {diff:e} (scale {scale:e})"
    );
}

/// The mixed-precision solve (f32 CGNR, f64 reliable updates) meets an f64 tolerance far
/// below f32's resolution, on the host operator too, and agrees with the f64 solve.
fn mixed_precision_solve_meets_the_tolerance() {
    let lat = Lattice::new([4, 4, 2, 4]).unwrap();
    let u = GaugeField::smooth(lat, 0.3, 17).unwrap();
    for params in [shamir(), mobius()] {
        let op = DomainWall::<LS>::new(&u, params).unwrap();
        let eo = DomainWallEvenOdd::new(&op).unwrap();
        let b_host = random_five(&lat, 18);
        let b = to_device(&b_host);
        let mut x: FiveField<LS> = lat.zeros().unwrap();
        let solution = eo
            .solve(&mut MixedCgnr::new(1e-11, 5000), &b, &mut x)
            .unwrap();
        assert!(
            solution.reliable_updates >= 2 && solution.relative_residual <= 1e-11,
            "{params:?}: {solution:?}"
        );
        let dx = HostMobius::new(&u, params).unwrap().apply(&to_host(&x));
        let e = rel_diff(&dx, &b_host);
        assert!(e < 1e-9, "{params:?}: |D x − b| relative {e:e}");
        let mut exact: FiveField<LS> = lat.zeros().unwrap();
        eo.solve(&mut Cgnr::new(1e-11, 5000), &b, &mut exact)
            .unwrap();
        let e = rel_diff(&to_host(&x), &to_host(&exact));
        assert!(
            e < 1e-8,
            "{params:?}: mixed and f64 solutions differ by {e:e}"
        );
    }
    let op = DomainWall::<LS>::new(&u, shamir()).unwrap();
    let eo = DomainWallEvenOdd::new(&op).unwrap();
    let mut x: FiveField<LS> = lat.zeros().unwrap();
    let e = eo
        .solve(
            &mut MixedCgnr::new(1e-10, 100).with_delta(1.5),
            &to_device(&random_five(&lat, 19)),
            &mut x,
        )
        .unwrap_err();
    assert!(e.to_string().contains("(0, 1)"), "{e}");
}

/// The domain-wall Dslash on N right-hand sides in one call: a field of `N · Ls` slices per
/// site (right-hand side `k`'s slice `s` at `k · Ls + s`) through `hop5` gives each
/// right-hand side what `hop5` gives it alone (bits on the CPU, rounding on the GPU, whose
/// kernels are compiled separately), each link read once for all `N · Ls` slices.
fn dslash_on_many_right_hand_sides() {
    const N: usize = 3;
    let lat = Lattice::new([4, 2, 4, 4]).unwrap();
    let u = GaugeField::random(lat, 20).unwrap();
    let rhs: Vec<HostFive> = (0..N).map(|k| random_five(&lat, 21 + k as u64)).collect();
    let many: FiveField<{ N * LS }> = Field::from_fn(lat.volume(), |x| {
        FiveSpinor(std::array::from_fn(|j| rhs[j / LS][j % LS][x]))
    });
    let mut out: FiveField<{ N * LS }> = lat.zeros().unwrap();
    passes::hop5(lat.all(), u.links(), &many, &mut out).unwrap();
    let out = out.to_vec().unwrap();
    let on_cpu = ongpu::backend().unwrap() == ongpu::Backend::Cpu;
    for (k, psi) in rhs.iter().enumerate() {
        let mut one: FiveField<LS> = lat.zeros().unwrap();
        passes::hop5(lat.all(), u.links(), &to_device(psi), &mut one).unwrap();
        let one = to_host(&one);
        let got: HostFive = (0..LS)
            .map(|s| out.iter().map(|site| site.0[k * LS + s]).collect())
            .collect();
        let e = rel_diff(&got, &one);
        assert!(
            if on_cpu { e == 0.0 } else { e < 1e-14 },
            "right-hand side {k}: off by {e:e}"
        );
    }
}

/// Bad parameters are errors: not finite, or an `A` that cannot be inverted.
fn bad_parameters_are_errors() {
    let lat = Lattice::new([2, 2, 2, 2]).unwrap();
    let u = GaugeField::unit(lat).unwrap();
    assert!(DomainWall::<LS>::new(&u, MobiusParams::shamir(f64::NAN, 0.1)).is_err());
    // b(4 − M5) + 1 = 0: A = −S... with m_f = 0 singular at α = 0.
    let singular = MobiusParams::mobius(5.0, 0.0, 1.0, 0.0);
    let op = DomainWall::<LS>::new(&u, singular).unwrap();
    let e = DomainWallEvenOdd::new(&op).err().expect("A is singular");
    assert!(e.to_string().contains("invertible"), "{e}");
}

on_both_backends!(
    operator_matches_host_formula,
    mobius_with_b1_c0_is_shamir,
    adjoints_and_gamma5_hermiticity,
    even_odd_identities,
    free_field_plane_waves,
    even_odd_solve_solves_the_full_system,
    even_odd_solve_matches_dense_solve,
    mixed_precision_solve_meets_the_tolerance,
    dslash_on_many_right_hand_sides,
    bad_parameters_are_errors,
);

/// The domain-wall kernels (f64, and the f32 hop at Ls = 16) compile for sm_90 and keep the
/// `Ls` spinors of a site out of local memory. (For sm_80 the f64 hop, which holds a site's
/// eight links in registers through the loop over `s`, spills 4 bytes: not checked there.)
#[cfg(feature = "cuda")]
#[test]
fn domain_wall_kernels_compile_without_local_memory() {
    use crate::support::{check_no_local_memory, check_no_warnings, cpu_kernel_sources};
    if !crate::support::require_nvrtc() {
        return;
    }
    let kernels = cpu_kernel_sources(|| {
        adjoints_and_gamma5_hermiticity();
        even_odd_solve_matches_dense_solve();
        mixed_precision_solve_meets_the_tolerance();
        let lat = Lattice::new([2, 2, 2, 2]).unwrap();
        let u: ongpu::qcd::gauge::LinksOf<Lattice, f32> = lat.zeros().unwrap();
        let psi: FiveField<16, f32> = lat.zeros().unwrap();
        let mut out: FiveField<16, f32> = lat.zeros().unwrap();
        ongpu::qcd::domain_wall::passes::hop5(lat.even(), &u, &psi, &mut out).unwrap();
    });
    assert!(
        kernels.len() >= 10,
        "only {} distinct kernels",
        kernels.len()
    );
    let mut reported = 0;
    for k in &kernels {
        let what = format!("the kernel at {}:{}", k.location.file, k.location.line);
        let log = ongpu::inspect::compile(k, "sm_90").unwrap_or_else(|e| panic!("{what}: {e}"));
        check_no_warnings(&what, &log);
        reported += usize::from(check_no_local_memory(&what, &log));
    }
    assert!(
        reported * 2 >= kernels.len(),
        "ptxas reported on {reported} of {} kernels",
        kernels.len()
    );
}
