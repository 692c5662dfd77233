//! On-axis Wilson loops `W(r, t)`: spatial lines of `r` (smeared) links along x, y or z and
//! temporal lines of `t` (unsmeared) links, `Re tr` of the closed rectangle over 3, averaged
//! over every site and the three spatial directions.
//!
//! With `L(x)` the spatial line from `x` and `S_t(x) = T_t(x + r î) L(x + t t̂)† T_t(x)†`
//! (`T_t` the temporal line of `t` links), `W(r, t) = ⟨tr L(x) S_t(x)⟩ / 3`, and `S_t`
//! grows by one time step per pass, `S_{t+1}(x) = U_t(x + r î) S_t(x + t̂) U_t(x)†`, from
//! `S_0 = L†`: one pass per `(direction, r, t)`, fused with its sum, and four colour-matrix
//! fields of memory, whatever `r` and `t` reach.

use crate::gauge::{GaugeField, StraightLine};
use crate::SiteLayout;
use ongpu::prelude::*;

/// A colour matrix at every site.
type MatrixFieldOf<S> = <S as Space>::Field<ColorMatrix<f64>, SiteLayout>;

/// `W(r, t)` for `r` in `1..=r_max`, `t` in `0..=t_max` (`W(r, 0) = 1` up to rounding: it is
/// measured, as a check of the lines' unitarity).
#[derive(Debug, Clone, PartialEq)]
pub struct WilsonLoops {
    r_max: usize,
    t_max: usize,
    values: Vec<f64>,
}

impl WilsonLoops {
    /// The largest spatial extent measured.
    pub fn r_max(&self) -> usize {
        self.r_max
    }

    /// The largest temporal extent measured.
    pub fn t_max(&self) -> usize {
        self.t_max
    }

    /// `W(r, t)`; panics outside `1..=r_max`, `0..=t_max`.
    pub fn get(&self, r: usize, t: usize) -> f64 {
        assert!(
            (1..=self.r_max).contains(&r) && t <= self.t_max,
            "W({r}, {t}) was not measured (r in 1..={}, t in 0..={})",
            self.r_max,
            self.t_max
        );
        self.values[(r - 1) * (self.t_max + 1) + t]
    }

    /// Every `W(r, t)`, `r`-major (`r = 1` first, `t = 0..=t_max` within): one
    /// configuration's sample for [`jackknife_of`](crate::stats::jackknife_of).
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// The loops of a flat `values` as [`values`](Self::values) lists them (a mean over
    /// configurations, say).
    pub fn from_values(r_max: usize, t_max: usize, values: Vec<f64>) -> Option<WilsonLoops> {
        (values.len() == r_max * (t_max + 1)).then_some(WilsonLoops {
            r_max,
            t_max,
            values,
        })
    }
}

/// The on-axis Wilson loops of `u` up to `r_max × t_max`, the spatial lines taken from the
/// links of `spatial` (the same configuration with smeared spatial links, or `u` itself)
/// and the temporal ones from `u`. An [`ongpu::Error`] if the two are on different lattices
/// or a loop would reach past half of an extent.
pub fn wilson_loops<S: Space>(
    u: &GaugeField<S>,
    spatial: &GaugeField<S>,
    r_max: usize,
    t_max: usize,
) -> ongpu::Result<WilsonLoops> {
    let lat = u.lattice();
    spatial.check_lattice(lat, "the Wilson loops' spatial links")?;
    let extents = lat.whole().extents();
    let shortest = extents[..3].iter().copied().min().unwrap_or(0);
    if r_max == 0 || t_max == 0 || 2 * r_max > shortest || 2 * t_max > extents[3] {
        return Err(ongpu::Error::InvalidArgument(format!(
            "Wilson loops up to {r_max} × {t_max} on the {}: both must be at least 1 and at \
             most half of the spatial ({shortest}) and temporal ({}) extents",
            lat.whole(),
            extents[3]
        )));
    }
    let links = u.links();
    let smeared = spatial.links();
    let mut s: MatrixFieldOf<S> = lat.zeros()?;
    let mut s_next: MatrixFieldOf<S> = lat.zeros()?;
    let mut sums = vec![0.0; r_max * (t_max + 1)];
    for dir in 0..3usize {
        let mut spatial_line = StraightLine::new(lat, smeared, dir)?;
        for r in 1..=r_max {
            if r > 1 {
                spatial_line.extend(smeared)?;
            }
            let line = spatial_line.line();
            let row = (r - 1) * (t_max + 1);
            let s0 = &mut s;
            sums[row] += on_gpu!(sum: lat, {
                s0 = line.adj();
                (line * s0).trace().re
            })?;
            let far = r as i64;
            for t in 1..=t_max {
                let (s_t, s_up) = (&s, &mut s_next);
                sums[row + t] += on_gpu!(sum: lat, {
                    s_up = links.shift(dir, far)[3] * s_t.shift(3, 1) * links[3].adj();
                    (line * s_up).trace().re
                })?;
                std::mem::swap(&mut s, &mut s_next);
            }
        }
    }
    let norm = 3.0 * 3.0 * lat.whole().volume() as f64;
    Ok(WilsonLoops {
        r_max,
        t_max,
        values: sums.into_iter().map(|w| w / norm).collect(),
    })
}
