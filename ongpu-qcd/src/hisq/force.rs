//! The force of HISQ quarks on the gauge links: the chain rule from the fermion action,
//! through the Naik lines, the second level of smearing, the U(3) projection and the first
//! level, to the thin links (gradients in the convention `δS = Σ Re tr(G† δU)`).
//!
//! 1. **The operator's links** ([`accumulate_link_gradients`]). For a term
//!    `α φ† (A + β)⁻¹ φ` of a rational action, `A = m² − D_eo D_oe`, with `X = (A + β)⁻¹ φ`
//!    on the even sites and `Y = D_oe X` on the odd ones,
//!    `δS = −2α Re(Y† δD_oe X)` (`D` is anti-Hermitian), so the gradient of a fat link is
//!    `G_F(x) = 2α X(x) Y(x+μ̂)†` at an even `x` and `−2α Y(x) X(x+μ̂)†` at an odd one; a
//!    Naik link's is the same with `x + 3μ̂`.
//! 2. **Phases** ([`HisqLinks::unfold`](super::HisqLinks)): the folded links are the bare
//!    ones times real signs and the ½, so the bare gradients are the folded ones times the
//!    same numbers.
//! 3. **Naik lines** `N = c W(x) W(x+μ̂) W(x+2μ̂)`: each `W` gets `A† G B†` (`A`, `B` the
//!    factors before and after it); the fat link's `ε/8 · W` adds `ε/8 · G_X`.
//! 4. **Second level** `X = smear(W)`, [`smear_pullback`]; **projection** `W = polar(V)`,
//!    [`polar_u3_pullback`]; **first level** `V = smear(U)`, [`smear_pullback`].
//! 5. **Momenta**: along `U → e^{ωT} U` the action changes by `Re tr(U G† T)`, and with the
//!    generators' `tr(TᵃTᵇ) = −½δᵃᵇ` of [`crate::hmc`] the force `−Σₐ Tᵃ ∂ₐS` is
//!    `½ P(U G†)` (`P` the traceless anti-Hermitian part) ([`accumulate_momenta`]).

use super::links::{HisqLinks, Smeared, LEVEL_ONE, LEVEL_TWO};
use super::operator::Hisq;
use super::paths_pullback::smear_pullback;
use super::polar_pullback::polar_u3_pullback;
use crate::boundary::TimeBoundary;
use crate::gauge::algebra::{outer_product, traceless_antihermitian};
use crate::gauge::LinksOf;
use crate::staggered::{FermionOf, FermionsOf};
use ongpu::prelude::*;

/// The gradients of an action with respect to the operator's (folded) fat and Naik links.
pub struct LinkGradients<S: Space = Lattice> {
    /// With respect to the fat links.
    pub fat: LinksOf<S>,
    /// With respect to the Naik links.
    pub naik: LinksOf<S>,
}

impl<S: Space> LinkGradients<S> {
    /// Zero gradients.
    pub fn zeros(lat: S) -> ongpu::Result<Self> {
        Ok(LinkGradients {
            fat: lat.zeros()?,
            naik: lat.zeros()?,
        })
    }
}

/// `g += ∂ (α φ† (A + β)⁻¹ φ)` through `x = (A + β)⁻¹ φ` (even sites) and `y = D_oe x` (odd
/// sites): step 1 of the module documentation.
pub fn accumulate_link_gradients<S: Space>(
    lat: S,
    alpha: f64,
    x: &FermionOf<S>,
    y: &FermionOf<S>,
    g: &mut LinkGradients<S>,
) -> ongpu::Result<()> {
    let (fat, naik) = (&mut g.fat, &mut g.naik);
    let c = 2.0 * alpha;
    on_gpu!(lat.even(), {
        for mu in 0..4 {
            fat[mu] += outer_product(x, y.shift(mu, 1)) * c;
            naik[mu] += outer_product(x, y.shift(mu, 3)) * c;
        }
    })?;
    let minus_c = -c;
    on_gpu!(lat.odd(), {
        for mu in 0..4 {
            fat[mu] += outer_product(y, x.shift(mu, 1)) * minus_c;
            naik[mu] += outer_product(y, x.shift(mu, 3)) * minus_c;
        }
    })
}

/// `g += ∂ Σₖ αₖ φ† (A + βₖ)⁻¹ φ` from the solutions `x` of a multi-shift solve (vector `k`
/// is `(A + βₖ)⁻¹ φ` on the even sites): one `D_oe` and one gradient pass per shift.
pub fn accumulate_shifted_gradients<S: Space, const N: usize>(
    op: &Hisq<S>,
    alphas: [f64; N],
    x: &FermionsOf<S, N>,
    g: &mut LinkGradients<S>,
) -> ongpu::Result<()>
where
    [ColorVector<f64>; N]: ongpu::Element,
{
    let lat = op.lattice();
    let mut xk: FermionOf<S> = lat.zeros()?;
    let mut yk: FermionOf<S> = lat.zeros()?;
    for (k, &alpha) in alphas.iter().enumerate() {
        on_gpu!(lat.even(), {
            xk = x[k];
        })?;
        op.d_oe(&xk, &mut yk)?;
        accumulate_link_gradients(lat, alpha, &xk, &yk, g)?;
    }
    Ok(())
}

/// The gradient with respect to the thin links `U` from the gradients `g` with respect to
/// the operator's links, built from `smeared` (the smearing of `u`) with Naik correction
/// `epsilon` and time boundary `boundary`: steps 2 to 4 of the module documentation.
/// `g` is used up.
pub fn pull_back_to_thin_links<S: Space>(
    lat: S,
    u: &LinksOf<S>,
    smeared: &Smeared<S>,
    epsilon: f64,
    boundary: TimeBoundary,
    g: LinkGradients<S>,
) -> ongpu::Result<LinksOf<S>> {
    let mut total = SmearedGradients::zeros(lat)?;
    total.add_operator_gradients(lat, smeared, epsilon, boundary, g)?;
    total.pull_back(lat, u, smeared)
}

/// The gradients with respect to the second level `X` and the projected links `W`, summed
/// over any number of operators built from the same smearing (quarks of several masses and
/// Naik corrections), so that the two levels of smearing are pulled back once for all.
pub struct SmearedGradients<S: Space = Lattice> {
    x: LinksOf<S>,
    w: LinksOf<S>,
}

impl<S: Space> SmearedGradients<S> {
    /// Zero gradients.
    pub fn zeros(lat: S) -> ongpu::Result<Self> {
        Ok(SmearedGradients {
            x: lat.zeros()?,
            w: lat.zeros()?,
        })
    }

    /// Adds the gradients `g` with respect to the links of one operator (Naik correction
    /// `epsilon`, time boundary `boundary`): steps 2 and 3. `g` is used up.
    pub fn add_operator_gradients(
        &mut self,
        lat: S,
        smeared: &Smeared<S>,
        epsilon: f64,
        boundary: TimeBoundary,
        mut g: LinkGradients<S>,
    ) -> ongpu::Result<()> {
        ongpu_runtime::with_bounds_checks(true, || {
            HisqLinks::unfold(lat, boundary, &mut g.fat, &mut g.naik)?;
            let (g_fat, g_naik) = (&g.fat, &g.naik);
            let (w, g_w, g_x) = (&smeared.w, &mut self.w, &mut self.x);
            let one = epsilon / 8.0;
            let three = -(1.0 + epsilon) / 24.0;
            on_gpu!(lat, {
                for mu in 0..4 {
                    let first = g_naik[mu] * (w.shift(mu, 1)[mu] * w.shift(mu, 2)[mu]).adj();
                    let middle = w.shift(mu, -1)[mu].adj()
                        * g_naik.shift(mu, -1)[mu]
                        * w.shift(mu, 1)[mu].adj();
                    let last = (w.shift(mu, -2)[mu] * w.shift(mu, -1)[mu]).adj()
                        * g_naik.shift(mu, -2)[mu];
                    g_w[mu] += three * (first + middle + last) + one * g_fat[mu];
                    g_x[mu] += g_fat[mu];
                }
            })
        })
    }

    /// The gradient with respect to the thin links `u` (whose smearing `smeared` is):
    /// step 4. The sums are used up.
    pub fn pull_back(
        mut self,
        lat: S,
        u: &LinksOf<S>,
        smeared: &Smeared<S>,
    ) -> ongpu::Result<LinksOf<S>> {
        ongpu_runtime::with_bounds_checks(true, || {
            smear_pullback(lat, &smeared.w, LEVEL_TWO, &self.x, &mut self.w)?;
            // Through the projection, into the storage of the X gradient (no longer needed).
            let (v, g_w, g_v) = (&smeared.v, &self.w, &mut self.x);
            on_gpu!(lat, {
                for mu in 0..4 {
                    g_v[mu] = polar_u3_pullback(v[mu], g_w[mu]);
                }
            })?;
            let mut g_u: LinksOf<S> = lat.zeros()?;
            smear_pullback(lat, u, LEVEL_ONE, &self.x, &mut g_u)?;
            Ok(g_u)
        })
    }
}

/// `p += c · ½ P(U G†)`: the force `−∂S` on the momenta from the gradient `g` of `S` with
/// respect to the links `u` (step 5 of the module documentation).
pub fn accumulate_momenta<S: Space>(
    lat: S,
    u: &LinksOf<S>,
    g: &LinksOf<S>,
    c: f64,
    p: &mut LinksOf<S>,
) -> ongpu::Result<()> {
    let half_c = 0.5 * c;
    on_gpu!(lat, {
        for mu in 0..4 {
            p[mu] += traceless_antihermitian(u[mu] * g[mu].adj()) * half_c;
        }
    })
}
