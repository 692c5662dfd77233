//! A gauge field to and from a NERSC archive file ([`crate::nersc`]), on any space: on a
//! lattice cut over MPI ranks every rank reads the file and keeps its part, and rank 0
//! writes it from the links gathered from every rank.

use super::{GaugeField, HostLinks};
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
    /// whole lattice. On a lattice cut over MPI ranks (a collective) every rank reads and
    /// checks the whole file and keeps its part, and the outcome is agreed: a damaged or
    /// missing file, or one of another lattice, is the same error on every rank (naming the
    /// ranks it failed on), and nothing is loaded anywhere.
    pub fn read_nersc_onto(lat: S, path: impl AsRef<Path>) -> ongpu::Result<(Self, Header)> {
        let path = path.as_ref();
        let read = (|| {
            let (file_lat, links, header) = nersc::read::<AoS>(path)?;
            let whole: Lattice = lat.whole();
            if file_lat != whole {
                return Err(ongpu::Error::GaugeFile {
                    path: path.display().to_string(),
                    reason: format!(
                        "it holds a {file_lat}, but the field is to be on the {whole}; nothing \
                         was read"
                    ),
                });
            }
            let host: HostLinks = links.to_vec()?;
            drop(links);
            Ok((GaugeField::from_host(lat, host)?, header))
        })();
        lat.agree(read)
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
