//! Scale setting (`ongpu::qcd::scale`) and the Polyakov loop: the Wilson loops and the
//! Polyakov loop against host walks along the links (from coordinates, independent of the
//! passes' shifts and recursion), on random links; gauge invariance of both; the unit
//! field's loops exactly 1; loops that reach past half the lattice refused. Both backends.

use ongpu::prelude::*;
use ongpu::qcd::gauge::{random_gauge_transformation, GaugeField, HostLinks};
use ongpu::qcd::scale::wilson_loops;
use ongpu::qcd::smearing::Smearing;

/// `U_mu` at `x`, and the site one step along `mu` (periodic), on the host.
fn step(lat: &Lattice, x: [usize; 4], mu: usize, forward: bool) -> [usize; 4] {
    let l = lat.extents();
    let mut y = x;
    y[mu] = if forward {
        (x[mu] + 1) % l[mu]
    } else {
        (x[mu] + l[mu] - 1) % l[mu]
    };
    y
}

/// The product of the links along `path` (directions, each forward or backward) from `x`.
fn walk(
    lat: &Lattice,
    links: &HostLinks,
    mut x: [usize; 4],
    path: &[(usize, bool)],
) -> ColorMatrix<f64> {
    let mut m = ColorMatrix::identity();
    for &(mu, forward) in path {
        if forward {
            m *= links[lat.index(x)][mu];
            x = step(lat, x, mu, true);
        } else {
            x = step(lat, x, mu, false);
            m *= links[lat.index(x)][mu].adj();
        }
    }
    m
}

/// `W(r, t)` on the host: each rectangle walked link by link, spatial sides on `spatial`,
/// temporal ones on `links` (the two fields meet at the corners, so each side is walked on
/// its own field and the four sides multiplied).
fn host_loop(lat: &Lattice, links: &HostLinks, spatial: &HostLinks, r: usize, t: usize) -> f64 {
    let mut sum = 0.0;
    for i in 0..lat.volume() {
        let x = lat.coords(i);
        for dir in 0..3 {
            let along = |n: usize, mu: usize, fwd: bool| vec![(mu, fwd); n];
            let bottom = walk(lat, spatial, x, &along(r, dir, true));
            let mut corner = x;
            for _ in 0..r {
                corner = step(lat, corner, dir, true);
            }
            let right = walk(lat, links, corner, &along(t, 3, true));
            let mut top_start = x;
            for _ in 0..t {
                top_start = step(lat, top_start, 3, true);
            }
            let top = walk(lat, spatial, top_start, &along(r, dir, true)).adj();
            let left = walk(lat, links, x, &along(t, 3, true)).adj();
            sum += (bottom * right * top * left).trace().re;
        }
    }
    sum / (9.0 * lat.volume() as f64)
}

fn loops_match_host_walks() {
    let lat = Lattice::new([4, 6, 4, 8]).unwrap();
    let u = GaugeField::random(lat, 81).unwrap();
    let before = u.to_host().unwrap();
    let mut smeared = u.try_clone().unwrap();
    assert!(
        smeared.to_host().unwrap() == before,
        "a clone is the field bit for bit"
    );
    Smearing::ape(lat, 0.5)
        .unwrap()
        .spatial()
        .apply(&mut smeared, 2)
        .unwrap();
    assert!(
        u.to_host().unwrap() == before,
        "smearing the clone left the field alone"
    );
    let w = wilson_loops(&u, &smeared, 2, 4).unwrap();
    let (links, spatial) = (u.to_host().unwrap(), smeared.to_host().unwrap());
    for r in 1..=2 {
        assert!(
            (w.get(r, 0) - 1.0).abs() < 1e-13,
            "W({r}, 0) = {}",
            w.get(r, 0)
        );
        for t in 1..=4 {
            let want = host_loop(&lat, &links, &spatial, r, t);
            let got = w.get(r, t);
            assert!(
                (got - want).abs() < 1e-13,
                "W({r}, {t}) = {got}, host {want}"
            );
        }
    }
    // Gauge invariance: the loops of the transformed links (both fields) are the same.
    let g = random_gauge_transformation(lat, 82).unwrap();
    let (mut ug, mut sg) = (u, smeared);
    ug.gauge_transform(&g).unwrap();
    sg.gauge_transform(&g).unwrap();
    let wg = wilson_loops(&ug, &sg, 2, 4).unwrap();
    for (a, b) in w.values().iter().zip(wg.values()) {
        assert!((a - b).abs() < 1e-12, "not gauge invariant: {a} vs {b}");
    }
}

fn unit_field_loops_are_one_and_bad_sizes_refused() {
    let lat = Lattice::new([4, 4, 6, 8]).unwrap();
    let u = GaugeField::unit(lat).unwrap();
    let w = wilson_loops(&u, &u, 2, 4).unwrap();
    assert!(w.values().iter().all(|v| (v - 1.0).abs() < 1e-14));
    assert!(wilson_loops(&u, &u, 3, 2).is_err(), "r past half of 4");
    assert!(wilson_loops(&u, &u, 2, 5).is_err(), "t past half of 8");
    assert!(wilson_loops(&u, &u, 0, 1).is_err());
    let other = GaugeField::unit(Lattice::new([4; 4]).unwrap()).unwrap();
    assert!(
        wilson_loops(&u, &other, 1, 1).is_err(),
        "fields on two lattices"
    );
}

fn polyakov_loop_matches_host_walk() {
    let lat = Lattice::new([4, 2, 4, 6]).unwrap();
    let u = GaugeField::random(lat, 83).unwrap();
    let links = u.to_host().unwrap();
    let mut want = Complex::new(0.0, 0.0);
    for i in 0..lat.volume() {
        let x = lat.coords(i);
        if x[3] == 0 {
            want += walk(&lat, &links, x, &[(3, true); 6]).trace();
        }
    }
    want /= 3.0 * (lat.volume() / 6) as f64;
    let got = u.polyakov_loop().unwrap();
    assert!((got - want).norm() < 1e-13, "{got} vs host {want}");
    let mut ug = u;
    ug.gauge_transform(&random_gauge_transformation(lat, 84).unwrap())
        .unwrap();
    assert!((ug.polyakov_loop().unwrap() - want).norm() < 1e-12);
    let unit = GaugeField::unit(lat).unwrap();
    assert!((unit.polyakov_loop().unwrap() - Complex::new(1.0, 0.0)).norm() < 1e-14);
}

on_both_backends!(
    loops_match_host_walks,
    unit_field_loops_are_one_and_bad_sizes_refused,
    polyakov_loop_matches_host_walk,
);

/// The kernels of the loops and the Polyakov loop compile with NVRTC (no GPU needed).
#[cfg(feature = "cuda")]
#[test]
fn scale_kernels_compile() {
    if !crate::support::require_nvrtc() {
        return;
    }
    let kernels = crate::support::cpu_kernel_sources(|| {
        let lat = Lattice::new([4; 4]).unwrap();
        let u = GaugeField::unit(lat).unwrap();
        wilson_loops(&u, &u, 2, 2).unwrap();
        u.polyakov_loop().unwrap();
    });
    assert!(
        kernels.len() >= 5,
        "only {} distinct kernels",
        kernels.len()
    );
    crate::support::check_kernels_compile(&kernels);
}
