//! One site's four links as the file stores them: per link `mu = 0..3` (x, y, z, t), the
//! stored rows in row-major order, each entry as (re, im), in the file's precision and byte
//! order. On reading two rows, the third is rebuilt as `conj(row0 × row1)`.

use super::format::{ByteOrder, Format, Precision, Rows};
use ongpu_runtime::ColorMatrix;
use ongpu_runtime::Complex;

/// A site's links, in double precision.
pub(crate) type SiteLinks = [ColorMatrix<f64>; 4];

/// Whether every entry of a site's links is a finite number (what a written or read file
/// must hold).
pub(crate) fn links_are_finite(links: &SiteLinks) -> bool {
    links
        .iter()
        .flat_map(|m| m.m.iter().flatten())
        .all(|z| z.re.is_finite() && z.im.is_finite())
}

/// Writes the stored reals of `links` into `out` (exactly `format.site_bytes()` long).
pub(crate) fn encode(links: &SiteLinks, format: Format, out: &mut [u8]) {
    let size = format.precision.bytes();
    let reals = links.iter().flat_map(|u| {
        u.m[..format.rows.count()]
            .iter()
            .flatten()
            .flat_map(|z| [z.re, z.im])
    });
    for (x, bytes) in reals.zip(out.chunks_exact_mut(size)) {
        match (format.precision, format.byte_order) {
            (Precision::Double, ByteOrder::Big) => bytes.copy_from_slice(&x.to_be_bytes()),
            (Precision::Double, ByteOrder::Little) => bytes.copy_from_slice(&x.to_le_bytes()),
            (Precision::Single, ByteOrder::Big) => bytes.copy_from_slice(&(x as f32).to_be_bytes()),
            (Precision::Single, ByteOrder::Little) => {
                bytes.copy_from_slice(&(x as f32).to_le_bytes())
            }
        }
    }
}

/// The links stored in `bytes` (exactly `format.site_bytes()` long).
pub(crate) fn decode(bytes: &[u8], format: Format) -> SiteLinks {
    let size = format.precision.bytes();
    let mut reals = bytes.chunks_exact(size).map(|b| real(b, format));
    let mut links = [ColorMatrix::<f64>::zero(); 4];
    for u in &mut links {
        for row in &mut u.m[..format.rows.count()] {
            for z in row {
                // `bytes` holds exactly the reals of the stored rows.
                *z = Complex::new(
                    reals.next().unwrap_or(f64::NAN),
                    reals.next().unwrap_or(f64::NAN),
                );
            }
        }
        if format.rows == Rows::Two {
            u.m[2] = third_row(u.m[0], u.m[1]);
        }
    }
    links
}

/// One stored real, widened to `f64` (exactly).
fn real(b: &[u8], format: Format) -> f64 {
    match (format.precision, format.byte_order) {
        (Precision::Double, ByteOrder::Big) => f64::from_be_bytes(array(b)),
        (Precision::Double, ByteOrder::Little) => f64::from_le_bytes(array(b)),
        (Precision::Single, ByteOrder::Big) => f32::from_be_bytes(array(b)) as f64,
        (Precision::Single, ByteOrder::Little) => f32::from_le_bytes(array(b)) as f64,
    }
}

/// The first `N` bytes of `b` (its caller's chunks are exactly `N` long).
fn array<const N: usize>(b: &[u8]) -> [u8; N] {
    let mut a = [0u8; N];
    a.copy_from_slice(&b[..N]);
    a
}

/// The third row of the SU(3) matrix whose first rows are `a` and `b`: `conj(a × b)`, as
/// MILC's `complete_U`, Grid's `reconstruct3` and QDP++'s `readArchiv` rebuild it.
fn third_row(a: [Complex<f64>; 3], b: [Complex<f64>; 3]) -> [Complex<f64>; 3] {
    [
        (a[1] * b[2] - a[2] * b[1]).conj(),
        (a[2] * b[0] - a[0] * b[2]).conj(),
        (a[0] * b[1] - a[1] * b[0]).conj(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(re: f64, im: f64) -> Complex<f64> {
        Complex::new(re, im)
    }

    /// A matrix with distinct entries, not unitary.
    fn numbered(k: f64) -> ColorMatrix<f64> {
        let mut m = ColorMatrix::zero();
        for i in 0..3 {
            for j in 0..3 {
                m.m[i][j] = c(k + (3 * i + j) as f64, -k - 0.5 * (3 * i + j) as f64);
            }
        }
        m
    }

    #[test]
    fn three_rows_are_row_major_re_im_per_link() {
        let links = [
            numbered(0.0),
            numbered(10.0),
            numbered(20.0),
            numbered(30.0),
        ];
        let format = Format::default();
        let mut out = vec![0u8; format.site_bytes()];
        encode(&links, format, &mut out);
        let reals: Vec<f64> = out
            .chunks_exact(8)
            .map(|b| f64::from_be_bytes(b.try_into().unwrap()))
            .collect();
        assert_eq!(reals.len(), 72);
        // Link 1, row 2, column 0: the 18 reals of link 0, then 6 per row.
        assert_eq!(reals[18 + 12], 10.0 + 6.0);
        assert_eq!(reals[18 + 12 + 1], -10.0 - 3.0);
        assert_eq!(decode(&out, format), links);
    }

    #[test]
    fn every_format_round_trips_what_it_holds() {
        let links = [numbered(0.25), numbered(1.0), numbered(2.0), numbered(3.0)];
        for precision in [Precision::Double, Precision::Single] {
            for byte_order in [ByteOrder::Big, ByteOrder::Little] {
                let format = Format {
                    precision,
                    rows: Rows::Three,
                    byte_order,
                };
                let mut out = vec![0u8; format.site_bytes()];
                encode(&links, format, &mut out);
                assert_eq!(decode(&out, format), links, "{format:?}");
            }
        }
    }

    #[test]
    fn the_third_row_of_an_su3_matrix_is_rebuilt() {
        // A cyclic (even) permutation with phases i, 1, -i: determinant 1.
        let (i, one, z) = (c(0.0, 1.0), c(1.0, 0.0), c(0.0, 0.0));
        let u = ColorMatrix::new([[z, i, z], [z, z, one], [-i, z, z]]);
        let det = u.m[0][1] * u.m[1][2] * u.m[2][0];
        assert_eq!(det, one);
        let format = Format {
            rows: Rows::Two,
            ..Format::default()
        };
        let mut out = vec![0u8; format.site_bytes()];
        encode(&[u; 4], format, &mut out);
        assert_eq!(decode(&out, format), [u; 4]);
    }
}
