//! The XML records of ILDG and SciDAC gauge configuration files.
//!
//! Writes the `ildg-format`, `scidac-private-file-xml` and
//! `scidac-private-record-xml` records as QIO/Chroma write them, parses the
//! `ildg-format` record and the lattice dimensions of the private file
//! record, and offers a small tolerant element reader ([`tag_text`]) instead
//! of a full XML parser: the records are flat and machine-written, but
//! writers differ in whitespace, indentation, the `<?xml …?>` line and
//! attributes, so only element names and their text are relied on.
//!
//! Checked against USQCD QIO: `include/qioxml.h` (XML declaration),
//! `include/qioxml_private.h` and `lib/qio/QIO_info_private.c` (private file
//! and record XML, QIO_create_record_info's asctime date + "UTC"),
//! `include/qioxml_ildg_record.h`, `lib/qio/QIO_info_ildg_record.c` and
//! `lib/qio/QIO_write.c` (ildg-format, accepted gauge datatypes, record
//! order); QDP++ `include/qdp_qdpio.h` (Chroma writes `QDP_D3_ColorMatrix`
//! with colors Nc and spins Ns = 4); Grid `Grid/parallelIO/IldgIOtypes.h` and
//! `IldgIO.h` (Grid's record structures; its dims are separated by
//! newlines); tmLQCD-style writers that put spaces inside values
//! (`<lx> 8 </lx>`). No writer seen uses namespace prefixes on element
//! names; [`tag_text`] accepts them anyway.

/// The XML declaration QIO puts at the start of every record.
pub(crate) const XML_DECLARATION: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>";

/// The namespace attributes of the `ildgFormat` element.
const ILDG_FORMAT_ATTRIBUTES: &str = "xmlns=\"http://www.lqcd.org/ildg\" \
     xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \
     xsi:schemaLocation=\"http://www.lqcd.org/ildg http://www.lqcd.org/ildg/filefmt.xsd\"";

/// The only ILDG field type supported: SU(3) gauge links.
const SU3_GAUGE_FIELD: &str = "su3gauge";

/// Trimmed text of the first element named `tag` (`<tag>` or `<tag attr…>`,
/// also with a namespace prefix such as `<ildg:tag>`) up to its closing tag;
/// `""` for an empty element `<tag/>`; `None` if there is no such element.
pub(crate) fn tag_text<'a>(xml: &'a str, tag: &str) -> Option<&'a str> {
    let mut search_from = 0;
    while let Some(found) = xml[search_from..].find('<') {
        let name_start = search_from + found + 1;
        let rest = &xml[name_start..];
        let name_len = rest
            .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
            .unwrap_or(rest.len());
        let name = &rest[..name_len];
        if local_name(name) == tag {
            return element_text(xml, name_start, name);
        }
        search_from = name_start;
    }
    None
}

/// The element name without its namespace prefix.
fn local_name(name: &str) -> &str {
    name.rsplit(':').next().unwrap_or(name)
}

/// Text of the element `name` whose start tag's name begins at `name_start`.
fn element_text<'a>(xml: &'a str, name_start: usize, name: &str) -> Option<&'a str> {
    let start_tag_end = name_start + xml[name_start..].find('>')?;
    if xml[..start_tag_end].ends_with('/') {
        return Some("");
    }
    let content = &xml[start_tag_end + 1..];
    let content_len = closing_tag_offset(content, name)?;
    Some(content[..content_len].trim())
}

/// Offset in `content` of the closing tag `</name>` (optionally `</name >`).
fn closing_tag_offset(content: &str, name: &str) -> Option<usize> {
    let closing = format!("</{name}");
    let mut search_from = 0;
    while let Some(found) = content[search_from..].find(&closing) {
        let offset = search_from + found;
        let after = content[offset + closing.len()..].trim_start();
        if after.starts_with('>') {
            return Some(offset);
        }
        search_from = offset + closing.len();
    }
    None
}

/// Escapes the characters that may not appear literally in XML text.
fn escape_text(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Text of the required element `tag` in the record `record_type`.
fn required<'a>(xml: &'a str, tag: &str, record_type: &str) -> Result<&'a str, String> {
    tag_text(xml, tag).ok_or_else(|| format!("{record_type} record: no <{tag}> element"))
}

/// Parses `text` (the value of `<tag>`) as a positive integer.
fn parse_positive(text: &str, tag: &str, record_type: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(value) if value > 0 && text.bytes().all(|byte| byte.is_ascii_digit()) => Ok(value),
        _ => Err(format!(
            "{record_type} record: <{tag}> is '{text}', not a positive integer"
        )),
    }
}

/// Checks that every lattice extent is positive.
fn check_extents(extents: [usize; 4]) -> Result<(), String> {
    if extents.contains(&0) {
        return Err(format!("lattice extents {extents:?} must all be positive"));
    }
    Ok(())
}

/// Checks that a precision in bits is 32 or 64.
fn check_precision_bits(precision_bits: u32) -> Result<(), String> {
    match precision_bits {
        32 | 64 => Ok(()),
        _ => Err(format!(
            "precision of {precision_bits} bits is not supported: ILDG files hold 32- or 64-bit \
             reals"
        )),
    }
}

/// Contents of the `ildg-format` record of a gauge configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IldgFormat {
    /// Bits per real number in `ildg-binary-data`: 32 or 64.
    pub(crate) precision_bits: u32,
    /// Lattice extents `[lx, ly, lz, lt]`.
    pub(crate) extents: [usize; 4],
}

impl IldgFormat {
    /// The `ildg-format` record text; refuses invalid precision or extents.
    pub(crate) fn to_xml(self) -> Result<String, String> {
        check_precision_bits(self.precision_bits)?;
        check_extents(self.extents)?;
        let [lx, ly, lz, lt] = self.extents;
        Ok(format!(
            "{XML_DECLARATION}<ildgFormat {ILDG_FORMAT_ATTRIBUTES}><version>1.0</version>\
             <field>{SU3_GAUGE_FIELD}</field><precision>{}</precision><lx>{lx}</lx>\
             <ly>{ly}</ly><lz>{lz}</lz><lt>{lt}</lt></ildgFormat>",
            self.precision_bits
        ))
    }

    /// Parses an `ildg-format` record: field `su3gauge`, precision 32 or
    /// 64, positive extents. The version element is not checked.
    pub(crate) fn parse(xml: &str) -> Result<Self, String> {
        const RECORD: &str = "ildg-format";
        let body = required(xml, "ildgFormat", RECORD)?;
        let field = required(body, "field", RECORD)?;
        if field != SU3_GAUGE_FIELD {
            return Err(format!(
                "{RECORD} record: field is '{field}', but only '{SU3_GAUGE_FIELD}' \
                 (SU(3) gauge links) is supported"
            ));
        }
        let precision_text = required(body, "precision", RECORD)?;
        let precision_bits = match precision_text {
            "32" => 32,
            "64" => 64,
            _ => {
                return Err(format!(
                    "{RECORD} record: precision is '{precision_text}', expected 32 or 64"
                ))
            }
        };
        let mut extents = [0; 4];
        for (extent, tag) in extents.iter_mut().zip(["lx", "ly", "lz", "lt"]) {
            *extent = parse_positive(required(body, tag, RECORD)?, tag, RECORD)?;
        }
        Ok(Self {
            precision_bits,
            extents,
        })
    }
}

/// The `scidac-private-file-xml` record for a single-file 4D lattice of
/// `extents` `[lx, ly, lz, lt]`.
pub(crate) fn scidac_private_file_xml(extents: [usize; 4]) -> Result<String, String> {
    check_extents(extents)?;
    let dims: String = extents.iter().map(|extent| format!("{extent} ")).collect();
    Ok(format!(
        "{XML_DECLARATION}<scidacFile><version>1.1</version><spacetime>4</spacetime>\
         <dims>{dims}</dims><volfmt>0</volfmt></scidacFile>"
    ))
}

/// The lattice extents `[lx, ly, lz, lt]` in a `scidac-private-file-xml`
/// record; refuses other than 4 dimensions and multi-file/part-file volumes.
pub(crate) fn parse_scidac_private_file_dims(xml: &str) -> Result<[usize; 4], String> {
    const RECORD: &str = "scidac-private-file-xml";
    let body = required(xml, "scidacFile", RECORD)?;
    if let Some(spacetime) = tag_text(body, "spacetime") {
        if spacetime != "4" {
            return Err(format!(
                "{RECORD} record: spacetime is '{spacetime}', but only 4-dimensional lattices \
                 are supported"
            ));
        }
    }
    if let Some(volfmt) = tag_text(body, "volfmt") {
        if volfmt != "0" {
            return Err(format!(
                "{RECORD} record: volfmt is '{volfmt}', but only single-file volumes \
                 (volfmt 0) are supported, not multi-file or part-file"
            ));
        }
    }
    let dims_text = required(body, "dims", RECORD)?;
    let dims: Vec<&str> = dims_text.split_whitespace().collect();
    if dims.len() != 4 {
        return Err(format!(
            "{RECORD} record: dims '{dims_text}' has {} values, expected 4",
            dims.len()
        ));
    }
    let mut extents = [0; 4];
    for (extent, text) in extents.iter_mut().zip(dims) {
        *extent = parse_positive(text, "dims", RECORD)?;
    }
    Ok(extents)
}

/// The `scidac-private-record-xml` record of a gauge field, as Chroma/QDP++
/// writes it: 4 SU(3) matrices per site (datatype `QDP_F3_ColorMatrix`,
/// typesize 72 for 32 bits; `QDP_D3_ColorMatrix`, 144 for 64 bits). `date`
/// is free text; QIO writes e.g. [`qio_date`].
pub(crate) fn scidac_private_record_xml(precision_bits: u32, date: &str) -> Result<String, String> {
    check_precision_bits(precision_bits)?;
    let (letter, typesize) = if precision_bits == 32 {
        ('F', 72)
    } else {
        ('D', 144)
    };
    Ok(format!(
        "{XML_DECLARATION}<scidacRecord><version>1.1</version><date>{}</date>\
         <recordtype>0</recordtype><datatype>QDP_{letter}3_ColorMatrix</datatype>\
         <precision>{letter}</precision><colors>3</colors><spins>4</spins>\
         <typesize>{typesize}</typesize><datacount>4</datacount></scidacRecord>",
        escape_text(date)
    ))
}

/// A date as QIO writes it in the private record XML: C `asctime` of the UTC
/// time plus " UTC", e.g. `Tue Jul 26 21:14:44 2011 UTC`.
pub(crate) fn qio_date(seconds_since_unix_epoch: u64) -> String {
    const WEEKDAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = seconds_since_unix_epoch / 86_400;
    let second_of_day = seconds_since_unix_epoch % 86_400;
    let (year, month, day) = crate::nersc::date::civil_from_days(days);
    format!(
        "{} {}{day:>3} {:02}:{:02}:{:02} {year} UTC",
        WEEKDAYS[(days % 7) as usize],
        MONTHS[(month - 1) as usize],
        second_of_day / 3600,
        second_of_day / 60 % 60,
        second_of_day % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tag_text_finds_plain_attributed_prefixed_and_empty_elements() {
        let xml = "<?xml version=\"1.0\"?>\n<a x=\"1\">\n  <b> 7 </b><ildg:c>8</ildg:c><d/>\
                   <e attr='2' /></a>";
        assert_eq!(tag_text(xml, "b"), Some("7"));
        assert_eq!(tag_text(xml, "c"), Some("8"));
        assert_eq!(tag_text(xml, "d"), Some(""));
        assert_eq!(tag_text(xml, "e"), Some(""));
        assert!(tag_text(xml, "a").is_some_and(|a| a.starts_with("<b>")));
        assert_eq!(tag_text(xml, "f"), None);
        assert_eq!(tag_text(xml, "xml"), None);
    }

    #[test]
    fn tag_text_matches_whole_names_only() {
        let xml = "<lxy>1</lxy><lx>2</lxy></lx >";
        assert_eq!(tag_text(xml, "lx"), Some("2</lxy>"));
        assert_eq!(tag_text("<lx>2", "lx"), None);
        assert_eq!(tag_text("<lx", "lx"), None);
    }

    #[test]
    fn ildg_format_is_written_as_expected() {
        let format = IldgFormat {
            precision_bits: 64,
            extents: [8, 8, 8, 16],
        };
        assert_eq!(
            format.to_xml().expect("valid"),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ildgFormat \
             xmlns=\"http://www.lqcd.org/ildg\" \
             xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \
             xsi:schemaLocation=\"http://www.lqcd.org/ildg \
             http://www.lqcd.org/ildg/filefmt.xsd\"><version>1.0</version>\
             <field>su3gauge</field><precision>64</precision><lx>8</lx><ly>8</ly><lz>8</lz>\
             <lt>16</lt></ildgFormat>"
        );
    }

    #[test]
    fn ildg_format_round_trips() {
        for precision_bits in [32, 64] {
            let format = IldgFormat {
                precision_bits,
                extents: [4, 6, 8, 12],
            };
            let xml = format.to_xml().expect("valid");
            assert_eq!(IldgFormat::parse(&xml), Ok(format));
        }
    }

    #[test]
    fn ildg_format_accepts_tmlqcd_layout() {
        let xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ildgFormat \
                   xmlns=\"http://www.lqcd.org/ildg\"\n            \
                   xsi:schemaLocation=\"http://www.lqcd.org/ildg filefmt.xsd\">\n  \
                   <version> 1.0 </version>\n  <field> su3gauge </field>\n  \
                   <precision> 32 </precision>\n  <lx> 4 </lx>\n  <ly> 6 </ly>\n  \
                   <lz> 8 </lz>\n  <lt> 10 </lt>\n</ildgFormat>";
        let expected = IldgFormat {
            precision_bits: 32,
            extents: [4, 6, 8, 10],
        };
        assert_eq!(IldgFormat::parse(xml), Ok(expected));
    }

    #[test]
    fn ildg_format_refusals_name_the_problem() {
        let good = IldgFormat {
            precision_bits: 64,
            extents: [8, 8, 8, 16],
        }
        .to_xml()
        .expect("valid");
        let refused = [
            (good.replace("su3gauge", "su2gauge"), "'su2gauge'"),
            (good.replace(">64<", ">48<"), "precision is '48'"),
            (good.replace("<lz>8</lz>", "<lz>0</lz>"), "<lz> is '0'"),
            (good.replace("<lt>16</lt>", "<lt>-16</lt>"), "<lt> is '-16'"),
            (good.replace("<ly>8</ly>", ""), "no <ly>"),
            (good.replace("ildgFormat", "ildgFmt"), "no <ildgFormat>"),
        ];
        for (xml, needle) in refused {
            let error = IldgFormat::parse(&xml).expect_err(needle);
            assert!(error.contains(needle), "{needle}: {error}");
        }
    }

    #[test]
    fn ildg_format_writer_refuses_invalid_fields() {
        assert!(IldgFormat {
            precision_bits: 16,
            extents: [1; 4]
        }
        .to_xml()
        .is_err());
        assert!(IldgFormat {
            precision_bits: 32,
            extents: [1, 0, 1, 1]
        }
        .to_xml()
        .is_err());
    }

    #[test]
    fn private_file_xml_matches_qio_and_round_trips() {
        let xml = scidac_private_file_xml([8, 8, 8, 16]).expect("valid");
        assert_eq!(
            xml,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><scidacFile><version>1.1</version>\
             <spacetime>4</spacetime><dims>8 8 8 16 </dims><volfmt>0</volfmt></scidacFile>"
        );
        assert_eq!(parse_scidac_private_file_dims(&xml), Ok([8, 8, 8, 16]));
        assert!(scidac_private_file_xml([8, 0, 8, 16]).is_err());
    }

    #[test]
    fn private_file_dims_accept_grid_layout() {
        let xml = "<?xml version=\"1.0\"?>\n<scidacFile>\n  <version>1</version>\n  \
                   <spacetime>4</spacetime>\n  <dims>16 \n16 \n16 \n32</dims>\n  \
                   <volfmt>0</volfmt>\n</scidacFile>\n";
        assert_eq!(parse_scidac_private_file_dims(xml), Ok([16, 16, 16, 32]));
    }

    #[test]
    fn private_file_dims_refusals_name_the_problem() {
        let good = scidac_private_file_xml([8, 8, 8, 16]).expect("valid");
        let refused = [
            (good.replace("8 8 8 16 ", "8 8 16"), "has 3 values"),
            (good.replace("8 8 8 16 ", "8 8 8 16 2"), "has 5 values"),
            (good.replace("8 8 8 16 ", "8 x 8 16"), "'x'"),
            (
                good.replace("<spacetime>4", "<spacetime>3"),
                "spacetime is '3'",
            ),
            (good.replace("<volfmt>0", "<volfmt>2"), "volfmt is '2'"),
            (good.replace("dims", "dimz"), "no <dims>"),
            (
                good.replace("scidacFile", "scidacRecord"),
                "no <scidacFile>",
            ),
        ];
        for (xml, needle) in refused {
            let error = parse_scidac_private_file_dims(&xml).expect_err(needle);
            assert!(error.contains(needle), "{needle}: {error}");
        }
    }

    #[test]
    fn private_record_xml_matches_chroma() {
        let double = scidac_private_record_xml(64, "Tue Jul 26 21:14:44 2011 UTC").expect("ok");
        assert_eq!(
            double,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><scidacRecord><version>1.1</version>\
             <date>Tue Jul 26 21:14:44 2011 UTC</date><recordtype>0</recordtype>\
             <datatype>QDP_D3_ColorMatrix</datatype><precision>D</precision><colors>3</colors>\
             <spins>4</spins><typesize>144</typesize><datacount>4</datacount></scidacRecord>"
        );
        let single = scidac_private_record_xml(32, "a<b").expect("ok");
        assert_eq!(tag_text(&single, "datatype"), Some("QDP_F3_ColorMatrix"));
        assert_eq!(tag_text(&single, "precision"), Some("F"));
        assert_eq!(tag_text(&single, "typesize"), Some("72"));
        assert_eq!(tag_text(&single, "date"), Some("a&lt;b"));
        assert!(scidac_private_record_xml(16, "").is_err());
    }

    #[test]
    fn qio_date_formats_like_asctime() {
        assert_eq!(qio_date(0), "Thu Jan  1 00:00:00 1970 UTC");
        assert_eq!(qio_date(1_311_714_884), "Tue Jul 26 21:14:44 2011 UTC");
        assert_eq!(qio_date(1_709_208_000), "Thu Feb 29 12:00:00 2024 UTC");
        assert_eq!(qio_date(952_240_089), "Sun Mar  5 07:08:09 2000 UTC");
    }
}
