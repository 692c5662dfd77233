//! Gauge files in the ILDG format: the bytes of a written file walked here by an
//! independent reader (LIME headers, record order, the links of each site at its
//! lexicographic place, big-endian, and the SciDAC checksum recomputed with a CRC-32 written
//! here); round trips in double and single precision; NERSC ↔ ILDG conversion bit for bit;
//! damaged files (a flipped data byte, an edited checksum, truncation, a NERSC file, another
//! lattice), each an error that returns nothing.

#![allow(clippy::needless_range_loop)] // spin, row and column read best as indices

use ongpu::prelude::*;
use ongpu::qcd::gauge::{GaugeField, HostLinks};
use ongpu::qcd::ildg;
use ongpu::qcd::nersc::{self, Ensemble, Format, Precision};
use ongpu::Precision as _;
use std::path::Path;

fn scratch() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// The records of a LIME file as (type, flags byte, data): walked byte by byte.
fn lime_records(bytes: &[u8]) -> Vec<(String, u8, Vec<u8>)> {
    let mut out = Vec::new();
    let mut at = 0usize;
    while at < bytes.len() {
        let h = &bytes[at..at + 144];
        assert_eq!(&h[..4], &[0x45, 0x67, 0x89, 0xab], "LIME magic at {at}");
        assert_eq!(&h[4..6], &[0, 1], "LIME version 1");
        let len = u64::from_be_bytes(h[8..16].try_into().unwrap()) as usize;
        let name_end = h[16..].iter().position(|&b| b == 0).unwrap();
        let name = String::from_utf8(h[16..16 + name_end].to_vec()).unwrap();
        let data = bytes[at + 144..at + 144 + len].to_vec();
        out.push((name, h[6], data));
        at += 144 + len.div_ceil(8) * 8;
    }
    assert_eq!(at, bytes.len(), "the last record ends the file");
    out
}

/// zlib's CRC-32, bit by bit (reflected polynomial 0xedb88320).
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// The text between `<tag>` and `</tag>`.
fn tag<'a>(xml: &'a str, tag: &str) -> &'a str {
    let open = format!("<{tag}>");
    let start = xml.find(&open).unwrap() + open.len();
    let end = xml[start..].find(&format!("</{tag}>")).unwrap();
    xml[start..start + end].trim()
}

/// A written file read without the library: records in QIO's order and messages, the
/// format record, every site's links at its lexicographic place, and the checksum.
#[test]
fn a_written_file_holds_the_format_byte_by_byte() {
    let dir = scratch();
    let lat = Lattice::new([2, 4, 2, 6]).unwrap();
    let u = GaugeField::random(lat, 7).unwrap();
    let links = u.to_host().unwrap();
    let path = dir.path().join("u.lime");
    let info = u.write_ildg(&path, Precision::Double).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let records = lime_records(&bytes);
    let names: Vec<&str> = records.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "scidac-private-file-xml",
            "scidac-file-xml",
            "scidac-private-record-xml",
            "scidac-record-xml",
            "ildg-format",
            "ildg-binary-data",
            "scidac-checksum"
        ]
    );
    let flags: Vec<u8> = records.iter().map(|r| r.1).collect();
    assert_eq!(
        flags,
        [0x80, 0x40, 0x80, 0, 0, 0, 0x40],
        "MB/ME of two messages"
    );
    let text = |k: usize| String::from_utf8(records[k].2.clone()).unwrap();
    let format = text(4);
    assert_eq!(tag(&format, "field"), "su3gauge");
    assert_eq!(tag(&format, "precision"), "64");
    for (t, l) in ["lx", "ly", "lz", "lt"].iter().zip(lat.extents()) {
        assert_eq!(tag(&format, t), l.to_string());
    }
    assert_eq!(tag(&text(0), "dims"), "2 4 2 6");
    let data = &records[5].2;
    assert_eq!(data.len(), lat.volume() * 4 * 18 * 8);
    let (mut suma, mut sumb) = (0u32, 0u32);
    for (rank, site) in data.chunks_exact(4 * 18 * 8).enumerate() {
        let [lx, ly, lz, _] = lat.extents();
        let c = [
            rank % lx,
            rank / lx % ly,
            rank / (lx * ly) % lz,
            rank / (lx * ly * lz),
        ];
        let want = links[lat.index(c)];
        let reals: Vec<f64> = site
            .chunks_exact(8)
            .map(|b| f64::from_be_bytes(b.try_into().unwrap()))
            .collect();
        for mu in 0..4 {
            for r in 0..3 {
                for col in 0..3 {
                    let k = mu * 18 + r * 6 + col * 2;
                    assert_eq!(reals[k], want[mu][r][col].re, "site {c:?}, link {mu}");
                    assert_eq!(reals[k + 1], want[mu][r][col].im);
                }
            }
        }
        let crc = crc32(site);
        suma ^= crc.rotate_left((rank % 29) as u32);
        sumb ^= crc.rotate_left((rank % 31) as u32);
    }
    let checksum = text(6);
    assert_eq!(
        u32::from_str_radix(tag(&checksum, "suma"), 16).unwrap(),
        suma
    );
    assert_eq!(
        u32::from_str_radix(tag(&checksum, "sumb"), 16).unwrap(),
        sumb
    );
    assert_eq!(info.checksum, Some((suma, sumb)));
}

/// `crc32` here is zlib's: the standard check value.
#[test]
fn the_test_crc_is_zlibs() {
    assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
}

#[test]
fn links_round_trip_in_double_and_single_precision() {
    let dir = scratch();
    let lat = Lattice::new([4, 2, 4, 6]).unwrap();
    let u = GaugeField::random(lat, 8).unwrap();
    let links = u.to_host().unwrap();
    for precision in [Precision::Double, Precision::Single] {
        let path = dir.path().join(format!("{precision:?}.lime"));
        let written = u.write_ildg(&path, precision).unwrap();
        let (back, info) = GaugeField::read_ildg(&path).unwrap();
        assert_eq!(back.lattice(), lat);
        assert_eq!(info, written);
        assert_eq!(info.precision, precision);
        let want: HostLinks = match precision {
            Precision::Double => links.clone(),
            Precision::Single => links
                .iter()
                .map(|s| s.map(|m| m.to_f32().to_f64()))
                .collect(),
        };
        assert!(
            back.to_host().unwrap() == want,
            "{precision:?} links differ"
        );
        let (onto, _) = GaugeField::read_ildg_onto(lat, &path).unwrap();
        assert!(onto.to_host().unwrap() == want, "{precision:?} read onto");
        let (plain_lat, plain, plain_info) = ildg::read::<ongpu::AoS>(&path).unwrap();
        assert_eq!((plain_lat, plain_info), (lat, written.clone()));
        assert!(plain.to_vec().unwrap() == want, "{precision:?} plain field");
    }
}

/// NERSC → ILDG → NERSC keeps every bit, and both formats of the same links read the same.
#[test]
fn nersc_and_ildg_convert_bit_for_bit() {
    let dir = scratch();
    let lat = Lattice::new([4, 4, 2, 4]).unwrap();
    let u = GaugeField::random(lat, 9).unwrap();
    let (nersc_path, ildg_path, again) = (
        dir.path().join("a.nersc"),
        dir.path().join("a.lime"),
        dir.path().join("b.nersc"),
    );
    u.write_nersc(&nersc_path, Format::default(), &Ensemble::default())
        .unwrap();
    let (from_nersc, _) = GaugeField::read_nersc(&nersc_path).unwrap();
    from_nersc
        .write_ildg(&ildg_path, Precision::Double)
        .unwrap();
    let (from_ildg, _) = GaugeField::read_ildg(&ildg_path).unwrap();
    assert!(from_ildg.to_host().unwrap() == u.to_host().unwrap());
    from_ildg
        .write_nersc(&again, Format::default(), &Ensemble::default())
        .unwrap();
    let data = |p: &Path| {
        let b = std::fs::read(p).unwrap();
        let end = b.windows(10).position(|w| w == b"END_HEADER").unwrap();
        b[end..].to_vec()
    };
    assert!(data(&nersc_path) == data(&again), "the NERSC links differ");
}

/// Each damage is an error naming what is wrong, and nothing is read.
#[test]
fn damaged_files_are_errors() {
    let dir = scratch();
    let lat = Lattice::new([2, 2, 4, 4]).unwrap();
    let u = GaugeField::random(lat, 10).unwrap();
    let path = dir.path().join("good.lime");
    u.write_ildg(&path, Precision::Double).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let records = lime_records(&bytes);
    let binary_start = {
        // The data of the sixth record: skip the five before it.
        let mut at = 0;
        for r in &records[..5] {
            at += 144 + r.2.len().div_ceil(8) * 8;
        }
        at + 144
    };
    let refused = |name: &str, damaged: &[u8], words: &[&str]| {
        let p = dir.path().join(name);
        std::fs::write(&p, damaged).unwrap();
        for result in [
            GaugeField::read_ildg(&p).map(drop),
            GaugeField::read_ildg_onto(lat, &p).map(drop),
        ] {
            let message = result.expect_err(name).to_string();
            for w in words {
                assert!(message.contains(w), "{name}: {message}");
            }
            assert!(message.contains("nothing was read"), "{name}: {message}");
        }
    };
    let mut flipped = bytes.clone();
    flipped[binary_start + 100] ^= 0x10;
    refused("flipped.lime", &flipped, &["scidac-checksum", "damaged"]);
    let checksum_text = String::from_utf8(records[6].2.clone()).unwrap();
    let suma = tag(&checksum_text, "suma").to_string();
    let edited_sum = if suma.starts_with('1') { "2" } else { "1" };
    let at = bytes
        .windows(suma.len() + 6)
        .position(|w| w == format!("<suma>{suma}").as_bytes())
        .unwrap()
        + 6;
    let mut edited = bytes.clone();
    edited[at] = edited_sum.as_bytes()[0];
    refused("edited.lime", &edited, &["scidac-checksum"]);
    refused("truncated.lime", &bytes[..bytes.len() - 200], &["LIME"]);
    let nersc_path = dir.path().join("x.nersc");
    u.write_nersc(&nersc_path, Format::default(), &Ensemble::default())
        .unwrap();
    refused(
        "nersc.lime",
        &std::fs::read(&nersc_path).unwrap(),
        &["LIME"],
    );
    let other = Lattice::new([2, 2, 4, 8]).unwrap();
    let wrong = GaugeField::read_ildg_onto(other, &path).map(drop);
    assert!(wrong
        .expect_err("another lattice")
        .to_string()
        .contains("extents"));
    assert!(nersc::read::<ongpu::AoS>(&path).is_err());
}
