//! A gauge field to and from an ILDG file ([`crate::ildg`]), on any space. Reading, each
//! process reads only the sites it stores, by positioned reads, with each site's term of
//! the SciDAC checksum (an XOR over sites); the terms are gathered in site order, so each
//! counts once, their XOR is compared with the file's, and the outcome agreed: a damaged
//! file is the same error everywhere and nothing is loaded. Writing, the links are gathered and rank 0 writes.

use super::{GaugeField, LinksOf};
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
    /// never the whole file), its part of the checksum is combined with the others', and
    /// the outcome is agreed (a collective on ranks): a damaged or missing file, or one of
    /// another lattice, is the same error on every process, and nothing is loaded.
    pub fn read_ildg_onto(lat: S, path: impl AsRef<Path>) -> ongpu::Result<(Self, IldgFile)> {
        let path = path.as_ref();
        let whole = lat.whole();
        let opened = ildg::open(path).and_then(|file| {
            if file.info.extents != whole.extents() {
                return Err(ongpu::Error::GaugeFile {
                    path: path.display().to_string(),
                    reason: format!(
                        "it holds a lattice of extents {:?}, but the field is to be on the \
                         {whole}; nothing was read",
                        file.info.extents
                    ),
                });
            }
            Ok(file)
        });
        let file = lat.agree(opened)?;
        // The sites this process stores (a rank's halos among them), each read once, and
        // each site's term of the checksum kept by site.
        let mut terms = std::collections::HashMap::new();
        let mut failure = None;
        let links: LinksOf<S> = lat.field_from_fn(|i| match file.read_site(whole, i) {
            Ok((site, term)) if failure.is_none() => {
                terms.insert(i, term);
                site
            }
            Ok(_) => [ColorMatrix::zero(); 4],
            Err(e) => {
                failure.get_or_insert(e);
                [ColorMatrix::zero(); 4]
            }
        })?;
        let read = match failure {
            Some(e) => Err(e),
            None => Ok(()),
        };
        lat.agree(read)?;
        // The terms as a field, gathered in the whole lattice's order: every site's term
        // once (its owner's), whatever halos the processes hold; their XOR is the file's
        // checksum.
        let parts: <S as Space>::Field<Complex<f64>, crate::SiteLayout> =
            lat.field_from_fn(|i| {
                let (a, b) = terms.get(&i).copied().unwrap_or((0, 0));
                Complex::new(a as f64, b as f64)
            })?;
        drop(terms);
        let gathered = parts.values()?;
        let verified = file.verify_parts(gathered.iter().map(|z| (z.re as u32, z.im as u32)));
        lat.agree(verified)?;
        let field = GaugeField { lat, links };
        let finite = field.to_host().and_then(|host| file.check_finite(&host));
        lat.agree(finite)?;
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
