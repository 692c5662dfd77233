//! Gauge files in the NERSC archive format: round trips in every storage, a file built byte by
//! byte here (so the site and link order are checked against the format, not against the
//! writer), and damaged files, each of which must be an error that returns nothing.

use ongpu::prelude::*;
use ongpu::qcd::gauge::GaugeField;
use ongpu::qcd::nersc::{self, ByteOrder, Ensemble, Format, Precision, Rows};
use ongpu::Error;
use std::path::{Path, PathBuf};

type Links = [ColorMatrix<f64>; 4];

/// SplitMix64: a small seeded generator, so the links are the same on every run.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [-1, 1).
    fn real(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }

    fn complex(&mut self) -> Complex<f64> {
        Complex::new(self.real(), self.real())
    }
}

/// A random SU(3) matrix: Gram-Schmidt on two random rows, the third `conj(row0 × row1)`
/// (so that the determinant is 1 and two-row storage rebuilds it).
fn random_su3(rng: &mut Rng) -> ColorMatrix<f64> {
    let normalise = |v: [Complex<f64>; 3]| {
        let n = v.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt();
        v.map(|z| z / n)
    };
    let a = normalise([rng.complex(), rng.complex(), rng.complex()]);
    let b = [rng.complex(), rng.complex(), rng.complex()];
    let overlap: Complex<f64> = (0..3).map(|k| a[k].conj() * b[k]).sum();
    let b = normalise([0, 1, 2].map(|k| b[k] - overlap * a[k]));
    let c = [
        (a[1] * b[2] - a[2] * b[1]).conj(),
        (a[2] * b[0] - a[0] * b[2]).conj(),
        (a[0] * b[1] - a[1] * b[0]).conj(),
    ];
    ColorMatrix::new([a, b, c])
}

fn random_links(lat: &Lattice, seed: u64) -> Vec<Links> {
    let mut rng = Rng(seed);
    (0..lat.volume())
        .map(|_| [(); 4].map(|_| random_su3(&mut rng)))
        .collect()
}

fn scratch() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn largest_difference(a: &[Links], b: &[Links]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .flatten()
        .zip(b.iter().flatten())
        .flat_map(|(x, y)| x.m.iter().flatten().zip(y.m.iter().flatten()))
        .map(|(x, y)| (x - y).norm())
        .fold(0.0, f64::max)
}

fn round_to_single(u: &[Links]) -> Vec<Links> {
    let r = |x: f64| x as f32 as f64;
    u.iter()
        .map(|links| {
            links.map(|m| {
                ColorMatrix::new(m.m.map(|row| row.map(|z| Complex::new(r(z.re), r(z.im)))))
            })
        })
        .collect()
}

#[test]
fn random_su3_links_round_trip_in_every_storage() {
    let dir = scratch();
    for extents in [[4, 4, 4, 8], [2, 4, 6, 4]] {
        let lat = Lattice::new(extents).unwrap();
        let links = random_links(&lat, 7 + extents[0] as u64);
        let u: Field<Links> = Field::from_vec(links.clone());
        let cases = [
            (Precision::Double, Rows::Three, ByteOrder::Big),
            (Precision::Double, Rows::Two, ByteOrder::Big),
            (Precision::Single, Rows::Three, ByteOrder::Big),
            (Precision::Single, Rows::Two, ByteOrder::Big),
            (Precision::Double, Rows::Three, ByteOrder::Little),
            (Precision::Single, Rows::Two, ByteOrder::Little),
        ];
        for (precision, rows, byte_order) in cases {
            let format = Format {
                precision,
                rows,
                byte_order,
            };
            let path = dir.path().join(format!("{extents:?}-{format:?}.cfg"));
            let written = nersc::write(&path, &lat, &u, format).unwrap();
            let (lat2, u2, read): (Lattice, Field<Links>, _) = nersc::read(&path).unwrap();
            assert_eq!(lat2, lat);
            assert_eq!(read, written, "{format:?}");
            let back = u2.to_vec().unwrap();
            let what = format!("{extents:?} {format:?}");
            match (precision, rows) {
                (Precision::Double, Rows::Three) => assert_eq!(back, links, "{what}"),
                (Precision::Double, Rows::Two) => {
                    let d = largest_difference(&back, &links);
                    assert!(d < 1e-14, "{what}: {d:e}");
                }
                (Precision::Single, Rows::Three) => {
                    assert_eq!(back, round_to_single(&links), "{what}")
                }
                (Precision::Single, Rows::Two) => {
                    // Stored rows exactly rounded; the rebuilt row within single rounding.
                    let rounded = round_to_single(&links);
                    for (b, r) in back.iter().flatten().zip(rounded.iter().flatten()) {
                        assert_eq!(b.m[..2], r.m[..2], "{what}");
                    }
                    let d = largest_difference(&back, &links);
                    assert!(d < 1e-6, "{what}: {d:e}");
                }
            }
        }
    }
}

#[test]
fn single_precision_fields_other_layouts_and_ensemble_lines() {
    let dir = scratch();
    let lat = Lattice::new([2, 4, 6, 4]).unwrap();
    let links = random_links(&lat, 3);
    let single: Vec<[ColorMatrix<f32>; 4]> = links
        .iter()
        .map(|l| {
            l.map(|m| {
                ColorMatrix::new(m.m.map(|row| row.map(|z| Complex::new(z.re as f32, z.im as f32))))
            })
        })
        .collect();
    let u: Field<[ColorMatrix<f32>; 4], SoA> = Field::from_vec(single.clone());
    let ensemble = Ensemble {
        id: "test-ensemble".into(),
        label: "beta 6.0".into(),
        sequence_number: 42,
        creator: "nersc test".into(),
    };
    let path = dir.path().join("single.cfg");
    let format = Format {
        precision: Precision::Single,
        ..Format::default()
    };
    let written = nersc::write_with(&path, &lat, &u, format, &ensemble).unwrap();
    assert_eq!(written.get("SEQUENCE_NUMBER"), Some("42"));
    let (_, back, header): (_, Field<Links, AoS>, _) = nersc::read(&path).unwrap();
    assert_eq!(header.get("ENSEMBLE_LABEL"), Some("beta 6.0"));
    assert_eq!(header.get("CREATOR"), Some("nersc test"));
    let back = back.to_vec().unwrap();
    for (b, s) in back.iter().flatten().zip(single.iter().flatten()) {
        for (x, y) in b.m.iter().flatten().zip(s.m.iter().flatten()) {
            assert_eq!((x.re, x.im), (y.re as f64, y.im as f64));
        }
    }
}

#[test]
fn unit_links_have_plaquette_and_link_trace_one() {
    let dir = scratch();
    let lat = Lattice::new([4, 4, 4, 8]).unwrap();
    let u: Field<Links> = Field::filled(lat.volume(), [ColorMatrix::identity(); 4]);
    let path = dir.path().join("unit.cfg");
    let header = nersc::write(&path, &lat, &u, Format::default()).unwrap();
    assert_eq!((header.plaquette, header.link_trace), (1.0, 1.0));
    let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
    assert!(text.starts_with("BEGIN_HEADER\n"), "{text}");
    for line in [
        "\nDATATYPE = 4D_SU3_GAUGE_3x3\n",
        "\nDIMENSION_4 = 8\n",
        "\nPLAQUETTE = 1.0\n",
        "\nLINK_TRACE = 1.0\n",
        "\nBOUNDARY_1 = PERIODIC\n",
        "\nFLOATING_POINT = IEEE64BIG\n",
        "\nEND_HEADER\n",
    ] {
        assert!(text.contains(line), "{line:?} missing from\n{text}");
    }
    // Nothing but the file is left in the folder (the temporary file was renamed).
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["unit.cfg"]);
}

#[test]
fn a_two_row_file_of_links_outside_su3_holds_the_rebuilt_links() {
    let dir = scratch();
    let lat = Lattice::new([2, 2, 2, 2]).unwrap();
    let twice = ColorMatrix::<f64>::identity() * 2.0;
    let u: Field<Links> = Field::filled(lat.volume(), [twice; 4]);
    let path = dir.path().join("two-rows.cfg");
    let format = Format {
        rows: Rows::Two,
        ..Format::default()
    };
    let header = nersc::write(&path, &lat, &u, format).unwrap();
    // Rebuilt third row: conj(row0 × row1) = (0, 0, 4), so the link trace is (2+2+4)/3.
    assert_eq!(header.link_trace, 8.0 / 3.0);
    let (_, back, _): (_, Field<Links>, _) = nersc::read(&path).unwrap();
    let mut want = twice;
    want.m[2][2] = Complex::new(4.0, 0.0);
    assert!(back.to_vec().unwrap().iter().flatten().all(|m| *m == want));
}

// ---- A file built here, byte by byte, on a 2x2x2x2 lattice ----

/// The phases of the diagonal SU(3) link at lexicographic site `lex` in direction `mu`:
/// distinct for every (site, direction), so any mix-up of the order changes the links.
fn phases(lex: usize, mu: usize) -> [f64; 3] {
    let a = 0.1 * (lex + 1) as f64 + 0.37 * mu as f64;
    let b = -0.05 * lex as f64 + 0.21 * mu as f64 + 0.3;
    [a, b, -(a + b)]
}

fn diagonal(p: [f64; 3]) -> ColorMatrix<f64> {
    let mut m = ColorMatrix::zero();
    for (k, &phase) in p.iter().enumerate() {
        m.m[k][k] = Complex::from_polar(1.0, phase);
    }
    m
}

const L: usize = 2;

fn lex([x, y, z, t]: [usize; 4]) -> usize {
    x + L * (y + L * (z + L * t))
}

/// The plaquette of the diagonal links, from their phases (abelian, so the phases add).
fn hand_plaquette() -> f64 {
    let mut sum = 0.0;
    for site in 0..L.pow(4) {
        let c = [site % L, site / L % L, site / L / L % L, site / L / L / L];
        let step = |c: [usize; 4], mu: usize| {
            let mut d = c;
            d[mu] = (d[mu] + 1) % L;
            d
        };
        for mu in 0..4 {
            for nu in mu + 1..4 {
                for k in 0..3 {
                    let angle = phases(lex(c), mu)[k] + phases(lex(step(c, mu)), nu)[k]
                        - phases(lex(step(c, nu)), mu)[k]
                        - phases(lex(c), nu)[k];
                    sum += angle.cos();
                }
            }
        }
    }
    sum / (L.pow(4) * 6 * 3) as f64
}

fn hand_link_trace() -> f64 {
    let mut sum = 0.0;
    for site in 0..L.pow(4) {
        for mu in 0..4 {
            sum += phases(site, mu).iter().map(|p| p.cos()).sum::<f64>();
        }
    }
    sum / (L.pow(4) * 4 * 3) as f64
}

/// How the hand-built file stores its reals.
#[derive(Clone, Copy, Debug)]
struct Storage {
    rows: usize,
    double: bool,
    big: bool,
    /// The `FLOATING_POINT` line, or none (MILC leaves it out: IEEE32BIG).
    floating_point: Option<&'static str>,
}

/// The data section: sites lexicographic with x fastest, links mu = 0..3, rows row-major,
/// (re, im); and its checksum, the sum of the values' 32-bit words.
fn hand_data(s: Storage) -> (Vec<u8>, u32) {
    let mut data = Vec::new();
    let mut checksum = 0u32;
    for site in 0..L.pow(4) {
        for mu in 0..4 {
            let m = diagonal(phases(site, mu));
            for row in &m.m[..s.rows] {
                for z in row {
                    for x in [z.re, z.im] {
                        if s.double {
                            let bits = x.to_bits();
                            checksum = checksum
                                .wrapping_add(bits as u32)
                                .wrapping_add((bits >> 32) as u32);
                            data.extend(if s.big {
                                bits.to_be_bytes()
                            } else {
                                bits.to_le_bytes()
                            });
                        } else {
                            let bits = (x as f32).to_bits();
                            checksum = checksum.wrapping_add(bits);
                            data.extend(if s.big {
                                bits.to_be_bytes()
                            } else {
                                bits.to_le_bytes()
                            });
                        }
                    }
                }
            }
        }
    }
    (data, checksum)
}

fn hand_file(dir: &Path, s: Storage) -> PathBuf {
    let (data, checksum) = hand_data(s);
    let datatype = if s.rows == 3 {
        "4D_SU3_GAUGE_3x3"
    } else {
        "4D_SU3_GAUGE"
    };
    let floating_point = s
        .floating_point
        .map_or(String::new(), |f| format!("FLOATING_POINT = {f}\n"));
    let header = format!(
        "BEGIN_HEADER\n\
         HDR_VERSION = 1.0\n\
         DATATYPE = {datatype}\n\
         STORAGE_FORMAT = 1.0\n\
         DIMENSION_1 = 2\n\
         DIMENSION_2 = 2\n\
         DIMENSION_3 = 2\n\
         DIMENSION_4 = 2\n\
         LINK_TRACE = {:.10}\n\
         PLAQUETTE  = {:.10}\n\
         BOUNDARY_4 = ANTIPERIODIC\n\
         CHECKSUM = {checksum:>10x}\n\
         MILC_INFO = -------BEGIN-------\n\
         MILC_INFO = --------END--------\n\
         {floating_point}\
         END_HEADER\n",
        hand_link_trace(),
        hand_plaquette(),
    );
    let path = dir.join(format!(
        "hand-{}-{}-{}-{:?}.cfg",
        s.rows, s.double, s.big, s.floating_point
    ));
    let mut bytes = header.into_bytes();
    bytes.extend(data);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn a_hand_built_file_reads_back_to_its_links() {
    let dir = scratch();
    let storages = [
        Storage {
            rows: 3,
            double: true,
            big: true,
            floating_point: Some("IEEE64BIG"),
        },
        Storage {
            rows: 2,
            double: true,
            big: true,
            floating_point: Some("IEEE64BIG"),
        },
        Storage {
            rows: 3,
            double: false,
            big: false,
            floating_point: Some("IEEE32LITTLE"),
        },
        Storage {
            rows: 2,
            double: true,
            big: false,
            floating_point: Some("IEEE64LITTLE"),
        },
        // The bare names: Grid reads them little-endian, QDP++ big-endian; both are read.
        Storage {
            rows: 3,
            double: true,
            big: false,
            floating_point: Some("IEEE64"),
        },
        Storage {
            rows: 2,
            double: false,
            big: true,
            floating_point: Some("IEEE32"),
        },
        // MILC writes no FLOATING_POINT: IEEE32BIG.
        Storage {
            rows: 2,
            double: false,
            big: true,
            floating_point: None,
        },
    ];
    for s in storages {
        let path = hand_file(dir.path(), s);
        let (lat, u, header): (Lattice, Field<Links>, _) =
            nersc::read(&path).unwrap_or_else(|e| panic!("{s:?}: {e}"));
        assert_eq!(lat.extents(), [2, 2, 2, 2]);
        assert_eq!(header.format.byte_order == ByteOrder::Big, s.big, "{s:?}");
        let u = u.to_vec().unwrap();
        // Site by site, as each process of a space reads its part: the same links and
        // header (the byte order of the bare names settled by the checksum the same way).
        let (onto, onto_header) = GaugeField::read_nersc_onto(lat, &path).unwrap();
        assert_eq!(onto_header, header, "{s:?}");
        assert!(
            onto.to_host().unwrap() == u,
            "{s:?}: links read by sites differ"
        );
        for t in 0..L {
            for z in 0..L {
                for y in 0..L {
                    for x in 0..L {
                        let c = [x, y, z, t];
                        for (mu, &got) in u[lat.index(c)].iter().enumerate() {
                            let want = diagonal(phases(lex(c), mu));
                            if s.double && s.rows == 3 {
                                assert_eq!(got, want, "{s:?} at {c:?}, mu {mu}");
                            } else {
                                let tol = if s.double { 1e-15 } else { 1e-7 };
                                let d = largest_difference(&[[got; 4]], &[[want; 4]]);
                                assert!(d < tol, "{s:?} at {c:?}, mu {mu}: {d:e}");
                            }
                        }
                    }
                }
            }
        }
    }
}

// ---- Damaged files ----

/// A valid double-precision file of random links, and its bytes.
fn valid_file(dir: &Path) -> (PathBuf, Vec<u8>, nersc::Header) {
    let lat = Lattice::new([2, 4, 2, 4]).unwrap();
    let u: Field<Links> = Field::from_vec(random_links(&lat, 11));
    let path = dir.join("valid.cfg");
    let header = nersc::write(&path, &lat, &u, Format::default()).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    (path, bytes, header)
}

fn data_start(bytes: &[u8]) -> usize {
    let end = b"END_HEADER\n";
    bytes.windows(end.len()).position(|w| w == end).unwrap() + end.len()
}

/// Reads `bytes` from a file; it must fail with a gauge-file error whose message has every
/// one of `words`.
fn refused(dir: &Path, name: &str, bytes: &[u8], words: &[&str]) {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    let result: ongpu::Result<(Lattice, Field<Links>, nersc::Header)> = nersc::read(&path);
    // Read site by site onto the valid file's lattice: the same error.
    let by_sites = GaugeField::read_nersc_onto(Lattice::new([2, 4, 2, 4]).unwrap(), &path);
    match by_sites {
        Err(e) if e.to_string().contains("nothing was read") => {}
        Err(e) => panic!("{name}: read by sites, not a gauge-file error: {e}"),
        Ok(_) => panic!("{name}: a damaged file was read by sites"),
    }
    match result {
        Err(e @ Error::GaugeFile { .. }) => {
            let message = e.to_string();
            for w in words.iter().chain(&[name, "nothing was read"]) {
                assert!(message.contains(w), "{name}: {w:?} not in: {message}");
            }
        }
        Err(e) => panic!("{name}: not a gauge-file error: {e}"),
        Ok(_) => panic!("{name}: a damaged file was read"),
    }
}

fn replace_header_value(bytes: &[u8], key: &str, value: &str) -> Vec<u8> {
    let start = data_start(bytes);
    let text = std::str::from_utf8(&bytes[..start]).unwrap();
    let edited: String = text
        .lines()
        .map(|line| match line.split_once('=') {
            Some((k, _)) if k.trim() == key => format!("{key} = {value}\n"),
            _ => format!("{line}\n"),
        })
        .collect();
    assert_ne!(edited, text, "{key} not in the header");
    let mut out = edited.into_bytes();
    out.extend(&bytes[start..]);
    out
}

#[test]
fn a_flipped_data_byte_is_a_checksum_error_naming_both_checksums() {
    let dir = scratch();
    let (_, mut bytes, header) = valid_file(dir.path());
    let start = data_start(&bytes);
    bytes[start + 1000] ^= 0x10;
    // The checksum of the damaged data: big-endian doubles are two big-endian words each.
    let damaged = bytes[start..]
        .chunks_exact(4)
        .map(|w| u32::from_be_bytes(w.try_into().unwrap()))
        .fold(0u32, u32::wrapping_add);
    assert_ne!(damaged, header.checksum);
    refused(
        dir.path(),
        "flipped.cfg",
        &bytes,
        &[
            "CHECKSUM",
            &format!("{:x}", header.checksum),
            &format!("{damaged:x}"),
        ],
    );
}

#[test]
fn an_edited_plaquette_or_link_trace_is_an_error() {
    let dir = scratch();
    let (_, bytes, header) = valid_file(dir.path());
    let plaquette = format!("{:?}", header.plaquette + 1e-3);
    let edited = replace_header_value(&bytes, "PLAQUETTE", &plaquette);
    refused(
        dir.path(),
        "plaquette.cfg",
        &edited,
        &["PLAQUETTE", &plaquette],
    );
    let trace = format!("{:?}", header.link_trace - 1e-8);
    let edited = replace_header_value(&bytes, "LINK_TRACE", &trace);
    refused(dir.path(), "trace.cfg", &edited, &["LINK_TRACE", &trace]);
}

#[test]
fn truncated_or_overlong_files_are_errors() {
    let dir = scratch();
    let (_, bytes, _) = valid_file(dir.path());
    refused(
        dir.path(),
        "short.cfg",
        &bytes[..bytes.len() - 8],
        &["truncated"],
    );
    refused(
        dir.path(),
        "header-only.cfg",
        &bytes[..data_start(&bytes)],
        &["truncated"],
    );
    refused(
        dir.path(),
        "half-header.cfg",
        &bytes[..200],
        &["END_HEADER"],
    );
    refused(dir.path(), "empty.cfg", &[], &["BEGIN_HEADER"]);
    let mut long = bytes.clone();
    long.extend([0u8; 16]);
    refused(
        dir.path(),
        "long.cfg",
        &long,
        &["longer than its header says"],
    );
}

#[test]
fn unsupported_or_malformed_headers_are_errors() {
    let dir = scratch();
    let (_, bytes, _) = valid_file(dir.path());
    let cases = [
        (
            "DATATYPE",
            "4D_SU4_GAUGE",
            "su4.cfg",
            "DATATYPE = 4D_SU4_GAUGE",
        ),
        (
            "FLOATING_POINT",
            "IEEE16BIG",
            "fp16.cfg",
            "FLOATING_POINT = IEEE16BIG",
        ),
        ("DIMENSION_2", "3", "odd.cfg", "extent 3"),
        ("DIMENSION_3", "two", "words.cfg", "DIMENSION_3 = two"),
        ("CHECKSUM", "xyz", "checksum.cfg", "CHECKSUM = xyz"),
        ("BOUNDARY_2", "OPEN", "open.cfg", "BOUNDARY_2 = OPEN"),
    ];
    for (key, value, name, words) in cases {
        refused(
            dir.path(),
            name,
            &replace_header_value(&bytes, key, value),
            &[words],
        );
    }
    // A changed byte order: the checksum no longer matches.
    let little = replace_header_value(&bytes, "FLOATING_POINT", "IEEE64LITTLE");
    refused(dir.path(), "little.cfg", &little, &["CHECKSUM"]);
    let missing = dir.path().join("no-such-file.cfg");
    let e = nersc::read::<AoSoA<32>>(&missing)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("could not open"), "{e}");
}

#[test]
fn writing_a_field_off_the_lattice_or_with_bad_values_is_an_error_and_writes_nothing() {
    let dir = scratch();
    let lat = Lattice::new([2, 2, 2, 4]).unwrap();
    let path = dir.path().join("off.cfg");
    let short: Field<Links> = Field::filled(lat.volume() - 1, [ColorMatrix::identity(); 4]);
    let e = nersc::write(&path, &lat, &short, Format::default()).unwrap_err();
    assert!(matches!(e, Error::GaugeFile { .. }), "{e:?}");
    let message = e.to_string();
    assert!(
        message.contains("31 sites") && message.contains("32"),
        "{message}"
    );
    assert!(message.contains("nothing was written"), "{message}");

    let mut links = vec![[ColorMatrix::<f64>::identity(); 4]; lat.volume()];
    links[5][2].m[1][0] = Complex::new(f64::NAN, 0.0);
    let nan: Field<Links> = Field::from_vec(links);
    let e = nersc::write(&path, &lat, &nan, Format::default()).unwrap_err();
    assert!(e.to_string().contains("not finite"), "{e}");

    // Beyond single precision's range: infinite once stored.
    let huge: Field<Links> = Field::filled(lat.volume(), [ColorMatrix::identity() * 1e300; 4]);
    let single = Format {
        precision: Precision::Single,
        ..Format::default()
    };
    assert!(nersc::write(&path, &lat, &huge, single).is_err());

    let ensemble = Ensemble {
        label: "two\nlines".into(),
        ..Ensemble::default()
    };
    let unit: Field<Links> = Field::filled(lat.volume(), [ColorMatrix::identity(); 4]);
    let e = nersc::write_with(&path, &lat, &unit, Format::default(), &ensemble).unwrap_err();
    assert!(e.to_string().contains("line break"), "{e}");

    let missing_folder = dir.path().join("no-such-folder").join("x.cfg");
    assert!(nersc::write(&missing_folder, &lat, &unit, Format::default()).is_err());
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "a file was left behind"
    );
}

#[test]
fn a_failed_write_leaves_an_existing_file_as_it_was() {
    let dir = scratch();
    let (path, bytes, _) = valid_file(dir.path());
    let lat = Lattice::new([2, 4, 2, 4]).unwrap();
    let wrong: Field<Links> = Field::filled(7, [ColorMatrix::identity(); 4]);
    assert!(nersc::write(&path, &lat, &wrong, Format::default()).is_err());
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
    // A successful write replaces it whole.
    let unit: Field<Links> = Field::filled(lat.volume(), [ColorMatrix::identity(); 4]);
    nersc::write(&path, &lat, &unit, Format::default()).unwrap();
    let (_, back, _): (_, Field<Links>, _) = nersc::read(&path).unwrap();
    assert_eq!(back.to_vec().unwrap(), unit.to_vec().unwrap());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}
