//! Statistics of a Monte Carlo history: the integrated autocorrelation time with automatic
//! windowing, the mean with a jackknife error over bins longer than the correlations, and
//! the jackknife error of any function of means ([`jackknife_of`]).

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
    (total / used.len() as f64, leave_out_error(&leave_out))
}

/// The jackknife error from the values of the leave-one-bin-out samples:
/// `√((B − 1)/B · Σ (v − v̄)²)` over the `B` bins.
fn leave_out_error(leave_out: &[f64]) -> f64 {
    let bins = leave_out.len() as f64;
    let m = leave_out.iter().sum::<f64>() / bins;
    let var = leave_out.iter().map(|v| (v - m).powi(2)).sum::<f64>() * (bins - 1.0) / bins;
    var.sqrt()
}

/// A value with its jackknife error.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// The value of the full ensemble.
    pub value: f64,
    /// Its jackknife error (NaN where a leave-out sample had no value).
    pub error: f64,
}

impl std::fmt::Display for Estimate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let digits = f.precision().unwrap_or(4);
        write!(f, "{:.digits$} ± {:.digits$}", self.value, self.error)
    }
}

/// `f` of the mean of `samples` (one vector of measurements per configuration, all of one
/// length), with the jackknife error from `f` of the means that leave out one of `bins`
/// consecutive bins of configurations (the tail that fills no bin is dropped from the
/// error's samples, not from the value). `None` if `f` has no value on the full mean.
/// [`jackknife`] is the case of one measurement and `f` the identity.
pub fn jackknife_of(
    samples: &[Vec<f64>],
    bins: usize,
    f: impl Fn(&[f64]) -> Option<f64>,
) -> Option<Estimate> {
    let n = samples.len();
    let len = samples.first()?.len();
    let mean_of = |rows: &mut dyn Iterator<Item = &Vec<f64>>| {
        let mut sum = vec![0.0; len];
        let mut count = 0usize;
        for row in rows {
            for (s, x) in sum.iter_mut().zip(row) {
                *s += x;
            }
            count += 1;
        }
        sum.iter_mut().for_each(|s| *s /= count as f64);
        sum
    };
    let value = f(&mean_of(&mut samples.iter()))?;
    let bins = bins.clamp(2, n.max(2));
    let size = n / bins;
    if size == 0 {
        return Some(Estimate {
            value,
            error: f64::NAN,
        });
    }
    let used = bins * size;
    let leave_out: Option<Vec<f64>> = (0..bins)
        .map(|b| {
            let mut rows = samples[..used]
                .iter()
                .enumerate()
                .filter(|(k, _)| k / size != b)
                .map(|(_, row)| row);
            f(&mean_of(&mut rows))
        })
        .collect();
    let error = leave_out.map_or(f64::NAN, |values| leave_out_error(&values));
    Some(Estimate { value, error })
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

    /// For the identity function of one measurement the jackknife error is the standard
    /// error of the mean, as [`jackknife`]'s; a nonlinear function of means gets the
    /// propagated error.
    #[test]
    fn jackknife_of_a_mean_is_the_standard_error() {
        let x: Vec<f64> = (0..40).map(|k| ((k * 37 % 11) as f64) * 0.1).collect();
        let samples: Vec<Vec<f64>> = x.iter().map(|&v| vec![v]).collect();
        let est = jackknife_of(&samples, 40, |m| Some(m[0])).unwrap();
        let mean = x.iter().sum::<f64>() / 40.0;
        let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 39.0;
        assert!((est.value - mean).abs() < 1e-14);
        assert!((est.error - (var / 40.0).sqrt()).abs() < 1e-12);
        assert!((est.error - jackknife(&x, 40).1).abs() < 1e-12);
        let squared = jackknife_of(&samples, 40, |m| Some(m[0] * m[0])).unwrap();
        assert!((squared.error - 2.0 * mean * est.error).abs() < 0.02 * squared.error);
        assert!(jackknife_of(&samples, 4, |_| None).is_none());
    }

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
