//! The clover term and the propagator of `ongpu::qcd::wilson`: the clover-leaf field
//! strength against a host construction walked link by link; the packed blocks against
//! dense 12×12 matrices built from the γ matrices, and their inverses; the clover operator
//! against the host one, γ5-hermitian and gauge covariant; the full even-odd solve against
//! a dense solve; clear errors for a singular block and a mismatched κ; the pion correlator
//! of the free field against the sum over momenta, and its exact time-reflection symmetry
//! on a time-symmetric gauge field.
//! Every check runs on the CPU backend, and on the GPU with
//! `cargo test --test quarks wilson_clover:: -- --include-ignored`.

#![allow(clippy::needless_range_loop)] // spin and colour indices read best as indices

#[cfg(feature = "cuda")]
use crate::support;
use crate::support::spinors;

use ongpu::prelude::*;
use ongpu::qcd::gauge::{su3::random_su3, FieldStrengthOf, GaugeField, HostLinks};
use ongpu::qcd::solver::SolverError;
use ongpu::qcd::wilson::gamma::{gamma, spin_times};
use ongpu::qcd::wilson::{
    random_spinors, BiCgStab, Cgnr, Clover, HostSpinor, MixedBiCgStab, SpinorField, Wilson,
};
use ongpu_reference::wilson::{clover_matrices, field_strength, unpack_clover, HostWilson};
use rand::SeedableRng;
use spinors::{c, dense_solution, dot, flat, max_diff, poisoned};

const KAPPA: f64 = 0.124;
const C_SW: f64 = 1.6;

/// `D ψ` by the `on_gpu!` passes, with the clover term of `c_sw`.
fn device_apply(u: &GaugeField, kappa: f64, c_sw: f64, psi: &[HostSpinor]) -> Vec<HostSpinor> {
    let lat = u.lattice();
    let clover = Clover::new(u, kappa, c_sw).unwrap();
    let op = Wilson::new(u, kappa).with_clover(&clover).unwrap();
    let psi = SpinorField::from_vec(psi.to_vec());
    let mut out = poisoned(&lat);
    op.apply(&psi, &mut out).unwrap();
    out.to_vec().unwrap()
}

/// `F_{mu nu}` of the device pass against the host's path products, at 4^4.
fn field_strength_matches_host() {
    let lat = Lattice::new([4; 4]).unwrap();
    let u = GaugeField::random(lat, 41).unwrap();
    let mut f: FieldStrengthOf<Lattice> = lat.filled([ColorMatrix::zero(); 6]).unwrap();
    u.field_strength(&mut f).unwrap();
    let got = f.to_vec().unwrap();
    let want = field_strength(&lat, &u.to_host().unwrap());
    let mut diff: f64 = 0.0;
    for x in 0..lat.volume() {
        for p in 0..6 {
            let d = got[x][p] - want[x][p];
            diff = diff.max(d.norm2().sqrt());
            let anti = got[x][p] + got[x][p].adj();
            assert!(anti.norm2().sqrt() <= 1e-14, "F is anti-Hermitian");
            assert!(got[x][p].trace().norm() <= 1e-14, "F is traceless");
        }
    }
    assert!(diff <= 1e-13, "F differs from the host's by {diff:e}");
}

/// For `U = 1`: `F = 0`, every block and inverse the identity, and the clover operator the
/// Wilson one.
fn clover_vanishes_for_the_unit_field() {
    let lat = Lattice::new([4, 4, 4, 6]).unwrap();
    let u = GaugeField::unit(lat).unwrap();
    let clover = Clover::new(&u, KAPPA, C_SW).unwrap();
    let identity: [[Complex<f64>; 12]; 12] =
        std::array::from_fn(|r| std::array::from_fn(|k| c(if r == k { 1.0 } else { 0.0 }, 0.0)));
    for field in [clover.blocks(), clover.inverses()] {
        for site in field.to_vec().unwrap() {
            assert_eq!(unpack_clover(&site), identity);
        }
    }
    let psi = random_spinors(&lat, 42);
    let with = device_apply(&u, KAPPA, C_SW, &psi);
    let without = HostWilson::from_gauge(&u, KAPPA).unwrap().apply(&psi);
    let (diff, scale) = max_diff(&with, &without);
    assert!(diff <= 1e-14 * scale, "off the Wilson operator by {diff:e}");
}

/// The packed blocks against `1 − c_sw κ Σ γ_mu γ_nu F_{mu nu}` built densely on the host, and
/// each inverse times its block the identity to 1e-12.
fn clover_blocks_match_host_and_invert() {
    let lat = Lattice::new([4; 4]).unwrap();
    let u = GaugeField::smooth(lat, 0.4, 43).unwrap();
    let clover = Clover::new(&u, KAPPA, C_SW).unwrap();
    let want = clover_matrices(&lat, &u.to_host().unwrap(), KAPPA, C_SW);
    let blocks = clover.blocks().to_vec().unwrap();
    let inverses = clover.inverses().to_vec().unwrap();
    let mut off_identity: f64 = 0.0;
    for x in 0..lat.volume() {
        let (a, ai) = (unpack_clover(&blocks[x]), unpack_clover(&inverses[x]));
        for r in 0..12 {
            for k in 0..12 {
                assert!(
                    (a[r][k] - want[x][r][k]).norm() <= 1e-14,
                    "site {x}, entry ({r}, {k}): {} vs the host's {}",
                    a[r][k],
                    want[x][r][k]
                );
                let p: Complex<f64> = (0..12).map(|j| a[r][j] * ai[j][k]).sum();
                off_identity =
                    off_identity.max((p - c(if r == k { 1.0 } else { 0.0 }, 0.0)).norm());
            }
        }
    }
    assert!(off_identity <= 1e-12, "A A⁻¹ − 1 up to {off_identity:e}");
    assert!(
        blocks.iter().any(|s| s[0][0].norm() > 1e-3),
        "the clover term of a rough field is not trivially zero"
    );
}

/// The clover operator's passes against the host's dense blocks and full γ matrices.
fn clover_operator_matches_host() {
    let lat = Lattice::new([4, 6, 4, 4]).unwrap();
    let u = GaugeField::smooth(lat, 0.5, 44).unwrap();
    let psi = random_spinors(&lat, 45);
    let got = device_apply(&u, KAPPA, C_SW, &psi);
    let want = HostWilson::with_clover(&u, KAPPA, C_SW)
        .unwrap()
        .apply(&psi);
    let (diff, scale) = max_diff(&got, &want);
    assert!(
        diff <= 1e-13 * scale,
        "D differs from the host's by {diff:e}"
    );
}

/// `⟨χ, γ5 D γ5 ψ⟩ = ⟨D χ, ψ⟩` with the clover term, and `D[U'] g ψ = g D[U] ψ` under a
/// random gauge transformation `g`.
fn clover_operator_symmetries() {
    let lat = Lattice::new([4, 4, 2, 6]).unwrap();
    let v = lat.volume();
    let u = GaugeField::random(lat, 46).unwrap();
    let (chi, psi) = (random_spinors(&lat, 47), random_spinors(&lat, 48));
    let g5 = |s: &[HostSpinor]| -> Vec<HostSpinor> {
        s.iter().map(|s| spin_times(&gamma(4), s)).collect()
    };
    let lhs = dot(&chi, &g5(&device_apply(&u, KAPPA, 1.0, &g5(&psi))));
    let rhs = dot(&device_apply(&u, KAPPA, 1.0, &chi), &psi);
    assert!((lhs - rhs).norm() <= 1e-12 * rhs.norm(), "{lhs} vs {rhs}");

    let links = u.to_host().unwrap();
    let mut r = rand::rngs::SmallRng::seed_from_u64(49);
    let g: Vec<ColorMatrix<f64>> = (0..v).map(|_| random_su3(&mut r)).collect();
    let u_g: HostLinks = (0..v)
        .map(|i| std::array::from_fn(|mu| g[i] * links[i][mu] * g[lat.shift(i, mu, 1)].adj()))
        .collect();
    let psi_g: Vec<HostSpinor> = (0..v).map(|i| psi[i].map(|s| g[i] * s)).collect();
    let d = device_apply(&u, KAPPA, 1.0, &psi);
    let got = device_apply(
        &GaugeField::from_host(lat, u_g).unwrap(),
        KAPPA,
        1.0,
        &psi_g,
    );
    let want: Vec<HostSpinor> = (0..v).map(|i| d[i].map(|s| g[i] * s)).collect();
    let (diff, scale) = max_diff(&got, &want);
    assert!(diff <= 1e-12 * scale, "covariance off by {diff:e}");
}

/// `Wilson::solve` of `D x = b` for a source on both parities, by BiCGStab and by CGNR,
/// against a dense solve of the host's clover operator (4×2×2×2 sites, 384 unknowns).
fn clover_solve_matches_dense() {
    let lat = Lattice::new([4, 2, 2, 2]).unwrap();
    let u = GaugeField::random(lat, 50).unwrap();
    let kappa = 0.11;
    let host = HostWilson::with_clover(&u, kappa, C_SW).unwrap();
    let b_host = random_spinors(&lat, 51);
    let want = dense_solution(&host, &b_host);
    let clover = Clover::new(&u, kappa, C_SW).unwrap();
    let op = Wilson::new(&u, kappa).with_clover(&clover).unwrap();
    let b = SpinorField::from_vec(b_host);
    let scale = want.iter().map(|z| z.norm()).fold(0.0, f64::max);
    for by_cgnr in [false, true] {
        let mut x = poisoned(&lat);
        let solution = if by_cgnr {
            op.solve(&mut Cgnr::new(1e-12, 1000), &b, &mut x)
        } else {
            op.solve(&mut BiCgStab::new(1e-12, 300), &b, &mut x)
        }
        .unwrap();
        assert!(solution.relative_residual <= 1e-10, "{solution:?}");
        let got = flat(&x.to_vec().unwrap());
        let diff = got
            .iter()
            .zip(&want)
            .map(|(g, w)| (g - w).norm())
            .fold(0.0, f64::max);
        assert!(
            diff <= 1e-9 * scale,
            "CGNR {by_cgnr}: off the dense solve by {diff:e} (scale {scale})"
        );
    }
}

/// Links with a NaN give no clover term but an error that says why; so does a clover term
/// built for another κ.
fn bad_clover_terms_are_errors() {
    let lat = Lattice::new([4; 4]).unwrap();
    let mut links = GaugeField::smooth(lat, 0.2, 52).unwrap().to_host().unwrap();
    links[17][2][1][1] = c(f64::NAN, 0.0);
    let u = GaugeField::from_host(lat, links).unwrap();
    let err = Clover::new(&u, KAPPA, C_SW)
        .err()
        .expect("a singular clover term");
    assert!(err.to_string().contains("singular block"), "{err}");
    let u = GaugeField::smooth(lat, 0.2, 53).unwrap();
    let clover = Clover::new(&u, 0.1, C_SW).unwrap();
    let err = Wilson::new(&u, 0.12).with_clover(&clover).err().unwrap();
    assert!(err.to_string().contains("κ = 0.1"), "{err}");
}

/// `C(t)` of the free field (`U = 1`, where the clover term vanishes) against
/// `3 / L³ Σ_p |S̃(p, t)|²`, `S̃(p, t) = 1/T Σ_{p4} e^{i p4 t} D(p)⁻¹`,
/// `D(p)⁻¹ = (a − i γ·b) / (a² + b²)`, `a = 1 − 2κ Σ cos p_mu`, `b_mu = 2κ sin p_mu`.
fn free_pion_correlator_matches_the_momentum_sum() {
    let (l, t_len, kappa) = (4usize, 8usize, 0.115);
    let lat = Lattice::new([l, l, l, t_len]).unwrap();
    let u = GaugeField::unit(lat).unwrap();
    let clover = Clover::new(&u, kappa, 1.0).unwrap();
    let op = Wilson::new(&u, kappa).with_clover(&clover).unwrap();
    let mut calls = 0;
    let pion = op
        .pion_correlator(&mut BiCgStab::new(1e-12, 500), [0; 4], |_| calls += 1)
        .unwrap();
    assert_eq!(calls, 12);
    let g: Vec<_> = (0..4).map(gamma).collect();
    let tau = 2.0 * std::f64::consts::PI;
    for t in 0..t_len {
        let mut want = 0.0;
        for n in 0..l * l * l {
            let p3 = [n % l, (n / l) % l, n / (l * l)].map(|k| tau * k as f64 / l as f64);
            let mut s = [[c(0.0, 0.0); 4]; 4];
            for n4 in 0..t_len {
                let p = [p3[0], p3[1], p3[2], tau * n4 as f64 / t_len as f64];
                let a = 1.0 - 2.0 * kappa * p.iter().map(|q| q.cos()).sum::<f64>();
                let b = p.map(|q| 2.0 * kappa * q.sin());
                let den = a * a + b.iter().map(|x| x * x).sum::<f64>();
                let phase = c((p[3] * t as f64).cos(), (p[3] * t as f64).sin());
                for r in 0..4 {
                    for k in 0..4 {
                        let mut e = c(if r == k { a } else { 0.0 }, 0.0);
                        for mu in 0..4 {
                            e -= c(0.0, b[mu]) * g[mu][r][k];
                        }
                        s[r][k] += phase * e / (den * t_len as f64);
                    }
                }
            }
            want +=
                3.0 * s.iter().flatten().map(|z| z.norm_sqr()).sum::<f64>() / (l * l * l) as f64;
        }
        let got = pion.correlator[t];
        assert!(
            (got - want).abs() <= 1e-9 * want,
            "C({t}) = {got:e}, the momentum sum {want:e}"
        );
    }
}

/// On a gauge field symmetric under `t → −t` (`U_i(x, −t) = U_i(x, t)`,
/// `U_4(x, −t − 1) = U_4(x, t)†`), `γ4 γ5` maps the propagator from the origin at `t` to
/// that at `−t`, so `C(t) = C(T − t)` exactly; and `C(t) > 0`.
fn pion_correlator_is_time_symmetric() {
    let lat = Lattice::new([4, 4, 4, 8]).unwrap();
    let t_len = 8;
    let mut links = GaugeField::smooth(lat, 0.5, 54).unwrap().to_host().unwrap();
    for x in 0..lat.volume() {
        let cx = lat.coords(x);
        let t = cx[3];
        if t > t_len / 2 {
            let mirror = lat.index([cx[0], cx[1], cx[2], t_len - t]);
            for mu in 0..3 {
                links[x][mu] = links[mirror][mu];
            }
        }
        if t >= t_len / 2 {
            let mirror = lat.index([cx[0], cx[1], cx[2], t_len - 1 - t]);
            links[x][3] = links[mirror][3].adj();
        }
    }
    let u = GaugeField::from_host(lat, links).unwrap();
    let clover = Clover::new(&u, 0.12, C_SW).unwrap();
    let op = Wilson::new(&u, 0.12).with_clover(&clover).unwrap();
    let pion = op
        .pion_correlator(&mut BiCgStab::new(1e-12, 500), [0; 4], |_| {})
        .unwrap();
    for t in 1..t_len {
        let (a, b) = (pion.correlator[t], pion.correlator[t_len - t]);
        assert!(a > 0.0, "C({t}) = {a}");
        assert!(
            (a - b).abs() <= 1e-9 * a,
            "C({t}) = {a:e}, C({}) = {b:e}",
            t_len - t
        );
    }
    assert!(pion.solves.iter().all(|s| s.relative_residual <= 1e-10));
    let m = pion.effective_mass();
    assert!(m.iter().all(|m| m.is_finite() && *m > 0.0), "{m:?}");
}

/// The mixed-precision BiCGStab (f32 iterations, f64 reliable updates) reaches the f64
/// solver's true residual on random links, for Wilson at a heavy and a light κ and for
/// clover: `|D x − b| / |b|` by the independent host operator, the same solution as the f64
/// BiCGStab, and at least one reliable update; a δ outside (0, 1) is an error.
fn mixed_bicgstab_meets_the_f64_residual() {
    let lat = Lattice::new([4, 4, 4, 6]).unwrap();
    let u = GaugeField::random(lat, 60).unwrap();
    let b_host = random_spinors(&lat, 61);
    let b = SpinorField::from_vec(b_host.clone());
    let b2 = dot(&b_host, &b_host).re;
    for (kappa, c_sw) in [(0.1, 0.0), (0.2, 0.0), (0.11, C_SW)] {
        let clover = Clover::new(&u, kappa, c_sw).unwrap();
        let op = Wilson::new(&u, kappa);
        let (op, host) = if c_sw == 0.0 {
            (op, HostWilson::from_gauge(&u, kappa).unwrap())
        } else {
            (
                op.with_clover(&clover).unwrap(),
                HostWilson::with_clover(&u, kappa, c_sw).unwrap(),
            )
        };
        let mut x = poisoned(&lat);
        let mixed = op
            .solve(&mut MixedBiCgStab::new(1e-10, 2000), &b, &mut x)
            .unwrap();
        let mut y = poisoned(&lat);
        let full = op
            .solve(&mut BiCgStab::new(1e-10, 2000), &b, &mut y)
            .unwrap();
        assert!(
            mixed.relative_residual <= 1e-10 && mixed.reliable_updates >= 1,
            "κ {kappa}, c_sw {c_sw}: {mixed:?} (f64: {full:?})"
        );
        let x = x.to_vec().unwrap();
        let dx = host.apply(&x);
        let r: Vec<HostSpinor> = (0..lat.volume())
            .map(|i| std::array::from_fn(|s| dx[i][s] - b_host[i][s]))
            .collect();
        let rel = (dot(&r, &r).re / b2).sqrt();
        assert!(
            rel <= 1e-9,
            "κ {kappa}: |D x − b| / |b| = {rel:e} by the host operator"
        );
        let (diff, scale) = max_diff(&x, &y.to_vec().unwrap());
        assert!(
            diff <= 1e-8 * scale,
            "κ {kappa}: mixed and f64 differ by {diff:e}"
        );
    }
    let op = Wilson::new(&u, 0.1);
    let mut x = poisoned(&lat);
    let bad = op.solve(
        &mut MixedBiCgStab::new(1e-10, 100).with_delta(1.5),
        &b,
        &mut x,
    );
    assert!(
        matches!(bad, Err(SolverError::Ongpu(ongpu::Error::InvalidArgument(ref m))) if m.contains("(0, 1)")),
        "{bad:?}"
    );
}

on_both_backends!(
    field_strength_matches_host,
    mixed_bicgstab_meets_the_f64_residual,
    clover_vanishes_for_the_unit_field,
    clover_blocks_match_host_and_invert,
    clover_operator_matches_host,
    clover_operator_symmetries,
    clover_solve_matches_dense,
    bad_clover_terms_are_errors,
    free_pion_correlator_matches_the_momentum_sum,
    pion_correlator_is_time_symmetric,
);

/// The clover kernels compile with NVRTC for Hopper with no warnings, spills or stack frame
/// (no GPU needed: the kernels' sources come from a CPU run).
#[cfg(feature = "cuda")]
#[test]
fn clover_kernels_compile_for_sm90_without_spills() {
    if !support::require_nvrtc() {
        return;
    }
    let kernels = support::cpu_kernel_sources(|| {
        let lat = Lattice::new([4; 4]).unwrap();
        let u = GaugeField::smooth(lat, 0.3, 55).unwrap();
        let clover = Clover::new(&u, KAPPA, C_SW).unwrap();
        let op = Wilson::new(&u, KAPPA).with_clover(&clover).unwrap();
        let psi = SpinorField::from_vec(random_spinors(&lat, 56));
        let mut out = poisoned(&lat);
        op.apply(&psi, &mut out).unwrap();
        op.hop_inverse_clover(lat.even(), &psi, &mut out).unwrap();
        let mut x = poisoned(&lat);
        op.solve(&mut BiCgStab::new(1e-6, 50), &psi, &mut x)
            .unwrap();
        op.solve(&mut MixedBiCgStab::new(1e-6, 50), &psi, &mut x)
            .unwrap();
    });
    assert!(
        kernels.len() >= 5,
        "only {} distinct kernels",
        kernels.len()
    );
    support::check_kernels_stay_in_registers(&kernels);
}
