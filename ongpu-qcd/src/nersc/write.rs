//! Writing a gauge file: what the file will hold first (its checksum, plaquette and link
//! trace describe the stored links exactly), then the header and the data, to a temporary
//! file renamed into place.

use super::checksum::word_sum;
use super::date::utc_now;
use super::file_error;
use super::format::Format;
use super::gauge_stats::{link_trace, plaquette};
use super::header::{for_writing, Contents, Ensemble, Header};
use super::links::{decode, encode, links_are_finite, SiteLinks};
use super::site_order::file_order;
use ongpu_runtime::Complex;
use ongpu_runtime::Element;
use ongpu_runtime::Field;
use ongpu_runtime::Lattice;
use ongpu_runtime::Layout;
use ongpu_runtime::Result;
use ongpu_runtime::{ColorMatrix, Real};
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Writes the gauge field `u` on the lattice `lat` to `path` as a NERSC archive file in the
/// given [`Format`], with the default [`Ensemble`] lines; see [`write_with`].
///
/// ```
/// # mod ongpu { pub use ::ongpu_runtime::*; pub mod qcd { pub use ::ongpu_qcd::*; } }
/// # fn main() -> ongpu::Result<()> {
/// use ongpu::qcd::nersc::{self, Format, Precision, Rows};
/// use ongpu::{ColorMatrix, Field, Lattice};
/// let lat = Lattice::new([4, 4, 4, 8])?;
/// let u: Field<[ColorMatrix<f32>; 4]> =
///     Field::filled(lat.volume(), [ColorMatrix::identity(); 4]);
/// let path = std::env::temp_dir().join(format!("write-doc-{}.nersc", std::process::id()));
/// let small = Format { precision: Precision::Single, rows: Rows::Two, ..Format::default() };
/// let header = nersc::write(&path, &lat, &u, small)?;
/// assert_eq!(header.get("DATATYPE"), Some("4D_SU3_GAUGE"));
/// assert_eq!(header.get("FLOATING_POINT"), Some("IEEE32BIG"));
/// assert_eq!((header.plaquette, header.link_trace), (1.0, 1.0));
/// # std::fs::remove_file(&path).ok();
/// # Ok(())
/// # }
/// ```
pub fn write<R, L>(
    path: impl AsRef<Path>,
    lat: &Lattice,
    u: &Field<[ColorMatrix<R>; 4], L>,
    format: Format,
) -> Result<Header>
where
    R: Real,
    L: Layout,
    [ColorMatrix<R>; 4]: Element,
{
    write_with(path, lat, u, format, &Ensemble::default())
}

/// Writes the gauge field `u` on the lattice `lat` to `path` as a NERSC archive file in the
/// given [`Format`], with the `ENSEMBLE_ID`, `ENSEMBLE_LABEL`, `SEQUENCE_NUMBER` and
/// `CREATOR` of `ensemble`, and returns the header written.
///
/// `u` holds one entry per site in the lattice's order, entry `mu` being the link in
/// direction `mu`; it may be single or double precision, in any layout. The file lists
/// sites lexicographically (x fastest), the four links of each in turn, as readers of the
/// format expect. Its `CHECKSUM`, `PLAQUETTE` and `LINK_TRACE` are those of the links the
/// file holds: rounded to single precision for [`Precision::Single`](super::Precision), and
/// with the rebuilt third row for [`Rows::Two`](super::Rows), which changes a link that is
/// not in SU(3).
///
/// The file is written under a temporary name in the same folder and renamed to `path`, so a
/// write that fails leaves no partial file (and an existing file at `path` as it was). A
/// field whose length is not the lattice volume, links that are not finite numbers, an
/// `ensemble` value with a line break, and I/O failures are [`Error::GaugeFile`]s;
/// reading the field back from the device may fail with its own error.
///
/// [`Error::GaugeFile`]: ongpu_runtime::Error::GaugeFile
pub fn write_with<R, L>(
    path: impl AsRef<Path>,
    lat: &Lattice,
    u: &Field<[ColorMatrix<R>; 4], L>,
    format: Format,
    ensemble: &Ensemble,
) -> Result<Header>
where
    R: Real,
    L: Layout,
    [ColorMatrix<R>; 4]: Element,
{
    header_and_file(path.as_ref(), lat, u, format, ensemble, true)
}

/// [`write_with`], writing the file only if `write`; the header (checked and computed the
/// same way) either way: what the ranks of a lattice cut over MPI ranks that do not write
/// the file return.
pub(crate) fn header_and_file<R, L>(
    path: &Path,
    lat: &Lattice,
    u: &Field<[ColorMatrix<R>; 4], L>,
    format: Format,
    ensemble: &Ensemble,
    write: bool,
) -> Result<Header>
where
    R: Real,
    L: Layout,
    [ColorMatrix<R>; 4]: Element,
{
    let fail = |reason: String| file_error(path, format!("{reason}; nothing was written"));
    if u.len() != lat.volume() {
        return Err(fail(format!(
            "the field has {} sites but the {lat} has {}: write a field made on this lattice \
             (Field::from_fn(lat.volume(), ..))",
            u.len(),
            lat.volume()
        )));
    }
    let texts = [
        ("id", &ensemble.id),
        ("label", &ensemble.label),
        ("creator", &ensemble.creator),
    ];
    for (what, text) in texts {
        if text.contains(['\n', '\r']) {
            return Err(fail(format!(
                "the ensemble {what} {text:?} has a line break, which would end its header line"
            )));
        }
    }

    let stored = stored_links(lat, u, format, &fail)?;
    if !stored.iter().all(links_are_finite) {
        return Err(fail(
            "the links hold values that are not finite numbers (NaN or infinity, or beyond \
             the range of single precision)"
                .to_string(),
        ));
    }
    let mut site = vec![0u8; format.site_bytes()];
    let mut checksum = 0u32;
    for links in &stored {
        encode(links, format, &mut site);
        checksum = checksum.wrapping_add(word_sum(&site, format.precision, format.byte_order));
    }
    let header = for_writing(Contents {
        extents: lat.extents(),
        format,
        checksum,
        plaquette: plaquette(lat, &stored),
        link_trace: link_trace(&stored),
        ensemble,
        creation_date: utc_now(),
    });
    if !write {
        return Ok(header);
    }
    write_atomically(path, |out| {
        out.write_all(header.render().as_bytes())?;
        for i in file_order(*lat) {
            // The stored links encode to the same bytes as the field's.
            encode(&stored[i], format, &mut site);
            out.write_all(&site)?;
        }
        Ok(())
    })
    .map_err(|e| fail(format!("could not write it: {e}")))?;
    Ok(header)
}

/// The links as the file will hold them (as a read gives them back), in the lattice's order.
fn stored_links<R, L>(
    lat: &Lattice,
    u: &Field<[ColorMatrix<R>; 4], L>,
    format: Format,
    fail: &impl Fn(String) -> ongpu_runtime::Error,
) -> Result<Vec<SiteLinks>>
where
    R: Real,
    L: Layout,
    [ColorMatrix<R>; 4]: Element,
{
    let host = u.to_vec()?;
    let mut stored: Vec<SiteLinks> = Vec::new();
    stored.try_reserve_exact(lat.volume()).map_err(|_| {
        fail(format!(
            "out of host memory for the links of the {lat} ({} bytes)",
            lat.volume() * std::mem::size_of::<SiteLinks>()
        ))
    })?;
    let mut site = vec![0u8; format.site_bytes()];
    stored.extend(host.iter().map(|links| {
        encode(&links.map(widen), format, &mut site);
        decode(&site, format)
    }));
    Ok(stored)
}

/// A link in double precision (exactly).
pub(crate) fn widen<R: Real>(m: ColorMatrix<R>) -> ColorMatrix<f64> {
    let f = |x: R| x.to_f64().unwrap_or(f64::NAN);
    ColorMatrix::new(m.m.map(|row| row.map(|z| Complex::new(f(z.re), f(z.im)))))
}

/// Writes a new file with `fill` under a temporary name next to `path`, then renames it to
/// `path`; on failure the temporary file is removed.
pub(crate) fn write_atomically(
    path: &Path,
    fill: impl FnOnce(&mut BufWriter<&File>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let tmp = temporary_name(path)?;
    let result = (|| {
        let file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        let mut out = BufWriter::with_capacity(1 << 20, &file);
        fill(&mut out)?;
        out.flush()?;
        drop(out);
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// A fresh name in `path`'s folder: `.NAME.PID.N.tmp`.
fn temporary_name(path: &Path) -> std::io::Result<PathBuf> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "the path names no file (it ends in `..` or is a root)",
        )
    })?;
    let mut tmp = std::ffi::OsString::from(".");
    tmp.push(name);
    tmp.push(format!(
        ".{}.{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    Ok(path.with_file_name(tmp))
}
