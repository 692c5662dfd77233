//! su(3) on the device and the Wilson flow (`ongpu::qcd::gauge::algebra`, `ongpu::qcd::flow`),
//! checked by exact identities: `exp(X)` is unitary with determinant 1, equals a 30-term
//! Taylor series and inverts `exp(−X)`; the flow keeps the unit field, commutes with gauge
//! transformations, raises the plaquette, and its Runge–Kutta steps are third order; the
//! staples give the derivative of the action (a finite difference along a random
//! direction). On the CPU backend, and on the GPU with `--include-ignored`.

#[cfg(feature = "cuda")]
use crate::support;

use ongpu::prelude::*;
use ongpu::qcd::flow::{t0, w0_squared, FlowPoint, WilsonFlow};
use ongpu::qcd::gauge::algebra::{exp_su3, traceless_antihermitian};
use ongpu::qcd::gauge::su3::{determinant, random_matrix};
use ongpu::qcd::gauge::{random_gauge_transformation, GaugeField, LinksOf};
use ongpu::qcd::SiteLayout;
use rand::SeedableRng;

type Matrices = Field<ColorMatrix<f64>, SiteLayout>;

/// The traceless anti-Hermitian part of a matrix, on the host.
fn host_ta(m: &ColorMatrix<f64>) -> ColorMatrix<f64> {
    let a = (*m - m.adj()) * 0.5;
    a - ColorMatrix::identity() * (a.trace() * (1.0 / 3.0))
}

/// `exp(X)` by a 30-term Taylor series on the host (after halving X until |X| ≤ 2, and
/// squaring back).
fn host_exp(x: &ColorMatrix<f64>) -> ColorMatrix<f64> {
    let mut k = 0;
    let mut y = *x;
    while y.norm2() > 4.0 {
        y *= 0.5;
        k += 1;
    }
    let mut term = ColorMatrix::identity();
    let mut sum = term;
    for n in 1..=30 {
        term = term * y * (1.0 / n as f64);
        sum += term;
    }
    for _ in 0..k {
        sum = sum * sum;
    }
    sum
}

fn max_entry(m: &ColorMatrix<f64>) -> f64 {
    m.m.iter().flatten().map(|z| z.norm()).fold(0.0, f64::max)
}

/// Random traceless anti-Hermitian matrices scaled to Frobenius norms from 1e-3 to 5.
fn random_algebra(n: usize, seed: u64) -> Vec<ColorMatrix<f64>> {
    let mut r = rand::rngs::SmallRng::seed_from_u64(seed);
    let norms = [1e-3, 0.1, 0.9, 2.0, 5.0];
    (0..n)
        .map(|i| {
            let x = host_ta(&random_matrix(&mut r));
            x * (norms[i % norms.len()] / x.norm2().sqrt())
        })
        .collect()
}

/// exp(X): unitary, determinant 1, the Taylor series, and exp(X) exp(−X) = 1.
fn exponential() {
    let xs = random_algebra(500, 1);
    let x: Matrices = Field::from_vec(xs.clone());
    let mut e: Matrices = Field::filled(xs.len(), ColorMatrix::identity() * f64::NAN);
    let mut back: Matrices = Field::filled(xs.len(), ColorMatrix::identity() * f64::NAN);
    on_gpu!({
        e = exp_su3(x);
        back = exp_su3(x) * exp_su3(x * -1.0);
    })
    .unwrap();
    let (e, back) = (e.to_vec().unwrap(), back.to_vec().unwrap());
    let one = ColorMatrix::<f64>::identity();
    for (i, xi) in xs.iter().enumerate() {
        let unitary = max_entry(&(e[i] * e[i].adj() - one));
        let det = (determinant(&e[i]) - Complex::new(1.0, 0.0)).norm();
        let taylor = max_entry(&(e[i] - host_exp(xi)));
        let inverse = max_entry(&(back[i] - one));
        assert!(
            unitary <= 1e-14 && det <= 1e-14 && taylor <= 1e-13 && inverse <= 1e-14,
            "|X| = {}: unitarity {unitary:e}, det {det:e}, Taylor {taylor:e}, inverse {inverse:e}",
            xi.norm2().sqrt()
        );
    }
}

/// The projection onto su(3) is traceless, anti-Hermitian, and leaves su(3) as it is.
fn projection() {
    let mut r = rand::rngs::SmallRng::seed_from_u64(2);
    let ms: Vec<ColorMatrix<f64>> = (0..200).map(|_| random_matrix(&mut r)).collect();
    let m: Matrices = Field::from_vec(ms.clone());
    let mut p: Matrices = Field::zeros(ms.len());
    let mut pp: Matrices = Field::zeros(ms.len());
    on_gpu!({
        p = traceless_antihermitian(m);
        pp = traceless_antihermitian(traceless_antihermitian(m));
    })
    .unwrap();
    for ((mi, pi), ppi) in ms.iter().zip(p.to_vec().unwrap()).zip(pp.to_vec().unwrap()) {
        assert!(max_entry(&(pi + pi.adj())) <= 1e-15);
        assert!(pi.trace().norm() <= 1e-15);
        assert!(max_entry(&(pi - host_ta(mi))) <= 1e-15);
        assert!(max_entry(&(ppi - pi)) <= 1e-15);
    }
}

fn flowed(u: &GaugeField, eps: f64, steps: usize) -> (GaugeField, FlowPoint) {
    let mut v = GaugeField::from_links(u.lattice(), Field::from_vec(u.to_host().unwrap())).unwrap();
    let mut flow = WilsonFlow::new(u.lattice(), eps).unwrap();
    for _ in 0..steps {
        flow.step(&mut v).unwrap();
    }
    let point = flow.measure(&v).unwrap();
    (v, point)
}

fn link_distance(a: &GaugeField, b: &GaugeField) -> f64 {
    let (a, b) = (a.to_host().unwrap(), b.to_host().unwrap());
    a.iter()
        .zip(&b)
        .flat_map(|(x, y)| (0..4).map(move |mu| max_entry(&(x[mu] - y[mu]))))
        .fold(0.0, f64::max)
}

/// The unit field is a fixed point with E = 0; flowing a rough field raises the plaquette at
/// every step and keeps the links in SU(3); near the continuum E falls at every step.
fn flow_smooths() {
    let lat = Lattice::new([4, 4, 4, 6]).unwrap();
    let (unit, p) = flowed(&GaugeField::unit(lat).unwrap(), 0.05, 4);
    assert_eq!(p.energy, 0.0);
    assert_eq!(p.plaquette, 1.0);
    assert!(link_distance(&unit, &GaugeField::unit(lat).unwrap()) <= 1e-15);
    let mut u = GaugeField::random(lat, 3).unwrap();
    let mut flow = WilsonFlow::new(lat, 0.02).unwrap();
    let first = flow.measure(&u).unwrap();
    let mut last = first;
    for _ in 0..20 {
        flow.step(&mut u).unwrap();
        let p = flow.measure(&u).unwrap();
        // The flow descends the Wilson action: the plaquette rises at every step (the clover
        // E is not the action, and may rise at first from random links).
        assert!(p.plaquette > last.plaquette, "{last:?} → {p:?}");
        last = p;
    }
    assert!(
        last.plaquette > first.plaquette + 0.3,
        "{first:?} → {last:?}"
    );
    // Near the continuum (links near the identity) E falls at every step.
    let mut v = GaugeField::smooth(lat, 0.3, 9).unwrap();
    let mut flow = WilsonFlow::new(lat, 0.02).unwrap();
    let mut e = flow.measure(&v).unwrap().energy;
    for _ in 0..10 {
        flow.step(&mut v).unwrap();
        let next = flow.measure(&v).unwrap().energy;
        assert!(next < e, "E {e} → {next}");
        e = next;
    }
    assert!((last.t - 0.4).abs() < 1e-12);
    for links in u.to_host().unwrap() {
        for m in links {
            assert!(max_entry(&(m * m.adj() - ColorMatrix::identity())) <= 1e-13);
        }
    }
}

/// Flowing a gauge transform is the gauge transform of the flowed field: V_t[Ω U] = Ω V_t[U].
fn gauge_covariance() {
    let lat = Lattice::new([4, 4, 6, 4]).unwrap();
    let u = GaugeField::random(lat, 4).unwrap();
    let omega = random_gauge_transformation(lat, 5).unwrap();
    let mut w = GaugeField::from_links(lat, Field::from_vec(u.to_host().unwrap())).unwrap();
    w.gauge_transform(&omega).unwrap();
    let (mut uf, pu) = flowed(&u, 0.03, 5);
    let (wf, pw) = flowed(&w, 0.03, 5);
    uf.gauge_transform(&omega).unwrap();
    let d = link_distance(&uf, &wf);
    assert!(d <= 1e-12, "links differ by {d:e}");
    assert!((pu.energy - pw.energy).abs() <= 1e-12 * pu.energy);
    assert!((pu.charge - pw.charge).abs() <= 1e-10);
}

/// Lüscher's scheme is third order: halving ε divides the error at a fixed flow time by 8.
fn third_order() {
    let lat = Lattice::new([4; 4]).unwrap();
    let u = GaugeField::smooth(lat, 0.4, 6).unwrap();
    let (reference, _) = flowed(&u, 0.24 / 64.0, 64);
    let errors: Vec<f64> = [3, 6, 12]
        .iter()
        .map(|&n| link_distance(&flowed(&u, 0.24 / n as f64, n).0, &reference))
        .collect();
    for w in errors.windows(2) {
        let ratio = w[0] / w[1];
        assert!(
            (6.0..=11.0).contains(&ratio),
            "errors {errors:?}: ratio {ratio}"
        );
    }
}

/// The staples give the derivative of the action: d/ds Σ_p Re tr U_p(e^{sX} U) at s = 0 is
/// Σ_{x,mu} Re tr(X_mu(x) U_mu(x) A_mu(x)), against a central difference.
fn staples_are_the_derivative() {
    let lat = Lattice::new([4, 4, 4, 6]).unwrap();
    let u = GaugeField::random(lat, 7).unwrap();
    let v = lat.volume();
    let mut r = rand::rngs::SmallRng::seed_from_u64(8);
    let xs: Vec<[ColorMatrix<f64>; 4]> = (0..v)
        .map(|_| std::array::from_fn(|_| host_ta(&random_matrix(&mut r))))
        .collect();
    let x: Field<[ColorMatrix<f64>; 4], SiteLayout> = Field::from_vec(xs);
    let plaquettes = |s: f64| -> f64 {
        let mut w = GaugeField::from_links(lat, Field::from_vec(u.to_host().unwrap())).unwrap();
        let links = w.links_mut();
        on_gpu!(lat, {
            for mu in 0..4 {
                links[mu] = exp_su3(x[mu] * s) * links[mu];
            }
        })
        .unwrap();
        w.plaquette().unwrap() * 18.0 * v as f64
    };
    let mut derivative = 0.0;
    let mut staple: Matrices = Field::zeros(v);
    for mu in 0..4usize {
        u.staples(mu, lat.all(), &mut staple).unwrap();
        let links = u.links();
        let part: f64 = on_gpu!(sum: lat, { (x[mu] * links[mu] * staple).trace().re }).unwrap();
        derivative += part;
    }
    let s = 1e-4;
    let difference = (plaquettes(s) - plaquettes(-s)) / (2.0 * s);
    assert!(
        (difference - derivative).abs() <= 1e-6 * derivative.abs(),
        "finite difference {difference}, staples {derivative}"
    );
}

/// t₀ and w₀² by interpolation on a made-up history t²E = t/2 (so t₀ = 0.6, and
/// t d/dt(t²E) = t/2 gives w₀² = 0.6), and `None` when the history stays below 0.3.
fn scales_interpolate() {
    let history: Vec<FlowPoint> = (0..=20)
        .map(|k| {
            let t = 0.1 * k as f64;
            FlowPoint {
                t,
                energy: 0.0,
                t2e: 0.5 * t,
                charge: 0.0,
                plaquette: 1.0,
            }
        })
        .collect();
    assert!((t0(&history).unwrap() - 0.6).abs() < 1e-12);
    assert!((w0_squared(&history).unwrap() - 0.6).abs() < 1e-12);
    assert_eq!(t0(&history[..5]), None);
    assert!(WilsonFlow::new(Lattice::new([4; 4]).unwrap(), -0.1).is_err());
}

/// A constant abelian field with `n` units of flux in the (0, 1) planes and `m` in the
/// (2, 3) planes, embedded as `diag(e^{iφ}, e^{−iφ}, 1)`: every plaquette of the (0, 1)
/// planes has the angle `θ₁ = 2πn/(L₀L₁)` (the transition at the last slice keeps it
/// periodic), those of the (2, 3) planes `θ₂ = 2πm/(L₂L₃)`, the others 0. Its clover field
/// strength is `G₀₁ = i sin θ₁ H`, `G₂₃ = i sin θ₂ H` (`H = diag(1, −1, 0)`), so exactly
/// `E = 2 sin²θ₁ + 2 sin²θ₂` and `Q = V sin θ₁ sin θ₂ / π² = 2nm sinc θ₁ sinc θ₂`: the
/// second Chern number `2nm` of the bundle `L ⊕ L⁻¹`, times the clover's lattice factor.
fn abelian_flux(lat: Lattice, n: i32, m: i32) -> (GaugeField, f64, f64) {
    let l = lat.extents();
    let theta1 = 2.0 * std::f64::consts::PI * n as f64 / (l[0] * l[1]) as f64;
    let theta2 = 2.0 * std::f64::consts::PI * m as f64 / (l[2] * l[3]) as f64;
    let phase = |phi: f64| {
        let mut u = ColorMatrix::identity();
        u.m[0][0] = Complex::new(phi.cos(), phi.sin());
        u.m[1][1] = Complex::new(phi.cos(), -phi.sin());
        u
    };
    let links = (0..lat.volume())
        .map(|i| {
            let x = lat.coords(i).map(|c| c as f64);
            let last = |mu: usize| lat.coord(i, mu) == l[mu] - 1;
            [
                phase(-theta1 * x[1]),
                phase(if last(1) {
                    theta1 * l[1] as f64 * x[0]
                } else {
                    0.0
                }),
                phase(-theta2 * x[3]),
                phase(if last(3) {
                    theta2 * l[3] as f64 * x[2]
                } else {
                    0.0
                }),
            ]
        })
        .collect();
    let u = GaugeField::from_links(lat, Field::from_vec(links)).unwrap();
    let energy = 2.0 * (theta1.sin().powi(2) + theta2.sin().powi(2));
    let sinc = |t: f64| if t == 0.0 { 1.0 } else { t.sin() / t };
    let charge = 2.0 * (n * m) as f64 * sinc(theta1) * sinc(theta2);
    (u, energy, charge)
}

/// The topological charge and the energy density of constant abelian fields are their exact
/// values (the charge an integer `2nm` up to the clover's `sinc θ₁ sinc θ₂`, of either sign);
/// such a field solves the equations of motion, so the flow leaves it in place; with noise
/// added, the flow brings `Q` back to that value.
fn topological_charge() {
    let lat = Lattice::new([6; 4]).unwrap();
    for (n, m) in [(1, 1), (1, -2), (0, 3)] {
        let (u, energy, charge) = abelian_flux(lat, n, m);
        let (v, p) = flowed(&u, 0.05, 2);
        assert!(
            (p.charge - charge).abs() <= 1e-12 && (p.energy - energy).abs() <= 1e-12,
            "n = {n}, m = {m}: Q = {} (exactly {charge}), E = {} (exactly {energy})",
            p.charge,
            p.energy
        );
        assert!(link_distance(&u, &v) <= 1e-13, "a classical solution stays");
    }
    let (u, _, charge) = abelian_flux(lat, 1, 1);
    let omega = random_gauge_transformation(lat, 7).unwrap();
    let mut noisy = GaugeField::from_links(lat, Field::from_vec(u.to_host().unwrap())).unwrap();
    let kicks: Vec<_> = random_algebra(4 * lat.volume(), 8)
        .into_iter()
        .map(|x| host_exp(&(x * (0.3 / x.norm2().sqrt()))))
        .collect();
    let noise: LinksOf<Lattice> =
        Field::from_vec(kicks.chunks(4).map(|k| [k[0], k[1], k[2], k[3]]).collect());
    let links = noisy.links_mut();
    on_gpu!(lat, {
        for mu in 0..4 {
            links[mu] = noise[mu] * links[mu];
        }
    })
    .unwrap();
    noisy.gauge_transform(&omega).unwrap();
    let mut flow = WilsonFlow::new(lat, 0.05).unwrap();
    let rough = flow.measure(&noisy).unwrap().charge;
    for _ in 0..20 {
        flow.step(&mut noisy).unwrap();
    }
    let smooth = flow.measure(&noisy).unwrap().charge;
    assert!(
        (smooth - charge).abs() <= 0.02 && (rough - charge).abs() > 0.05,
        "Q = {rough} with noise, {smooth} after flow time 1, exactly {charge} without noise"
    );
}

/// The flow's speed, checked by physics rather than by its own discretisation: a small
/// abelian plane wave `U_0(x) = exp(i ε cos(p x_1) λ)`, `λ = diag(1, −1, 0)`, polarised
/// across its momentum, obeys the linearised flow `θ̇ = −p̂² θ` with `p̂² = 4 sin²(p/2)`
/// (the staples give `−(2θ(x) − θ(x+1̂) − θ(x−1̂))`), so it decays as `exp(−p̂² t)`. A global
/// factor in the flow's time (which third-order convergence cannot see) would change the
/// rate. At ε = 1e-4 the nonlinear terms are 1e-8 of it.
fn plane_wave_decays_at_the_lattice_momentum() {
    let lat = Lattice::new([4, 8, 4, 4]).unwrap();
    let (amplitude, p) = (1e-4, std::f64::consts::TAU / 8.0);
    let phase = |theta: f64| {
        let mut m = ColorMatrix::identity();
        m[0][0] = Complex::new(theta.cos(), theta.sin());
        m[1][1] = Complex::new(theta.cos(), -theta.sin());
        m
    };
    let links = (0..lat.volume())
        .map(|i| {
            let x1 = lat.coord(i, 1) as f64;
            let mut l = [ColorMatrix::identity(); 4];
            l[0] = phase(amplitude * (p * x1).cos());
            l
        })
        .collect();
    let mut u = GaugeField::from_host(lat, links).unwrap();
    let mut flow = WilsonFlow::new(lat, 0.02).unwrap();
    for _ in 0..50 {
        flow.step(&mut u).unwrap();
    }
    let t = flow.time();
    assert!((t - 1.0).abs() < 1e-12, "flow time {t}");
    let decay = (-4.0 * (p / 2.0).sin().powi(2) * t).exp();
    let mut worst: f64 = 0.0;
    for (i, l) in u.to_host().unwrap().iter().enumerate() {
        let want = amplitude * (p * lat.coord(i, 1) as f64).cos() * decay;
        worst = worst.max((l[0][0][0].arg() - want).abs());
        worst = worst.max((l[0][1][1].arg() + want).abs());
        for other in &l[1..] {
            worst = worst.max(other[0][0].arg().abs());
        }
    }
    assert!(
        worst < 1e-6 * amplitude,
        "the plane wave is off exp(-p^2 t) by {worst:e} (amplitude {amplitude:e}, decay {decay})"
    );
}

on_both_backends!(
    plane_wave_decays_at_the_lattice_momentum,
    exponential,
    projection,
    flow_smooths,
    gauge_covariance,
    third_order,
    staples_are_the_derivative,
    topological_charge,
    scales_interpolate
);

/// The kernels compile with the real NVRTC for Hopper and Ampere, without warnings, and
/// the library's without local memory.
#[cfg(feature = "cuda")]
#[test]
fn kernels_compile_with_nvrtc() {
    if !support::require_nvrtc() {
        return;
    }
    // The tests' own kernels compile; the library's (the flow, the transformations and the
    // measurements) stay in registers too.
    let tests = support::cpu_kernel_sources(|| {
        exponential();
        projection();
    });
    support::check_kernels_compile(&tests);
    let library = support::cpu_kernel_sources(gauge_covariance);
    support::check_kernels_stay_in_registers(&library);
}
