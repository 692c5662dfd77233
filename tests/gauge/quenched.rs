//! The quenched updates of `ongpu::qcd` (`gauge`, `quenched`), checked against physics: exact special cases (the cold
//! start, overrelaxation conserving the action exactly), the group (links stay in SU(3)),
//! and the strong-coupling limit, where the plaquette is the one-plaquette integral
//! `u(β) = ⟨Re tr U / 3⟩` with weight `exp((β/3) Re tr U)` up to O(u⁵) (the first closed
//! surface, a cube), computed here from the Weyl integration formula.

#[cfg(feature = "cuda")]
use crate::support;

use ongpu::prelude::*;
use ongpu::qcd::gauge::{random_gauge_transformation, su3, GaugeField};
use ongpu::qcd::quenched::{su2_x0, QuenchedUpdate};
use ongpu::qcd::{nersc, stats};
use ongpu::{with_backend, Backend};

/// A chain on the test lattice: a hot or cold start and the updates that continue it.
fn chain(hot: bool, seed: u64) -> (GaugeField, QuenchedUpdate) {
    let lat = lattice();
    if hot {
        let u = GaugeField::hot(lat, seed).unwrap();
        (u, QuenchedUpdate::resume(lat, seed, 1))
    } else {
        (
            GaugeField::unit(lat).unwrap(),
            QuenchedUpdate::new(lat, seed),
        )
    }
}

fn lattice() -> Lattice {
    Lattice::new([4, 4, 4, 4]).unwrap()
}

/// The largest deviation of the links from SU(3): `|U†U − 1|` entries and `|det U − 1|`.
fn distance_from_su3(u: &[[ColorMatrix<f64>; 4]]) -> f64 {
    u.iter()
        .flatten()
        .map(su3::distance_from_su3)
        .fold(0.0, f64::max)
}

fn cold_start_is_ordered() {
    let (u, _) = chain(false, 1);
    assert_eq!(u.plaquette().unwrap(), 1.0);
    assert_eq!(u.link_trace().unwrap(), 1.0);
}

fn updates_stay_in_su3() {
    let (mut u, mut update) = chain(true, 2);
    assert!(distance_from_su3(&u.to_host().unwrap()) < 1e-13);
    update.heatbath(&mut u, 5.7).unwrap();
    update.overrelax(&mut u).unwrap();
    let d = distance_from_su3(&u.to_host().unwrap());
    assert!(d < 1e-13, "links are {d:e} from SU(3)");
}

/// Each overrelaxation step keeps its link's local action, so a whole sweep keeps the action:
/// the plaquette is unchanged up to rounding, while the links move.
fn overrelaxation_conserves_the_action() {
    let (mut u, mut update) = chain(true, 3);
    for _ in 0..3 {
        update.heatbath(&mut u, 6.0).unwrap();
    }
    let before = u.plaquette().unwrap();
    let links_before = u.to_host().unwrap();
    update.overrelax(&mut u).unwrap();
    let after = u.plaquette().unwrap();
    assert!(
        (after - before).abs() < 1e-13,
        "plaquette {before} → {after}"
    );
    let moved = u
        .to_host()
        .unwrap()
        .iter()
        .zip(&links_before)
        .map(|(a, b)| (a[0] - b[0]).norm2())
        .fold(0.0, f64::max);
    assert!(moved > 1e-2, "overrelaxation left the links in place");
}

/// `u(β) = ⟨Re tr U / 3⟩` under `exp((β/3) Re tr U)` on SU(3): eigenphases (a, b, −a−b),
/// Haar density ∝ Π_{i<j} |e^{iθ_i} − e^{iθ_j}|², periodic trapezoid rule (exponentially
/// accurate for smooth periodic integrands).
fn one_plaquette(beta: f64) -> f64 {
    let n = 256;
    let h = std::f64::consts::TAU / n as f64;
    let (mut num, mut den) = (0.0, 0.0);
    for i in 0..n {
        for j in 0..n {
            let t = [i as f64 * h, j as f64 * h, -(i as f64 + j as f64) * h];
            let mut vandermonde = 1.0;
            for (p, q) in [(0, 1), (0, 2), (1, 2)] {
                vandermonde *= 2.0 - 2.0 * (t[p] - t[q]).cos();
            }
            let re_tr = t.iter().map(|x| x.cos()).sum::<f64>();
            let w = vandermonde * (beta / 3.0 * re_tr).exp();
            num += w * re_tr / 3.0;
            den += w;
        }
    }
    num / den
}

fn strong_coupling_plaquette() {
    // The series u = β/18 + β²/216 + O(β⁴) checks the integral itself.
    let b = 0.1;
    assert!((one_plaquette(b) - (b / 18.0 + b * b / 216.0)).abs() < 1e-6);
    let beta = 1.5;
    let u = one_plaquette(beta);
    let (mut links, mut update) = chain(true, 4);
    for _ in 0..10 {
        update.heatbath(&mut links, beta).unwrap();
    }
    let history: Vec<f64> = (0..150)
        .map(|_| {
            update.heatbath(&mut links, beta).unwrap();
            links.plaquette().unwrap()
        })
        .collect();
    let s = stats::summarise(&history);
    eprintln!(
        "strong coupling: <P> = {} ± {}, u(β) = {u}, β/18 = {}",
        s.mean,
        s.error,
        beta / 18.0
    );
    // Cube corrections: 4u⁵ ≈ 3e-5 here, far below the statistical error.
    let bound = 5.0 * s.error + 4.0 * u.powi(5);
    assert!(
        (s.mean - u).abs() < bound,
        "<P> = {} ± {} at β = {beta}, one-plaquette u = {u}",
        s.mean,
        s.error
    );
    // The leading term alone (β/18) is excluded: the heatbath sees the β² term.
    assert!((s.mean - beta / 18.0).abs() > 5.0 * s.error);
}

/// A chain saved to a NERSC file and continued from it goes on exactly as the chain kept in
/// memory: the file holds the links to the bit, and its sequence number moves the random
/// streams past those used.
fn saved_chains_continue_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.nersc");
    let (mut u, mut update) = chain(true, 6);
    update.heatbath(&mut u, 5.7).unwrap();
    let ensemble = nersc::Ensemble {
        sequence_number: update.sweeps_done(),
        ..Default::default()
    };
    let header = u.write_nersc(&path, Default::default(), &ensemble).unwrap();
    assert!((header.plaquette - u.plaquette().unwrap()).abs() < 1e-12);
    let (mut loaded, header) = GaugeField::read_nersc(&path).unwrap();
    assert_eq!(loaded.lattice(), u.lattice());
    assert_eq!(loaded.to_host().unwrap(), u.to_host().unwrap());
    let done = header.get("SEQUENCE_NUMBER").unwrap().parse().unwrap();
    assert_eq!(done, 2, "the hot start and one sweep");
    let mut resumed = QuenchedUpdate::resume(loaded.lattice(), 6, done);
    update.heatbath(&mut u, 5.7).unwrap();
    resumed.heatbath(&mut loaded, 5.7).unwrap();
    assert_eq!(loaded.to_host().unwrap(), u.to_host().unwrap());
}

/// Gauge invariance, exactly as the library states it: a random gauge transformation keeps
/// the plaquette (to rounding) and the links in SU(3), while it moves the links; the hot
/// start is the chain's first sweep at β = 0; reunitarising SU(3) links changes them only by
/// rounding; and a field or an update on another lattice is refused.
fn gauge_field_identities() {
    let (mut u, mut update) = chain(true, 8);
    update.heatbath(&mut u, 5.5).unwrap();
    let before = u.to_host().unwrap();
    let plaquette = u.plaquette().unwrap();
    let g = random_gauge_transformation(u.lattice(), 9).unwrap();
    u.gauge_transform(&g).unwrap();
    let after = u.to_host().unwrap();
    assert!((u.plaquette().unwrap() - plaquette).abs() < 1e-13);
    assert!(distance_from_su3(&after) < 1e-13);
    let moved = after
        .iter()
        .zip(&before)
        .map(|(a, b)| (a[1] - b[1]).norm2())
        .fold(0.0, f64::max);
    assert!(moved > 1e-2, "the transformation left the links in place");
    u.reunitarise().unwrap();
    let worst = u
        .to_host()
        .unwrap()
        .iter()
        .zip(&after)
        .flat_map(|(a, b)| (0..4).map(move |mu| (a[mu] - b[mu]).norm2().sqrt()))
        .fold(0.0, f64::max);
    assert!(
        worst < 1e-13,
        "reunitarisation moved SU(3) links by {worst:e}"
    );

    let other = Lattice::new([4, 4, 4, 6]).unwrap();
    let err = QuenchedUpdate::new(other, 1)
        .heatbath(&mut u, 6.0)
        .unwrap_err();
    assert!(err.to_string().contains("4x4x4x6"), "{err}");
    let err = u
        .gauge_transform(&Field::filled(other.volume(), ColorMatrix::identity()))
        .unwrap_err();
    assert!(err.to_string().contains("384"), "{err}");
    let short = Field::filled(10, [ColorMatrix::identity(); 4]);
    assert!(GaugeField::from_links(lattice(), short).is_err());
}

#[test]
fn gauge_field() {
    with_backend(Backend::Cpu, gauge_field_identities);
}

#[test]
fn saved_chain_continues() {
    with_backend(Backend::Cpu, saved_chains_continue_exactly);
}

/// The SU(2) heatbath's `x0` follows `√(1 − x0²) exp(α x0)` on both sides of the switch
/// between its two samplers: mean and second moment against numerical integrals of that
/// density, within five standard errors.
#[test]
fn su2_heatbath_distribution() {
    let rng = Philox::new(11).stream(3);
    for alpha in [0.3, 0.99, 1.0, 4.0, 20.0] {
        let n = 100_000;
        let draws: Vec<f64> = (0..n).map(|i| su2_x0(alpha, rng, i, 0)).collect();
        let moment = |k: i32| {
            // Σ over a fine midpoint grid of x^k √(1 − x²) e^{α x}, normalised.
            let m = 200_000;
            let (mut num, mut den) = (0.0, 0.0);
            for j in 0..m {
                let x = -1.0 + (j as f64 + 0.5) * 2.0 / m as f64;
                let w = (1.0 - x * x).sqrt() * (alpha * (x - 1.0)).exp();
                num += w * x.powi(k);
                den += w;
            }
            num / den
        };
        let (m1, m2) = (moment(1), moment(2));
        let sigma = ((m2 - m1 * m1) / n as f64).sqrt();
        let mean = draws.iter().sum::<f64>() / n as f64;
        assert!(
            (mean - m1).abs() < 5.0 * sigma,
            "α = {alpha}: <x0> = {mean}, want {m1} ± {sigma}"
        );
        let second = draws.iter().map(|x| x * x).sum::<f64>() / n as f64;
        let m4 = moment(4);
        let sigma2 = ((m4 - m2 * m2) / n as f64).sqrt();
        assert!(
            (second - m2).abs() < 5.0 * sigma2,
            "α = {alpha}: <x0²> = {second}, want {m2} ± {sigma2}"
        );
        assert!(draws.iter().all(|x| (-1.0..=1.0).contains(x)));
    }
}

#[test]
fn cold_start() {
    with_backend(Backend::Cpu, cold_start_is_ordered);
}

#[test]
fn links_stay_in_su3() {
    with_backend(Backend::Cpu, updates_stay_in_su3);
}

#[test]
fn overrelaxation_keeps_the_action() {
    with_backend(Backend::Cpu, overrelaxation_conserves_the_action);
}

#[test]
fn strong_coupling() {
    with_backend(Backend::Cpu, strong_coupling_plaquette);
}

/// Every kernel of a sweep (staples, heatbath and overrelaxation, one kernel per direction
/// each;
/// plaquette, link trace) compiles with the real NVRTC for Hopper and Ampere with no
/// warning, and without local memory where ptxas reports (printed with
/// `ONGPU_PRINT_PTXAS=1`): with the direction a literal of each kernel, the updates no
/// longer keep the site's four links in a 576-byte stack frame as they did when `u[mu]`
/// indexed them with a run-time direction.
#[cfg(feature = "cuda")]
#[test]
fn sweep_kernels_compile_with_nvrtc() {
    use crate::support::{check_no_warnings, require_nvrtc};

    use ongpu::inspect::{collect_kernel_sources, compile};
    if !require_nvrtc() {
        return;
    }
    let (_, sources) = collect_kernel_sources(|| {
        with_backend(Backend::Cpu, || {
            let lat = Lattice::new([2, 2, 2, 2]).unwrap();
            let mut u = GaugeField::hot(lat, 1).unwrap();
            let mut update = QuenchedUpdate::resume(lat, 1, 1);
            update.heatbath(&mut u, 6.0).unwrap();
            update.overrelax(&mut u).unwrap();
            u.plaquette().unwrap();
            u.link_trace().unwrap();
        })
    });
    let sources = support::distinct_kernels(sources);
    assert_eq!(
        sources.len(),
        14,
        "staples, heatbath and overrelaxation per direction, plaquette, link trace"
    );
    let mut reported = 0;
    for s in &sources {
        for arch in ["sm_90", "sm_80"] {
            let what = format!("{} ({arch})", s.location);
            let log = compile(s, arch).unwrap_or_else(|e| panic!("{what}: {e}"));
            if std::env::var_os("ONGPU_PRINT_PTXAS").is_some() {
                eprintln!("{what}: {}", ptxas_lines(&log));
            }
            check_no_warnings(&what, &log);
            reported += usize::from(support::check_no_local_memory(&what, &log));
        }
    }
    // Some NVRTC builds print no ptxas report for some kernels: require one for most.
    assert!(
        reported >= sources.len(),
        "ptxas reported on only {reported} compiles"
    );
}

/// The register and stack lines of a ptxas report.
#[cfg(feature = "cuda")]
fn ptxas_lines(log: &str) -> String {
    log.lines()
        .filter(|l| l.contains("Used") || l.contains("stack frame"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(feature = "cuda")]
mod gpu {
    use super::*;

    #[test]
    #[ignore = "needs a CUDA device"]
    fn physics_on_the_gpu() {
        with_backend(Backend::Cuda, || {
            cold_start_is_ordered();
            updates_stay_in_su3();
            overrelaxation_conserves_the_action();
            strong_coupling_plaquette();
            saved_chains_continue_exactly();
            gauge_field_identities();
        });
    }

    /// The same sweeps on both backends: uniform draws are the same bits, and the updates
    /// differ only by the rounding of the maths functions.
    #[test]
    #[ignore = "needs a CUDA device"]
    fn backends_agree_on_sweeps() {
        let run = || {
            let (mut u, mut update) = chain(true, 5);
            update.heatbath(&mut u, 5.7).unwrap();
            update.overrelax(&mut u).unwrap();
            update.heatbath(&mut u, 5.7).unwrap();
            u.to_host().unwrap()
        };
        let (gpu, cpu) = (
            with_backend(Backend::Cuda, run),
            with_backend(Backend::Cpu, run),
        );
        let worst = gpu
            .iter()
            .zip(&cpu)
            .flat_map(|(g, c)| (0..4).map(move |mu| (g[mu] - c[mu]).norm2().sqrt()))
            .fold(0.0, f64::max);
        assert!(worst < 1e-10, "links differ by {worst:e}");
    }
}
