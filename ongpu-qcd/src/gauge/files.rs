//! A gauge field to and from a NERSC archive file ([`crate::nersc`]), on any space: on a
//! lattice cut over MPI ranks every rank reads only its own sites, and rank 0 writes the
//! file from the links gathered from every rank.

use super::site_reads::read_sites;
use super::GaugeField;
use crate::nersc::{self, Ensemble, Format, Header};
use ongpu::prelude::*;
use std::path::Path;

impl GaugeField {
    /// Reads a NERSC file: the lattice from its header, the links checked against its
    /// checksum, plaquette and link trace (a damaged file is an [`ongpu::Error`] and nothing
    /// is returned); the header comes back too, for its `SEQUENCE_NUMBER` and labels.
    pub fn read_nersc(path: impl AsRef<Path>) -> ongpu::Result<(GaugeField, Header)> {
        let (lat, links, header) = nersc::read(path)?;
        Ok((GaugeField { lat, links }, header))
    }
}

impl<S: Space> GaugeField<S> {
    /// Reads a NERSC file onto `lat`, whose whole lattice must be the file's, as
    /// [`GaugeField::read_nersc`] does: checksum, plaquette and link trace verified over the
    /// whole lattice. Each process reads only the sites it stores (on a lattice cut over MPI
    /// ranks, a rank never reads the whole file): the checksum, a sum over sites, from every
    /// site's term gathered once; the plaquette and link trace computed on the loaded field.
    /// The outcome is agreed (a collective on ranks): a damaged or missing file, or one of
    /// another lattice, is the same error on every process (naming the ranks it failed on),
    /// and nothing is loaded.
    pub fn read_nersc_onto(lat: S, path: impl AsRef<Path>) -> ongpu::Result<(Self, Header)> {
        let path = path.as_ref();
        let whole: Lattice = lat.whole();
        let opened = nersc::open(path).and_then(|file| {
            if file.lat != whole {
                return Err(file.fail(format!(
                    "it holds a {}, but the field is to be on the {whole}",
                    file.lat
                )));
            }
            Ok(file)
        });
        let file = lat.agree(opened)?;
        let not_finite = |i: usize| {
            file.fail(format!(
                "the links of site {i} hold values that are not finite numbers"
            ))
        };
        let first = file.orders[0];
        let (links, terms) = read_sites(lat, |i| file.read_site(i, first), not_finite)?;
        let sums = terms.iter().fold([0u32; 2], |[a, b], [x, y]| {
            [a.wrapping_add(*x), b.wrapping_add(*y)]
        });
        let order = lat.agree(file.settle_order(sums))?;
        // The bare IEEE names in the other byte order: read again in it.
        let links = if order == first {
            links
        } else {
            drop(links);
            read_sites(lat, |i| file.read_site(i, order), not_finite)?.0
        };
        let mut header = file.header.clone();
        header.format.byte_order = order;
        let u = GaugeField { lat, links };
        let stats = u.plaquette().and_then(|p| {
            let t = u.link_trace()?;
            nersc::check_stats(&header, p, t).map_err(|reason| file.fail(reason))
        });
        lat.agree(stats)?;
        Ok((u, header))
    }

    /// Writes the links as a NERSC file in `format`, with the labels of `ensemble` (its
    /// `sequence_number` is what [`QuenchedUpdate::resume`](crate::quenched::QuenchedUpdate::resume)
    /// takes back); returns the header written.
    ///
    /// On a lattice cut over MPI ranks (a collective) the links are gathered from every
    /// rank, rank 0 writes the file, and every rank returns the header (computed from the
    /// same links; its `CREATION_DATE` is the rank's own clock); a failure on any rank is
    /// the same error on every rank.
    pub fn write_nersc(
        &self,
        path: impl AsRef<Path>,
        format: Format,
        ensemble: &Ensemble,
    ) -> ongpu::Result<Header> {
        let whole = self.lat.whole();
        let written = self.to_host().and_then(|host| {
            let links: Field<_, AoS> = Field::from_vec(host);
            let root = self.lat.is_root();
            nersc::header_and_file(path.as_ref(), &whole, &links, format, ensemble, root)
        });
        self.lat.agree(written)
    }
}
