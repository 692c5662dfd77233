//! The links of the HISQ operator, built from a gauge field in f64 (Follana et al., Phys.
//! Rev. D 75 (2007) 054502; the two-level construction of MILC, Bazavov et al., Phys. Rev.
//! D 82 (2010) 074501):
//!
//! 1. `V = Fat7(U)`: the link, its 3-, 5- and 7-link staples with weights 1/8, 1/16, 1/64,
//!    1/384 (the sum is 1 for `U = 1`);
//! 2. `W = V (V†V)^{−1/2}`, the U(3) projection ([`polar_u3`]);
//! 3. `X = Fat7(W) + Lepage(W)`: weights 1, 1/16, 1/64, 1/384 and −1/8 per Lepage path, plus
//!    `ε/8 · W` (the sum is `9/8 + ε/8` for `W = 1`);
//! 4. the Naik links `N_μ(x) = W_μ(x) W_μ(x+μ̂) W_μ(x+2μ̂)` with weight `−(1 + ε)/24`.
//!
//! At tree level the hop is then `(9/8 + ε/8) sin p − (1 + ε)/24 sin 3p`: `p + O(p⁵)` at
//! `ε = 0`. The staggered phases and the ½ of the hop are folded into both kinds of link
//! as [`Staggered`](crate::staggered::Staggered) does (`η_μ(x ± 3μ̂) = η_μ(x)`, so the
//! backward Naik hop reads the folded link of its own neighbour), and an antiperiodic time
//! boundary negates every hop that crosses the last time slice: the fat time links of the
//! last slice and the Naik time links of the last three.

use super::paths::{smear, PathCoefficients};
use crate::boundary::{apply_time_boundary, TimeBoundary};
use crate::gauge::{polar_u3, GaugeField, LinksOf};
use ongpu::prelude::*;

/// The smearing of the first level (Fat7, no Lepage term).
pub const LEVEL_ONE: PathCoefficients = PathCoefficients {
    one: 1.0 / 8.0,
    three: 1.0 / 16.0,
    five: 1.0 / 64.0,
    seven: 1.0 / 384.0,
    lepage: 0.0,
};

/// The smearing of the second level (asqtad's paths on the U(3) links, the Lepage term
/// doubled and the one-link term raised to keep the sum at 9/8).
pub const LEVEL_TWO: PathCoefficients = PathCoefficients {
    one: 1.0,
    three: 1.0 / 16.0,
    five: 1.0 / 64.0,
    seven: 1.0 / 384.0,
    lepage: -1.0 / 8.0,
};

/// The fat and Naik links of a HISQ operator, phases, ½ and time boundary folded in.
pub struct HisqLinks<S: Space = Lattice> {
    /// `η_μ(x) (X_μ(x) + ε/8 W_μ(x)) / 2`.
    pub fat: LinksOf<S>,
    /// `−η_μ(x) (1 + ε) N_μ(x) / 48`.
    pub naik: LinksOf<S>,
}

/// The smeared links of the three steps, before the phases are folded in.
pub struct Smeared<S: Space = Lattice> {
    /// `V`, the first level.
    pub v: LinksOf<S>,
    /// `W`, its U(3) projection.
    pub w: LinksOf<S>,
    /// `X`, the second level (without the `ε` term).
    pub x: LinksOf<S>,
}

/// The three smearing steps of `u`.
///
/// The paths reach two sites aside: on a lattice whose parts have shallower halos (a split
/// lattice's) that is an error on every backend, because these passes run with bounds checks
/// (unchecked, the GPU would read wrapped neighbours). They run once per gauge field.
pub fn smeared<S: Space>(u: &GaugeField<S>) -> ongpu::Result<Smeared<S>> {
    ongpu_runtime::with_bounds_checks(true, || smeared_unchecked(u))
}

fn smeared_unchecked<S: Space>(u: &GaugeField<S>) -> ongpu::Result<Smeared<S>> {
    let lat = u.lattice();
    let v = smear(lat, u.links(), LEVEL_ONE)?;
    let mut w: LinksOf<S> = lat.zeros()?;
    on_gpu!(lat, {
        for mu in 0..4 {
            w[mu] = polar_u3(v[mu]);
        }
    })?;
    let x = smear(lat, &w, LEVEL_TWO)?;
    Ok(Smeared { v, w, x })
}

impl<S: Space> HisqLinks<S> {
    /// The links of `u` with the Naik correction `epsilon` (0 for light quarks) and the
    /// quarks' time boundary. An error if `epsilon` is not finite.
    pub fn new(u: &GaugeField<S>, epsilon: f64, boundary: TimeBoundary) -> ongpu::Result<Self> {
        if !epsilon.is_finite() {
            return Err(ongpu::Error::InvalidArgument(format!(
                "the Naik correction ε must be finite, not {epsilon}"
            )));
        }
        let s = smeared(u)?;
        Self::from_smeared(u.lattice(), &s, epsilon, boundary)
    }

    /// The links of already smeared fields (for the force, which keeps them). The Naik
    /// lines reach two sites ahead: checked as [`smeared`] is.
    pub fn from_smeared(
        lat: S,
        s: &Smeared<S>,
        epsilon: f64,
        boundary: TimeBoundary,
    ) -> ongpu::Result<Self> {
        ongpu_runtime::with_bounds_checks(true, || Self::fold(lat, s, epsilon, boundary))
    }

    fn fold(lat: S, s: &Smeared<S>, epsilon: f64, boundary: TimeBoundary) -> ongpu::Result<Self> {
        let (x, w) = (&s.x, &s.w);
        let mut fat: LinksOf<S> = lat.zeros()?;
        let mut naik: LinksOf<S> = lat.zeros()?;
        let one = epsilon / 8.0;
        let three = -(1.0 + epsilon) / 24.0;
        on_gpu!(lat, {
            for mu in 0..4 {
                fat[mu] = x[mu] + one * w[mu];
                naik[mu] = three * (w[mu] * w.shift(mu, 1)[mu] * w.shift(mu, 2)[mu]);
            }
        })?;
        Self::apply_phases(lat, boundary, &mut fat, &mut naik)?;
        Ok(HisqLinks { fat, naik })
    }

    /// The gradients with respect to the bare fat links (`X + ε/8 W`) and Naik lines
    /// (`−(1+ε)/24 · WWW`) from those with respect to the folded ones: the folding
    /// multiplies each link by a real number (`±½`, the boundary's sign), so its pullback
    /// multiplies each gradient by the same number.
    pub fn unfold(
        lat: S,
        boundary: TimeBoundary,
        fat: &mut LinksOf<S>,
        naik: &mut LinksOf<S>,
    ) -> ongpu::Result<()> {
        Self::apply_phases(lat, boundary, fat, naik)
    }

    /// `fat` and `naik` times `η_μ(x)/2` and the time boundary's sign on the hops that
    /// cross the last slice.
    fn apply_phases(
        lat: S,
        boundary: TimeBoundary,
        fat: &mut LinksOf<S>,
        naik: &mut LinksOf<S>,
    ) -> ongpu::Result<()> {
        on_gpu!(lat, |i| {
            let mut below = 0usize;
            for mu in 0..4 {
                let eta = if below % 2 == 0 { 0.5 } else { -0.5 };
                fat[mu] = eta * fat[mu];
                naik[mu] = eta * naik[mu];
                below += lat.coord(i, mu);
            }
        })?;
        apply_time_boundary(lat, boundary, fat)?;
        if boundary != TimeBoundary::Periodic {
            let sign = boundary.sign();
            let t_len = lat.whole().extents()[3];
            on_gpu!(lat, |i| {
                if lat.coord(i, 3) + 3 >= t_len {
                    naik[3] = sign * naik[3];
                }
            })?;
        }
        Ok(())
    }
}
