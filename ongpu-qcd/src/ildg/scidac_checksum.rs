//! The SciDAC checksum of a lattice field and its `scidac-checksum` record.
//!
//! For every site, `crc` is the zlib CRC-32 (initial value 0) of the site's
//! bytes exactly as stored in the file (big-endian). With `rank` the site's
//! lexicographic index in the whole lattice (x fastest), the checksum is
//! `suma = XOR of crc.rotate_left(rank % 29)` and
//! `sumb = XOR of crc.rotate_left(rank % 31)` over all sites, so partial
//! checksums over disjoint sets of sites combine by XOR. The record holds
//! `<scidacChecksum><version>1.0</version><suma>hex</suma><sumb>hex</sumb>`
//! with lower-case hex without leading zeros (C `%x`).
//!
//! Checked against USQCD QIO: `lib/dml/DML_utils.c` (`DML_checksum_accum`,
//! `DML_rank_rotl32`, `DML_lex_rank`, byte reversal to big-endian before the
//! checksum), `lib/dml/DML_crc32.c` (zlib CRC-32), `include/qioxml_private.h`
//! and `lib/qio/QIO_info_private.c` (`QIO_encode_checksum_info`,
//! `QIO_decode_checksum_info`), `lib/qio/QIO_info.c` (`%x` encoding,
//! `sscanf("%x")` decoding); and Grid `Grid/parallelIO/IldgIO.h` (reads the
//! sums with `stoull(…, 16)`, writes them with `std::hex`).

use super::xml::{tag_text, XML_DECLARATION};

/// The pair of SciDAC checksums of a set of lattice sites.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ScidacChecksum {
    /// XOR of the site CRCs rotated left by `rank % 29`.
    pub(crate) suma: u32,
    /// XOR of the site CRCs rotated left by `rank % 31`.
    pub(crate) sumb: u32,
}

impl ScidacChecksum {
    /// Adds the site of lexicographic index `rank` whose file bytes are `bytes`.
    pub(crate) fn add_site(&mut self, rank: u64, bytes: &[u8]) {
        let crc = crc32fast::hash(bytes);
        self.suma ^= crc.rotate_left((rank % 29) as u32);
        self.sumb ^= crc.rotate_left((rank % 31) as u32);
    }

    /// The checksum of the union of two disjoint sets of sites.
    pub(crate) fn combine(self, other: Self) -> Self {
        Self {
            suma: self.suma ^ other.suma,
            sumb: self.sumb ^ other.sumb,
        }
    }

    /// The `scidac-checksum` record text, as QIO writes it.
    pub(crate) fn to_xml(self) -> String {
        format!(
            "{XML_DECLARATION}<scidacChecksum><version>1.0</version><suma>{:x}</suma>\
             <sumb>{:x}</sumb></scidacChecksum>",
            self.suma, self.sumb
        )
    }

    /// Parses a `scidac-checksum` record; hex digits of any case, leading
    /// zeros and a `0x` prefix are accepted.
    pub(crate) fn from_xml(xml: &str) -> Result<Self, String> {
        let body = tag_text(xml, "scidacChecksum")
            .ok_or("scidac-checksum record: no <scidacChecksum> element")?;
        Ok(Self {
            suma: parse_sum(body, "suma")?,
            sumb: parse_sum(body, "sumb")?,
        })
    }
}

/// Parses the hexadecimal 32-bit value of element `tag` in `body`.
fn parse_sum(body: &str, tag: &str) -> Result<u32, String> {
    let text =
        tag_text(body, tag).ok_or_else(|| format!("scidac-checksum record: no <{tag}> element"))?;
    let digits = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .unwrap_or(text);
    let valid = !digits.is_empty() && digits.bytes().all(|byte| byte.is_ascii_hexdigit());
    match u32::from_str_radix(digits, 16) {
        Ok(value) if valid => Ok(value),
        _ => Err(format!(
            "scidac-checksum record: <{tag}> is '{text}', not a 32-bit hexadecimal number"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The standard CRC-32 check input.
    const CHECK_INPUT: &[u8] = b"123456789";
    /// zlib `crc32(0, "123456789", 9)`.
    const CHECK_CRC: u32 = 0xcbf4_3926;

    /// Checksum of the single site of rank `rank` with bytes [`CHECK_INPUT`].
    fn single_site(rank: u64) -> ScidacChecksum {
        let mut checksum = ScidacChecksum::default();
        checksum.add_site(rank, CHECK_INPUT);
        checksum
    }

    #[test]
    fn crc_is_the_zlib_crc32() {
        assert_eq!(crc32fast::hash(CHECK_INPUT), CHECK_CRC);
    }

    /// [`CHECK_CRC`] rotated left by 1, 2, 29 and 30 bits, worked out
    /// independently of this code (Python `zlib.crc32` and shifts).
    const CHECK_CRC_ROTATED_1: u32 = 0x97e8_724d;
    const CHECK_CRC_ROTATED_2: u32 = 0x2fd0_e49b;
    const CHECK_CRC_ROTATED_29: u32 = 0xd97e_8724;
    const CHECK_CRC_ROTATED_30: u32 = 0xb2fd_0e49;

    #[test]
    fn rotation_is_rank_mod_29_for_suma_and_rank_mod_31_for_sumb() {
        let expected = [
            (0, CHECK_CRC, CHECK_CRC),
            (1, CHECK_CRC_ROTATED_1, CHECK_CRC_ROTATED_1),
            (29, CHECK_CRC, CHECK_CRC_ROTATED_29),
            (30, CHECK_CRC_ROTATED_1, CHECK_CRC_ROTATED_30),
            (31, CHECK_CRC_ROTATED_2, CHECK_CRC),
        ];
        for (rank, suma, sumb) in expected {
            assert_eq!(
                single_site(rank),
                ScidacChecksum { suma, sumb },
                "rank {rank}"
            );
        }
    }

    #[test]
    fn halves_combine_to_the_whole() {
        let site_bytes = |rank: u64| (0..16u8).map(|i| i ^ rank as u8).collect::<Vec<_>>();
        let mut whole = ScidacChecksum::default();
        let mut even = ScidacChecksum::default();
        let mut odd = ScidacChecksum::default();
        for rank in 0..100 {
            whole.add_site(rank, &site_bytes(rank));
            let half = if rank % 2 == 0 { &mut even } else { &mut odd };
            half.add_site(rank, &site_bytes(rank));
        }
        assert_eq!(even.combine(odd), whole);
        assert_eq!(whole.combine(ScidacChecksum::default()), whole);
    }

    #[test]
    fn xml_is_written_as_qio_does() {
        let checksum = ScidacChecksum {
            suma: 0x0000_abcd,
            sumb: 0xdead_beef,
        };
        assert_eq!(
            checksum.to_xml(),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><scidacChecksum><version>1.0</version>\
             <suma>abcd</suma><sumb>deadbeef</sumb></scidacChecksum>"
        );
    }

    #[test]
    fn xml_round_trips() {
        let checksum = ScidacChecksum {
            suma: 0x1,
            sumb: 0xffff_ffff,
        };
        assert_eq!(ScidacChecksum::from_xml(&checksum.to_xml()), Ok(checksum));
    }

    #[test]
    fn xml_accepts_case_leading_zeros_prefix_and_whitespace() {
        let xml = "<?xml version=\"1.0\"?>\n<scidacChecksum>\n  <version>1</version>\n  \
                   <suma> 00ABcd </suma>\n  <sumb>0xDEADbeef</sumb>\n</scidacChecksum>\n";
        let expected = ScidacChecksum {
            suma: 0xabcd,
            sumb: 0xdead_beef,
        };
        assert_eq!(ScidacChecksum::from_xml(xml), Ok(expected));
    }

    #[test]
    fn malformed_xml_is_refused() {
        let refused = [
            ("", "no <scidacChecksum>"),
            (
                "<scidacFile><suma>1</suma><sumb>2</sumb></scidacFile>",
                "no <scidacChecksum>",
            ),
            (
                "<scidacChecksum><suma>1</suma></scidacChecksum>",
                "no <sumb>",
            ),
            (
                "<scidacChecksum><suma>xyz</suma><sumb>2</sumb></scidacChecksum>",
                "'xyz'",
            ),
            (
                "<scidacChecksum><suma>1</suma><sumb>+2</sumb></scidacChecksum>",
                "'+2'",
            ),
            (
                "<scidacChecksum><suma></suma><sumb>2</sumb></scidacChecksum>",
                "<suma> is ''",
            ),
            (
                "<scidacChecksum><suma>1ffffffff</suma><sumb>2</sumb></scidacChecksum>",
                "32-bit",
            ),
        ];
        for (xml, needle) in refused {
            let error = ScidacChecksum::from_xml(xml).expect_err(xml);
            assert!(error.contains(needle), "{xml}: {error}");
        }
    }
}
