//! The text header: `BEGIN_HEADER`, lines `KEY = value`, `END_HEADER`, then the binary data.
//!
//! Parsing follows what the readers of Grid (`Grid/parallelIO/NerscIO.h`, `readHeader`),
//! QDP++ (`lib/qdp_iogauge.cc`, `readArchivHeader`) and MILC (`generic/io_lat_utils.c`,
//! `qcdhdr_get_hdr`) accept: whitespace around keys and values is not significant (Grid
//! writes `PLAQUETTE  =` and pads `CHECKSUM` to ten characters), keys may repeat (MILC writes
//! `MILC_INFO` twice; the first is used), and keys ongpu does not use are kept in
//! [`Header::entries`]. A missing `FLOATING_POINT` means `IEEE32BIG`, as in MILC, whose
//! writer leaves it out.

use super::format::FLOATING_POINT_NAMES;
use super::format::{parse_floating_point, ByteOrder, Format, Precision, Rows};
use std::io::BufRead;

/// The header of a gauge file.
///
/// [`read`](super::read) returns it after checking it against the links; [`write`](super::write)
/// returns what it wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    /// The lattice extents, `DIMENSION_1..4` (x, y, z, t).
    pub extents: [usize; 4],
    /// The storage: `DATATYPE` and `FLOATING_POINT` (for the bare `IEEE32`/`IEEE64`, the byte
    /// order the checksum showed).
    pub format: Format,
    /// `CHECKSUM`.
    pub checksum: u32,
    /// `PLAQUETTE`.
    pub plaquette: f64,
    /// `LINK_TRACE`.
    pub link_trace: f64,
    /// Every `KEY = value` line, in the file's order, whitespace trimmed (`ENSEMBLE_ID`,
    /// `CREATION_DATE`, and keys of other codes).
    pub entries: Vec<(String, String)>,
}

impl Header {
    /// The value of the first line with this key.
    ///
    /// ```
    /// # mod ongpu { pub use ::ongpu_runtime::*; pub mod qcd { pub use ::ongpu_qcd::*; } }
    /// # fn main() -> ongpu::Result<()> {
    /// use ongpu::qcd::nersc;
    /// use ongpu::{ColorMatrix, Field, Lattice};
    /// let lat = Lattice::new([2, 2, 2, 2])?;
    /// let u: Field<[ColorMatrix<f64>; 4]> = Field::filled(16, [ColorMatrix::identity(); 4]);
    /// let path = std::env::temp_dir().join(format!("header-doc-{}.nersc", std::process::id()));
    /// let header = nersc::write(&path, &lat, &u, nersc::Format::default())?;
    /// assert_eq!(header.get("DATATYPE"), Some("4D_SU3_GAUGE_3x3"));
    /// assert_eq!(header.get("BOUNDARY_4"), Some("PERIODIC"));
    /// # std::fs::remove_file(&path).ok();
    /// # Ok(())
    /// # }
    /// ```
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The header's text, `BEGIN_HEADER` to `END_HEADER` with its newline.
    pub(super) fn render(&self) -> String {
        let mut text = String::from("BEGIN_HEADER\n");
        for (key, value) in &self.entries {
            // MILC's reader takes the value to start one character after the `=`.
            text.push_str(&format!("{key} = {value}\n"));
        }
        text.push_str("END_HEADER\n");
        text
    }
}

/// Who made a configuration: the header lines a writer chooses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ensemble {
    /// `ENSEMBLE_ID`.
    pub id: String,
    /// `ENSEMBLE_LABEL`.
    pub label: String,
    /// `SEQUENCE_NUMBER`: the configuration's place in its Markov chain.
    pub sequence_number: u64,
    /// `CREATOR`.
    pub creator: String,
}

impl Default for Ensemble {
    fn default() -> Self {
        Ensemble {
            id: "ongpu".to_string(),
            label: "unlabelled".to_string(),
            sequence_number: 0,
            creator: "ongpu".to_string(),
        }
    }
}

/// The numbers and names a writer puts in a header.
pub(super) struct Contents<'a> {
    pub extents: [usize; 4],
    pub format: Format,
    pub checksum: u32,
    pub plaquette: f64,
    pub link_trace: f64,
    pub ensemble: &'a Ensemble,
    pub creation_date: String,
}

/// The header of a written file, in the order Grid writes its keys.
pub(super) fn for_writing(c: Contents<'_>) -> Header {
    let mut entries: Vec<(String, String)> = Vec::new();
    let mut put = |k: &str, v: String| entries.push((k.to_string(), v));
    put("HDR_VERSION", "1.0".into());
    put("DATATYPE", c.format.rows.datatype().into());
    put("STORAGE_FORMAT", "1.0".into());
    for (mu, l) in c.extents.iter().enumerate() {
        put(&format!("DIMENSION_{}", mu + 1), l.to_string());
    }
    // `{:?}` prints the shortest decimal that reads back as the same double.
    put("LINK_TRACE", format!("{:?}", c.link_trace));
    put("PLAQUETTE", format!("{:?}", c.plaquette));
    for mu in 1..=4 {
        put(&format!("BOUNDARY_{mu}"), "PERIODIC".into());
    }
    put("CHECKSUM", format!("{:x}", c.checksum));
    put("ENSEMBLE_ID", c.ensemble.id.clone());
    put("ENSEMBLE_LABEL", c.ensemble.label.clone());
    put("SEQUENCE_NUMBER", c.ensemble.sequence_number.to_string());
    put("CREATOR", c.ensemble.creator.clone());
    put("CREATION_DATE", c.creation_date);
    put("FLOATING_POINT", c.format.floating_point());
    Header {
        extents: c.extents,
        format: c.format,
        checksum: c.checksum,
        plaquette: c.plaquette,
        link_trace: c.link_trace,
        entries,
    }
}

/// A header as read, before the data settle the byte order of a bare `IEEE32`/`IEEE64`.
#[derive(Debug)]
pub(super) struct Parsed {
    pub header: Header,
    /// `None` for the bare names: the checksum decides.
    pub byte_order: Option<ByteOrder>,
    /// Bytes from the start of the file to the data.
    pub data_start: u64,
}

/// The most header text read before giving up on finding `END_HEADER`.
const MAX_HEADER_BYTES: u64 = 1 << 20;

/// Reads the header from the start of `input`. `Err` says what is wrong with it.
pub(super) fn parse(input: &mut impl BufRead) -> Result<Parsed, String> {
    let mut consumed = 0u64;
    let mut line_no = 0usize;
    let mut next_line = |consumed: &mut u64| -> Result<Option<String>, String> {
        let mut bytes = Vec::new();
        let limit = MAX_HEADER_BYTES.saturating_sub(*consumed);
        let n = std::io::Read::take(&mut *input, limit)
            .read_until(b'\n', &mut bytes)
            .map_err(|e| format!("could not read the header: {e}"))?;
        *consumed += n as u64;
        line_no += 1;
        if n == 0 || !bytes.ends_with(b"\n") {
            return Ok(None);
        }
        String::from_utf8(bytes).map(Some).map_err(|_| {
            format!("line {line_no} of the header is not text: this is not a NERSC gauge file")
        })
    };
    let not_nersc = "it does not start with a BEGIN_HEADER line, so it is not a NERSC gauge file";
    match next_line(&mut consumed) {
        Ok(Some(first)) if first.trim() == "BEGIN_HEADER" => {}
        _ => return Err(not_nersc.to_string()),
    }
    let mut entries = Vec::new();
    loop {
        let Some(line) = next_line(&mut consumed)? else {
            return Err(
                "the header has no END_HEADER line: the file is truncated, or not a NERSC \
                 gauge file"
                    .to_string(),
            );
        };
        let text = line.trim();
        if text == "END_HEADER" {
            break;
        }
        if text.is_empty() {
            continue;
        }
        match text.split_once('=') {
            Some((key, value)) if !key.trim().is_empty() => {
                entries.push((key.trim().to_string(), value.trim().to_string()))
            }
            _ => {
                return Err(format!(
                    "the header line `{text}` is not of the form KEY = value: the header is \
                     malformed"
                ))
            }
        }
    }
    let fields = Fields { entries: &entries };
    let rows = fields.rows()?;
    let (precision, byte_order) = fields.floating_point()?;
    fields.check_boundaries()?;
    let header = Header {
        extents: fields.extents()?,
        format: Format {
            precision,
            rows,
            byte_order: byte_order.unwrap_or_default(),
        },
        checksum: fields.checksum()?,
        plaquette: fields.number("PLAQUETTE")?,
        link_trace: fields.number("LINK_TRACE")?,
        entries,
    };
    Ok(Parsed {
        header,
        byte_order,
        data_start: consumed,
    })
}

/// Typed access to the entries, with errors naming the key.
struct Fields<'a> {
    entries: &'a [(String, String)],
}

impl Fields<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    fn required(&self, key: &str) -> Result<&str, String> {
        self.get(key).ok_or_else(|| {
            format!(
                "the header has no {key} line; a NERSC gauge file needs DATATYPE, \
                 DIMENSION_1..4, CHECKSUM, PLAQUETTE and LINK_TRACE"
            )
        })
    }

    fn rows(&self) -> Result<Rows, String> {
        let value = self.required("DATATYPE")?;
        Rows::from_datatype(value).ok_or_else(|| {
            format!(
                "DATATYPE = {value} is not supported: ongpu reads SU(3) gauge links, \
                 4D_SU3_GAUGE_3x3 (three rows per link) or 4D_SU3_GAUGE (two rows)"
            )
        })
    }

    fn floating_point(&self) -> Result<(Precision, Option<ByteOrder>), String> {
        let Some(value) = self.get("FLOATING_POINT") else {
            return Ok((Precision::Single, Some(ByteOrder::Big)));
        };
        parse_floating_point(value).ok_or_else(|| {
            format!("FLOATING_POINT = {value} is not supported: ongpu reads {FLOATING_POINT_NAMES}")
        })
    }

    fn check_boundaries(&self) -> Result<(), String> {
        for mu in 1..=4 {
            let key = format!("BOUNDARY_{mu}");
            match self.get(&key) {
                // ANTIPERIODIC (QDP++ writes it) is the fermions' boundary: links stay periodic.
                None | Some("PERIODIC") | Some("ANTIPERIODIC") => {}
                Some(other) => {
                    return Err(format!(
                        "{key} = {other} is not supported: ongpu's lattices are periodic \
                         (PERIODIC, or ANTIPERIODIC for the fermions only)"
                    ))
                }
            }
        }
        Ok(())
    }

    fn extents(&self) -> Result<[usize; 4], String> {
        let mut extents = [0usize; 4];
        for (mu, l) in extents.iter_mut().enumerate() {
            let key = format!("DIMENSION_{}", mu + 1);
            let value = self.required(&key)?;
            *l = value.parse().map_err(|_| {
                format!("{key} = {value} is not a lattice extent (a positive integer)")
            })?;
        }
        Ok(extents)
    }

    fn checksum(&self) -> Result<u32, String> {
        let value = self.required("CHECKSUM")?;
        let hex = value
            .strip_prefix("0x")
            .or_else(|| value.strip_prefix("0X"))
            .unwrap_or(value);
        u32::from_str_radix(hex, 16)
            .map_err(|_| format!("CHECKSUM = {value} is not a 32-bit hexadecimal number"))
    }

    fn number(&self, key: &str) -> Result<f64, String> {
        let value = self.required(key)?;
        value
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| format!("{key} = {value} is not a finite number"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(text: &str) -> Result<Parsed, String> {
        parse(&mut text.as_bytes())
    }

    const GRID_STYLE: &str = "BEGIN_HEADER\n\
        HDR_VERSION = 1.0\n\
        DATATYPE = 4D_SU3_GAUGE\n\
        STORAGE_FORMAT = \n\
        DIMENSION_1 = 4\n\
        DIMENSION_2 = 6\n\
        DIMENSION_3 = 2\n\
        DIMENSION_4 = 8\n\
        LINK_TRACE = 0.1234567891\n\
        PLAQUETTE  = 0.5880438365\n\
        BOUNDARY_1 = PERIODIC\n\
        CHECKSUM =   7b2a9f01\n\
        ENSEMBLE_LABEL = a = b\n\
        FLOATING_POINT = IEEE64BIG\n\
        END_HEADER\n";

    #[test]
    fn reads_what_grid_writes() {
        let p = parse_str(&format!("{GRID_STYLE}\u{0}\u{1}binary")).unwrap();
        let h = &p.header;
        assert_eq!(h.extents, [4, 6, 2, 8]);
        assert_eq!(h.format.rows, Rows::Two);
        assert_eq!(h.format.precision, Precision::Double);
        assert_eq!(p.byte_order, Some(ByteOrder::Big));
        assert_eq!(h.checksum, 0x7b2a9f01);
        assert_eq!(h.plaquette, 0.5880438365);
        assert_eq!(h.link_trace, 0.1234567891);
        assert_eq!(h.get("STORAGE_FORMAT"), Some(""));
        assert_eq!(h.get("ENSEMBLE_LABEL"), Some("a = b"));
        assert_eq!(p.data_start, GRID_STYLE.len() as u64);
    }

    #[test]
    fn reads_what_milc_writes() {
        // No FLOATING_POINT (IEEE32BIG), MILC_INFO twice, CRLF line ends, 0x prefix.
        let text = "BEGIN_HEADER\r\nDATATYPE = 4D_SU3_GAUGE\r\nDIMENSION_1 = 2\r\n\
            DIMENSION_2 = 2\r\nDIMENSION_3 = 2\r\nDIMENSION_4 = 2\r\nCHECKSUM = 0xAB\r\n\
            LINK_TRACE = 1.0000000000\r\nPLAQUETTE = 1.0000000000\r\n\
            MILC_INFO = -------BEGIN-------\r\nnx = 2\r\nMILC_INFO = --------END--------\r\n\
            END_HEADER\r\n";
        let p = parse_str(text).unwrap();
        assert_eq!(p.header.format.precision, Precision::Single);
        assert_eq!(p.byte_order, Some(ByteOrder::Big));
        assert_eq!(p.header.checksum, 0xab);
        assert_eq!(p.header.get("MILC_INFO"), Some("-------BEGIN-------"));
        assert_eq!(p.data_start, text.len() as u64);
    }

    #[test]
    fn bare_ieee_names_leave_the_byte_order_open() {
        let text = GRID_STYLE.replace("IEEE64BIG", "IEEE32");
        let p = parse_str(&text).unwrap();
        assert_eq!(p.header.format.precision, Precision::Single);
        assert_eq!(p.byte_order, None);
    }

    #[test]
    fn what_is_wrong_is_named() {
        let cases = [
            (GRID_STYLE.replace("BEGIN_HEADER", "BEGIN"), "BEGIN_HEADER"),
            (GRID_STYLE.replace("END_HEADER\n", ""), "END_HEADER"),
            (
                GRID_STYLE.replace("4D_SU3_GAUGE", "4D_SU2_GAUGE"),
                "DATATYPE = 4D_SU2",
            ),
            (
                GRID_STYLE.replace("IEEE64BIG", "IEEE16BIG"),
                "FLOATING_POINT = IEEE16BIG",
            ),
            (
                GRID_STYLE.replace("DIMENSION_3 = 2\n", ""),
                "no DIMENSION_3",
            ),
            (GRID_STYLE.replace("= 6", "= six"), "DIMENSION_2 = six"),
            (
                GRID_STYLE.replace("7b2a9f01", "7b2a9f01ff"),
                "32-bit hexadecimal",
            ),
            (GRID_STYLE.replace("0.5880438365", "nan"), "PLAQUETTE = nan"),
            (
                GRID_STYLE.replace("LINK_TRACE", "LINK TRACE"),
                "no LINK_TRACE",
            ),
            (
                GRID_STYLE.replace("HDR_VERSION = 1.0", "HDR_VERSION 1.0"),
                "KEY = value",
            ),
            (
                GRID_STYLE.replace("= PERIODIC", "= OPEN"),
                "BOUNDARY_1 = OPEN",
            ),
        ];
        for (text, want) in cases {
            let e = parse_str(&text).unwrap_err();
            assert!(e.contains(want), "{e} (wanted {want})");
        }
    }

    #[test]
    fn a_binary_file_is_not_a_header() {
        let mut bytes = vec![0xffu8; 1 << 21];
        bytes[100] = b'\n';
        assert!(parse(&mut bytes.as_slice())
            .unwrap_err()
            .contains("BEGIN_HEADER"));
        let mut endless = b"BEGIN_HEADER\n".to_vec();
        endless.extend(std::iter::repeat(b'a').take(2 << 20));
        assert!(parse(&mut endless.as_slice())
            .unwrap_err()
            .contains("END_HEADER"));
    }

    #[test]
    fn a_written_header_parses_back() {
        let ensemble = Ensemble::default();
        let header = for_writing(Contents {
            extents: [2, 4, 6, 8],
            format: Format::default(),
            checksum: 0xdeadbeef,
            plaquette: 0.1 + 0.2,
            link_trace: -1e-300,
            ensemble: &ensemble,
            creation_date: "today".into(),
        });
        let p = parse_str(&header.render()).unwrap();
        assert_eq!(p.header, header);
        assert_eq!(p.byte_order, Some(ByteOrder::Big));
    }
}
