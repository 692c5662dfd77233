//! Statistics of the counter-based generator's draws, as bodies compute them: moments,
//! a histogram, and correlations between neighbouring sites, draw numbers and streams. Each
//! bound is five standard errors of the statistic; the draws are fixed by the seed, so the
//! tests are deterministic (the GPU program tests check that the CUDA backend gives the same
//! bits).

use ongpu::prelude::*;

const N: usize = 1 << 18;

/// Three draws at every site: `a` and `b` with draw numbers 0 and 1, `c` on the next stream.
fn draws(normal: bool) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let rng = Philox::new(20261123).stream(5);
    let next = rng.stream(6);
    let mut a: Field<f64> = Field::filled(N, f64::NAN);
    let mut b: Field<f64> = Field::filled(N, f64::NAN);
    let mut c: Field<f64> = Field::filled(N, f64::NAN);
    if normal {
        on_gpu!(|i| {
            a = rng.normal_f64(i, 0);
            b = rng.normal_f64(i, 1);
            c = next.normal_f64(i, 0);
        })
        .unwrap();
    } else {
        on_gpu!(|i| {
            a = rng.uniform_f64(i, 0);
            b = rng.uniform_f64(i, 1);
            c = next.uniform_f64(i, 0);
        })
        .unwrap();
    }
    (
        a.to_vec().unwrap(),
        b.to_vec().unwrap(),
        c.to_vec().unwrap(),
    )
}

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

fn moment(x: &[f64], k: i32) -> f64 {
    let m = mean(x);
    x.iter().map(|v| (v - m).powi(k)).sum::<f64>() / x.len() as f64
}

/// Pearson correlation of two equally long samples.
fn correlation(x: &[f64], y: &[f64]) -> f64 {
    let (mx, my) = (mean(x), mean(y));
    let cov: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    cov / (moment(x, 2) * moment(y, 2)).sqrt() / x.len() as f64
}

fn within(what: &str, got: f64, want: f64, sigma: f64) {
    assert!(
        (got - want).abs() <= 5.0 * sigma,
        "{what}: {got} is more than 5σ = {:.2e} from {want}",
        5.0 * sigma
    );
}

/// Site, draw and stream neighbours are uncorrelated.
fn check_correlations(a: &[f64], b: &[f64], c: &[f64]) {
    let sigma = 1.0 / (N as f64).sqrt();
    within(
        "sites i, i+1",
        correlation(&a[..N - 1], &a[1..]),
        0.0,
        sigma,
    );
    within("draws 0, 1", correlation(a, b), 0.0, sigma);
    within("streams 5, 6", correlation(a, c), 0.0, sigma);
}

#[test]
fn uniform_deviates() {
    let (a, b, c) = draws(false);
    let n = N as f64;
    assert!(a.iter().all(|&u| u > 0.0 && u < 1.0));
    within("mean", mean(&a), 0.5, (1.0 / 12.0 / n).sqrt());
    within(
        "variance",
        moment(&a, 2),
        1.0 / 12.0,
        ((1.0 / 80.0 - 1.0 / 144.0) / n).sqrt(),
    );
    // χ² of a 64-bin histogram, 63 degrees of freedom: mean 63, σ = √126.
    let mut bins = [0usize; 64];
    for &u in &a {
        bins[(u * 64.0) as usize] += 1;
    }
    let expected = n / 64.0;
    let chi2: f64 = bins
        .iter()
        .map(|&k| (k as f64 - expected).powi(2) / expected)
        .sum();
    within("χ² of 64 bins", chi2, 63.0, 126f64.sqrt());
    check_correlations(&a, &b, &c);
}

#[test]
fn normal_deviates() {
    let (a, b, c) = draws(true);
    let n = N as f64;
    within("mean", mean(&a), 0.0, (1.0 / n).sqrt());
    within("variance", moment(&a, 2), 1.0, (2.0 / n).sqrt());
    within("fourth moment", moment(&a, 4), 3.0, (96.0 / n).sqrt());
    within("third moment", moment(&a, 3), 0.0, (15.0 / n).sqrt());
    // P(|z| > 2) = erfc(√2) = 0.0455003.
    let tail = a.iter().filter(|z| z.abs() > 2.0).count() as f64 / n;
    let p = 0.045500263896358;
    within("P(|z| > 2)", tail, p, (p * (1.0 - p) / n).sqrt());
    check_correlations(&a, &b, &c);
}

/// Single-precision draws are the double ones rounded (normals) or on a coarser grid
/// (uniforms), with the same statistics.
#[test]
fn single_precision_deviates() {
    let rng = Philox::new(7);
    let mut u: Field<f32> = Field::filled(N, f32::NAN);
    let mut z: Field<f32> = Field::filled(N, f32::NAN);
    on_gpu!(|i| {
        u = rng.uniform_f32(i, 0);
        z = rng.normal_f32(i, 1);
    })
    .unwrap();
    let u: Vec<f64> = u.to_vec().unwrap().iter().map(|&x| x as f64).collect();
    let z: Vec<f64> = z.to_vec().unwrap().iter().map(|&x| x as f64).collect();
    let n = N as f64;
    assert!(u.iter().all(|&x| x > 0.0 && x < 1.0));
    within("uniform mean", mean(&u), 0.5, (1.0 / 12.0 / n).sqrt());
    within("normal variance", moment(&z, 2), 1.0, (2.0 / n).sqrt());
    for (i, &zi) in z.iter().enumerate().step_by(997) {
        assert_eq!(zi, rng.normal_f64(i, 1) as f32 as f64);
    }
}
