//! APE and stout smearing (`ongpu::qcd::smearing`) and the polar SU(3) projection APE uses,
//! checked by exact properties: the projection is unitary with determinant 1, fixes SU(3)
//! and commutes with `m → g m h†`; smearing keeps links in SU(3), raises the plaquette, is
//! gauge covariant, does nothing at zero weight, leaves the time links alone when spatial;
//! and stout steps of `ρ = t/n` are Euler steps of the Wilson flow, approaching the flow at
//! time `t` as `1/n`. On the CPU backend, and on the GPU with `--include-ignored`.

#[cfg(feature = "cuda")]
use crate::support;
use crate::support::md;

use md::{copy, distance, max_entry};
use ongpu::prelude::*;
use ongpu::qcd::flow::WilsonFlow;
use ongpu::qcd::gauge::su3::{determinant, random_matrix, random_su3};
use ongpu::qcd::gauge::{polar_su3, random_gauge_transformation, GaugeField};
use ongpu::qcd::smearing::Smearing;
use ongpu::qcd::SiteLayout;
use rand::SeedableRng;

type Matrices = Field<ColorMatrix<f64>, SiteLayout>;

fn distance_from_su3(m: &ColorMatrix<f64>) -> f64 {
    let unitary = max_entry(&(*m * m.adj() - ColorMatrix::identity()));
    unitary.max((determinant(m) - Complex::new(1.0, 0.0)).norm())
}

fn worst_su3(u: &GaugeField) -> f64 {
    u.to_host()
        .unwrap()
        .iter()
        .flatten()
        .map(distance_from_su3)
        .fold(0.0, f64::max)
}

/// The polar projection of random matrices is in SU(3) and commutes with `m → g m h†`; of
/// an SU(3) matrix times a positive number it is the matrix.
fn polar_projection() {
    let mut r = rand::rngs::SmallRng::seed_from_u64(1);
    let n = 300;
    let ms: Vec<_> = (0..n).map(|_| random_matrix(&mut r)).collect();
    let gs: Vec<_> = (0..n).map(|_| random_su3(&mut r)).collect();
    let hs: Vec<_> = (0..n).map(|_| random_su3(&mut r)).collect();
    let (m, g, h): (Matrices, Matrices, Matrices) = (
        Field::from_vec(ms.clone()),
        Field::from_vec(gs.clone()),
        Field::from_vec(hs.clone()),
    );
    let nan = ColorMatrix::identity() * f64::NAN;
    let (mut p, mut moved, mut fixed): (Matrices, Matrices, Matrices) = (
        Field::filled(n, nan),
        Field::filled(n, nan),
        Field::filled(n, nan),
    );
    on_gpu!({
        p = polar_su3(m);
        moved = polar_su3(g * m * h.adj());
        fixed = polar_su3(g * 2.5);
    })
    .unwrap();
    let (p, moved, fixed) = (
        p.to_vec().unwrap(),
        moved.to_vec().unwrap(),
        fixed.to_vec().unwrap(),
    );
    for i in 0..n {
        let su3 = distance_from_su3(&p[i]);
        let covariant = max_entry(&(moved[i] - gs[i] * p[i] * hs[i].adj()));
        let fixes = max_entry(&(fixed[i] - gs[i]));
        assert!(
            su3 <= 1e-14 && covariant <= 1e-13 && fixes <= 1e-14,
            "matrix {i}: SU(3) {su3:e}, covariance {covariant:e}, fixed point {fixes:e}"
        );
    }
}

fn rough(lat: Lattice) -> GaugeField {
    GaugeField::smooth(lat, 0.9, 2).unwrap()
}

/// Both smearings, in four and in three directions: links stay in SU(3), the plaquette
/// rises at every step, the spatial ones leave the time links as they were, the unit field
/// stays.
fn smearing_smooths() {
    let lat = Lattice::new([4, 4, 4, 6]).unwrap();
    let kinds = [
        Smearing::ape(lat, 0.5).unwrap(),
        Smearing::stout(lat, 0.1).unwrap(),
        Smearing::ape(lat, 0.5).unwrap().spatial(),
        Smearing::stout(lat, 0.1).unwrap().spatial(),
    ];
    for (k, mut smearing) in kinds.into_iter().enumerate() {
        let spatial = k >= 2;
        let mut u = rough(lat);
        let before = u.to_host().unwrap();
        let mut last = u.plaquette().unwrap();
        for _ in 0..4 {
            smearing.apply(&mut u, 1).unwrap();
            let p = u.plaquette().unwrap();
            assert!(p > last, "{:?}: plaquette {last} → {p}", smearing.kind());
            last = p;
        }
        assert!(worst_su3(&u) <= 1e-13, "{:?}", smearing.kind());
        let after = u.to_host().unwrap();
        let time_moved = before
            .iter()
            .zip(&after)
            .map(|(a, b)| max_entry(&(a[3] - b[3])))
            .fold(0.0, f64::max);
        assert_eq!(time_moved == 0.0, spatial, "{:?}", smearing.kind());
        let mut unit = GaugeField::unit(lat).unwrap();
        smearing.apply(&mut unit, 2).unwrap();
        assert!(
            distance(
                &unit.to_host().unwrap(),
                &GaugeField::unit(lat).unwrap().to_host().unwrap()
            ) <= 1e-15
        );
    }
}

/// Smearing a gauge transform is the gauge transform of the smeared field, and a zero
/// weight leaves the links as they are.
fn covariance_and_zero_weight() {
    let lat = Lattice::new([4, 4, 6, 4]).unwrap();
    let u = rough(lat);
    let omega = random_gauge_transformation(lat, 3).unwrap();
    for mut smearing in [
        Smearing::ape(lat, 0.6).unwrap(),
        Smearing::stout(lat, 0.12).unwrap(),
        Smearing::ape(lat, 0.6).unwrap().spatial(),
    ] {
        let mut a = copy(&u);
        a.gauge_transform(&omega).unwrap();
        smearing.apply(&mut a, 3).unwrap();
        let mut b = copy(&u);
        smearing.apply(&mut b, 3).unwrap();
        b.gauge_transform(&omega).unwrap();
        let d = distance(&a.to_host().unwrap(), &b.to_host().unwrap());
        assert!(d <= 1e-12, "{:?}: links differ by {d:e}", smearing.kind());
    }
    let host = u.to_host().unwrap();
    let mut w = copy(&u);
    Smearing::stout(lat, 0.0).unwrap().apply(&mut w, 2).unwrap();
    assert_eq!(w.to_host().unwrap(), host);
    Smearing::ape(lat, 0.0).unwrap().apply(&mut w, 2).unwrap();
    assert!(distance(&w.to_host().unwrap(), &host) <= 1e-14);
    assert!(Smearing::ape(lat, 1.5).is_err() && Smearing::ape(lat, -0.1).is_err());
    assert!(Smearing::stout(lat, -0.1).is_err() && Smearing::stout(lat, f64::NAN).is_err());
    let other = Lattice::new([4; 4]).unwrap();
    assert!(Smearing::stout(other, 0.1)
        .unwrap()
        .apply(&mut w, 1)
        .is_err());
}

/// `n` stout steps of `ρ = t/n` are Euler steps of the Wilson flow: their distance from the
/// flow at time `t` (Lüscher's third-order scheme, 64 steps) halves when `n` doubles.
fn stout_is_the_euler_flow() {
    let lat = Lattice::new([4; 4]).unwrap();
    let u = GaugeField::smooth(lat, 0.4, 4).unwrap();
    let t = 0.2;
    let mut flowed = copy(&u);
    let mut flow = WilsonFlow::new(lat, t / 64.0).unwrap();
    for _ in 0..64 {
        flow.step(&mut flowed).unwrap();
    }
    let flowed = flowed.to_host().unwrap();
    let errors: Vec<f64> = [4, 8, 16]
        .into_iter()
        .map(|n| {
            let mut w = copy(&u);
            Smearing::stout(lat, t / n as f64)
                .unwrap()
                .apply(&mut w, n)
                .unwrap();
            distance(&w.to_host().unwrap(), &flowed)
        })
        .collect();
    for e in errors.windows(2) {
        let ratio = e[0] / e[1];
        assert!(
            (1.7..=2.3).contains(&ratio),
            "errors {errors:?}: ratio {ratio}"
        );
    }
}

on_both_backends!(
    polar_projection,
    smearing_smooths,
    covariance_and_zero_weight,
    stout_is_the_euler_flow
);

/// The kernels compile with the real NVRTC for Hopper and Ampere, without warnings, and
/// the smearing passes without local memory.
#[cfg(feature = "cuda")]
#[test]
fn kernels_compile_with_nvrtc() {
    if !support::require_nvrtc() {
        return;
    }
    support::check_kernels_compile(&support::cpu_kernel_sources(polar_projection));
    let library = support::cpu_kernel_sources(|| {
        let lat = Lattice::new([4; 4]).unwrap();
        let mut u = rough(lat);
        for mut s in [
            Smearing::ape(lat, 0.5).unwrap(),
            Smearing::stout(lat, 0.1).unwrap(),
            Smearing::ape(lat, 0.5).unwrap().spatial(),
            Smearing::stout(lat, 0.1).unwrap().spatial(),
        ] {
            s.apply(&mut u, 1).unwrap();
        }
    });
    support::check_kernels_stay_in_registers(&library);
}
