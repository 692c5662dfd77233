//! The staggered operator: the links with the phases and the ½ folded in, and the mass.

use super::passes::{self, hop, normal};
use super::FermionOf;
use crate::boundary::{apply_time_boundary, TimeBoundary};
use crate::gauge::{GaugeField, LinksOf};
use ongpu::prelude::*;

/// The staggered phase `η_mu(x) = (−1)^(x_0 + … + x_{mu−1})` at coordinates `c`.
pub fn staggered_phase(c: [usize; 4], mu: usize) -> f64 {
    if c[..mu].iter().sum::<usize>() % 2 == 0 {
        1.0
    } else {
        -1.0
    }
}

/// The staggered operator of a gauge field and a mass.
///
/// It holds the links `Ũ_mu(x) = η_mu(x) U_mu(x) / 2`: folding the phases and the ½ in once
/// keeps them out of every pass (no coordinates, no sign, no scale per site), and it is
/// exact because `η_mu(x − mû) = η_mu(x)`, so the backward term `η_mu(x) U_mu(x−mû)†` reads
/// the folded link of its own neighbour. `D` is then the plain hopping term
/// `D ψ(x) = Σ_mu Ũ_mu(x) ψ(x+mû) − Ũ_mu(x−mû)† ψ(x−mû)`; it connects only sites of
/// opposite parity, so a call over one parity is one block of it. A time boundary other
/// than periodic is folded in too ([`crate::boundary`]).
pub struct Staggered<S: Space = Lattice> {
    lat: S,
    links: LinksOf<S>,
    mass: f64,
    boundary: TimeBoundary,
}

impl<S: Space> Staggered<S> {
    /// The operator of the links of `u` and the mass `mass` (the phases folded in on the
    /// device), periodic in every direction: [`with_boundary`](Self::with_boundary) for
    /// antiperiodic quarks.
    pub fn new(u: &GaugeField<S>, mass: f64) -> ongpu::Result<Staggered<S>> {
        Self::with_boundary(u, mass, TimeBoundary::Periodic)
    }

    /// The operator of `u` and `mass` with the quarks' time boundary `boundary`
    /// (antiperiodic: the folded time links of the last time slice negated).
    pub fn with_boundary(
        u: &GaugeField<S>,
        mass: f64,
        boundary: TimeBoundary,
    ) -> ongpu::Result<Staggered<S>> {
        let lat = u.lattice();
        let src = u.links();
        let mut links: LinksOf<S> = lat.zeros()?;
        on_gpu!(lat, |i| {
            let mut below = 0usize;
            for mu in 0..4 {
                let eta = if below % 2 == 0 { 0.5 } else { -0.5 };
                links[mu] = eta * src[mu];
                below += lat.coord(i, mu);
            }
        })?;
        apply_time_boundary(lat, boundary, &mut links)?;
        Ok(Staggered {
            lat,
            links,
            mass,
            boundary,
        })
    }

    /// The quarks' boundary condition in time.
    pub fn boundary(&self) -> TimeBoundary {
        self.boundary
    }

    /// Where its vectors live (for an operator on a [`Lattice`], the lattice).
    pub fn lattice(&self) -> S {
        self.lat
    }

    /// The mass `m` of the normal operator `m² − D_eo D_oe`.
    pub fn mass(&self) -> f64 {
        self.mass
    }

    /// The folded links `η_mu(x) U_mu(x) / 2` the passes read.
    pub fn links(&self) -> &LinksOf<S> {
        &self.links
    }

    /// `out = D_oe psi`: the odd sites of `out` from the even sites of `psi` (the even
    /// sites of `out` are left as they were).
    pub fn d_oe(&self, psi: &FermionOf<S>, out: &mut FermionOf<S>) -> ongpu::Result<()> {
        hop(self.lat.odd(), &self.links, psi, out)
    }

    /// `out = D_eo psi`: the even sites of `out` from the odd sites of `psi`.
    pub fn d_eo(&self, psi: &FermionOf<S>, out: &mut FermionOf<S>) -> ongpu::Result<()> {
        hop(self.lat.even(), &self.links, psi, out)
    }

    /// `out = D psi` at every site.
    pub fn dslash(&self, psi: &FermionOf<S>, out: &mut FermionOf<S>) -> ongpu::Result<()> {
        self.d_oe(psi, out)?;
        self.d_eo(psi, out)
    }

    /// `out = (m² − D_eo D_oe) x` at the even sites, through `tmp = D_oe x` at the odd
    /// ones (Hermitian and positive definite, because `D` is anti-Hermitian).
    pub fn normal(
        &self,
        x: &FermionOf<S>,
        tmp: &mut FermionOf<S>,
        out: &mut FermionOf<S>,
    ) -> ongpu::Result<()> {
        self.d_oe(x, tmp)?;
        normal(self.lat, &self.links, tmp, x, self.mass * self.mass, out)
    }

    /// At the even sites `w = (A + shift) x` (with `t = D_oe x` on the odd ones), returning
    /// `|x|²` and `Re⟨x, w⟩` from the same pass: CG's application, and the shifted one of
    /// the multi-shift CG.
    pub fn apply_shifted(
        &self,
        x: &FermionOf<S>,
        shift: f64,
        t: &mut FermionOf<S>,
        w: &mut FermionOf<S>,
    ) -> ongpu::Result<(f64, f64)> {
        self.d_oe(x, t)?;
        let m2 = self.mass * self.mass + shift;
        let sums = passes::apply_and_reduce(self.lat, &self.links, t, x, m2, w)?;
        Ok((sums.r_norm2, sums.r_dot_ar))
    }
}

super::interface::even_odd_normal_interface!(Staggered);
