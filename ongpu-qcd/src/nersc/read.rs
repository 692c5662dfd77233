//! Reading a gauge file: the header, then the links, checked against the header's checksum,
//! plaquette and link trace before anything is returned.

use super::checksum::word_sum;
use super::format::{ByteOrder, Format, Precision};
use super::gauge_stats::{link_trace, plaquette};
use super::header::{self, Header};
use super::links::{decode, SiteLinks};
use super::site_order::{file_order, lexicographic_rank};
use super::{file_error, LinkField};
use ongpu_runtime::ColorMatrix;
use ongpu_runtime::Field;
use ongpu_runtime::Lattice;
use ongpu_runtime::Layout;
use ongpu_runtime::{Error, Result};
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// Reads the gauge configuration in the NERSC archive file at `path`: its lattice (from
/// `DIMENSION_1..4`), its links as a field on that lattice (in the lattice's even-odd site
/// order, entry `mu` of a site being its link in direction `mu`), and its header.
///
/// Both `DATATYPE`s (`4D_SU3_GAUGE_3x3`; `4D_SU3_GAUGE`, the third row rebuilt as
/// `conj(row0 × row1)`) and every `FLOATING_POINT` (`IEEE64BIG`, `IEEE32BIG`,
/// `IEEE64LITTLE`, `IEEE32LITTLE`; the bare `IEEE64` and `IEEE32`, whose byte order codes
/// disagree on, are read in the order whose checksum matches) are read; single-precision
/// links are widened to `f64` exactly.
///
/// Before returning, the read checks that
/// - the data are exactly as long as the header's lattice and storage need,
/// - the `CHECKSUM` equals the checksum of the data,
/// - the `PLAQUETTE` and `LINK_TRACE` agree with those of the links to `1e-10` for double
///   data and `1e-6` for single (absolute, since both are at most 1 in magnitude for SU(3)
///   links, relative to the header's value beyond 1). These bounds also admit the ten
///   significant digits Grid and MILC print, and the six QDP++ prints for its single files.
///
/// Any failure is an [`Error::GaugeFile`] saying what is wrong, and nothing is returned.
///
/// ```
/// # mod ongpu { pub use ::ongpu_runtime::*; pub mod qcd { pub use ::ongpu_qcd::*; } }
/// # fn main() -> ongpu::Result<()> {
/// use ongpu::qcd::nersc;
/// use ongpu::{ColorMatrix, Field, Lattice};
/// let lat = Lattice::new([4, 4, 4, 8])?;
/// let u: Field<[ColorMatrix<f64>; 4]> =
///     Field::filled(lat.volume(), [ColorMatrix::identity(); 4]);
/// let path = std::env::temp_dir().join(format!("read-doc-{}.nersc", std::process::id()));
/// nersc::write(&path, &lat, &u, nersc::Format::default())?;
/// let (lat2, u2, header): (_, Field<_>, _) = nersc::read(&path)?;
/// assert_eq!(lat2, lat);
/// assert_eq!(u2.to_vec()?, u.to_vec()?);
/// assert_eq!(header.plaquette, 1.0);
/// # std::fs::remove_file(&path).ok();
/// # Ok(())
/// # }
/// ```
pub fn read<L: Layout>(path: impl AsRef<Path>) -> Result<(Lattice, LinkField<L>, Header)> {
    let opened = open(path.as_ref())?;
    let OpenFile {
        path,
        file,
        mut header,
        lat,
        orders,
        data_start,
    } = opened;
    let fail = |reason: String| file_error(&path, format!("{reason}; nothing was read"));
    let mut input = BufReader::with_capacity(1 << 20, file);
    let mut mismatches = Vec::new();
    let mut found = None;
    for &byte_order in &orders {
        let format = Format {
            byte_order,
            ..header.format
        };
        input
            .seek(SeekFrom::Start(data_start))
            .map_err(|e| fail(format!("could not read the data: {e}")))?;
        let (links, checksum) = read_links(&mut input, lat, format, &fail)?;
        if checksum == header.checksum {
            found = Some((links, format));
            break;
        }
        mismatches.push((byte_order, checksum));
    }
    let Some((links, format)) = found else {
        return Err(fail(checksum_mismatch(header.checksum, &mismatches)));
    };
    header.format = format;
    check_stats(&header, plaquette(&lat, &links), link_trace(&links)).map_err(fail)?;
    Ok((lat, Field::from_vec(links), header))
}

/// A NERSC file with its header parsed and the length of its data checked: what reading
/// the whole file and reading one process's sites share.
pub(crate) struct OpenFile {
    path: PathBuf,
    file: File,
    /// The header (its format's byte order the first candidate).
    pub(crate) header: Header,
    /// The file's whole lattice.
    pub(crate) lat: Lattice,
    /// The byte orders the data may be in: one, or both for the bare `IEEE32`/`IEEE64`
    /// (Grid's reading, little-endian, first; then QDP++'s), which the checksum settles.
    pub(crate) orders: Vec<ByteOrder>,
    data_start: u64,
}

/// Opens `path`, parses its header and checks the data's length.
pub(crate) fn open(path: &Path) -> Result<OpenFile> {
    let fail = |reason: String| file_error(path, format!("{reason}; nothing was read"));
    let file = File::open(path).map_err(|e| fail(format!("could not open it: {e}")))?;
    let file_len = file
        .metadata()
        .map_err(|e| fail(format!("could not read its size: {e}")))?
        .len();
    let mut input = BufReader::with_capacity(1 << 16, &file);
    let parsed = header::parse(&mut input).map_err(fail)?;
    drop(input);
    let mut header = parsed.header;
    let lat = Lattice::new(header.extents)
        .map_err(|e| fail(format!("its lattice is not one ongpu can hold: {e}")))?;
    let format = header.format;
    let data_len = file_len.saturating_sub(parsed.data_start);
    let needed = lat.volume() as u64 * format.site_bytes() as u64;
    if data_len != needed {
        return Err(fail(format!(
            "the data after the header are {data_len} bytes, but the {lat} of {} links in {} \
             needs {needed}: the file is {}",
            format.rows.datatype(),
            header.get("FLOATING_POINT").unwrap_or("IEEE32BIG"),
            if data_len < needed {
                "truncated"
            } else {
                "longer than its header says (a damaged header?)"
            }
        )));
    }
    let orders = match parsed.byte_order {
        Some(order) => vec![order],
        None => vec![ByteOrder::Little, ByteOrder::Big],
    };
    header.format.byte_order = orders[0];
    Ok(OpenFile {
        path: path.to_path_buf(),
        file,
        header,
        lat,
        orders,
        data_start: parsed.data_start,
    })
}

impl OpenFile {
    /// The error for this file, with "nothing was read".
    pub(crate) fn fail(&self, reason: String) -> Error {
        file_error(&self.path, format!("{reason}; nothing was read"))
    }

    /// The links of whole-lattice site `i`, read in byte order `order` by one positioned
    /// read, and the site's term of the checksum in each of [`orders`](Self::orders).
    pub(crate) fn read_site(&self, i: usize, order: ByteOrder) -> Result<(SiteLinks, [u32; 2])> {
        use std::os::unix::fs::FileExt;
        let format = Format {
            byte_order: order,
            ..self.header.format
        };
        let rank = lexicographic_rank(self.lat, i);
        let mut site = vec![0u8; format.site_bytes()];
        let offset = self.data_start + rank * site.len() as u64;
        self.file
            .read_exact_at(&mut site, offset)
            .map_err(|e| self.fail(format!("could not read the links of site {i}: {e}")))?;
        let terms = [0, 1].map(|k| {
            let o = self.orders[k.min(self.orders.len() - 1)];
            word_sum(&site, format.precision, o)
        });
        Ok((decode(&site, format), terms))
    }

    /// The byte order whose checksum (`sums[k]` for `orders[k]`) is the header's, or the
    /// error that says none is.
    pub(crate) fn settle_order(&self, sums: [u32; 2]) -> Result<ByteOrder> {
        let candidates: Vec<(ByteOrder, u32)> = self.orders.iter().copied().zip(sums).collect();
        candidates
            .iter()
            .find(|(_, sum)| *sum == self.header.checksum)
            .map(|(order, _)| *order)
            .ok_or_else(|| self.fail(checksum_mismatch(self.header.checksum, &candidates)))
    }
}

/// An error message unless the header's `PLAQUETTE` and `LINK_TRACE` agree with those of
/// the links (`plaquette`, `link_trace`) within the tolerance of its precision.
pub(crate) fn check_stats(
    header: &Header,
    plaquette: f64,
    link_trace: f64,
) -> std::result::Result<(), String> {
    let computed = [
        ("PLAQUETTE", header.plaquette, plaquette),
        ("LINK_TRACE", header.link_trace, link_trace),
    ];
    for (key, written, got) in computed {
        let tolerance = tolerance(header.format.precision) * written.abs().max(1.0);
        // Written so that a NaN from the links disagrees.
        let agrees = (written - got).abs() <= tolerance;
        if !agrees {
            return Err(format!(
                "the {key} in the header is {written:?} but the links give {got:?}, a \
                 difference of {:.1e} beyond the tolerance {tolerance:.0e} for {} data: the \
                 links are damaged, or the header belongs to other links",
                (written - got).abs(),
                match header.format.precision {
                    Precision::Double => "double",
                    Precision::Single => "single",
                }
            ));
        }
    }
    Ok(())
}

/// How far the header's plaquette and link trace may be from the links'.
fn tolerance(precision: Precision) -> f64 {
    match precision {
        Precision::Double => 1e-10,
        Precision::Single => 1e-6,
    }
}

/// The links of every site, in the lattice's order, and the checksum of the data.
fn read_links(
    input: &mut impl Read,
    lat: Lattice,
    format: Format,
    fail: &impl Fn(String) -> Error,
) -> Result<(Vec<SiteLinks>, u32)> {
    let mut links: Vec<SiteLinks> = Vec::new();
    links.try_reserve_exact(lat.volume()).map_err(|_| {
        fail(format!(
            "out of host memory for the links of the {lat} ({} bytes)",
            lat.volume() * std::mem::size_of::<SiteLinks>()
        ))
    })?;
    links.resize(lat.volume(), [ColorMatrix::zero(); 4]);
    let mut site = vec![0u8; format.site_bytes()];
    let mut checksum = 0u32;
    for i in file_order(lat) {
        input
            .read_exact(&mut site)
            .map_err(|e| fail(format!("could not read the data: {e}")))?;
        checksum = checksum.wrapping_add(word_sum(&site, format.precision, format.byte_order));
        links[i] = decode(&site, format);
    }
    Ok((links, checksum))
}

/// The message for data whose checksum is not the header's.
fn checksum_mismatch(written: u32, computed: &[(ByteOrder, u32)]) -> String {
    let sums = match computed {
        [(_, sum)] => format!("{sum:x}"),
        _ => computed
            .iter()
            .map(|(order, sum)| {
                let order = match order {
                    ByteOrder::Big => "big",
                    ByteOrder::Little => "little",
                };
                format!("{sum:x} read as {order}-endian")
            })
            .collect::<Vec<_>>()
            .join(" and "),
    };
    format!(
        "the CHECKSUM in the header is {written:x} but the data sum to {sums}: the file is \
         damaged, or its header belongs to other data"
    )
}
