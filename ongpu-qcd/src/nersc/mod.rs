//! Gauge configurations on disk in the NERSC archive format, the plain format that MILC,
//! Grid, Chroma/QDP++ and most lattice codes read and write.
//!
//! ```
//! # mod ongpu { pub use ::ongpu_runtime::*; pub mod qcd { pub use ::ongpu_qcd::*; } }
//! # fn main() -> ongpu::Result<()> {
//! use ongpu::qcd::nersc::{self, Format};
//! use ongpu::{ColorMatrix, Field, Lattice};
//!
//! let lat = Lattice::new([4, 4, 4, 8])?;
//! let u: Field<[ColorMatrix<f64>; 4]> =
//!     Field::filled(lat.volume(), [ColorMatrix::identity(); 4]);
//! let path = std::env::temp_dir().join(format!("nersc-doc-{}.cfg", std::process::id()));
//! nersc::write(&path, &lat, &u, Format::default())?;               // 3x3, IEEE64BIG
//! let (lat2, u2, header): (Lattice, Field<_>, _) = nersc::read(&path)?;
//! assert_eq!((lat2, header.plaquette), (lat, 1.0));
//! # std::fs::remove_file(&path).ok();
//! # Ok(())
//! # }
//! ```
//!
//! A file is a text header, `BEGIN_HEADER`, lines `KEY = value`, `END_HEADER`, followed by
//! the links: sites in lexicographic order (x fastest, then y, z, t), per site the links in
//! directions x, y, z, t, per link its rows row-major (all three for `4D_SU3_GAUGE_3x3`, the
//! first two for `4D_SU3_GAUGE`), each entry as (re, im), in the precision and byte order
//! `FLOATING_POINT` names. The header's `CHECKSUM` (the 32-bit word sum of the stored
//! values), `PLAQUETTE` and `LINK_TRACE` let a reader check the links; [`read`] checks all
//! three. Fields on a [`Lattice`](ongpu_runtime::Lattice) hold sites in even-odd order, so both
//! directions reorder through [`Lattice::index`](ongpu_runtime::Lattice::index).
//!
//! The format details were checked against the readers and writers of Grid
//! (`Grid/parallelIO/NerscIO.h`, `BinaryIO.h`, `MetaData.h`), QDP++
//! (`lib/qdp_iogauge.cc`, `lib/qdp_scalar_specific.cc`), MILC (`generic/io_lat4.c`,
//! `generic/io_lat_utils.c`, `generic/nersc_cksum.c`) and PyQUDA (`pyquda_io/nersc.py`);
//! each file of this module names what it follows.

mod checksum;
pub(crate) mod date;
mod format;
mod gauge_stats;
mod header;
pub(crate) mod links;
mod read;
pub(crate) mod site_order;
pub(crate) mod write;

pub use format::{ByteOrder, Format, Precision, Rows};
pub use header::{Ensemble, Header};
pub use read::read;
pub(crate) use read::{check_stats, open};
pub(crate) use write::header_and_file;
pub use write::{write, write_with};

use ongpu_runtime::AoSoA;
use ongpu_runtime::ColorMatrix;
use ongpu_runtime::Error;
use ongpu_runtime::Field;
use std::path::Path;

/// A gauge field in double precision, as [`read`] returns it: per site the links in
/// directions x, y, z, t. (`write` takes single precision too.)
pub type LinkField<L = AoSoA<32>> = Field<[ColorMatrix<f64>; 4], L>;

/// The error of every failure with the file at `path`.
fn file_error(path: &Path, reason: impl Into<String>) -> Error {
    Error::GaugeFile {
        path: path.display().to_string(),
        reason: reason.into(),
    }
}
