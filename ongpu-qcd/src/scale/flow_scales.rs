//! The flow scales of an ensemble: `t₀` where the ensemble mean `⟨t² E⟩` reaches 0.3, and
//! `w₀` where `t d/dt ⟨t² E⟩` does, with jackknife errors over configurations. Solving on
//! the mean (not averaging per-configuration crossings) is the definition, and keeps every
//! configuration: one whose own `t² E` never reaches 0.3 within the flow still counts.

use crate::flow::{t0_of, w0_squared_of, FlowPoint};
use crate::stats::{jackknife_of, Estimate};

/// `t₀/a²` and `w₀/a` of an ensemble (`None` where the mean never reaches 0.3 within the
/// flow).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlowScales {
    /// `t₀/a²`.
    pub t0: Option<Estimate>,
    /// `w₀/a`.
    pub w0: Option<Estimate>,
}

/// The scales of `histories`, one flow history per configuration, all measured at the same
/// flow times (an [`ongpu::Error`] otherwise); jackknife over `bins` bins of consecutive
/// configurations.
pub fn flow_scales(histories: &[Vec<FlowPoint>], bins: usize) -> ongpu::Result<FlowScales> {
    let Some(first) = histories.first() else {
        return Err(ongpu::Error::InvalidArgument(
            "the flow scales of an ensemble need at least one flow history".into(),
        ));
    };
    let times: Vec<f64> = first.iter().map(|p| p.t).collect();
    for (k, h) in histories.iter().enumerate() {
        let same = h.len() == times.len() && h.iter().zip(&times).all(|(p, t)| p.t == *t);
        if !same {
            return Err(ongpu::Error::InvalidArgument(format!(
                "flow history {k} is not measured at the flow times of history 0 ({} points \
                 up to t = {}): flow every configuration with the same step and length",
                times.len(),
                times.last().copied().unwrap_or(0.0)
            )));
        }
    }
    let samples: Vec<Vec<f64>> = histories
        .iter()
        .map(|h| h.iter().map(|p| p.t2e).collect())
        .collect();
    Ok(FlowScales {
        t0: jackknife_of(&samples, bins, |m| t0_of(&times, m)),
        w0: jackknife_of(&samples, bins, |m| w0_squared_of(&times, m).map(f64::sqrt)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history(slope: f64) -> Vec<FlowPoint> {
        (1..=40)
            .map(|k| {
                let t = 0.05 * k as f64;
                FlowPoint {
                    t,
                    energy: slope / t,
                    t2e: slope * t,
                    charge: 0.0,
                    plaquette: 0.0,
                }
            })
            .collect()
    }

    /// `t² E = c t` on each configuration: the mean reaches 0.3 at `0.3 / ⟨c⟩` and `w₀² =
    /// t₀` too (`t d/dt (c t) = c t`), even when one configuration alone never gets there;
    /// histories at other flow times are refused.
    #[test]
    fn scales_of_the_mean() {
        let histories = vec![history(0.1), history(0.2), history(0.3), history(0.6)];
        let s = flow_scales(&histories, 4).unwrap();
        let t0 = s.t0.unwrap();
        assert!((t0.value - 0.3 / 0.3).abs() < 1e-12, "{t0:?}");
        assert!(t0.error > 0.0);
        assert!((s.w0.unwrap().value - 1.0).abs() < 1e-12);
        let mut shorter = histories.clone();
        shorter[2].pop();
        assert!(flow_scales(&shorter, 2).is_err());
        assert!(flow_scales(&[], 2).is_err());
    }
}
