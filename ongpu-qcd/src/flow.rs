//! The Wilson (gradient) flow of a gauge field and what it measures: the energy density
//! `E(t)`, `t² E(t)`, the scales `t₀` and `w₀`, and the topological charge `Q(t)`
//! (M. Lüscher, *Properties and uses of the Wilson flow in lattice QCD*, JHEP 08 (2010) 071).
//!
//! The flow `dV/dt = Z(V) V`, `Z = −g₀² ∂S_W` for the Wilson action
//! `S_W = (1/g₀²) Σ_p Re tr(1 − U_p)` summed over *oriented* plaquettes (each plaquette twice:
//! the standard `β Σ_p (1 − Re tr U_p/3)` with `β = 6/g₀²`), is `Z_mu(x) = −P(U_mu(x) A_mu(x))`
//! with `A_mu(x)` the sum of the six staples around the link and `P` the traceless
//! anti-Hermitian part (generators normalised to `tr(TᵃTᵇ) = −½δᵃᵇ`): twice the gradient
//! `−½ P(U A)` of the plaquette sum over unoriented plaquettes that
//! [`accumulate_force`] computes. It is integrated by Lüscher's
//! third-order Runge–Kutta scheme (his eq. (C.1)–(C.3)), in its low-storage form: one
//! accumulator field holds the combination of forces each stage exponentiates,
//!
//! ```text
//! W₁ = exp(¼ Z₀) W₀,  W₂ = exp(8/9 Z₁ − 17/36 Z₀) W₁,  V(t+ε) = exp(¾ Z₂ − 8/9 Z₁ + 17/36 Z₀) W₂,
//! ```
//!
//! with `Zᵢ = ε Z(Wᵢ)`. Each stage is four force passes (one per direction, reading the
//! links shifted and writing the accumulator) and one update pass (writing the links).
//!
//! `E = −Σ_{mu<nu} tr(G_{mu nu}²)` per site with the clover-leaf `G` of
//! [`GaugeField::field_strength`], and
//! `Q = −(1/32π²) Σ_x ε_{μνρσ} tr(G_{μν} G_{ρσ}) = −(1/4π²) Σ_x Re tr(G₀₁G₂₃ − G₀₂G₁₃ +
//! G₀₃G₁₂)` (the form of Lüscher's paper; `(1/64π²) Σ_x ε_{μνρσ} Gᵃ_{μν} Gᵃ_{ρσ}` in
//! components): the second Chern number, an integer for a smooth field on the torus. The
//! tests check both against constant abelian fields, where they are known exactly.

use crate::gauge::force::{accumulate_force, exp_times};
use crate::gauge::{FieldStrengthOf, GaugeField, LinksOf};
use ongpu::prelude::*;

/// The value of `t² E` that defines `t₀` (and of `t d/dt (t² E)` that defines `w₀²`).
pub const SCALE_REFERENCE: f64 = 0.3;

/// Flow steps of a fixed size, with the scratch space they need (allocated at the first
/// step).
///
/// ```
/// # mod ongpu { pub use ::ongpu_runtime::*; pub mod qcd { pub use ::ongpu_qcd::*; } }
/// use ongpu::qcd::{flow::WilsonFlow, gauge::GaugeField};
/// # fn main() -> ongpu::Result<()> {
/// let lat = ongpu::Lattice::new([4, 4, 4, 4])?;
/// let mut u = GaugeField::smooth(lat, 0.3, 1)?;
/// let mut flow = WilsonFlow::new(lat, 0.02)?;
/// let before = flow.measure(&u)?;
/// for _ in 0..10 {
///     flow.step(&mut u)?;
/// }
/// let after = flow.measure(&u)?;
/// assert!(after.energy < before.energy);     // the flow smooths
/// assert!((after.t - 0.2).abs() < 1e-12);
/// # Ok(())
/// # }
/// ```
pub struct WilsonFlow<S: Space = Lattice> {
    lat: S,
    eps: f64,
    t: f64,
    acc: Option<LinksOf<S>>,
    strength: Option<FieldStrengthOf<S>>,
}

/// What the flow measures at one flow time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlowPoint {
    /// The flow time `t` (in lattice units, `a²`).
    pub t: f64,
    /// `⟨E⟩`, the clover energy density averaged over the sites.
    pub energy: f64,
    /// `t² ⟨E⟩`.
    pub t2e: f64,
    /// The clover topological charge `Q`.
    pub charge: f64,
    /// The mean plaquette.
    pub plaquette: f64,
}

impl<S: Space> WilsonFlow<S> {
    /// Steps of size `eps` (> 0) on `lat`, from flow time 0.
    pub fn new(lat: S, eps: f64) -> ongpu::Result<Self> {
        if !(eps > 0.0 && eps.is_finite()) {
            return Err(ongpu::Error::InvalidArgument(format!(
                "the flow step must be positive and finite, not {eps}"
            )));
        }
        Ok(WilsonFlow {
            lat,
            eps,
            t: 0.0,
            acc: None,
            strength: None,
        })
    }

    /// The flow time reached.
    pub fn time(&self) -> f64 {
        self.t
    }

    /// The step size.
    pub fn step_size(&self) -> f64 {
        self.eps
    }

    /// One Runge–Kutta step of `u` from `t` to `t + ε`.
    pub fn step(&mut self, u: &mut GaugeField<S>) -> ongpu::Result<()> {
        u.check_lattice(self.lat, "the flow")?;
        let (lat, eps) = (self.lat, self.eps);
        let acc = match &mut self.acc {
            Some(a) => a,
            empty => empty.insert(lat.zeros()?),
        };
        for (z, keep, exponent) in [
            (1.0, 0.0, 0.25),
            (8.0 / 9.0, -17.0 / 36.0, 1.0),
            (0.75, -1.0, 1.0),
        ] {
            // Z = 2 ∂ Σ_p Re tr U_p (see the module documentation).
            accumulate_force(lat, u.links(), 2.0 * eps * z, keep, acc)?;
            exp_times(lat, acc, exponent, u.links_mut())?;
        }
        self.t += eps;
        Ok(())
    }

    /// `E`, `t² E`, `Q` and the plaquette of `u` at the current flow time.
    pub fn measure(&mut self, u: &GaugeField<S>) -> ongpu::Result<FlowPoint> {
        u.check_lattice(self.lat, "the flow")?;
        let lat = self.lat;
        let g = match &mut self.strength {
            Some(f) => f,
            empty => empty.insert(lat.zeros()?),
        };
        u.field_strength(g)?;
        let g = &*g;
        let sums: Complex<f64> = on_gpu!(sum: lat, {
            let mut e = 0.0;
            for p in 0..6 {
                e -= (g[p] * g[p]).trace().re;
            }
            let q = (g[0] * g[5]).trace().re - (g[1] * g[4]).trace().re
                + (g[2] * g[3]).trace().re;
            Complex::new(e, q)
        })?;
        let volume = lat.whole().volume() as f64;
        let energy = sums.re / volume;
        Ok(FlowPoint {
            t: self.t,
            energy,
            t2e: self.t * self.t * energy,
            charge: -sums.im / (4.0 * std::f64::consts::PI * std::f64::consts::PI),
            plaquette: u.plaquette()?,
        })
    }
}

/// The flow time where `t² E` first reaches [`SCALE_REFERENCE`] along `history` (points in
/// increasing `t`), by linear interpolation between the two points around it; `None` if it
/// never does.
pub fn t0(history: &[FlowPoint]) -> Option<f64> {
    let (times, t2e) = history
        .iter()
        .map(|p| (p.t, p.t2e))
        .unzip::<_, _, Vec<_>, Vec<_>>();
    t0_of(&times, &t2e)
}

/// `w₀²`: where `t d/dt (t² E)` first reaches [`SCALE_REFERENCE`] (the derivative by
/// differences of neighbouring points, at their midpoints), by linear interpolation.
pub fn w0_squared(history: &[FlowPoint]) -> Option<f64> {
    let (times, t2e) = history
        .iter()
        .map(|p| (p.t, p.t2e))
        .unzip::<_, _, Vec<_>, Vec<_>>();
    w0_squared_of(&times, &t2e)
}

/// [`t0`] of the values `t2e[k]` of `t² E` at the flow times `times[k]` (an ensemble's
/// mean, say).
pub(crate) fn t0_of(times: &[f64], t2e: &[f64]) -> Option<f64> {
    crossing(times.iter().copied().zip(t2e.iter().copied()))
}

/// [`w0_squared`] of the values `t2e[k]` of `t² E` at the flow times `times[k]`.
pub(crate) fn w0_squared_of(times: &[f64], t2e: &[f64]) -> Option<f64> {
    crossing(times.windows(2).zip(t2e.windows(2)).map(|(t, y)| {
        let mid = 0.5 * (t[0] + t[1]);
        (mid, mid * (y[1] - y[0]) / (t[1] - t[0]))
    }))
}

/// The first `t` where `y(t)` reaches the reference value, linearly interpolated.
fn crossing(points: impl Iterator<Item = (f64, f64)>) -> Option<f64> {
    let mut last: Option<(f64, f64)> = None;
    for (t, y) in points {
        if let Some((t0, y0)) = last {
            if y0 < SCALE_REFERENCE && y >= SCALE_REFERENCE {
                return Some(t0 + (SCALE_REFERENCE - y0) * (t - t0) / (y - y0));
            }
        }
        last = Some((t, y));
    }
    None
}
