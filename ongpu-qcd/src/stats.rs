//! Statistics of a Monte Carlo history: the integrated autocorrelation time with automatic
//! windowing, and the mean with a jackknife error over bins longer than the correlations.

/// The integrated autocorrelation time `τ_int = 1/2 + Σ_{t=1}^{W} ρ(t)` and its window `W`,
/// the first `W` with `W ≥ 6 τ_int(W)` (Madras and Sokal, J. Stat. Phys. 50 (1988) 109;
/// the factor 6 as in Wolff, Comput. Phys. Commun. 156 (2004) 143).
pub fn tau_int(x: &[f64]) -> (f64, usize) {
    let n = x.len();
    if n < 4 {
        return (0.5, 0);
    }
    let mean = x.iter().sum::<f64>() / n as f64;
    let c = |t: usize| -> f64 {
        (0..n - t)
            .map(|i| (x[i] - mean) * (x[i + t] - mean))
            .sum::<f64>()
            / (n - t) as f64
    };
    let c0 = c(0);
    if c0 == 0.0 {
        return (0.5, 0);
    }
    let mut tau = 0.5;
    for w in 1..n / 2 {
        tau += c(w) / c0;
        if w as f64 >= 6.0 * tau {
            return (tau.max(0.5), w);
        }
    }
    (tau.max(0.5), n / 2)
}

/// The mean of `x` and its jackknife error over `bins` equal bins (the tail that does not
/// fill a bin is dropped).
pub fn jackknife(x: &[f64], bins: usize) -> (f64, f64) {
    let bins = bins.clamp(2, x.len().max(2));
    let size = x.len() / bins;
    if size == 0 {
        let mean = x.iter().sum::<f64>() / x.len().max(1) as f64;
        return (mean, f64::NAN);
    }
    let used = &x[..bins * size];
    let total: f64 = used.iter().sum();
    let bin_sums: Vec<f64> = used.chunks(size).map(|b| b.iter().sum()).collect();
    let leave_out: Vec<f64> = bin_sums
        .iter()
        .map(|s| (total - s) / (used.len() - size) as f64)
        .collect();
    let mean = total / used.len() as f64;
    let m = leave_out.iter().sum::<f64>() / bins as f64;
    let var =
        leave_out.iter().map(|v| (v - m).powi(2)).sum::<f64>() * (bins - 1) as f64 / bins as f64;
    (mean, var.sqrt())
}

/// What a run reports: mean, error, τ_int, and the bin size used.
pub struct Summary {
    /// Mean of the measurements.
    pub mean: f64,
    /// Jackknife error of the mean over bins of `bin` measurements.
    pub error: f64,
    /// Integrated autocorrelation time, in measurements.
    pub tau_int: f64,
    /// Measurements per bin: at least `4 τ_int`, so that bins are nearly independent.
    pub bin: usize,
    /// Number of measurements.
    pub n: usize,
}

/// Mean, error and autocorrelation of a history of measurements.
pub fn summarise(x: &[f64]) -> Summary {
    let (tau, _) = tau_int(x);
    let bin = ((4.0 * tau).ceil() as usize).max(1);
    let (mean, error) = jackknife(x, x.len() / bin);
    Summary {
        mean,
        error,
        tau_int: tau,
        bin,
        n: x.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An AR(1) series `x_t = φ x_{t−1} + e_t` has `τ_int = (1 + φ) / (2 (1 − φ))`.
    #[test]
    fn autocorrelation_of_an_ar1_series() {
        let rng = ongpu::Philox::new(3);
        let phi = 0.8;
        let mut x = vec![0.0; 200_000];
        for t in 1..x.len() {
            x[t] = phi * x[t - 1] + rng.normal_f64(t, 0);
        }
        let (tau, _) = tau_int(&x);
        let want = (1.0 + phi) / (2.0 * (1.0 - phi));
        assert!((tau - want).abs() < 0.1 * want, "τ_int {tau}, want {want}");
        // Jackknife error of the mean against σ² 2τ / N, with σ² = 1 / (1 − φ²).
        let s = summarise(&x);
        let want_err = (2.0 * want / (1.0 - phi * phi) / x.len() as f64).sqrt();
        assert!(
            (s.error - want_err).abs() < 0.2 * want_err,
            "error {} want {want_err}",
            s.error
        );
    }
}
