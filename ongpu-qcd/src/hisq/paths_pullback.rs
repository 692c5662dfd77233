//! The chain rule through one level of smearing ([`smear`](super::paths::smear)): from the
//! gradient `G` of a function with respect to the smeared links to its gradient with
//! respect to the links they were built from (convention `δS = Σ Re tr(G† δU)`).
//!
//! A staple is linear in the field `l` it carries, and its pullback to `l` is the staple of
//! `G` itself: `G_l = staple_ν(G)` (and `lepage_ν(G)` for a Lepage path), so the nested
//! 5- and 7-link staples are pulled back by the same passes as they were built, outermost
//! first. A link `U_ν` that a path passes through gets, for a factor `U` between a prefix
//! `A` and a suffix `B` of the path, `A† G B†`, and for a factor `U†`, `B G† A`: the passes
//! below gather those terms at the link's own site, so each writes only its own links.

use super::paths::{direction, lepage, staple, MatrixFieldOf, PathCoefficients};
use crate::gauge::LinksOf;
use ongpu::prelude::*;

/// `g_u[nu] += c · ∂_{U_ν} Re tr(G† staple_ν(l))` for `staple_ν` of direction `mu`: the
/// gradient of the staple with respect to its side links, given the gradient `g` with
/// respect to the staple.
#[allow(clippy::too_many_arguments)]
pub fn staple_link_gradient<S: Space>(
    lat: S,
    u: &LinksOf<S>,
    l: &MatrixFieldOf<S>,
    g: &MatrixFieldOf<S>,
    mu: usize,
    nu: usize,
    c: f64,
    g_u: &mut LinksOf<S>,
) -> ongpu::Result<()> {
    on_gpu!(lat, {
        // The upper path from y, and from y − μ̂ (this link its last).
        let up_first = g * u.shift(mu, 1)[nu] * l.shift(nu, 1).adj();
        let up_last = g.shift(mu, -1).adj() * u.shift(mu, -1)[nu] * l.shift(mu, -1).shift(nu, 1);
        // The lower path from y + ν̂ (this link its first), and from y + ν̂ − μ̂.
        let down_first = l * u.shift(mu, 1)[nu] * g.shift(nu, 1).adj();
        let down_last = l.shift(mu, -1).adj() * u.shift(mu, -1)[nu] * g.shift(mu, -1).shift(nu, 1);
        g_u[nu] += c * (up_first + up_last + down_first + down_last);
    })
}

/// `g_u[nu] += c · ∂_{U_ν} Re tr(G† lepage_ν(l))` for the Lepage paths of direction `mu`.
#[allow(clippy::too_many_arguments)]
pub fn lepage_link_gradient<S: Space>(
    lat: S,
    u: &LinksOf<S>,
    l: &MatrixFieldOf<S>,
    g: &MatrixFieldOf<S>,
    mu: usize,
    nu: usize,
    c: f64,
    g_u: &mut LinksOf<S>,
) -> ongpu::Result<()> {
    on_gpu!(lat, {
        // The upper path `U_ν(x) U_ν(x+ν̂) l(x+2ν̂) U_ν(x+ν̂+μ̂)† U_ν(x+μ̂)†`, with this link as
        // its first, second, fourth and fifth factor.
        let up1 = g
            * u.shift(mu, 1)[nu]
            * u.shift(nu, 1).shift(mu, 1)[nu]
            * l.shift(nu, 2).adj()
            * u.shift(nu, 1)[nu].adj();
        let up2 = u.shift(nu, -1)[nu].adj()
            * g.shift(nu, -1)
            * u.shift(nu, -1).shift(mu, 1)[nu]
            * u.shift(mu, 1)[nu]
            * l.shift(nu, 1).adj();
        let up4 = u.shift(nu, -1)[nu].adj()
            * g.shift(nu, -1).shift(mu, -1).adj()
            * u.shift(nu, -1).shift(mu, -1)[nu]
            * u.shift(mu, -1)[nu]
            * l.shift(mu, -1).shift(nu, 1);
        let up5 = g.shift(mu, -1).adj()
            * u.shift(mu, -1)[nu]
            * u.shift(mu, -1).shift(nu, 1)[nu]
            * l.shift(mu, -1).shift(nu, 2)
            * u.shift(nu, 1)[nu].adj();
        // The lower path `U_ν(x−ν̂)† U_ν(x−2ν̂)† l(x−2ν̂) U_ν(x−2ν̂+μ̂) U_ν(x−ν̂+μ̂)`.
        let down1 = u.shift(nu, -1)[nu].adj()
            * l.shift(nu, -1)
            * u.shift(nu, -1).shift(mu, 1)[nu]
            * u.shift(mu, 1)[nu]
            * g.shift(nu, 1).adj();
        let down2 = l
            * u.shift(mu, 1)[nu]
            * u.shift(nu, 1).shift(mu, 1)[nu]
            * g.shift(nu, 2).adj()
            * u.shift(nu, 1)[nu].adj();
        let down4 = l.shift(mu, -1).adj()
            * u.shift(mu, -1)[nu]
            * u.shift(mu, -1).shift(nu, 1)[nu]
            * g.shift(mu, -1).shift(nu, 2)
            * u.shift(nu, 1)[nu].adj();
        let down5 = u.shift(nu, -1)[nu].adj()
            * l.shift(nu, -1).shift(mu, -1).adj()
            * u.shift(nu, -1).shift(mu, -1)[nu]
            * u.shift(mu, -1)[nu]
            * g.shift(mu, -1).shift(nu, 1);
        g_u[nu] += c * (up1 + up2 + up4 + up5 + down1 + down2 + down4 + down5);
    })
}

/// `g_u += ∂_U Re tr(G† smear(u, c))`: the pullback of one level of smearing, `g` the
/// gradient with respect to its output. The smeared fields the forward pass built are
/// rebuilt here one direction at a time rather than kept.
pub fn smear_pullback<S: Space>(
    lat: S,
    u: &LinksOf<S>,
    c: PathCoefficients,
    g: &LinksOf<S>,
    g_u: &mut LinksOf<S>,
) -> ongpu::Result<()> {
    let mut link: MatrixFieldOf<S> = lat.zeros()?;
    let mut g_out: MatrixFieldOf<S> = lat.zeros()?;
    let mut g_link: MatrixFieldOf<S> = lat.zeros()?;
    let mut inner: MatrixFieldOf<S> = lat.zeros()?;
    let mut g_inner: MatrixFieldOf<S> = lat.zeros()?;
    let mut w: MatrixFieldOf<S> = lat.zeros()?;
    let mut g_w: MatrixFieldOf<S> = lat.zeros()?;
    let mut three: [MatrixFieldOf<S>; 4] = [lat.zeros()?, lat.zeros()?, lat.zeros()?, lat.zeros()?];
    let mut g_three: [MatrixFieldOf<S>; 4] =
        [lat.zeros()?, lat.zeros()?, lat.zeros()?, lat.zeros()?];
    for mu in 0..4 {
        direction(lat, u, mu, &mut link)?;
        direction(lat, g, mu, &mut g_out)?;
        for sigma in (0..4).filter(|&s| s != mu) {
            staple(lat, u, &link, mu, sigma, 1.0, 0.0, &mut three[sigma])?;
            scale_into(lat, 0.0, &link, &mut g_three[sigma])?;
        }
        scale_into(lat, c.one, &g_out, &mut g_link)?;
        for nu in (0..4).filter(|&d| d != mu) {
            // The forward pass's inner field of this ν, rebuilt.
            scale_into(lat, c.three, &link, &mut inner)?;
            for rho in (0..4).filter(|&d| d != mu && d != nu) {
                let sigma = 6 - mu - nu - rho;
                five_and_seven(lat, c, &link, &three[sigma], &mut w)?;
                staple(lat, u, &w, mu, rho, 1.0, 1.0, &mut inner)?;
            }
            // fat += staple_ν(inner): back to the side links and to inner.
            staple_link_gradient(lat, u, &inner, &g_out, mu, nu, 1.0, g_u)?;
            staple(lat, u, &g_out, mu, nu, 1.0, 0.0, &mut g_inner)?;
            if c.lepage != 0.0 {
                lepage_link_gradient(lat, u, &link, &g_out, mu, nu, c.lepage, g_u)?;
                lepage(lat, u, &g_out, mu, nu, c.lepage, &mut g_link)?;
            }
            // inner = c3 link + Σ_ρ staple_ρ(w): back to the link, the side links and w.
            add_scaled(lat, c.three, &g_inner, &mut g_link)?;
            for rho in (0..4).filter(|&d| d != mu && d != nu) {
                let sigma = 6 - mu - nu - rho;
                five_and_seven(lat, c, &link, &three[sigma], &mut w)?;
                staple_link_gradient(lat, u, &w, &g_inner, mu, rho, 1.0, g_u)?;
                staple(lat, u, &g_inner, mu, rho, 1.0, 0.0, &mut g_w)?;
                // w = c5 link + c7 three[σ].
                add_scaled(lat, c.five, &g_w, &mut g_link)?;
                add_scaled(lat, c.seven, &g_w, &mut g_three[sigma])?;
            }
        }
        // three[σ] = staple_σ(link).
        for sigma in (0..4).filter(|&s| s != mu) {
            staple_link_gradient(lat, u, &link, &g_three[sigma], mu, sigma, 1.0, g_u)?;
            staple(lat, u, &g_three[sigma], mu, sigma, 1.0, 1.0, &mut g_link)?;
        }
        on_gpu!(lat, {
            g_u[mu] += g_link;
        })?;
    }
    Ok(())
}

/// `out = a · m`.
fn scale_into<S: Space>(
    lat: S,
    a: f64,
    m: &MatrixFieldOf<S>,
    out: &mut MatrixFieldOf<S>,
) -> ongpu::Result<()> {
    on_gpu!(lat, {
        out = a * m;
    })
}

/// `out += a · m`.
fn add_scaled<S: Space>(
    lat: S,
    a: f64,
    m: &MatrixFieldOf<S>,
    out: &mut MatrixFieldOf<S>,
) -> ongpu::Result<()> {
    on_gpu!(lat, {
        out += a * m;
    })
}

/// `out = c5 · link + c7 · three`, the field the 5-link staples carry.
fn five_and_seven<S: Space>(
    lat: S,
    c: PathCoefficients,
    link: &MatrixFieldOf<S>,
    three: &MatrixFieldOf<S>,
    out: &mut MatrixFieldOf<S>,
) -> ongpu::Result<()> {
    let (five, seven) = (c.five, c.seven);
    on_gpu!(lat, {
        out = five * link + seven * three;
    })
}
