//! The gauge field: four SU(3) links per site of a [`Lattice`], on the device (or CPU
//! threads) as one field of `[ColorMatrix<f64>; 4]`.
//!
//! Constructors give the ordered start ([`GaugeField::unit`]), independent random links
//! ([`GaugeField::random`]: the hardest case for a solver), links near the identity
//! ([`GaugeField::smooth`]) and the hot start of a Markov chain ([`GaugeField::hot`]: a
//! heatbath sweep at β = 0, the Haar measure; defined with the updates, in
//! [`crate::quenched`]). Observables ([`GaugeField::plaquette`],
//! [`GaugeField::link_trace`]), staples, reunitarisation and gauge transformations are
//! `on_gpu!` calls; NERSC files are read and written through [`crate::nersc`].

pub mod algebra;
pub mod compressed;
mod field_strength;
mod files;
pub mod force;
mod ildg_files;
mod lines;
mod observables;
mod projection;
mod site_reads;
pub(crate) mod staple_sum;
pub mod su3;
mod transform;

pub use field_strength::{plane, FieldStrengthOf, PLANES};
pub(crate) use lines::StraightLine;
pub use projection::{polar_su3, polar_u3, reunitarise};
pub use su3::HostLinks;
pub use transform::random_gauge_transformation;

use crate::SiteLayout;
use ongpu::prelude::*;
use rand::rngs::SmallRng;
use rand::SeedableRng;

/// The links of a gauge field on a [`Lattice`] as one field: `links[x][mu] = U_mu(x)`.
pub type Links = Field<[ColorMatrix<f64>; 4]>;

/// The links of a gauge field on any [`Space`] (a split lattice, one cut over MPI ranks), in
/// double precision unless `T` says otherwise.
pub type LinksOf<S, T = f64> = <S as Space>::Field<[ColorMatrix<T>; 4], SiteLayout>;

/// Four SU(3) links per site of a lattice, in double precision. `S` is where the links
/// live: a [`Lattice`] (the default), or any other [`Space`]; every method is the same
/// code on all of them.
pub struct GaugeField<S: Space = Lattice> {
    lat: S,
    links: LinksOf<S>,
}

impl<S: Space> GaugeField<S> {
    /// Every link the identity (the cold start; plaquette exactly 1).
    pub fn unit(lat: S) -> ongpu::Result<GaugeField<S>> {
        Ok(GaugeField {
            lat,
            links: lat.filled([ColorMatrix::identity(); 4])?,
        })
    }

    /// Every link an independent SU(3) matrix from the Haar measure
    /// ([`su3::random_su3`]), drawn on the host from `seed`: maximal disorder (β = 0), the
    /// hardest case for a solver.
    pub fn random(lat: S, seed: u64) -> ongpu::Result<GaugeField<S>> {
        GaugeField::drawn(lat, seed, su3::random_su3)
    }

    /// The hot start of a Markov chain: every link drawn from the Haar measure, the
    /// equilibrium of β = 0 (as [`random`](Self::random): on the host, site by site of the
    /// whole lattice, so every space gets the same links). It stands for sweep 0 of the
    /// chain: the updates that go on from it draw from the later streams,
    /// `QuenchedUpdate::resume(lat, seed, 1)`.
    ///
    /// One heatbath sweep at β = 0 from the unit field, which this was before, is not Haar:
    /// its link is a product of three SU(2)-subgroup elements, with `⟨|U₀₀|²⟩ = 1/4` and
    /// `⟨|tr U|²⟩ = 7/8` where the Haar measure has 1/3 and 1 (`tests/gauge/haar.rs`).
    pub fn hot(lat: S, seed: u64) -> ongpu::Result<GaugeField<S>> {
        GaugeField::random(lat, seed)
    }

    /// Links the SU(3) projection of `1 + spread · X`, `X` with entries uniform in the unit
    /// square, drawn on the host from `seed`: close to a free field for a small `spread`.
    pub fn smooth(lat: S, spread: f64, seed: u64) -> ongpu::Result<GaugeField<S>> {
        GaugeField::drawn(lat, seed, |r| {
            su3::project_su3(&(ColorMatrix::identity() + su3::random_matrix(r) * spread))
        })
    }

    /// Links drawn one after the other (site by site of the whole lattice, direction by
    /// direction) by `link` from the host generator of `seed`: the same links whichever
    /// space holds them.
    fn drawn(
        lat: S,
        seed: u64,
        mut link: impl FnMut(&mut SmallRng) -> ColorMatrix<f64>,
    ) -> ongpu::Result<GaugeField<S>> {
        let mut r = SmallRng::seed_from_u64(seed);
        let host: HostLinks = (0..lat.whole().volume())
            .map(|_| std::array::from_fn(|_| link(&mut r)))
            .collect();
        GaugeField::from_host(lat, host)
    }

    /// A gauge field of the links `links` on `lat`; an [`ongpu::Error`] if they are not a
    /// field of `lat`.
    pub fn from_links(lat: S, links: LinksOf<S>) -> ongpu::Result<GaugeField<S>> {
        lat.check_field(&links, "field of links")?;
        Ok(GaugeField { lat, links })
    }

    /// A gauge field of host links (`links[x][mu]` in the whole lattice's site order).
    pub fn from_host(lat: S, links: HostLinks) -> ongpu::Result<GaugeField<S>> {
        let volume = lat.whole().volume();
        if links.len() != volume {
            return Err(ongpu::Error::InvalidArgument(format!(
                "a gauge field on the {lat} needs {volume} sites of links, got {}",
                links.len()
            )));
        }
        let links = lat.field_from_vec(links)?;
        Ok(GaugeField { lat, links })
    }

    /// A copy of the field, made where the links live (one pass on the device, no trip
    /// through the host): the start of a smearing or a flow that must leave the field as it
    /// was.
    pub fn try_clone(&self) -> ongpu::Result<GaugeField<S>> {
        let (lat, links) = (self.lat, &self.links);
        let mut copy: LinksOf<S> = lat.zeros()?;
        on_gpu!(lat, {
            copy = links;
        })?;
        Ok(GaugeField { lat, links: copy })
    }

    /// Where the links live (for a gauge field on a [`Lattice`], the lattice).
    pub fn lattice(&self) -> S {
        self.lat
    }

    /// The links, to capture in a body (`u[mu]`, `u.shift(nu, 1)[mu]`).
    pub fn links(&self) -> &LinksOf<S> {
        &self.links
    }

    /// The links, to write in a body.
    pub fn links_mut(&mut self) -> &mut LinksOf<S> {
        &mut self.links
    }

    /// The links, giving up the lattice.
    pub fn into_links(self) -> LinksOf<S> {
        self.links
    }

    /// A host copy of the links, in the whole lattice's site order (over MPI ranks a
    /// collective call: every rank gets them all).
    pub fn to_host(&self) -> ongpu::Result<HostLinks> {
        self.links.values()
    }

    /// An [`ongpu::Error`] unless `other` is this field's lattice (`what` says whose).
    pub(crate) fn check_lattice(&self, other: S, what: &str) -> ongpu::Result<()> {
        if other == self.lat {
            Ok(())
        } else {
            Err(ongpu::Error::InvalidArgument(format!(
                "{what} is on the {other}, the gauge field on the {}",
                self.lat
            )))
        }
    }
}
