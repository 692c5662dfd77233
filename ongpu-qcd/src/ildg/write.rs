//! Writing an ILDG file: the XML records, the links in lexicographic order and the SciDAC
//! checksum, written under a temporary name and renamed, so a failure leaves no file.

use super::lime::RecordWriter;
use super::scidac_checksum::ScidacChecksum;
use super::xml::{qio_date, scidac_private_file_xml, scidac_private_record_xml, IldgFormat};
use super::{file_error, IldgFile};
use crate::nersc::links::encode;
use crate::nersc::site_order::file_order;
use crate::nersc::write::{widen, write_atomically};
use crate::nersc::{ByteOrder, Format, Precision, Rows};
use ongpu_runtime::{ColorMatrix, Element, Field, Lattice, Layout, Real, Result};
use std::path::Path;

/// The user file XML this library writes.
const FILE_XML: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><info>ongpu</info>";

/// Writes `u` on `lat` as an ILDG file at `path` with reals of `precision`, and returns what
/// the file says about itself (its checksum among it). Links that are not finite (or beyond
/// single precision's range) are an error, and nothing is written.
pub fn write<R, L>(
    path: impl AsRef<Path>,
    lat: &Lattice,
    u: &Field<[ColorMatrix<R>; 4], L>,
    precision: Precision,
) -> Result<IldgFile>
where
    R: Real,
    L: Layout,
    [ColorMatrix<R>; 4]: Element,
{
    let host: Vec<[ColorMatrix<f64>; 4]> = u
        .to_vec()?
        .into_iter()
        .map(|site| site.map(widen))
        .collect();
    encode_file(path.as_ref(), lat, &host, precision, true)
}

/// The file of `links` (whole lattice, its site order), written only if `write`; what it
/// says about itself either way (what the ranks that do not write return).
pub(crate) fn encode_file(
    path: &Path,
    lat: &Lattice,
    links: &[[ColorMatrix<f64>; 4]],
    precision: Precision,
    write: bool,
) -> Result<IldgFile> {
    let fail = |reason: String| file_error(path, format!("{reason}; nothing was written"));
    if links.len() != lat.volume() {
        return Err(fail(format!(
            "the field has {} sites but the {lat} has {}",
            links.len(),
            lat.volume()
        )));
    }
    let format = Format {
        precision,
        rows: Rows::Three,
        byte_order: ByteOrder::Big,
    };
    let site_bytes = format.site_bytes();
    let mut data = vec![0u8; lat.volume() * site_bytes];
    let mut sum = ScidacChecksum::default();
    for ((rank, i), out) in file_order(*lat)
        .enumerate()
        .zip(data.chunks_exact_mut(site_bytes))
    {
        let site = links[i];
        let finite = site.iter().flat_map(|m| m.m.iter().flatten()).all(|z| {
            let limit = if precision == Precision::Single {
                f32::MAX as f64
            } else {
                f64::MAX
            };
            z.re.abs() <= limit && z.im.abs() <= limit
        });
        if !finite {
            return Err(fail(format!(
                "the links of site {i} hold values that are not finite numbers (NaN or \
                 infinity, or beyond the range of the precision)"
            )));
        }
        encode(&site, format, out);
        sum.add_site(rank as u64, out);
    }
    let bits = match precision {
        Precision::Double => 64,
        Precision::Single => 32,
    };
    let ildg = IldgFormat {
        precision_bits: bits,
        extents: lat.extents(),
    };
    let seconds = crate::nersc::date::seconds_now();
    let private_file = scidac_private_file_xml(lat.extents()).map_err(&fail)?;
    let private_record = scidac_private_record_xml(bits, &qio_date(seconds)).map_err(&fail)?;
    let format_xml = ildg.to_xml().map_err(&fail)?;
    let checksum_xml = sum.to_xml();
    if write {
        write_atomically(path, |out| {
            let io = |e: String| std::io::Error::other(e);
            let mut w = RecordWriter::new(out);
            w.write_record(
                "scidac-private-file-xml",
                private_file.as_bytes(),
                true,
                false,
            )
            .map_err(io)?;
            w.write_record("scidac-file-xml", FILE_XML.as_bytes(), false, true)
                .map_err(io)?;
            w.write_record(
                "scidac-private-record-xml",
                private_record.as_bytes(),
                true,
                false,
            )
            .map_err(io)?;
            w.write_record("scidac-record-xml", FILE_XML.as_bytes(), false, false)
                .map_err(io)?;
            w.write_record("ildg-format", format_xml.as_bytes(), false, false)
                .map_err(io)?;
            w.write_record("ildg-binary-data", &data, false, false)
                .map_err(io)?;
            w.write_record("scidac-checksum", checksum_xml.as_bytes(), false, true)
                .map_err(io)?;
            w.finish().map_err(io)?;
            Ok(())
        })
        .map_err(|e| fail(format!("could not write it: {e}")))?;
    }
    Ok(IldgFile {
        extents: lat.extents(),
        precision,
        checksum: Some((sum.suma, sum.sumb)),
        file_xml: FILE_XML.into(),
        record_xml: FILE_XML.into(),
        lfn: None,
    })
}
