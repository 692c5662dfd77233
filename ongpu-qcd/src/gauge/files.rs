//! A gauge field to and from a NERSC archive file ([`crate::nersc`]).

use super::GaugeField;
use crate::nersc::{self, Ensemble, Format, Header};
use std::path::Path;

impl GaugeField {
    /// Reads a NERSC file: the lattice from its header, the links checked against its
    /// checksum, plaquette and link trace (a damaged file is an [`ongpu::Error`] and nothing
    /// is returned); the header comes back too, for its `SEQUENCE_NUMBER` and labels.
    pub fn read_nersc(path: impl AsRef<Path>) -> ongpu::Result<(GaugeField, Header)> {
        let (lat, links, header) = nersc::read(path)?;
        Ok((GaugeField { lat, links }, header))
    }

    /// Writes the links as a NERSC file in `format`, with the labels of `ensemble` (its
    /// `sequence_number` is what [`QuenchedUpdate::resume`](crate::quenched::QuenchedUpdate::resume)
    /// takes back); returns the header written.
    pub fn write_nersc(
        &self,
        path: impl AsRef<Path>,
        format: Format,
        ensemble: &Ensemble,
    ) -> ongpu::Result<Header> {
        nersc::write_with(path, &self.lat, &self.links, format, ensemble)
    }
}
