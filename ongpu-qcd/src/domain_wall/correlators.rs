//! The pion correlator of domain-wall quarks and the residual mass: twelve 5-D solves from
//! a point source (one per source spin and colour), and per time slice
//!
//! - `C_ππ(t) = Σ_x Σ_{spins, colours} |S(x, t)|²`, `S` the 4-D propagator at the walls;
//! - `C_J5q(t)`, the same sum of the quark at the midpoint of the fifth dimension: the
//!   correlator of the pion with the pseudoscalar density at `Ls/2` (`J5q`), through which
//!   the walls still talk at finite `Ls`.
//!
//! The residual mass is `m_res = C_J5q(t) / C_ππ(t)` on its plateau (Blum et al., Phys.
//! Rev. D 69 (2004) 074502, and every domain-wall ensemble since): the chiral symmetry that
//! finite `Ls` breaks, as an additive quark mass.

use super::propagator::cut_entries;
use super::{DomainWall, FiveFieldOf, FiveSpinor};
use crate::solver::{Solution, SolverError};
use crate::wilson::{PionCorrelator, SpinorFieldOf};
use ongpu::prelude::*;

/// The correlators of one point source.
#[derive(Debug, Clone)]
pub struct DomainWallCorrelators {
    /// The pion correlator at the walls, `t` counted from the source's time slice, and the
    /// twelve solves (source spin-major: `3 · spin + colour`).
    pub pion: PionCorrelator,
    /// `C_J5q(t)`: the pion with the midpoint density.
    pub midpoint: Vec<f64>,
}

impl DomainWallCorrelators {
    /// `m_res(t) = C_J5q(t) / C_ππ(t)` for every `t`.
    pub fn residual_mass(&self) -> Vec<f64> {
        self.midpoint
            .iter()
            .zip(&self.pion.correlator)
            .map(|(j, p)| j / p)
            .collect()
    }

    /// The residual mass averaged over `t` in `range` and the time slices it mirrors
    /// (`T − t`): the plateau the ratio reaches once excited states have died out.
    /// `None` if the range is empty or reaches past `T/2`.
    pub fn residual_mass_plateau(&self, range: std::ops::Range<usize>) -> Option<f64> {
        let t_len = self.midpoint.len();
        if range.is_empty() || range.end > t_len / 2 + 1 {
            return None;
        }
        let ratio = self.residual_mass();
        let mut sum = 0.0;
        let mut count = 0;
        for t in range {
            for tt in [t, (t_len - t) % t_len] {
                sum += ratio[tt];
                count += 1;
            }
        }
        Some(sum / count as f64)
    }
}

impl<const LS: usize, S: Space> DomainWall<'_, LS, S>
where
    FiveSpinor<f64, LS>: ongpu::Element,
{
    /// The pion and midpoint correlators of a point source at `source` (coordinates on the
    /// whole lattice; time along direction 3): twelve solves by `solve(b, x)` (as in
    /// [`Self::propagator`]), `after_solve(k)` called after the `k`-th (for a progress bar).
    pub fn correlators(
        &self,
        mut solve: impl FnMut(
            &FiveFieldOf<S, LS>,
            &mut FiveFieldOf<S, LS>,
        ) -> Result<Solution, SolverError>,
        source: [usize; 4],
        mut after_solve: impl FnMut(usize),
    ) -> Result<DomainWallCorrelators, SolverError> {
        let lat = self.lattice();
        let whole = lat.whole();
        let extents = whole.extents();
        if (0..4).any(|mu| source[mu] >= extents[mu]) {
            return Err(SolverError::Ongpu(ongpu::Error::InvalidArgument(format!(
                "a point source at {source:?} is outside the {whole}"
            ))));
        }
        if LS < 2 {
            return Err(SolverError::Ongpu(ongpu::Error::InvalidArgument(
                "the midpoint correlator needs Ls ≥ 2".into(),
            )));
        }
        let at = whole.index(source);
        let mut pion: <S as Space>::Field<f64, crate::SiteLayout> = lat.zeros()?;
        let mut midpoint: <S as Space>::Field<f64, crate::SiteLayout> = lat.zeros()?;
        let mut x: FiveFieldOf<S, LS> = lat.zeros()?;
        let mut q: SpinorFieldOf<S> = lat.zeros()?;
        let (wall_upper, wall_lower) = cut_entries(0, LS);
        let (mid_upper, mid_lower) = cut_entries(LS / 2, LS);
        let mut solves = Vec::with_capacity(12);
        for k in 0..12 {
            let mut host = vec![[ColorVector::<f64>::zero(); 4]; whole.volume()];
            host[at][k / 3][k % 3] = Complex::new(1.0, 0.0);
            let eta: SpinorFieldOf<S> = lat.field_from_vec(host)?;
            solves.push(self.propagator(&mut solve, &eta, &mut x, &mut q)?);
            on_gpu!(lat, {
                pion += x[wall_lower].norm2()
                    + x[wall_lower + 1].norm2()
                    + x[wall_upper + 2].norm2()
                    + x[wall_upper + 3].norm2();
                midpoint += x[mid_lower].norm2()
                    + x[mid_lower + 1].norm2()
                    + x[mid_upper + 2].norm2()
                    + x[mid_upper + 3].norm2();
            })?;
            after_solve(k);
        }
        let slices = |density: Vec<f64>| {
            let mut c = vec![0.0; extents[3]];
            for (site, d) in density.iter().enumerate() {
                c[(whole.coords(site)[3] + extents[3] - source[3]) % extents[3]] += d;
            }
            c
        };
        Ok(DomainWallCorrelators {
            pion: PionCorrelator {
                correlator: slices(pion.values()?),
                solves,
            },
            midpoint: slices(midpoint.values()?),
        })
    }
}
