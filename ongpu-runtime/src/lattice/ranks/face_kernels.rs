//! The kernels that pack a rank field's faces into staging buffers and unpack received
//! faces into its halos on the GPU: one thread per (site, component) of the face, the face's
//! sites given as a list of the part's site indices (uploaded once per box and parity), the
//! face in a device buffer that the copy engines move to and from page-locked host memory
//! (`staging`). The face holds each site's components together, in the box's site order:
//! the layout the host path writes.

use crate::cuda::{load_function, nvrtc, Device, Function, ParamList, Shape};
use crate::element::Element;
use crate::error::Result;
use crate::layout::Layout;
use std::collections::HashMap;
use std::sync::Mutex;

/// The kernels' names in their module.
pub const PACK: &str = "ongpu_face_pack";
/// See [`PACK`].
pub const UNPACK: &str = "ongpu_face_unpack";

/// The CUDA source for scalars of `bytes` bytes (1, 2, 4 or 8), moved as unsigned words.
///
/// Parameters: the field's storage; for each of two faces, the face, the part's site index
/// of each of its sites and their number; the element's components, the field's stride,
/// the layout's block (`V` of `AoSoA<V>`, 1 for AoS) and whether the layout is SoA.
pub fn source(bytes: usize) -> String {
    let word = match bytes {
        1 => "unsigned char",
        2 => "unsigned short",
        4 => "unsigned int",
        _ => "unsigned long long",
    };
    format!(
        r#"// ongpu: packing and unpacking the faces of a field cut over MPI ranks ({bytes}-byte scalars).
typedef {word} word;
typedef unsigned long long u64;

__device__ __forceinline__ u64 ongpu_storage_index(
    u64 s, u64 c, u64 comps, u64 stride, u64 block, unsigned soa)
{{
    if (soa) return c * stride + s;
    return (s / block) * comps * block + c * block + s % block;
}}

// Two faces in one launch: threads below n0 * comps move face 0, the rest face 1 (n1 may
// be zero).
extern "C" __global__ void {PACK}(
    const word* __restrict__ field, word* __restrict__ face0,
    const unsigned int* __restrict__ sites0, u64 n0, word* __restrict__ face1,
    const unsigned int* __restrict__ sites1, u64 n1, u64 comps, u64 stride, u64 block,
    unsigned int soa)
{{
    const u64 first = n0 * comps, total = first + n1 * comps;
    for (u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x; t < total;
         t += (u64)gridDim.x * blockDim.x) {{
        const bool second = t >= first;
        const u64 u = second ? t - first : t;
        const u64 j = u / comps, c = u - j * comps;
        const unsigned int s = second ? sites1[j] : sites0[j];
        (second ? face1 : face0)[u] = field[ongpu_storage_index(s, c, comps, stride, block, soa)];
    }}
}}

extern "C" __global__ void {UNPACK}(
    word* __restrict__ field, const word* __restrict__ face0,
    const unsigned int* __restrict__ sites0, u64 n0, const word* __restrict__ face1,
    const unsigned int* __restrict__ sites1, u64 n1, u64 comps, u64 stride, u64 block,
    unsigned int soa)
{{
    const u64 first = n0 * comps, total = first + n1 * comps;
    for (u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x; t < total;
         t += (u64)gridDim.x * blockDim.x) {{
        const bool second = t >= first;
        const u64 u = second ? t - first : t;
        const u64 j = u / comps, c = u - j * comps;
        const unsigned int s = second ? sites1[j] : sites0[j];
        field[ongpu_storage_index(s, c, comps, stride, block, soa)] = (second ? face1 : face0)[u];
    }}
}}
"#
    )
}

/// How the kernels index storage of layout `L`: `(block, soa)`, or `None` for a layout
/// they do not know (its faces then go through the host).
pub(crate) fn storage_of<L: Layout>() -> Option<(u64, bool)> {
    let soa = L::BLOCK == 1 && L::SITES_CONTIGUOUS;
    let block = L::BLOCK as u64;
    // Checks the formula against the layout's own index maths on a few sites.
    let (comps, stride) = (3usize, 4 * L::BLOCK.max(2));
    let agrees = (0..stride).all(|s| {
        (0..comps).all(|c| {
            let (s64, c64) = (s as u64, c as u64);
            let expected = if soa {
                c64 * stride as u64 + s64
            } else {
                (s64 / block) * comps as u64 * block + c64 * block + s64 % block
            };
            L::index(s, c, comps, stride) as u64 == expected
        })
    });
    agrees.then_some((block, soa))
}

/// The pack and unpack kernels for `bytes`-byte scalars on `device`, compiled once per
/// process.
fn functions(device: &'static Device, bytes: usize) -> Result<(Function, Function)> {
    /// Per (device ordinal, scalar bytes), the pack and unpack kernels.
    type Loaded = HashMap<(usize, usize), (Function, Function)>;
    static LOADED: Mutex<Option<Loaded>> = Mutex::new(None);
    let mut loaded = LOADED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let key = (device.info().ordinal, bytes);
    if let Some(f) = loaded.as_ref().and_then(|m| m.get(&key)) {
        return Ok(*f);
    }
    let (arch, _) = nvrtc::target_for(device.info().compute_capability);
    let what = format!("the face kernels of rank fields ({bytes}-byte scalars)");
    let compiled = nvrtc::compile(&source(bytes), &arch, &what, &[])?;
    let f = (
        load_function(device, &compiled, PACK)?,
        load_function(device, &compiled, UNPACK)?,
    );
    loaded.get_or_insert_with(HashMap::new).insert(key, f);
    Ok(f)
}

/// One face's move between a field's device storage and its staging buffer on the device.
pub(crate) struct FaceMove {
    /// The face buffer's device address.
    pub face: u64,
    /// The part's site index of each face site (device memory) and their number.
    pub sites: u64,
    pub n: u64,
}

/// Queues the pack (`unpack` false) or unpack of one field's faces (one or two: a round's
/// face down and face up, in one launch) for elements `T` at device address `field` with
/// `stride` sites of storage in layout `(block, soa)` on the thread's side stream (a rank
/// lattice's face stream, during its exchange; else the default stream), after the kernels
/// that wrote the field.
///
/// # Safety
/// `field` and every address in `faces` are live device memory of the sizes the counts
/// say, until the kernel has run.
pub(crate) unsafe fn queue<T: Element>(
    device: &'static Device,
    unpack: bool,
    (field, stride): (u64, u64),
    faces: &[FaceMove],
    (block, soa): (u64, bool),
) -> Result<()> {
    let none = FaceMove {
        face: 0,
        sites: 0,
        n: 0,
    };
    let (first, second) = match faces {
        [a] => (a, &none),
        [a, b] => (a, b),
        _ => unreachable!("one or two faces a launch"),
    };
    let total = first.n + second.n;
    if total == 0 {
        return Ok(());
    }
    let bytes = std::mem::size_of::<T::Scalar>();
    let (pack_fn, unpack_fn) = functions(device, bytes)?;
    let comps = T::COMPONENTS as u64;
    let soa = u32::from(soa);
    // Both kernels take (field, face0, sites0, n0, face1, sites1, n1, ...); the pack writes
    // the faces, the unpack the field.
    let mut params = ParamList::new();
    params.push(&field);
    for f in [first, second] {
        params.push(&f.face);
        params.push(&f.sites);
        params.push(&f.n);
    }
    params.push(&comps);
    params.push(&stride);
    params.push(&block);
    params.push(&soa);
    let tpb = 256u64;
    let blocks = (total * comps).div_ceil(tpb).clamp(1, 4096) as u32;
    let shape = Shape {
        grid: (blocks, 1, 1),
        block: (tpb as u32, 1, 1),
        shared_bytes: 0,
    };
    let f = if unpack { unpack_fn } else { pack_fn };
    device.bind()?;
    let stream = crate::launch::queue::side_stream();
    crate::cuda::launch_bound_on(stream, f, shape, &mut params, || {
        format!(
            "the {} kernel of a rank field's faces",
            if unpack { "unpack" } else { "pack" }
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{AoS, AoSoA, SoA};

    #[test]
    fn the_kernels_know_the_three_layouts() {
        assert_eq!(storage_of::<AoS>(), Some((1, false)));
        assert_eq!(storage_of::<SoA>(), Some((1, true)));
        assert_eq!(storage_of::<AoSoA<32>>(), Some((32, false)));
        assert_eq!(storage_of::<AoSoA<4>>(), Some((4, false)));
    }

    #[test]
    fn the_face_kernels_compile_for_every_scalar_size() {
        if !nvrtc::available() {
            eprintln!("NVRTC is not available: the face kernels are not compiled here");
            return;
        }
        for bytes in [1, 2, 4, 8] {
            let what = format!("face kernels ({bytes})");
            nvrtc::compile(&source(bytes), "sm_90", &what, &[]).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}
