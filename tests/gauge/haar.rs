//! Haar-random SU(3) links: the moments of the Haar measure, which no product of a few
//! SU(2)-subgroup elements (the β = 0 heatbath sweep the hot start was before) has.
//!
//! For U Haar-distributed on SU(3): `|U₀₀|²` is Beta(1, 2) (mean 1/3, mean square 1/6),
//! `⟨tr U⟩ = 0`, `⟨|tr U|²⟩ = 1` and `⟨(tr U)³⟩ = 1` (the one singlet of 3 ⊗ 3 ⊗ 3, which
//! U(3) lacks: its mean is 0 there). Each check allows six standard errors of the sample
//! mean (from the Haar variances: `|U₀₀|²` 1/18, `|U₀₀|⁴` 7/180, `|tr U|²` 1, `Re (tr U)³`
//! at most `⟨|tr U|⁶⟩` = 6); the draws are seeded, so the sums are the same every run.

use ongpu::prelude::*;
use ongpu::qcd::gauge::su3::{distance_from_su3, random_su3};
use ongpu::qcd::gauge::GaugeField;
use ongpu::Backend;
use rand::rngs::SmallRng;
use rand::SeedableRng;

/// The sample means of `|U₀₀|²`, `|U₀₀|⁴`, `tr U`, `|tr U|²` and `(tr U)³`.
fn moments(links: &[ColorMatrix<f64>]) -> (f64, f64, Complex<f64>, f64, Complex<f64>) {
    let n = links.len() as f64;
    let (mut a2, mut a4, mut t, mut t2, mut t3) = (
        0.0,
        0.0,
        Complex::new(0.0, 0.0),
        0.0,
        Complex::new(0.0, 0.0),
    );
    for u in links {
        let u00 = u[0][0].norm_sqr();
        let tr = u[0][0] + u[1][1] + u[2][2];
        a2 += u00;
        a4 += u00 * u00;
        t += tr;
        t2 += tr.norm_sqr();
        t3 += tr * tr * tr;
    }
    (a2 / n, a4 / n, t / n, t2 / n, t3 / n)
}

/// The moments of `links` are the Haar measure's within six standard errors.
fn assert_haar(links: &[ColorMatrix<f64>], what: &str) {
    let n = links.len() as f64;
    let tol = |variance: f64| 6.0 * (variance / n).sqrt();
    let worst = links.iter().map(distance_from_su3).fold(0.0, f64::max);
    assert!(worst < 1e-13, "{what}: {worst:e} from SU(3)");
    let (a2, a4, t, t2, t3) = moments(links);
    assert!(
        (a2 - 1.0 / 3.0).abs() < tol(1.0 / 18.0),
        "{what}: <|U00|^2> = {a2}"
    );
    assert!(
        (a4 - 1.0 / 6.0).abs() < tol(7.0 / 180.0),
        "{what}: <|U00|^4> = {a4}"
    );
    assert!(t.norm() < tol(1.0), "{what}: <tr U> = {t}");
    assert!((t2 - 1.0).abs() < tol(1.0), "{what}: <|tr U|^2> = {t2}");
    assert!(
        (t3 - Complex::new(1.0, 0.0)).norm() < tol(6.0),
        "{what}: <(tr U)^3> = {t3}"
    );
}

#[test]
fn random_su3_has_the_haar_moments() {
    let mut r = SmallRng::seed_from_u64(7);
    let links: Vec<ColorMatrix<f64>> = (0..200_000).map(|_| random_su3(&mut r)).collect();
    assert_haar(&links, "random_su3");
}

/// The hot start and `GaugeField::random` on a lattice: 8^4 sites, four links each.
#[test]
fn hot_and_random_starts_are_haar() {
    ongpu::with_backend(Backend::Cpu, || {
        let lat = Lattice::new([8, 8, 8, 8])?;
        for (what, u) in [
            ("hot", GaugeField::hot(lat, 3)?),
            ("random", GaugeField::random(lat, 4)?),
        ] {
            let links: Vec<ColorMatrix<f64>> = u.to_host()?.into_iter().flatten().collect();
            assert_haar(&links, what);
        }
        Ok::<(), ongpu::Error>(())
    })
    .unwrap();
}

/// The check fails on what the hot start was: one heatbath sweep at β = 0 from the unit
/// field (`⟨|U₀₀|²⟩` = 1/4, `⟨|tr U|²⟩` = 7/8), so it can tell.
#[test]
fn one_beta_zero_sweep_is_not_haar() {
    use ongpu::qcd::quenched::QuenchedUpdate;
    ongpu::with_backend(Backend::Cpu, || {
        let lat = Lattice::new([8, 8, 8, 8])?;
        let mut u = GaugeField::unit(lat)?;
        QuenchedUpdate::new(lat, 5).heatbath(&mut u, 0.0)?;
        let links: Vec<ColorMatrix<f64>> = u.to_host()?.into_iter().flatten().collect();
        let failed = std::panic::catch_unwind(|| assert_haar(&links, "one sweep")).is_err();
        assert!(failed, "one β = 0 sweep passed the Haar check");
        let (a2, _, _, t2, _) = moments(&links);
        assert!(
            (a2 - 0.25).abs() < 0.01 && (t2 - 0.875).abs() < 0.05,
            "{a2} {t2}"
        );
        Ok::<(), ongpu::Error>(())
    })
    .unwrap();
}
