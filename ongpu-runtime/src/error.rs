//! The one error type of ongpu: every failure a user can cause or meet is a value of [`Error`],
//! with what went wrong and what to do about it.

use std::fmt;

/// A `Result` whose error is [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Where an `on_gpu!` (or kernel) call stands in the user's source, for error messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    /// Source file, as `file!()` gives it.
    pub file: &'static str,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// Everything that can go wrong in ongpu.
///
/// Messages say what happened and what to do; the variants carry the facts so that programs
/// can react (for example, fall back to the CPU on [`Error::NoDevice`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No usable CUDA driver or device, while the CUDA backend was required.
    #[error(
        "no CUDA device: {reason}. Install an NVIDIA driver, or run on CPU threads with \
         ONGPU_BACKEND=cpu"
    )]
    NoDevice {
        /// Why the device could not be used.
        reason: String,
    },

    /// The crate was built without the backend that was asked for.
    #[error(
        "the {backend} backend is not compiled in: enable the cargo feature `{feature}` of ongpu"
    )]
    BackendNotCompiled {
        /// The backend that was asked for.
        backend: &'static str,
        /// The cargo feature that provides it.
        feature: &'static str,
    },

    /// NVRTC is missing or refused the generated kernel.
    #[error("NVRTC could not compile {what}: {log}\n--- kernel source ---\n{numbered_source}")]
    Compile {
        /// What was compiled (the call site of the kernel).
        what: String,
        /// NVRTC's log (or why NVRTC could not be used at all).
        log: String,
        /// The kernel source with line numbers, to match the log's line references.
        numbered_source: String,
    },

    /// A CUDA driver call failed.
    #[error("CUDA driver error during {during}: {name}: {description}")]
    Driver {
        /// What ongpu was doing.
        during: String,
        /// The driver's error name (e.g. `CUDA_ERROR_ILLEGAL_ADDRESS`).
        name: String,
        /// The driver's description.
        description: String,
    },

    /// A device allocation did not fit.
    #[error(
        "out of device memory: {requested} bytes requested for {what}, {free} bytes free of {total}"
    )]
    OutOfDeviceMemory {
        /// What the memory was for.
        what: String,
        /// Bytes asked for.
        requested: usize,
        /// Bytes free on the device at the time.
        free: usize,
        /// Total device memory.
        total: usize,
    },

    /// A field whose storage cannot exist: its size in bytes overflows what one allocation
    /// can hold (`isize::MAX` bytes). `Field::zeros`, `filled`, `from_fn` and `from_vec` find
    /// this when the field is made, allocate nothing, and every use of the field that needs
    /// its storage (a call that captures it, `to_vec`, `get`, `set`, ...) returns this error.
    #[error(
        "a field of {len} sites of {element} ({layout}) would need {bytes} bytes, more than \
         one allocation can hold ({max} bytes); nothing was allocated. Check how the length \
         was computed (a negative number cast to usize, say)",
        max = isize::MAX
    )]
    FieldTooLarge {
        /// The length asked for.
        len: usize,
        /// The element type.
        element: &'static str,
        /// The layout.
        layout: String,
        /// The bytes the storage would need.
        bytes: u128,
    },

    /// Ordinary (pageable) host memory could not be allocated. When it was a field's
    /// storage that `Field::filled`, `from_fn` or `from_vec` could not allocate, the field
    /// holds nothing and every use of it returns this error.
    #[error(
        "out of host memory: could not allocate {requested} bytes for {what}. Free memory, \
         or use smaller fields (or fewer at a time)"
    )]
    OutOfHostMemory {
        /// What the memory was for.
        what: String,
        /// Bytes asked for.
        requested: usize,
    },

    /// Page-locked host memory (a [`Storage::Pinned`](crate::Storage::Pinned) or
    /// [`Storage::Mapped`](crate::Storage::Mapped) field's host copy) could not be allocated.
    #[error(
        "could not allocate {requested} bytes of {kind} host memory for {what}: {reason}. \
         The system limits page-locked memory (total RAM, `ulimit -l`); use pageable storage \
         (the default) or a smaller field"
    )]
    HostAllocation {
        /// What the memory was for.
        what: String,
        /// `page-locked` or `mapped page-locked`.
        kind: &'static str,
        /// Bytes asked for.
        requested: usize,
        /// The driver's answer.
        reason: String,
    },

    /// Memory of one device (or context) was used with another.
    #[error(
        "{what} belongs to {owner} but was used on {used}; copy it through the host \
         (to_vec, then from_vec) to move it to another device"
    )]
    WrongDevice {
        /// What was used.
        what: String,
        /// The device and context that own it.
        owner: String,
        /// The device and context it was used with.
        used: String,
    },

    /// `n` is larger than a captured field.
    #[error(
        "{site}: the call runs n = {n} sites but the captured field `{field}` has only {len}; \
         nothing was run or written"
    )]
    SitesExceedField {
        /// The call site.
        site: Location,
        /// The number of sites asked for.
        n: usize,
        /// The field's name in the body.
        field: &'static str,
        /// The field's length.
        len: usize,
    },

    /// No `n` was given and the captured fields differ in length.
    #[error(
        "{site}: the captured fields `{first}` ({first_len} sites) and `{other}` ({other_len} \
         sites) differ in length; give the number of sites explicitly: on_gpu!(n, ...). Nothing \
         was run or written"
    )]
    UnequalLengths {
        /// The call site.
        site: Location,
        /// The first field's name.
        first: &'static str,
        /// Its length.
        first_len: usize,
        /// The field whose length differs.
        other: &'static str,
        /// Its length.
        other_len: usize,
    },

    /// No `n` was given and no field is captured, so the number of sites is unknown.
    #[error(
        "{site}: the body captures no field, so the number of sites is unknown; write \
         on_gpu!(n, ...)"
    )]
    NoSiteCount {
        /// The call site.
        site: Location,
    },

    /// Lattice extents that the even-odd order cannot use.
    #[error("invalid lattice {extents:?}: {reason}")]
    InvalidLattice {
        /// The extents as given.
        extents: [usize; 4],
        /// What is wrong with them.
        reason: String,
    },

    /// A call over a lattice captures a field that does not hold one element per site.
    #[error(
        "{site}: the call runs over {space}, but the field `{field}` has {len} elements, not \
         the lattice volume {volume}; make the field with Field::zeros(lat.volume()) (or \
         from_fn, filled, ...) of the same lattice"
    )]
    FieldNotOnLattice {
        /// The call site.
        site: Location,
        /// The index space of the call.
        space: String,
        /// The field's name in the body.
        field: &'static str,
        /// The field's length.
        len: usize,
        /// The lattice volume.
        volume: usize,
    },

    /// A call over a split lattice captures something that is not a field of that split.
    #[error(
        "{site}: the call runs over {space}, but `{field}` is {what}; every field of such a \
         call is a SplitField of the same split (SplitField::from_field, zeros, from_fn, ...)"
    )]
    NotOnSplit {
        /// The call site.
        site: Location,
        /// The index space of the call.
        space: String,
        /// The capture's name in the body.
        field: &'static str,
        /// What it is instead.
        what: &'static str,
    },

    /// A call over a rank lattice captures something that is not a field of that rank
    /// lattice.
    #[error(
        "{site}: the call runs over {space}, but `{field}` is {what}; every field of such a \
         call is a RankField of the same rank lattice (RankField::from_fn, zeros, \
         from_field, ...)"
    )]
    NotOnRanks {
        /// The call site.
        site: Location,
        /// The index space of the call.
        space: String,
        /// The capture's name in the body.
        field: &'static str,
        /// What it is instead.
        what: &'static str,
    },

    /// A site count that is not a valid `usize` (negative, or too large).
    #[error("invalid number of sites {value}: it must be a non-negative integer that fits usize")]
    InvalidSiteCount {
        /// The value as given.
        value: String,
    },

    /// The launch shape is outside what the device (or CUDA) allows.
    #[error("{site}: invalid launch configuration: {reason}")]
    InvalidLaunch {
        /// The call site.
        site: Location,
        /// What is wrong and what is allowed.
        reason: String,
    },

    /// A host access outside the field.
    #[error("index {index} is out of range for a field of {len} sites")]
    IndexOutOfRange {
        /// The index asked for.
        index: usize,
        /// The field's length.
        len: usize,
    },

    /// The body panicked on the CPU backend (integer overflow in a debug build, division by
    /// zero, an out-of-range index). Sites that had already run keep their results. The
    /// panic is not printed (it is this error).
    #[error("{site}: the body panicked on the CPU backend{}: {message}", at_site(.index))]
    BodyPanicked {
        /// The call site.
        site: Location,
        /// The site (the body's `i`) whose body panicked: the first found (with several
        /// threads, the lowest of the sites found panicking). `None` for an explicit kernel,
        /// whose message names the block and thread.
        index: Option<usize>,
        /// The panic's message, and where in the source it panicked.
        message: String,
    },

    /// A body on the GPU (of `on_gpu!`, or an explicit kernel) indexed a colour vector or
    /// matrix or an element array outside its length (found when bounds checks are on:
    /// `ONGPU_CHECK_BOUNDS=1`, the default in debug builds; the CPU backend reports it as
    /// [`Error::BodyPanicked`]). The launch ran to its end with such accesses sent to entry
    /// 0, so what it wrote is unreliable.
    #[error(
        "{site}: {}a colour type or element array was indexed at {index}, out of range for \
         its length {len}",
        .index_site.map_or(String::new(), |s| format!("at site {s}, "))
    )]
    BodyIndexOutOfRange {
        /// Where the call is.
        site: Location,
        /// The site whose body went out of range (the body's `i`; `None` in explicit
        /// kernels).
        index_site: Option<u64>,
        /// The index (negative if a signed index was negative).
        index: i64,
        /// The length.
        len: u64,
    },

    /// A body's shift left a part's halo (a split lattice's part, a rank's block): found on
    /// the GPU when bounds checks are on (`ONGPU_CHECK_BOUNDS=1`, the default in debug
    /// builds); the CPU backend reports it as a body panic. The launch ran to its end and
    /// read wrapped neighbours there, so what it wrote is unreliable.
    #[error(
        "{site}: {}a shift along direction {direction} reaches beyond the halo of this part of \
         the lattice (halos are as deep as the lattice was cut with: shift by fewer sites, or \
         cut the lattice with deeper halos)",
        .index_site.map_or(String::new(), |s| format!("at site {s}, "))
    )]
    ShiftBeyondHalo {
        /// Where the call is.
        site: Location,
        /// The site whose body shifted (the part's index).
        index_site: Option<u64>,
        /// The direction of the shift.
        direction: u64,
    },

    /// A kernel indexed an array outside its length (found on the GPU when bounds checks are
    /// on: `ONGPU_CHECK_BOUNDS=1`, the default in debug builds). The launch ran to its end;
    /// out-of-range writes went to scratch space, so what the kernel wrote is unreliable.
    #[error(
        "{site}: kernel `{kernel}`: block {block:?}, thread {thread:?} indexed {array} at {index}, \
         out of range for its length {len}"
    )]
    KernelIndexOutOfRange {
        /// Where the kernel is defined.
        site: Location,
        /// The kernel's name.
        kernel: &'static str,
        /// The array (`parameter `a``, `shared array `tile` (dimension 2 of 2)`).
        array: String,
        /// The index (negative if a signed index was negative).
        index: i64,
        /// The length (or extent of that dimension).
        len: u64,
        /// The block of the first thread that went out of range.
        block: (u32, u32, u32),
        /// That thread.
        thread: (u32, u32, u32),
    },

    /// On the CPU backend, the threads of a block did not all reach the same barrier: they
    /// wait at different `sync_threads()`, or some returned while others wait (undefined
    /// behaviour in CUDA).
    #[error("{site}: kernel `{kernel}`, block {block:?}: {detail}")]
    DivergentBarrier {
        /// Where the kernel is defined.
        site: Location,
        /// The kernel's name.
        kernel: &'static str,
        /// The block.
        block: (u32, u32, u32),
        /// Which threads wait where.
        detail: String,
    },

    /// The kernel cache on disk could not be read or written (it is an optimisation only:
    /// this error is reported where a user asked for the cache explicitly).
    #[error("kernel cache at {path}: {source}")]
    Cache {
        /// The file or folder involved.
        path: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },

    /// A gauge configuration file (`ongpu::qcd::nersc`) that could not be read or
    /// written: a missing or damaged file, a header that does not describe its data, a
    /// checksum, plaquette or link trace that disagrees with the links, or a field that is
    /// not on the lattice. A read that fails returns nothing; a write that fails leaves no
    /// file behind (and an existing file of that name as it was).
    #[error("gauge file {path}: {reason}")]
    GaugeFile {
        /// The file.
        path: String,
        /// What is wrong, and what to do.
        reason: String,
    },

    /// A multi-process run could not go on: MPI could not start, or some ranks failed a
    /// step that every rank agreed on (`ongpu::mpi::World::agree`, with the `mpi` feature,
    /// names each failed rank and its error).
    #[error("MPI: {0}")]
    Mpi(String),

    /// A value that does not fit what the operation accepts.
    #[error("{0}")]
    InvalidArgument(String),

    /// A [`Graph`](crate::Graph) used in a way it cannot honour: a host access or a
    /// reduction returning to the host inside its closure, a replay whose calls differ from
    /// the recorded ones (a field freed, resized or replaced, a value captured by value
    /// changed).
    #[error("{0}")]
    Graph(String),
}

impl Error {
    /// Builds [`Error::Compile`], numbering the source lines so that NVRTC's `(line)`
    /// references can be followed.
    pub fn compile(what: impl Into<String>, log: impl Into<String>, source: &str) -> Self {
        Error::Compile {
            what: what.into(),
            log: log.into(),
            numbered_source: number_lines(source),
        }
    }
}

/// Prefixes each line with its 1-based number, right-aligned.
pub fn number_lines(source: &str) -> String {
    let width = source.lines().count().max(1).to_string().len();
    let mut out = String::with_capacity(source.len() + source.lines().count() * (width + 3));
    for (i, line) in source.lines().enumerate() {
        out.push_str(&format!("{:>width$} | {line}\n", i + 1));
    }
    out
}

fn at_site(index: &Option<usize>) -> String {
    index.map_or_else(String::new, |i| format!(" at site {i}"))
}

/// The message of a caught panic (its `&str` or `String` payload), for `Error::BodyPanicked`,
/// with where it panicked when [`catch_body`] caught it on this thread.
pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    let message = if let Some(s) = panic.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with no message".to_string()
    };
    match BODY_PANIC_AT.with(|at| at.take()) {
        Some(at) => format!("{message} (panicked at {at})"),
        None => message,
    }
}

thread_local! {
    /// True while this thread runs user code under [`catch_body`].
    static IN_BODY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Where the last panic caught by [`catch_body`] on this thread happened.
    static BODY_PANIC_AT: std::cell::Cell<Option<String>> = const { std::cell::Cell::new(None) };
}

/// Runs `f` (bodies of a call on the CPU backend) and catches its panic, which the call
/// returns as [`Error::BodyPanicked`], so the panic hook does not print it: the process's
/// panic hook is wrapped once by one that skips panics of threads inside `catch_body` (a
/// thread-local flag) and hands every other panic to the hook it replaced. (With
/// `panic = "abort"` nothing is caught, and every panic is printed.)
pub(crate) fn catch_body<R>(f: impl FnOnce() -> R) -> std::thread::Result<R> {
    static QUIET_HOOK: std::sync::Once = std::sync::Once::new();
    if !std::thread::panicking() {
        // (`take_hook` panics on a panicking thread: a call from a `Drop` during unwinding
        // keeps the hook as it is.)
        QUIET_HOOK.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                if cfg!(panic = "unwind") && IN_BODY.with(|b| b.get()) {
                    let at = info.location().map(|l| l.to_string());
                    BODY_PANIC_AT.with(|cell| cell.set(at));
                } else {
                    previous(info)
                }
            }));
        });
    }
    let was = IN_BODY.with(|b| b.replace(true));
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    IN_BODY.with(|b| b.set(was));
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_lines_from_one() {
        let s = number_lines("a\nb\n");
        assert_eq!(s, "1 | a\n2 | b\n");
    }

    #[test]
    fn length_error_names_field_and_lengths() {
        let e = Error::SitesExceedField {
            site: Location {
                file: "f.rs",
                line: 3,
                column: 5,
            },
            n: 10,
            field: "x",
            len: 4,
        };
        let text = e.to_string();
        assert!(text.contains("f.rs:3:5") && text.contains("`x`") && text.contains("10"));
        assert!(text.contains("only 4"));
    }
}
