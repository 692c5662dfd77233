//! Gauge configurations in ILDG files (the International Lattice Data Grid format, written
//! through the SciDAC/QIO conventions): a LIME container of XML records and one binary
//! record of links.
//!
//! ```
//! # mod ongpu { pub use ::ongpu_runtime::*; pub mod qcd { pub use ::ongpu_qcd::*; } }
//! # fn main() -> ongpu::Result<()> {
//! use ongpu::qcd::ildg;
//! use ongpu::qcd::nersc::Precision;
//! use ongpu::{ColorMatrix, Field, Lattice};
//!
//! let lat = Lattice::new([4, 4, 4, 8])?;
//! let u: Field<[ColorMatrix<f64>; 4]> =
//!     Field::filled(lat.volume(), [ColorMatrix::identity(); 4]);
//! let path = std::env::temp_dir().join(format!("ildg-doc-{}.lime", std::process::id()));
//! let written = ildg::write(&path, &lat, &u, Precision::Double)?;
//! let (lat2, u2, read): (Lattice, Field<_>, _) = ildg::read(&path)?;
//! assert_eq!((lat2, read.checksum), (lat, written.checksum));
//! # std::fs::remove_file(&path).ok();
//! # Ok(())
//! # }
//! ```
//!
//! A file written here is two LIME messages, in the order QIO and Chroma write them:
//! `scidac-private-file-xml` (the lattice), `scidac-file-xml`; then
//! `scidac-private-record-xml` (the site type), `scidac-record-xml`, `ildg-format` (field
//! `su3gauge`, precision, extents), `ildg-binary-data`, `scidac-checksum`. The binary data are
//! the sites in lexicographic order (x fastest), per site the links in directions x, y, z, t,
//! each a full 3×3 complex matrix row-major, big-endian IEEE reals of 32 or 64 bits. The
//! SciDAC checksum XORs the CRC-32 of each site's bytes, rotated by the site's lexicographic
//! rank modulo 29 and 31: a sum over sites in any order, so a process that reads only its own
//! sites checks its part, and the parts combine.
//!
//! A reader finds records by type in any order and ignores the others (Grid's
//! `grid-format`, an `ildg-data-lfn`); it needs `ildg-format` and `ildg-binary-data`, checks
//! the extents against `scidac-private-file-xml` where there is one, and verifies
//! `scidac-checksum` where there is one (files without it are read, and say so in
//! [`IldgFile::checksum`]).

mod lime;
mod read;
mod scidac_checksum;
mod write;
mod xml;

pub(crate) use read::open;
pub use read::read;
pub(crate) use write::encode_file;
pub use write::write;

use crate::nersc::Precision;

/// What an ILDG file says about itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IldgFile {
    /// `lx, ly, lz, lt`.
    pub extents: [usize; 4],
    /// The precision of the stored reals.
    pub precision: Precision,
    /// The SciDAC checksum `(suma, sumb)` of the links; `None` for a file without one.
    pub checksum: Option<(u32, u32)>,
    /// The user's file XML (`scidac-file-xml`), empty if absent.
    pub file_xml: String,
    /// The user's record XML (`scidac-record-xml`), empty if absent.
    pub record_xml: String,
    /// The logical file name (`ildg-data-lfn`), if the file has one.
    pub lfn: Option<String>,
}

/// The error of every failure with the file at `path`.
fn file_error(path: &std::path::Path, reason: impl Into<String>) -> ongpu_runtime::Error {
    ongpu_runtime::Error::GaugeFile {
        path: path.display().to_string(),
        reason: reason.into(),
    }
}
