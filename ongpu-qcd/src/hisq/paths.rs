//! The paths of HISQ's smearing as `on_gpu!` passes over colour-matrix fields: the staple
//! that carries a link field `L` one step aside and back, the Lepage path that carries it
//! two steps, and the three-link Naik line. A `k`-link staple is the 3-link staple of a
//! `(k − 2)`-link one (`S5 = staple_ν(staple_ρ(L))`), and a staple is linear in `L`, so the
//! smeared link of direction `μ` is built as MILC and QUDA build it:
//!
//! `c1 L + Σ_ν staple_ν(c3 L + Σ_ρ staple_ρ(c5 L + c7 staple_σ(L)))`
//!
//! (`ν, ρ, σ` distinct and not `μ`), plus `c_L Σ_ν lepage_ν(L)` on the second level.

use crate::gauge::LinksOf;
use crate::SiteLayout;
use ongpu::prelude::*;

/// A colour matrix at every site.
pub type MatrixFieldOf<S> = <S as Space>::Field<ColorMatrix<f64>, SiteLayout>;

/// `out = keep · out + c · staple_ν(l)` for links of direction `mu`, where
/// `staple_ν(l)(x) = U_ν(x) l(x+ν̂) U_ν(x+μ̂)† + U_ν(x−ν̂)† l(x−ν̂) U_ν(x−ν̂+μ̂)`: the two
/// paths from `x` to `x + μ̂` that step aside along `±ν`, carry `l` and step back.
#[allow(clippy::too_many_arguments)]
pub fn staple<S: Space>(
    lat: S,
    u: &LinksOf<S>,
    l: &MatrixFieldOf<S>,
    mu: usize,
    nu: usize,
    c: f64,
    keep: f64,
    out: &mut MatrixFieldOf<S>,
) -> ongpu::Result<()> {
    on_gpu!(lat, {
        let up = u[nu] * l.shift(nu, 1) * u.shift(mu, 1)[nu].adj();
        let down = u.shift(nu, -1)[nu].adj() * l.shift(nu, -1) * u.shift(nu, -1).shift(mu, 1)[nu];
        out = keep * out + c * (up + down);
    })
}

/// `out += c · lepage_ν(l)` for links of direction `mu`: the two paths from `x` to
/// `x + μ̂` that step twice aside along `±ν`, carry `l` and step back twice.
pub fn lepage<S: Space>(
    lat: S,
    u: &LinksOf<S>,
    l: &MatrixFieldOf<S>,
    mu: usize,
    nu: usize,
    c: f64,
    out: &mut MatrixFieldOf<S>,
) -> ongpu::Result<()> {
    on_gpu!(lat, {
        let up = u[nu]
            * u.shift(nu, 1)[nu]
            * l.shift(nu, 2)
            * u.shift(nu, 1).shift(mu, 1)[nu].adj()
            * u.shift(mu, 1)[nu].adj();
        let down = u.shift(nu, -1)[nu].adj()
            * u.shift(nu, -2)[nu].adj()
            * l.shift(nu, -2)
            * u.shift(nu, -2).shift(mu, 1)[nu]
            * u.shift(nu, -1).shift(mu, 1)[nu];
        out += c * (up + down);
    })
}

/// `out = a · l1 + b · l2`.
pub fn combine<S: Space>(
    lat: S,
    a: f64,
    l1: &MatrixFieldOf<S>,
    b: f64,
    l2: &MatrixFieldOf<S>,
    out: &mut MatrixFieldOf<S>,
) -> ongpu::Result<()> {
    on_gpu!(lat, {
        out = a * l1 + b * l2;
    })
}

/// `out = U_mu`: one direction of the links as a matrix field.
pub fn direction<S: Space>(
    lat: S,
    u: &LinksOf<S>,
    mu: usize,
    out: &mut MatrixFieldOf<S>,
) -> ongpu::Result<()> {
    on_gpu!(lat, {
        out = u[mu];
    })
}

/// The coefficients of one level of smearing: the one-link term and the 3-, 5- and 7-link
/// staples, and the Lepage term (0 on the first level).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PathCoefficients {
    /// The link itself.
    pub one: f64,
    /// Each 3-link staple.
    pub three: f64,
    /// Each 5-link staple.
    pub five: f64,
    /// Each 7-link staple.
    pub seven: f64,
    /// Each Lepage path.
    pub lepage: f64,
}

/// `out[mu] = Σ_paths c_path · path(u)` for every direction: the smeared links of one
/// level.
pub fn smear<S: Space>(lat: S, u: &LinksOf<S>, c: PathCoefficients) -> ongpu::Result<LinksOf<S>> {
    let mut out: LinksOf<S> = lat.zeros()?;
    let mut link: MatrixFieldOf<S> = lat.zeros()?;
    let mut fat: MatrixFieldOf<S> = lat.zeros()?;
    let mut inner: MatrixFieldOf<S> = lat.zeros()?;
    let mut w: MatrixFieldOf<S> = lat.zeros()?;
    let mut three: [MatrixFieldOf<S>; 4] = [lat.zeros()?, lat.zeros()?, lat.zeros()?, lat.zeros()?];
    for mu in 0..4 {
        direction(lat, u, mu, &mut link)?;
        // The 3-link staples of the link, one per direction σ: the innermost term.
        for sigma in (0..4).filter(|&s| s != mu) {
            staple(lat, u, &link, mu, sigma, 1.0, 0.0, &mut three[sigma])?;
        }
        combine(lat, c.one, &link, 0.0, &link, &mut fat)?;
        for nu in (0..4).filter(|&d| d != mu) {
            combine(lat, c.three, &link, 0.0, &link, &mut inner)?;
            for rho in (0..4).filter(|&d| d != mu && d != nu) {
                let sigma = 6 - mu - nu - rho;
                combine(lat, c.five, &link, c.seven, &three[sigma], &mut w)?;
                staple(lat, u, &w, mu, rho, 1.0, 1.0, &mut inner)?;
            }
            staple(lat, u, &inner, mu, nu, 1.0, 1.0, &mut fat)?;
            if c.lepage != 0.0 {
                lepage(lat, u, &link, mu, nu, c.lepage, &mut fat)?;
            }
        }
        on_gpu!(lat, {
            out[mu] = fat;
        })?;
    }
    Ok(out)
}
