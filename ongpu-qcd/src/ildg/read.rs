//! Reading an ILDG file: the records found by type, the XML checked, then the links (all
//! of them, or one process's sites by positioned reads), the checksum verified.

use super::lime::{self, RecordHeader};
use super::scidac_checksum::ScidacChecksum;
use super::xml::{parse_scidac_private_file_dims, IldgFormat};
use super::{file_error, IldgFile};
use crate::nersc::links::{decode, links_are_finite, SiteLinks};
use crate::nersc::site_order::{file_order, lexicographic_rank};
use crate::nersc::{ByteOrder, Format, LinkField, Precision, Rows};
use ongpu_runtime::{ColorMatrix, Error, Field, Lattice, Layout, Result};
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// The longest XML record read (a megabyte: metadata, not data).
const XML_LIMIT: u64 = 1 << 20;

/// An ILDG file with its records parsed and its binary record located.
pub(crate) struct OpenFile {
    path: PathBuf,
    file: File,
    binary: RecordHeader,
    format: Format,
    /// What the file says about itself.
    pub(crate) info: IldgFile,
}

/// Opens `path` and reads everything but the links: an [`Error::GaugeFile`] for a file that
/// is not an ILDG gauge file or whose records disagree.
pub(crate) fn open(path: &Path) -> Result<OpenFile> {
    let fail = |reason: String| file_error(path, format!("{reason}; nothing was read"));
    let mut file = File::open(path).map_err(|e| fail(format!("could not open it: {e}")))?;
    let len = file
        .metadata()
        .map_err(|e| fail(format!("could not read its size: {e}")))?
        .len();
    let records = lime::scan(&mut file, len).map_err(|e| fail(format!("not a LIME file: {e}")))?;
    let mut text = |record_type: &str| -> Result<Option<String>> {
        let Some(record) = lime::find(&records, record_type) else {
            return Ok(None);
        };
        let bytes = lime::read_data(&mut file, record, XML_LIMIT).map_err(&fail)?;
        let text = String::from_utf8(bytes)
            .map_err(|_| fail(format!("its {record_type} record is not UTF-8 text")))?;
        Ok(Some(text.trim_end_matches('\0').to_string()))
    };
    let format_xml = text("ildg-format")?
        .ok_or_else(|| fail("it has no ildg-format record: not an ILDG file".into()))?;
    let ildg = IldgFormat::parse(&format_xml).map_err(&fail)?;
    if let Some(private) = text("scidac-private-file-xml")? {
        let dims = parse_scidac_private_file_dims(&private).map_err(&fail)?;
        if dims != ildg.extents {
            return Err(fail(format!(
                "its scidac-private-file-xml says the lattice is {dims:?} but its ildg-format \
                 says {:?}",
                ildg.extents
            )));
        }
    }
    let checksum = match text("scidac-checksum")? {
        Some(xml) => Some(ScidacChecksum::from_xml(&xml).map_err(&fail)?),
        None => None,
    };
    let info = IldgFile {
        extents: ildg.extents,
        precision: if ildg.precision_bits == 64 {
            Precision::Double
        } else {
            Precision::Single
        },
        checksum: checksum.map(|c| (c.suma, c.sumb)),
        file_xml: text("scidac-file-xml")?.unwrap_or_default(),
        record_xml: text("scidac-record-xml")?.unwrap_or_default(),
        lfn: text("ildg-data-lfn")?,
    };
    let binary = lime::find(&records, "ildg-binary-data")
        .ok_or_else(|| fail("it has no ildg-binary-data record: no links".into()))?
        .clone();
    let format = Format {
        precision: info.precision,
        rows: Rows::Three,
        byte_order: ByteOrder::Big,
    };
    let volume: u64 = ildg.extents.iter().map(|&l| l as u64).product();
    let needed = volume * format.site_bytes() as u64;
    if binary.data_len != needed {
        return Err(fail(format!(
            "its ildg-binary-data record holds {} bytes, but {volume} sites of {} bytes need \
             {needed}: the file is damaged, or its ildg-format belongs to other data",
            binary.data_len,
            format.site_bytes()
        )));
    }
    Ok(OpenFile {
        path: path.to_path_buf(),
        file,
        binary,
        format,
        info,
    })
}

impl OpenFile {
    /// The error for this file, with "nothing was read".
    pub(crate) fn fail(&self, reason: String) -> Error {
        file_error(&self.path, format!("{reason}; nothing was read"))
    }

    /// The links of the whole lattice, in its site order, read in one pass; the checksum
    /// verified.
    fn read_all(&mut self, lat: Lattice) -> Result<Vec<SiteLinks>> {
        let site_bytes = self.format.site_bytes();
        self.file
            .seek(SeekFrom::Start(self.binary.data_offset))
            .map_err(|e| self.fail(format!("could not read the links: {e}")))?;
        let mut input = BufReader::with_capacity(1 << 20, &self.file);
        let mut links = vec![[ColorMatrix::<f64>::zero(); 4]; lat.volume()];
        let mut site = vec![0u8; site_bytes];
        let mut sum = ScidacChecksum::default();
        for (rank, i) in file_order(lat).enumerate() {
            input
                .read_exact(&mut site)
                .map_err(|e| file_error(&self.path, format!("could not read the links: {e}")))?;
            sum.add_site(rank as u64, &site);
            links[i] = decode(&site, self.format);
        }
        self.verify(sum)?;
        self.check_finite(&links)?;
        Ok(links)
    }

    /// The links of the whole-lattice site `i` of `lat` by one positioned read, and the
    /// site's term of the checksum (`(suma, sumb)` of that site alone; the file's is the XOR
    /// of every site's).
    pub(crate) fn read_site(&self, lat: Lattice, i: usize) -> Result<(SiteLinks, [u32; 2])> {
        use std::os::unix::fs::FileExt;
        let site_bytes = self.format.site_bytes();
        let rank = lexicographic_rank(lat, i);
        let mut site = vec![0u8; site_bytes];
        self.file
            .read_exact_at(
                &mut site,
                self.binary.data_offset + rank * site_bytes as u64,
            )
            .map_err(|e| self.fail(format!("could not read the links of site {i}: {e}")))?;
        let mut sum = ScidacChecksum::default();
        sum.add_site(rank, &site);
        Ok((decode(&site, self.format), [sum.suma, sum.sumb]))
    }

    /// An error unless the XOR of `parts` (the terms of every site once) is the file's
    /// checksum.
    pub(crate) fn verify_parts(&self, parts: impl Iterator<Item = [u32; 2]>) -> Result<()> {
        let sum = parts.fold(ScidacChecksum::default(), |acc, [suma, sumb]| {
            acc.combine(ScidacChecksum { suma, sumb })
        });
        self.verify(sum)
    }

    fn verify(&self, sum: ScidacChecksum) -> Result<()> {
        match self.info.checksum {
            Some((suma, sumb)) if (suma, sumb) != (sum.suma, sum.sumb) => Err(self.fail(format!(
                "its scidac-checksum is (suma {suma:x}, sumb {sumb:x}) but the links give \
                 ({:x}, {:x}): the links are damaged, or the checksum belongs to other links",
                sum.suma, sum.sumb
            ))),
            _ => Ok(()),
        }
    }

    /// The error for a site whose links are not finite.
    pub(crate) fn not_finite(&self, i: usize) -> Error {
        self.fail(format!(
            "the links of site {i} hold values that are not finite numbers"
        ))
    }

    /// An error if a link holds a NaN or an infinity.
    pub(crate) fn check_finite(&self, links: &[SiteLinks]) -> Result<()> {
        if links.iter().all(links_are_finite) {
            Ok(())
        } else {
            Err(self.fail("its links hold values that are not finite numbers".into()))
        }
    }
}

/// Reads the ILDG file at `path`: its lattice (from `ildg-format`), its links as a field on
/// that lattice (in the lattice's even-odd site order, entry `mu` of a site being its link
/// in direction `mu`, widened to `f64` exactly from single precision), and what the file
/// says about itself. The SciDAC checksum is verified where the file has one; any failure
/// is an [`Error::GaugeFile`] saying what is wrong, and nothing is returned.
pub fn read<L: Layout>(path: impl AsRef<Path>) -> Result<(Lattice, LinkField<L>, IldgFile)> {
    let path = path.as_ref();
    let mut file = open(path)?;
    let lat = Lattice::new(file.info.extents)
        .map_err(|e| file.fail(format!("its lattice is not one ongpu can hold: {e}")))?;
    let links = file.read_all(lat)?;
    Ok((lat, Field::from_vec(links), file.info))
}
