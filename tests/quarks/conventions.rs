//! The quark operators' conventions pinned by physics, not by a reference written with the
//! same conventions:
//! - the Wilson operator on the free field is `1 − 2κ Σ cos p_μ + 2iκ Σ γ_μ sin p_μ` on
//!   plane waves, with the γ matrices of the documented DeGrand–Rossi table written out here
//!   (any other representation of the Clifford algebra gives other spinors), periodic and
//!   antiperiodic in time (time momenta `(2πn + π)/T`);
//! - the staggered normal operator on the free field is `m² + Σ sin² p_μ` on plane waves, in
//!   both boundaries;
//! - the clover term removes the O(a) shift that the Wilson term gives the would-be zero
//!   modes of a constant abelian field: with `c_sw = 1` their eigenvalue stays at the bare
//!   mass, without it it moves up by `a q B / 2`, and with the opposite sign by `a q B`.
//!
//! Every check runs on the CPU backend, and on the GPU with
//! `cargo test --test quarks conventions:: -- --include-ignored`.

#![allow(clippy::needless_range_loop)] // spin and colour indices read best as indices

use ongpu::prelude::*;
use ongpu::qcd::boundary::TimeBoundary;
use ongpu::qcd::gauge::{GaugeField, HostLinks};
use ongpu::qcd::solver::LinearOperator;
use ongpu::qcd::staggered::{Fermion, Staggered};
use ongpu::qcd::wilson::{BiCgStab, Clover, HostSpinor, SpinorField, Wilson};
use std::f64::consts::PI;

type Spin = [[Complex<f64>; 4]; 4];

fn c(re: f64, im: f64) -> Complex<f64> {
    Complex::new(re, im)
}

/// γ_x, γ_y, γ_z, γ_t of the DeGrand–Rossi basis, entry by entry as docs/physics.md and
/// the tables of MILC, Chroma and QUDA print them.
fn degrand_rossi() -> [Spin; 4] {
    let (o, l, i) = (c(0.0, 0.0), c(1.0, 0.0), c(0.0, 1.0));
    [
        [[o, o, o, i], [o, o, i, o], [o, -i, o, o], [-i, o, o, o]],
        [[o, o, o, -l], [o, o, l, o], [o, l, o, o], [-l, o, o, o]],
        [[o, o, i, o], [o, o, o, -i], [-i, o, o, o], [o, i, o, o]],
        [[o, o, l, o], [o, o, o, l], [l, o, o, o], [o, l, o, o]],
    ]
}

/// The allowed momentum `(2π n + θ)/L` of direction `mu` (θ = π for antiperiodic time).
fn momentum(lat: &Lattice, n: [usize; 4], boundary: TimeBoundary) -> [f64; 4] {
    let l = lat.extents();
    std::array::from_fn(|mu| {
        let theta = if mu == 3 {
            boundary.momentum_offset()
        } else {
            0.0
        };
        (2.0 * PI * n[mu] as f64 + theta) / l[mu] as f64
    })
}

/// `e^{i p·x}` at site `i`.
fn wave(lat: &Lattice, p: [f64; 4], i: usize) -> Complex<f64> {
    let x = lat.coords(i);
    let phase: f64 = (0..4).map(|mu| p[mu] * x[mu] as f64).sum();
    c(phase.cos(), phase.sin())
}

const MOMENTA: [[usize; 4]; 4] = [[0, 0, 0, 0], [1, 0, 2, 3], [3, 2, 1, 0], [2, 5, 3, 7]];

/// `D ψ` on the free field for `ψ = e^{ipx} χ` against `(1 − 2κ Σ cos p + 2iκ Σ γ sin p) χ
/// e^{ipx}`, every element, for several momenta in both time boundaries.
fn wilson_plane_waves_in_the_degrand_rossi_basis() {
    let lat = Lattice::new([4, 6, 4, 8]).unwrap();
    let kappa = 0.11;
    let unit = GaugeField::unit(lat).unwrap();
    let gamma = degrand_rossi();
    let chi: HostSpinor = std::array::from_fn(|s| {
        ColorVector::new(std::array::from_fn(|a| {
            c(
                0.3 + 0.1 * (s * 3 + a) as f64,
                0.7 - 0.13 * (s + 2 * a) as f64,
            )
        }))
    });
    for boundary in [TimeBoundary::Periodic, TimeBoundary::Antiperiodic] {
        let op = Wilson::new(&unit, kappa).with_boundary(boundary).unwrap();
        for n in MOMENTA {
            let p = momentum(&lat, n, boundary);
            // The spin matrix of the free operator at p.
            let mut m: Spin = [[c(0.0, 0.0); 4]; 4];
            let cosines: f64 = p.iter().map(|q| q.cos()).sum();
            for r in 0..4 {
                m[r][r] = c(1.0 - 2.0 * kappa * cosines, 0.0);
                for mu in 0..4 {
                    for k in 0..4 {
                        m[r][k] += c(0.0, 2.0 * kappa * p[mu].sin()) * gamma[mu][r][k];
                    }
                }
            }
            let image: HostSpinor = std::array::from_fn(|r| {
                (0..4).fold(ColorVector::zero(), |acc, k| acc + chi[k] * m[r][k])
            });
            let psi: Vec<HostSpinor> = (0..lat.volume())
                .map(|i| chi.map(|v| v * wave(&lat, p, i)))
                .collect();
            let mut out = SpinorField::filled(
                lat.volume(),
                [ColorVector::new([c(f64::NAN, f64::NAN); 3]); 4],
            );
            op.apply(&SpinorField::from_vec(psi), &mut out).unwrap();
            let got = out.to_vec().unwrap();
            let mut worst: f64 = 0.0;
            for (i, site) in got.iter().enumerate() {
                let e = wave(&lat, p, i);
                for s in 0..4 {
                    worst = worst.max((site[s] - image[s] * e).norm2().sqrt());
                }
            }
            assert!(
                worst < 1e-13,
                "{boundary} Wilson operator on the plane wave n = {n:?} off its momentum-space \
                 form by {worst:e}"
            );
        }
    }
}

/// The staggered `m² − D_eo D_oe` on the even sites of `b = e^{ipx} χ` is `(m² + Σ sin²
/// p_μ) b` on the free field, in both time boundaries (the phases square away, and an
/// antiperiodic wave crosses the last slice with the operator's sign).
fn staggered_plane_waves() {
    let lat = Lattice::new([4, 6, 4, 8]).unwrap();
    let mass = 0.3;
    let unit = GaugeField::unit(lat).unwrap();
    let chi = ColorVector::new([c(0.4, -0.2), c(-0.1, 0.9), c(0.6, 0.3)]);
    for boundary in [TimeBoundary::Periodic, TimeBoundary::Antiperiodic] {
        let op = Staggered::with_boundary(&unit, mass, boundary).unwrap();
        assert_eq!(op.boundary(), boundary);
        for n in MOMENTA {
            let p = momentum(&lat, n, boundary);
            let eigenvalue = mass * mass + p.iter().map(|q| q.sin().powi(2)).sum::<f64>();
            let b: Vec<ColorVector<f64>> =
                (0..lat.volume()).map(|i| chi * wave(&lat, p, i)).collect();
            let mut scratch = op.vector().unwrap();
            let mut out =
                Fermion::filled(lat.volume(), ColorVector::new([c(f64::NAN, f64::NAN); 3]));
            op.apply(&Fermion::from_vec(b.clone()), &mut scratch, &mut out)
                .unwrap();
            let got = out.to_vec().unwrap();
            let mut worst: f64 = 0.0;
            for i in (0..lat.volume()).filter(|&i| lat.parity(i) == 0) {
                worst = worst.max((got[i] - b[i] * eigenvalue).norm2().sqrt());
            }
            assert!(
                worst < 1e-13,
                "{boundary} staggered normal operator on the plane wave n = {n:?} off \
                 m² + Σ sin² p by {worst:e}"
            );
        }
    }
}

/// The plane of the constant field, its flux quantum, and the charges of the three colours.
const PLANE: [usize; 4] = [8, 8, 2, 2];
const CHARGES: [f64; 3] = [1.0, 1.0, -2.0];
const BARE_MASS: f64 = 0.1;

/// The field strength `B = 2π / (L_x L_y)` of one flux quantum through the x-y plane.
fn flux_quantum() -> f64 {
    2.0 * PI / (PLANE[0] * PLANE[1]) as f64
}

/// A constant abelian field in the x-y plane, `diag(e^{i q_a θ})` with charges (1, 1, −2)
/// (traceless: an SU(3) field): `U_x(x, y) = e^{−i q B y}`, and on the last y row `U_y(x,
/// L_y − 1) = e^{i q B L_y x}`, which makes every x-y plaquette `e^{i q B}` on the torus.
fn constant_abelian_field(lat: Lattice) -> GaugeField {
    let b = flux_quantum();
    let phase = |angle: f64| {
        let mut m = ColorMatrix::<f64>::zero();
        for a in 0..3 {
            m.m[a][a] = c((CHARGES[a] * angle).cos(), (CHARGES[a] * angle).sin());
        }
        m
    };
    let host: HostLinks = (0..lat.volume())
        .map(|i| {
            let [x, y, _, _] = lat.coords(i);
            let mut links = [ColorMatrix::identity(); 4];
            links[0] = phase(-b * y as f64);
            if y == PLANE[1] - 1 {
                links[1] = phase(b * (PLANE[1] * x) as f64);
            }
            links
        })
        .collect();
    GaugeField::from_host(lat, host).unwrap()
}

/// The eigenvalue of the library's `D` of smallest magnitude on colour 0 (charge 1) and
/// fields constant in z and t, in units of the bare mass form (`λ / 2κ`): inverse iteration
/// with the library's even-odd BiCGStab (the subspace is invariant, and its lowest mode,
/// the would-be zero mode of the lowest Landau level, is isolated), then the Rayleigh
/// quotient.
fn lowest_mode(c_sw: f64) -> Complex<f64> {
    let lat = Lattice::new(PLANE).unwrap();
    let u = constant_abelian_field(lat);
    let kappa = 1.0 / (2.0 * (4.0 + BARE_MASS));
    let clover = Clover::new(&u, kappa, c_sw).unwrap();
    let op = Wilson::new(&u, kappa).with_clover(&clover).unwrap();
    let mut v: Vec<HostSpinor> = (0..lat.volume())
        .map(|i| {
            let [x, y, _, _] = lat.coords(i);
            std::array::from_fn(|s| {
                let mut w = ColorVector::zero();
                w[0] = c(1.0 + 0.1 * (x + 2 * s) as f64, 0.05 * (y * s) as f64);
                w
            })
        })
        .collect();
    let mut x = SpinorField::filled(lat.volume(), [ColorVector::zero(); 4]);
    let mut dx = SpinorField::filled(lat.volume(), [ColorVector::zero(); 4]);
    let mut quotient = c(0.0, 0.0);
    for _ in 0..40 {
        let norm = flat_norm(&v);
        v.iter_mut().for_each(|s| *s = s.map(|w| w * (1.0 / norm)));
        op.solve(
            &mut BiCgStab::new(1e-10, 2000),
            &SpinorField::from_vec(v.clone()),
            &mut x,
        )
        .unwrap();
        v = x.to_vec().unwrap();
        op.apply(&x, &mut dx).unwrap();
        let dv = dx.to_vec().unwrap();
        let next = flat_dot(&v, &dv) / flat_dot(&v, &v);
        if (next - quotient).norm() < 1e-8 {
            quotient = next;
            break;
        }
        quotient = next;
    }
    quotient / (2.0 * kappa)
}

fn flat_dot(a: &[HostSpinor], b: &[HostSpinor]) -> Complex<f64> {
    a.iter()
        .zip(b)
        .map(|(x, y)| (0..4).map(|s| x[s].dot(y[s])).sum::<Complex<f64>>())
        .sum()
}

fn flat_norm(a: &[HostSpinor]) -> f64 {
    flat_dot(a, a).re.sqrt()
}

/// The Sheikholeslami–Wohlert term's sign and normalisation from its purpose: in a constant
/// field `q B`, the Wilson term `−(a/2) D²` lifts the would-be zero modes of the lowest
/// Landau level by `a |q B| / 2` (their `−D²` is `|q B|`), and the clover term with
/// `c_sw = 1` cancels exactly that (Wilson + clover = `−(a/2) D̸²` + O(a²)). So the lowest
/// eigenvalue of `D` (mass form) is the bare mass with `c_sw = 1` up to O(a²), `m + a q B/2`
/// with `c_sw = 0`, and `m + a q B` with the opposite sign, `c_sw = −1`.
fn clover_term_cancels_the_wilson_term_in_a_constant_field() {
    let half_shift = flux_quantum() / 2.0; // a q B / 2 for q = 1, a = 1
    let shift = |c_sw: f64| {
        let lambda = lowest_mode(c_sw);
        assert!(
            lambda.im.abs() < 1e-8,
            "the lowest mode at c_sw = {c_sw} is not real: {lambda}"
        );
        (lambda.re - BARE_MASS) / half_shift
    };
    let (improved, wilson, opposite) = (shift(1.0), shift(0.0), shift(-1.0));
    eprintln!(
        "lowest-mode shifts in units of a q B / 2: c_sw = 1: {improved:.4}, 0: {wilson:.4}, \
         −1: {opposite:.4}"
    );
    assert!(
        (wilson - 1.0).abs() < 0.1,
        "without the clover term the shift is {wilson} × a q B/2, not 1"
    );
    assert!(
        (opposite - 2.0).abs() < 0.2,
        "with c_sw = −1 the shift is {opposite} × a q B/2, not 2"
    );
    assert!(
        improved.abs() < 0.1,
        "with c_sw = 1 the O(a) shift is {improved} × a q B/2: the clover term does not \
         cancel the Wilson term's (its sign or normalisation is wrong)"
    );
}

on_both_backends!(
    wilson_plane_waves_in_the_degrand_rossi_basis,
    staggered_plane_waves,
    clover_term_cancels_the_wilson_term_in_a_constant_field,
);

/// The kernels that put the time boundary into the links compile with NVRTC (no GPU needed:
/// the kernels' sources come from a CPU run).
#[cfg(feature = "cuda")]
#[test]
fn boundary_kernels_compile() {
    if !crate::support::require_nvrtc() {
        return;
    }
    let kernels = crate::support::cpu_kernel_sources(|| {
        let lat = Lattice::new([4; 4]).unwrap();
        let u = GaugeField::unit(lat).unwrap();
        Wilson::new(&u, 0.1)
            .with_boundary(TimeBoundary::Antiperiodic)
            .unwrap();
        Staggered::with_boundary(&u, 0.1, TimeBoundary::Antiperiodic).unwrap();
    });
    assert!(
        kernels.len() >= 3,
        "only {} distinct kernels",
        kernels.len()
    );
    crate::support::check_kernels_compile(&kernels);
}
