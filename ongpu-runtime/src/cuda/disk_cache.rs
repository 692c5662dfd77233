//! The persistent kernel cache: compiled images on disk, so that a program's first call of a
//! kernel compiled in an earlier run skips NVRTC.
//!
//! A file is named by the hash of everything the image depends on (source, options, NVRTC
//! version, architecture) and holds a header with that key, the image's length and a SHA-256
//! checksum of the image. A file that is corrupt, truncated or written for another key is
//! ignored and replaced, never trusted. Files are written to a temporary name and renamed, so
//! readers never see half a file and two processes compiling the same kernel both succeed.
//!
//! Only regular files are read (a FIFO, a device or a folder in the cache is ignored, never
//! opened, so a lookup cannot block), and an image must look like one (a cubin is an ELF
//! file, PTX is text with `.version` and `.target`); an image that passes and is still
//! refused by the driver is rebuilt by the loader (`launch/compile.rs`).
//!
//! A cache folder that is not a folder (a file is there) turns the cache off with one warning
//! that names the path: the cache is an optimisation, and kernels are compiled as without it.
//!
//! Loading NVRTC costs milliseconds, so a lookup does not load it: the NVRTC version in the
//! key is the one recorded in the folder (`nvrtc-version`) by the last process that loaded
//! NVRTC. Every compile loads NVRTC and refreshes that record, so after an NVRTC upgrade the
//! first kernel that misses the cache brings the new version into every later key.

use super::nvrtc::{self, Compiled, ImageKind};
use crate::error::Result;
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

const MAGIC: &[u8; 8] = b"ONGPUK01";
const HEADER: usize = 8 + 32 + 1 + 8 + 32;

/// Where a compiled image came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Read from the disk cache (NVRTC did not run).
    Disk,
    /// Compiled by NVRTC (and stored).
    Compiled,
}

/// A folder of compiled kernels.
#[derive(Debug, Clone)]
pub struct DiskCache {
    dir: PathBuf,
}

impl DiskCache {
    /// A cache in `dir` (created when first written).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        DiskCache { dir: dir.into() }
    }

    /// The cache the environment asks for: `None` with `ONGPU_CACHE=off`; else the folder
    /// `ONGPU_CACHE_DIR`, or `ongpu` in the user's cache folder (e.g. `~/.cache/ongpu`).
    pub fn from_env() -> Option<Self> {
        if std::env::var("ONGPU_CACHE")
            .is_ok_and(|v| matches!(v.trim(), "off" | "0" | "false" | "no"))
        {
            return None;
        }
        let dir = match std::env::var_os("ONGPU_CACHE_DIR") {
            Some(d) if !d.is_empty() => PathBuf::from(d),
            _ => dirs::cache_dir()?.join("ongpu"),
        };
        if dir.exists() && !dir.is_dir() {
            warn_once(&format!(
                "ongpu: the kernel cache folder {} is not a folder (a file is there), so the \
                 kernel cache is off; remove it, or set ONGPU_CACHE_DIR to a folder",
                dir.display()
            ));
            return None;
        }
        Some(DiskCache::new(dir))
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file that holds (or would hold) the image of `source` for `arch` with `extra`
    /// options, for the NVRTC this process loads.
    pub fn path_for(&self, source: &str, arch: &str, extra: &[&str]) -> PathBuf {
        self.entry_path(&key(source, arch, extra, &self.current_nvrtc()))
    }

    /// The cached image of `source` for `arch`, if a valid one is there, without loading
    /// NVRTC (the key takes the NVRTC version recorded in the folder; none recorded: a miss).
    pub fn lookup(&self, source: &str, arch: &str, extra: &[&str]) -> Option<Compiled> {
        let version = self.recorded_nvrtc()?;
        let k = key(source, arch, extra, &version);
        let path = self.entry_path(&k);
        crate::trace::step(
            || format!("disk cache lookup {}", path.display()),
            || read_valid(&path, &k),
        )
    }

    /// The image of `source` for `arch`: from the cache when a valid file is there, else
    /// compiled by NVRTC and stored (a failure to store only costs the next run a compile).
    pub fn compile(
        &self,
        source: &str,
        arch: &str,
        what: &str,
        extra: &[&str],
    ) -> Result<(Compiled, Origin)> {
        let k = key(source, arch, extra, &self.current_nvrtc());
        let path = self.entry_path(&k);
        let hit = crate::trace::step(
            || format!("disk cache lookup {}", path.display()),
            || read_valid(&path, &k),
        );
        match hit {
            Some(image) => Ok((image, Origin::Disk)),
            None => Ok((
                self.compile_and_store(source, arch, what, extra)?,
                Origin::Compiled,
            )),
        }
    }

    /// Compiles with NVRTC whatever the cache holds, and stores the image (replacing one the
    /// driver refused, for instance).
    pub fn compile_and_store(
        &self,
        source: &str,
        arch: &str,
        what: &str,
        extra: &[&str],
    ) -> Result<Compiled> {
        let compiled = nvrtc::compile(source, arch, what, extra)?;
        let k = key(source, arch, extra, &self.current_nvrtc());
        let path = self.entry_path(&k);
        let written = crate::trace::step(
            || format!("disk cache write {}", path.display()),
            || write_atomically(&self.dir, &path, &encode(&k, &compiled)),
        );
        if let Err(e) = written {
            warn_once(&format!(
                "ongpu: could not write the kernel cache in {}: {e}",
                self.dir.display()
            ));
        }
        Ok(compiled)
    }

    fn entry_path(&self, key: &[u8; 32]) -> PathBuf {
        self.dir.join(format!("{}.ongpu-kernel", &hex(key)[..40]))
    }

    fn version_record(&self) -> PathBuf {
        self.dir.join("nvrtc-version")
    }

    /// The NVRTC version recorded in the folder.
    fn recorded_nvrtc(&self) -> Option<String> {
        let v = read_regular_file(&self.version_record(), 64)?;
        let v = String::from_utf8(v).ok()?;
        let v = v.trim();
        (!v.is_empty() && v.len() < 64).then(|| v.to_string())
    }

    /// The version of the NVRTC this process loads (loading it), recorded in the folder.
    fn current_nvrtc(&self) -> String {
        let (major, minor) = nvrtc::version().unwrap_or((0, 0));
        let v = format!("{major}.{minor}");
        if self.recorded_nvrtc().as_deref() != Some(v.as_str()) {
            let _ = write_atomically(&self.dir, &self.version_record(), v.as_bytes());
        }
        v
    }
}

/// The cache key: SHA-256 of the NVRTC version, the architecture, the options and the source.
fn key(source: &str, arch: &str, extra: &[&str], nvrtc_version: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(format!("nvrtc {nvrtc_version}\narch {arch}\n").as_bytes());
    for o in nvrtc::BASE_OPTIONS.iter().chain(extra) {
        h.update(o.as_bytes());
        h.update(b"\n");
    }
    h.update(b"source\n");
    h.update(source.as_bytes());
    h.finalize().into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn encode(key: &[u8; 32], c: &Compiled) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + c.image.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(key);
    out.push(match c.kind {
        ImageKind::Cubin => 0,
        ImageKind::Ptx => 1,
    });
    out.extend_from_slice(&(c.image.len() as u64).to_le_bytes());
    out.extend_from_slice(&Sha256::digest(&c.image));
    out.extend_from_slice(&c.image);
    out
}

/// The largest cache file read (a kernel image is kilobytes to a few megabytes).
const MAX_FILE: u64 = 256 << 20;

/// The contents of `path` if it is a regular file of at most `max` bytes. Anything else (a
/// FIFO, whose opening would block until a writer comes; a device; a folder) is not opened.
fn read_regular_file(path: &Path, max: u64) -> Option<Vec<u8>> {
    use std::io::Read;
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > max {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    // Replaced between the two looks? Check what was opened.
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() > max {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(max).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// True if `image` looks like an image of `kind` (a cubin is ELF; PTX is text that declares
/// its version and target), so that a file whose checksum matches but whose contents are
/// not an image is rebuilt rather than given to the driver.
fn looks_like(kind: ImageKind, image: &[u8]) -> bool {
    match kind {
        ImageKind::Cubin => image.starts_with(b"\x7fELF"),
        ImageKind::Ptx => std::str::from_utf8(image)
            .is_ok_and(|text| text.contains(".version") && text.contains(".target")),
    }
}

/// The image in `path` if the file is complete, for `key`, matches its checksum and looks
/// like an image.
fn read_valid(path: &Path, key: &[u8; 32]) -> Option<Compiled> {
    let bytes = read_regular_file(path, MAX_FILE)?;
    if bytes.len() < HEADER || &bytes[..8] != MAGIC || &bytes[8..40] != key {
        return None;
    }
    let kind = match bytes[40] {
        0 => ImageKind::Cubin,
        1 => ImageKind::Ptx,
        _ => return None,
    };
    let len = u64::from_le_bytes(bytes[41..49].try_into().ok()?) as usize;
    let image = &bytes[HEADER..];
    if image.len() != len
        || Sha256::digest(image).as_slice() != &bytes[49..81]
        || !looks_like(kind, image)
    {
        return None;
    }
    Some(Compiled {
        image: image.to_vec(),
        kind,
        log: String::new(),
    })
}

/// Writes `bytes` to a temporary file in `dir` and renames it to `path`.
fn write_atomically(dir: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    if let Err(e) = std::fs::create_dir_all(dir) {
        if dir.exists() && !dir.is_dir() {
            return Err(std::io::Error::new(
                e.kind(),
                format!("{} is not a folder (a file is there)", dir.display()),
            ));
        }
        return Err(e);
    }
    let tmp = dir.join(format!(
        ".tmp-{}-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed),
        path.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("kernel")
    ));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn warn_once(msg: &str) {
    static WARNED: OnceLock<()> = OnceLock::new();
    WARNED.get_or_init(|| eprintln!("{msg}"));
}
