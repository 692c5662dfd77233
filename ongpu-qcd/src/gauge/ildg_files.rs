//! A gauge field to and from an ILDG file ([`crate::ildg`]), on any space. Reading, each
//! process reads only the sites it stores, by positioned reads, with each site's term of
//! the SciDAC checksum (an XOR over sites); the terms are gathered in site order, so each
//! counts once, their XOR is compared with the file's, and the outcome agreed: a damaged
//! file is the same error everywhere and nothing is loaded. Writing, the links are gathered
//! and rank 0 writes.

use super::site_reads::read_sites;
use super::GaugeField;
use crate::ildg::{self, IldgFile};
use crate::nersc::Precision;
use ongpu::prelude::*;
use std::path::Path;

impl GaugeField {
    /// Reads an ILDG file: the lattice from its `ildg-format` record, the links checked
    /// against its SciDAC checksum (an [`ongpu::Error`] otherwise, and nothing is returned).
    pub fn read_ildg(path: impl AsRef<Path>) -> ongpu::Result<(GaugeField, IldgFile)> {
        let (lat, links, info) = ildg::read(path)?;
        Ok((GaugeField { lat, links }, info))
    }
}

impl<S: Space> GaugeField<S> {
    /// Reads an ILDG file onto `lat`, whose whole lattice must be the file's. Each process
    /// reads the sites it stores (a rank of a lattice cut over MPI ranks reads only its own,
    /// never the whole file), every site's term of the checksum is gathered once, and
    /// the outcome is agreed (a collective on ranks): a damaged or missing file, or one of
    /// another lattice, is the same error on every process, and nothing is loaded.
    pub fn read_ildg_onto(lat: S, path: impl AsRef<Path>) -> ongpu::Result<(Self, IldgFile)> {
        let whole = lat.whole();
        let opened = ildg::open(path.as_ref()).and_then(|file| {
            if file.info.extents != whole.extents() {
                return Err(file.fail(format!(
                    "it holds a lattice of extents {:?}, but the field is to be on the {whole}",
                    file.info.extents
                )));
            }
            Ok(file)
        });
        let file = lat.agree(opened)?;
        let (links, terms) = read_sites(lat, |i| file.read_site(whole, i), |i| file.not_finite(i))?;
        let verified = file.verify_parts(terms.into_iter());
        lat.agree(verified)?;
        let field = GaugeField { lat, links };
        Ok((field, file.info))
    }

    /// Writes the links as an ILDG file with reals of `precision`, and returns what the file
    /// says about itself (its SciDAC checksum among it). On a lattice cut over MPI ranks (a
    /// collective) the links are gathered, rank 0 writes, every rank returns the same, and a
    /// failure on any rank is the same error on every rank.
    pub fn write_ildg(
        &self,
        path: impl AsRef<Path>,
        precision: Precision,
    ) -> ongpu::Result<IldgFile> {
        let whole = self.lat.whole();
        let written = self.to_host().and_then(|host| {
            ildg::encode_file(path.as_ref(), &whole, &host, precision, self.lat.is_root())
        });
        self.lat.agree(written)
    }
}
