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

mod files;
mod observables;
mod projection;
pub mod su3;
mod transform;

pub use projection::reunitarise;
pub use su3::HostLinks;
pub use transform::random_gauge_transformation;

use ongpu::prelude::*;
use rand::rngs::SmallRng;
use rand::SeedableRng;

/// The links of a gauge field as one field: `links[x][mu] = U_mu(x)`.
pub type Links = Field<[ColorMatrix<f64>; 4]>;

/// Four SU(3) links per site of a lattice, in double precision.
pub struct GaugeField {
    lat: Lattice,
    links: Links,
}

impl GaugeField {
    /// Every link the identity (the cold start; plaquette exactly 1).
    pub fn unit(lat: Lattice) -> GaugeField {
        GaugeField {
            lat,
            links: Field::filled(lat.volume(), [ColorMatrix::identity(); 4]),
        }
    }

    /// Every link an independent random SU(3) matrix (Gram–Schmidt of a matrix with entries
    /// uniform in the unit square), drawn on the host from `seed`: maximal disorder, the
    /// hardest case for a solver.
    pub fn random(lat: Lattice, seed: u64) -> GaugeField {
        GaugeField::drawn(lat, seed, su3::random_su3)
    }

    /// Links the SU(3) projection of `1 + spread · X`, `X` with entries uniform in the unit
    /// square, drawn on the host from `seed`: close to a free field for a small `spread`.
    pub fn smooth(lat: Lattice, spread: f64, seed: u64) -> GaugeField {
        GaugeField::drawn(lat, seed, |r| {
            su3::project_su3(&(ColorMatrix::identity() + su3::random_matrix(r) * spread))
        })
    }

    /// Links drawn one after the other (site by site, direction by direction) by `link` from
    /// the host generator of `seed`.
    fn drawn(
        lat: Lattice,
        seed: u64,
        mut link: impl FnMut(&mut SmallRng) -> ColorMatrix<f64>,
    ) -> GaugeField {
        let mut r = SmallRng::seed_from_u64(seed);
        let host: HostLinks = (0..lat.volume())
            .map(|_| std::array::from_fn(|_| link(&mut r)))
            .collect();
        GaugeField {
            lat,
            links: Field::from_vec(host),
        }
    }

    /// A gauge field of the links `links` on `lat`; an [`ongpu::Error`] if their number is
    /// not the lattice's volume.
    pub fn from_links(lat: Lattice, links: Links) -> ongpu::Result<GaugeField> {
        if links.len() != lat.volume() {
            return Err(ongpu::Error::InvalidArgument(format!(
                "a gauge field on the {lat} needs {} sites of links, got {}",
                lat.volume(),
                links.len()
            )));
        }
        Ok(GaugeField { lat, links })
    }

    /// A gauge field of host links (`links[x][mu]` in the lattice's site order).
    pub fn from_host(lat: Lattice, links: HostLinks) -> ongpu::Result<GaugeField> {
        GaugeField::from_links(lat, Field::from_vec(links))
    }

    /// The lattice.
    pub fn lattice(&self) -> Lattice {
        self.lat
    }

    /// The links, to capture in a body (`u[mu]`, `u.shift(nu, 1)[mu]`).
    pub fn links(&self) -> &Links {
        &self.links
    }

    /// The links, to write in a body.
    pub fn links_mut(&mut self) -> &mut Links {
        &mut self.links
    }

    /// The links, giving up the lattice.
    pub fn into_links(self) -> Links {
        self.links
    }

    /// A host copy of the links, in the lattice's site order.
    pub fn to_host(&self) -> ongpu::Result<HostLinks> {
        self.links.to_vec()
    }

    /// An [`ongpu::Error`] unless `other` is this field's lattice (`what` says whose).
    pub(crate) fn check_lattice(&self, other: Lattice, what: &str) -> ongpu::Result<()> {
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
