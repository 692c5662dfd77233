//! NCCL's point-to-point calls, for halos sent GPU to GPU between ranks (the `nccl`
//! transport of `mpi::exchange::HaloTransport`): a communicator over the ranks of the run,
//! and grouped `ncclSend`/`ncclRecv` of device buffers queued on a stream; and its integer
//! all-reduce, which adds the ranks' exact sums on the GPUs (`reduce::exact_device`).
//!
//! The library is loaded at run time like the driver, as `libnccl.so.2` (the name the NCCL
//! packages and PyTorch's wheels install) or `libnccl.so`. cudarc's NCCL layer looks only
//! for `libnccl.so` and versioned names of the CUDA release, not the `.so.2` that a plain
//! runtime install has, so the eight entry points used here are loaded directly.

use crate::error::{Error, Result};
use cudarc::driver::sys::CUstream;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::OnceLock;

/// `ncclUniqueId`: what every rank passes to `ncclCommInitRank` (rank 0 makes it, MPI
/// carries it).
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct UniqueId {
    pub internal: [c_char; 128],
}

type RawComm = *mut c_void;
/// `ncclResult_t`: 0 is success.
type Status = c_int;
/// `ncclInt8`: faces are sent as bytes.
const BYTES: c_int = 0;
/// `ncclInt64`: the digits of exact sums.
const INT64: c_int = 4;
/// `ncclSum`.
const SUM: c_int = 0;

/// The entry points, resolved once.
struct Api {
    _lib: libloading::Library,
    get_unique_id: unsafe extern "C" fn(*mut UniqueId) -> Status,
    comm_init_rank: unsafe extern "C" fn(*mut RawComm, c_int, UniqueId, c_int) -> Status,
    send: unsafe extern "C" fn(*const c_void, usize, c_int, c_int, RawComm, CUstream) -> Status,
    recv: unsafe extern "C" fn(*mut c_void, usize, c_int, c_int, RawComm, CUstream) -> Status,
    group_start: unsafe extern "C" fn() -> Status,
    group_end: unsafe extern "C" fn() -> Status,
    #[allow(clippy::type_complexity)]
    all_reduce: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        c_int,
        c_int,
        RawComm,
        CUstream,
    ) -> Status,
    error_string: unsafe extern "C" fn(Status) -> *const c_char,
}

/// The loaded library, or why it could not be loaded.
fn api() -> Result<&'static Api> {
    static API: OnceLock<std::result::Result<Api, String>> = OnceLock::new();
    API.get_or_init(load)
        .as_ref()
        .map_err(|e| Error::Mpi(e.clone()))
}

fn load() -> std::result::Result<Api, String> {
    let names = ["libnccl.so.2", "libnccl.so"];
    // SAFETY: loading NCCL runs its initialisers, which have no preconditions.
    let lib = names
        .iter()
        .find_map(|n| unsafe { libloading::Library::new(*n) }.ok())
        .ok_or_else(|| format!("NCCL is not installed: none of {names:?} could be loaded"))?;
    /// The symbol `name` as a function pointer of type `F`.
    ///
    /// # Safety
    /// `F` is the symbol's C signature.
    unsafe fn symbol<F: Copy>(
        lib: &libloading::Library,
        name: &str,
    ) -> std::result::Result<F, String> {
        lib.get::<F>(name.as_bytes())
            .map(|s| *s)
            .map_err(|e| format!("NCCL lacks {name}: {e}"))
    }
    // SAFETY: the signatures are those of nccl.h (2.x), unchanged since NCCL 2.7.
    unsafe {
        Ok(Api {
            get_unique_id: symbol(&lib, "ncclGetUniqueId")?,
            comm_init_rank: symbol(&lib, "ncclCommInitRank")?,
            send: symbol(&lib, "ncclSend")?,
            recv: symbol(&lib, "ncclRecv")?,
            group_start: symbol(&lib, "ncclGroupStart")?,
            group_end: symbol(&lib, "ncclGroupEnd")?,
            all_reduce: symbol(&lib, "ncclAllReduce")?,
            error_string: symbol(&lib, "ncclGetErrorString")?,
            _lib: lib,
        })
    }
}

/// Whether NCCL can be loaded here.
pub(crate) fn available() -> bool {
    api().is_ok()
}

/// `status` as a result, naming the call.
fn check(api: &Api, status: Status, during: &str) -> Result<()> {
    if status == 0 {
        return Ok(());
    }
    // SAFETY: NCCL returns a static string for any status.
    let text = unsafe { CStr::from_ptr((api.error_string)(status)) };
    Err(Error::Mpi(format!(
        "NCCL failed {during}: {} (status {status})",
        text.to_string_lossy()
    )))
}

/// A new unique id (on one rank, which passes it to the others).
pub(crate) fn unique_id() -> Result<UniqueId> {
    let api = api()?;
    let mut id = UniqueId { internal: [0; 128] };
    // SAFETY: writes the 128-byte id.
    check(
        api,
        unsafe { (api.get_unique_id)(&mut id) },
        "making a unique id",
    )?;
    Ok(id)
}

/// A communicator of `ranks` ranks, this one `rank`, on the current device (bound by the
/// caller): every rank calls it with the same id (a collective; it blocks until all have).
pub(crate) struct Comm {
    raw: RawComm,
}

// SAFETY: NCCL communicators may be used from any thread, one call at a time (the owner
// serialises them behind its lock).
unsafe impl Send for Comm {}
// SAFETY: as above.
unsafe impl Sync for Comm {}

impl Comm {
    pub(crate) fn init(ranks: usize, id: UniqueId, rank: usize) -> Result<Comm> {
        let api = api()?;
        let mut raw: RawComm = std::ptr::null_mut();
        // SAFETY: every rank passes the same id; NCCL writes the handle.
        let status = unsafe { (api.comm_init_rank)(&mut raw, ranks as c_int, id, rank as c_int) };
        check(api, status, "creating the communicator of the run's ranks")?;
        Ok(Comm { raw })
    }

    /// Queues, on `stream`, the sum over the ranks of `count` 64-bit integers at device
    /// address `ptr`, in place (every rank calls it at the same point of its stream's work).
    ///
    /// # Safety
    /// `ptr` is device memory of the current device holding `count` integers, which nothing
    /// else touches until `stream` has passed the reduction.
    pub(crate) unsafe fn all_reduce_sum_i64(
        &self,
        stream: CUstream,
        ptr: u64,
        count: usize,
    ) -> Result<()> {
        let api = api()?;
        let status = (api.all_reduce)(
            ptr as *const c_void,
            ptr as *mut c_void,
            count,
            INT64,
            SUM,
            self.raw,
            stream,
        );
        check(api, status, "adding the ranks' exact sums")
    }

    /// Queues, on `stream`, the sends and receives of `ops` as one group: the pairs between
    /// two ranks match in the order each posts them.
    ///
    /// # Safety
    /// Every buffer is device memory of the current device, at least as long as its op, and
    /// nothing else touches it until `stream` has passed the group.
    pub(crate) unsafe fn group(&self, stream: CUstream, ops: &[PointToPoint]) -> Result<()> {
        let api = api()?;
        check(api, (api.group_start)(), "starting a group")?;
        let mut result = Ok(());
        for op in ops {
            let status = match *op {
                PointToPoint::Send { ptr, bytes, peer } => (api.send)(
                    ptr as *const c_void,
                    bytes,
                    BYTES,
                    peer as c_int,
                    self.raw,
                    stream,
                ),
                PointToPoint::Recv { ptr, bytes, peer } => (api.recv)(
                    ptr as *mut c_void,
                    bytes,
                    BYTES,
                    peer as c_int,
                    self.raw,
                    stream,
                ),
            };
            if result.is_ok() {
                result = check(api, status, "queueing a halo face");
            }
        }
        // The group ends whatever happened inside (NCCL needs the calls paired).
        let end = check(api, (api.group_end)(), "ending a group of halo faces");
        result.and(end)
    }
}

/// One point-to-point transfer of a group.
#[derive(Debug, Clone, Copy)]
pub(crate) enum PointToPoint {
    /// `bytes` from device address `ptr` to rank `peer`.
    Send { ptr: u64, bytes: usize, peer: usize },
    /// `bytes` from rank `peer` into device address `ptr`.
    Recv { ptr: u64, bytes: usize, peer: usize },
}
