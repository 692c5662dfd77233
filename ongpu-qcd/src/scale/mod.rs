//! Setting the scale of a quenched ensemble: on-axis Wilson loops `W(r, t)` with smeared
//! spatial links, the static potential `V(r)`, the Sommer scale `r₀` (`r² F(r) = 1.65` at
//! `r = r₀`), the flow scales `t₀` and `w₀` of the ensemble mean, each with jackknife errors
//! over configurations, and the interpolations of the literature they are compared with.
//!
//! ```
//! # mod ongpu { pub use ::ongpu_runtime::*; pub mod qcd { pub use ::ongpu_qcd::*; } }
//! use ongpu::qcd::gauge::GaugeField;
//! use ongpu::qcd::scale::{wilson_loops, reference};
//! # fn main() -> ongpu::Result<()> {
//! let lat = ongpu::Lattice::new([4, 4, 4, 4])?;
//! let u = GaugeField::unit(lat)?;
//! let w = wilson_loops(&u, &u, 2, 2)?;            // the spatial links unsmeared here
//! assert!((w.get(2, 2) - 1.0).abs() < 1e-14);     // every loop of the unit field is 1
//! assert!((reference::r0_over_a(6.0) - 5.36).abs() < 0.01);
//! # Ok(())
//! # }
//! ```

mod flow_scales;
mod loops;
mod potential;
pub mod reference;

pub use flow_scales::{flow_scales, FlowScales};
pub use loops::{wilson_loops, WilsonLoops};
pub use potential::{force, improved_distance, potential, sommer_r0, SOMMER_REFERENCE};

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
    let leave_out: Vec<Option<f64>> = (0..bins)
        .map(|b| {
            let mut rows = samples[..used]
                .iter()
                .enumerate()
                .filter(|(k, _)| k / size != b)
                .map(|(_, row)| row);
            f(&mean_of(&mut rows))
        })
        .collect();
    let error = if leave_out.iter().all(Option::is_some) {
        let values: Vec<f64> = leave_out.into_iter().flatten().collect();
        let m = values.iter().sum::<f64>() / bins as f64;
        let var =
            values.iter().map(|v| (v - m).powi(2)).sum::<f64>() * (bins - 1) as f64 / bins as f64;
        var.sqrt()
    } else {
        f64::NAN
    };
    Some(Estimate { value, error })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// For the identity function of one measurement the jackknife error is the standard
    /// error of the mean; a nonlinear function of means gets the propagated error.
    #[test]
    fn jackknife_of_a_mean_is_the_standard_error() {
        let x: Vec<f64> = (0..40).map(|k| ((k * 37 % 11) as f64) * 0.1).collect();
        let samples: Vec<Vec<f64>> = x.iter().map(|&v| vec![v]).collect();
        let est = jackknife_of(&samples, 40, |m| Some(m[0])).unwrap();
        let mean = x.iter().sum::<f64>() / 40.0;
        let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 39.0;
        assert!((est.value - mean).abs() < 1e-14);
        assert!((est.error - (var / 40.0).sqrt()).abs() < 1e-12);
        let squared = jackknife_of(&samples, 40, |m| Some(m[0] * m[0])).unwrap();
        assert!((squared.error - 2.0 * mean * est.error).abs() < 0.02 * squared.error);
        assert!(jackknife_of(&samples, 4, |_| None).is_none());
    }
}
