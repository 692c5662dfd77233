//! Exact sums over MPI ranks finished on the GPUs, for reductions into a [`DeviceScalar`]
//! (`on_gpu!(sum -> s: ranks.even(), ...)`): the call's boxes sum into their slots as in
//! `exact_cuda`, then, queued on the default stream without a host wait, one kernel adds the
//! slots and normalises the digits, NCCL adds every rank's digits (an integer all-reduce,
//! whose order does not matter), and one kernel rounds the sum to the nearest `f64` into the
//! scalar, as [`ExactSum::value`](super::ExactSum::value) does on the host. The value is
//! the same bits as the host path's, for every rank count; a solver's scalars go from one
//! iteration to the next without a host round trip.
//!
//! Used where every rank has a GPU of its own and can load NCCL (one rank needs no NCCL),
//! unless `ONGPU_DEVICE_SUMS=0`; elsewhere the sums meet on the host as before.
//!
//! [`DeviceScalar`]: crate::DeviceScalar

use super::exact_cuda::Queued;
use crate::cuda::{load_function, nvrtc, Device, DeviceBuffer, Function, ParamList, Shape};
use crate::error::{Error, Result};
use mpi::topology::{Communicator, SimpleCommunicator};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock, PoisonError};

/// The kernels' names in their module.
const COLLECT: &str = "ongpu_exact_collect";
/// See [`COLLECT`].
const ROUND: &str = "ongpu_exact_round";

/// Words of one sum between the ranks: 67 normalised digits, then how many ranks saw a
/// NaN, a +∞ and a −∞ (counts, since the ranks' flags are added, not or-ed).
const WIRE_WORDS: usize = 70;

/// The most boxes (slots) of one call: the interior and two per cut direction.
const MAX_SLOTS: usize = 16;

/// The kernels' source (the host's `ExactSum` layout: 67 digits, the special flags, the
/// additions since the last normalisation).
pub(super) const SOURCE: &str = r#"// ongpu: exact sums over MPI ranks, finished on the GPU.
typedef long long i64;
typedef unsigned long long u64;
#define DIGITS 67
#define HOST_WORDS 69
#define WIRE_WORDS 70
#define MAX_SLOTS 16

struct ongpu_slots { const i64* at[MAX_SLOTS]; };

// Adds the n slots' sums (each `parts` sums in the host's layout, digits not normalised),
// propagates the carries, and writes `parts` sums of WIRE_WORDS words: the digits (all but
// the last in 0..2^32, the last signed) and the special flags as three 0/1 counts.
extern "C" __global__ void ongpu_exact_collect(ongpu_slots slots, int n, int parts, i64* wire)
{
    __shared__ i64 d[2 * DIGITS];
    __shared__ u64 special[2];
    for (int t = threadIdx.x; t < parts * DIGITS; t += blockDim.x) {
        const int p = t / DIGITS, k = t - p * DIGITS;
        i64 acc = 0;
        for (int i = 0; i < n; i++) acc += slots.at[i][p * HOST_WORDS + k];
        d[t] = acc;
    }
    if (threadIdx.x < parts) {
        u64 f = 0;
        for (int i = 0; i < n; i++) f |= (u64)slots.at[i][threadIdx.x * HOST_WORDS + DIGITS];
        special[threadIdx.x] = f;
    }
    __syncthreads();
    if (threadIdx.x >= parts) return;
    const int p = threadIdx.x;
    i64* w = wire + p * WIRE_WORDS;
    i64 carry = 0;
    for (int k = 0; k < DIGITS - 1; k++) {
        const i64 v = d[p * DIGITS + k] + carry;
        w[k] = v & 0xffffffffll;
        carry = v >> 32;
    }
    w[DIGITS - 1] = d[p * DIGITS + DIGITS - 1] + carry;
    w[DIGITS] = (i64)(special[p] & 1ull);
    w[DIGITS + 1] = (i64)((special[p] >> 1) & 1ull);
    w[DIGITS + 2] = (i64)((special[p] >> 2) & 1ull);
}

__device__ double ongpu_pow2(i64 k) { return __longlong_as_double((k + 1023) << 52); }

// x * 2^e for an x below 2^54, without intermediate under- or overflow.
__device__ double ongpu_scale(double x, i64 e)
{
    while (e > 1000) { x *= ongpu_pow2(1000); e -= 1000; }
    while (e < -1000) { x *= ongpu_pow2(-1000); e += 1000; }
    return x * ongpu_pow2(e);
}

// Each of `parts` sums on the wire rounded to the nearest double (ties to even) into
// out[part]: +inf or -inf past the largest, NaN if a NaN (or both infinities) was added.
extern "C" __global__ void ongpu_exact_round(const i64* wire, int parts, double* out)
{
    const int p = threadIdx.x;
    if (p >= parts) return;
    const i64* w = wire + p * WIRE_WORDS;
    const unsigned flags =
        (w[DIGITS] > 0 ? 1u : 0u) | (w[DIGITS + 1] > 0 ? 2u : 0u) | (w[DIGITS + 2] > 0 ? 4u : 0u);
    if (flags != 0) {
        out[p] = flags == 2 ? __longlong_as_double(0x7ff0000000000000ll)
               : flags == 4 ? __longlong_as_double((i64)0xfff0000000000000ull)
                            : __longlong_as_double(0x7ff8000000000000ll);
        return;
    }
    i64 d[DIGITS];
    i64 carry = 0;
    for (int k = 0; k < DIGITS - 1; k++) {
        const i64 v = w[k] + carry;
        d[k] = v & 0xffffffffll;
        carry = v >> 32;
    }
    d[DIGITS - 1] = w[DIGITS - 1] + carry;
    const bool negative = d[DIGITS - 1] < 0;
    if (negative) {
        i64 c = 1;
        for (int k = 0; k < DIGITS - 1; k++) {
            const i64 v = (~d[k] & 0xffffffffll) + c;
            d[k] = v & 0xffffffffll;
            c = v >> 32;
        }
        d[DIGITS - 1] = -d[DIGITS - 1] - 1 + c;
    }
    int top = DIGITS - 1;
    while (top >= 0 && d[top] == 0) top--;
    if (top < 0) { out[p] = 0.0; return; }
    const i64 length = 32 * (i64)top + (64 - __clzll((u64)d[top]));
#define ONGPU_BIT(i) ((((u64)d[(i) / 32]) >> ((i) % 32)) & 1ull)
    double magnitude;
    if (length <= 53) {
        u64 m = 0;
        for (i64 i = 0; i < length; i++) m |= ONGPU_BIT(i) << i;
        magnitude = ongpu_scale((double)m, -1074);
    } else {
        const i64 low = length - 53;
        u64 mantissa = 0;
        for (i64 i = low; i < length; i++) mantissa |= ONGPU_BIT(i) << (i - low);
        const bool half = ONGPU_BIT(low - 1) == 1ull;
        // Any bit below low - 1: whole digits, then the digit that holds bit low - 1.
        const i64 below = low - 1;
        bool sticky = false;
        for (i64 k = 0; k < below / 32; k++) sticky = sticky || d[k] != 0;
        if (below % 32 != 0)
            sticky = sticky || (((u64)d[below / 32]) & ((1ull << (below % 32)) - 1ull)) != 0;
        if (half && (sticky || (mantissa & 1ull) == 1ull)) mantissa += 1;
        magnitude = ongpu_scale((double)mantissa, low - 1074);
    }
#undef ONGPU_BIT
    out[p] = negative ? -magnitude : magnitude;
}
"#;

/// The slots' result addresses as the collect kernel takes them (by value).
#[repr(C)]
#[derive(Clone, Copy)]
struct SlotTable {
    at: [u64; MAX_SLOTS],
}

/// The collect and round kernels on `device`, compiled once per process.
fn functions(device: &'static Device) -> Result<(Function, Function)> {
    static LOADED: Mutex<Option<HashMap<usize, (Function, Function)>>> = Mutex::new(None);
    let mut loaded = LOADED.lock().unwrap_or_else(PoisonError::into_inner);
    let ordinal = device.info().ordinal;
    if let Some(f) = loaded.as_ref().and_then(|m| m.get(&ordinal)) {
        return Ok(*f);
    }
    let (arch, _) = nvrtc::target_for(device.info().compute_capability);
    let compiled = nvrtc::compile(SOURCE, &arch, "the kernels of exact sums over ranks", &[])?;
    let f = (
        load_function(device, &compiled, COLLECT)?,
        load_function(device, &compiled, ROUND)?,
    );
    loaded.get_or_insert_with(HashMap::new).insert(ordinal, f);
    Ok(f)
}

/// The device's buffer of two sums on the wire (one call's at a time: the calls that use
/// it are ordered on the default stream).
fn wire(device: &'static Device) -> Result<u64> {
    static WIRE: [OnceLock<DeviceBuffer>; crate::cuda::MAX_DEVICES] =
        [const { OnceLock::new() }; crate::cuda::MAX_DEVICES];
    let cell = &WIRE[device.info().ordinal];
    if let Some(b) = cell.get() {
        return Ok(b.ptr());
    }
    let b = DeviceBuffer::alloc(device, 2 * WIRE_WORDS * 8, "the exact sums between ranks")?;
    Ok(cell.get_or_init(|| b).ptr())
}

/// Whether sums over the ranks into device scalars are finished on the GPUs: one rank, or
/// every rank on a GPU of its own with NCCL, and `ONGPU_DEVICE_SUMS` not `0` on any rank.
/// Decided once, collectively (every rank reaches its first such reduction together).
pub(super) fn enabled(comm: &SimpleCommunicator) -> Result<bool> {
    static DECIDED: OnceLock<bool> = OnceLock::new();
    if let Some(&d) = DECIDED.get() {
        return Ok(d);
    }
    let wanted = std::env::var("ONGPU_DEVICE_SUMS").map_or(true, |v| v != "0");
    let votes = crate::mpi::gather::gather_on(comm, &[u8::from(wanted)]);
    let decided = votes.iter().all(|&v| v == 1)
        && (comm.size() == 1 || crate::mpi::exchange::nccl_everywhere(comm)?);
    Ok(*DECIDED.get_or_init(|| decided))
}

/// The sums of one call's boxes, ready to be finished on the device: what can fail before
/// the destination is touched (the kernels compiled, the wire buffer, the box count) done.
pub(super) struct Ready {
    dev: &'static Device,
    streams: Vec<crate::cuda::stream::StreamHandle>,
    table: SlotTable,
    slots: i32,
    parts: i32,
    kernels: (Function, Function),
    wire: u64,
}

impl Ready {
    /// Lets go of `queued` (`parts` sums per box) without waiting.
    pub(super) fn new(queued: Queued, parts: usize) -> Result<Ready> {
        let dev = crate::cuda::device()?;
        let (streams, results) = queued.release();
        if results.len() > MAX_SLOTS {
            return Err(Error::InvalidArgument(format!(
                "a reduction over a rank lattice ran {} boxes; device sums take at most \
                 {MAX_SLOTS}",
                results.len()
            )));
        }
        let mut table = SlotTable { at: [0; MAX_SLOTS] };
        table.at[..results.len()].copy_from_slice(&results);
        Ok(Ready {
            dev,
            streams,
            table,
            slots: results.len() as i32,
            parts: parts as i32,
            kernels: functions(dev)?,
            wire: wire(dev)?,
        })
    }

    /// Queues the rest on the default stream after the boxes' kernels, without waiting:
    /// the boxes' sums collected, every rank's added (NCCL), the sum rounded into the
    /// device scalar at `dest` (`parts` doubles).
    pub(super) fn finish(self, comm: &SimpleCommunicator, dest: u64) -> Result<()> {
        let Ready {
            dev,
            streams,
            table,
            slots,
            parts,
            kernels: (collect, round),
            wire,
        } = self;
        dev.bind()?;
        let default = std::ptr::null_mut();
        for s in streams.into_iter().filter(|s| !s.is_null()) {
            crate::launch::queue::order_after(dev, s, default)?;
        }
        let one_block = |threads: u32| Shape {
            grid: (1, 1, 1),
            block: (threads, 1, 1),
            shared_bytes: 0,
        };
        let mut params = ParamList::new();
        params.push(&table);
        params.push(&slots);
        params.push(&parts);
        params.push(&wire);
        // SAFETY: the parameters match `ongpu_exact_collect`; the slots' results are mapped
        // memory that lives for the run, written by the kernels ordered before this one, and
        // the wire buffer lives for the run.
        unsafe {
            crate::cuda::launch_bound_on(default, collect, one_block(128), &mut params, || {
                "the kernel that collects a rank's exact sums".to_string()
            })?;
        }
        if comm.size() > 1 {
            let nccl = crate::mpi::nccl_world::world_nccl(comm)?;
            // SAFETY: the wire buffer holds `parts` sums and is used only on the default
            // stream.
            unsafe { nccl.all_reduce_sum_i64(default, wire, parts as usize * WIRE_WORDS)? };
        }
        let mut params = ParamList::new();
        params.push(&wire);
        params.push(&parts);
        params.push(&dest);
        // SAFETY: the parameters match `ongpu_exact_round`; `dest` holds `parts` doubles
        // (the caller's scalar, marked written on the default stream).
        unsafe {
            crate::cuda::launch_bound_on(default, round, one_block(32), &mut params, || {
                "the kernel that rounds an exact sum over ranks".to_string()
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernels_of_sums_over_ranks_compile() {
        if !nvrtc::available() {
            eprintln!("NVRTC is not available: the kernels of sums over ranks are not compiled");
            return;
        }
        nvrtc::compile(SOURCE, "sm_90", "exact sums over ranks", &[])
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
