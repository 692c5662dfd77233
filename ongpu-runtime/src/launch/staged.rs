//! The staged loop of element-wise kernels with AoS fields of large elements (an AoS
//! `ColorMatrix<f32>` field is 72 bytes a site): read one scalar at a time, a warp's loads of
//! such a field touch 32 addresses 72 bytes apart each, and the kernel runs at a third of the
//! memory's speed. A CUDA programmer stages a block's sites instead: they are one
//! contiguous run of each field, which the block copies through shared memory with 16-byte
//! accesses (`stage_in`, `stage_out` in `staging.cuh`), each thread taking its element
//! there: read fields before the body, written ones after it, through one part of the
//! buffer reused for each field in turn or, for larger elements, a part per field. The loop
//! is block-uniform (a block's threads meet at every barrier), one site per thread.

use crate::capture::CaptureKind;
use crate::launch::site::SiteInfo;
use std::fmt::Write;

/// The bytes of the smallest element worth staging (a `Complex<f64>` or a `ColorVector`).
const MIN_STAGED_BYTES: usize = 16;

/// A staged field: its C++ name, scalar, element type, components and access.
type StagedField<'a> = (&'a str, &'a str, &'a str, usize, Option<bool>);

/// The AoS fields of `kinds` worth staging.
fn staged_fields<'a>(site: &'a SiteInfo, kinds: &'a [CaptureKind]) -> Vec<StagedField<'a>> {
    kinds
        .iter()
        .zip(site.cuda_names)
        .filter_map(|(kind, name)| match kind {
            CaptureKind::Field {
                scalar,
                element,
                layout,
                components,
                write,
                ..
            } if layout == "ongpu::AoS" => {
                let bytes = match *scalar {
                    "float" => 4,
                    "double" => 8,
                    _ => return None,
                };
                (components * bytes >= MIN_STAGED_BYTES).then_some((
                    *name,
                    *scalar,
                    element.as_str(),
                    *components,
                    *write,
                ))
            }
            _ => None,
        })
        .collect()
}

/// Staged bytes per thread above which each field gets its own part of the buffer. Below,
/// one part is reused for each field in turn (a barrier between fields, but few registers
/// live across them): on an H200, AoS `ColorMatrix<f32>` (216 bytes for x, y, z) runs at 94%
/// of the staged hand-written kernel with one part and 90% with three; `ColorMatrix<f64>`
/// (432 bytes) at 67% with one part (162 registers) and 87% with three (124).
const OWN_PARTS_ABOVE: usize = 256;

/// How the staged fields share the block's buffer.
struct Buffer {
    /// Each staged field's offset, in bytes per thread (multiples of 16: every part starts
    /// 16-byte aligned for any block size).
    offsets: Vec<usize>,
    /// True if each field has a part of its own (else all share offset 0).
    own_parts: bool,
    /// The buffer's bytes per thread.
    bytes_per_thread: usize,
}

/// The buffer of `fields` (not empty).
fn buffer(fields: &[StagedField<'_>]) -> Buffer {
    let sizes: Vec<usize> = fields
        .iter()
        .map(|(_, scalar, _, c, _)| (c * if *scalar == "double" { 8 } else { 4 }).div_ceil(16) * 16)
        .collect();
    let total: usize = sizes.iter().sum();
    let own_parts = total > OWN_PARTS_ABOVE;
    let offsets = if own_parts {
        sizes
            .iter()
            .scan(0, |at, b| {
                let o = *at;
                *at += b;
                Some(o)
            })
            .collect()
    } else {
        vec![0; sizes.len()]
    };
    let bytes_per_thread = if own_parts {
        total
    } else {
        *sizes.iter().max().expect("not empty")
    };
    Buffer {
        offsets,
        own_parts,
        bytes_per_thread,
    }
}

/// Shared memory per thread that the staged loop of `site` over `kinds` needs (0: no field
/// is worth staging, and the kernel has no staged loop).
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub fn bytes_per_thread(site: &SiteInfo, kinds: &[CaptureKind]) -> usize {
    let fields = staged_fields(site, kinds);
    if fields.is_empty() {
        return 0;
    }
    buffer(&fields).bytes_per_thread
}

/// The staged loop of `site` over `kinds` (which runs every site), or `None` if no field is
/// worth staging. Read fields are copied in before the body and written ones out after it;
/// with parts of their own the copies are in flight together (three barriers per run of
/// sites), with one shared part one field at a time.
pub fn staged_loop(site: &SiteInfo, kinds: &[CaptureKind]) -> Option<String> {
    let fields = staged_fields(site, kinds);
    if fields.is_empty() {
        return None;
    }
    let names: Vec<&str> = fields.iter().map(|f| f.0).collect();
    let parts = super::source::site_parts_supplied(site, kinds, &names);
    let Buffer {
        offsets, own_parts, ..
    } = buffer(&fields);
    let part = |k: usize, scalar: &str| {
        format!(
            "reinterpret_cast<{scalar}*>(reinterpret_cast<char*>(ongpu_stage) + {} * (unsigned long long)blockDim.x)",
            offsets[k]
        )
    };
    let mut s = String::new();
    s.push_str(
        "// AoS fields staged through shared memory, a block's sites at a time\n\
         extern __shared__ uint4 ongpu_stage[];\n\
         for (unsigned long long ongpu_base = (unsigned long long)blockIdx.x * blockDim.x; \
         ongpu_base < ongpu_n; ongpu_base += ongpu_step) {\n  \
         const unsigned long long ongpu_count = ongpu::min((unsigned long long)blockDim.x, ongpu_n - ongpu_base);\n  \
         const bool ongpu_live = threadIdx.x < ongpu_count;\n  \
         const unsigned long long ongpu_run = ongpu_begin + ongpu_base;\n  \
         [[maybe_unused]] const unsigned long long ongpu_site = ongpu_run + (ongpu_live ? threadIdx.x : 0);\n",
    );
    let read: Vec<usize> = (0..fields.len())
        .filter(|&k| fields[k].4 != Some(false))
        .collect();
    let stage_in = |s: &mut String, k: usize| {
        let (name, scalar, _, c, write) = fields[k];
        let _ = writeln!(
            s,
            "  ongpu::stage_in<{scalar}, {}>({}, ongpu_p_{name} + ongpu_run * {c}, ongpu_count * {c});",
            write.is_none(),
            part(k, scalar)
        );
    };
    let take = |s: &mut String, k: usize| {
        let (name, scalar, element, ..) = fields[k];
        let _ = writeln!(
            s,
            "  const {element} ongpu_in_{name} = ongpu::load<ongpu::AoS, {element} >({}, threadIdx.x, 0);",
            part(k, scalar)
        );
    };
    if own_parts {
        read.iter().for_each(|&k| stage_in(&mut s, k));
        s.push_str("  __syncthreads();\n");
        read.iter().for_each(|&k| take(&mut s, k));
    } else {
        for &k in &read {
            stage_in(&mut s, k);
            s.push_str("  __syncthreads();\n");
            take(&mut s, k);
            s.push_str("  __syncthreads();\n");
        }
    }
    for (name, _, element, _, write) in &fields {
        if write.is_some() {
            let _ = writeln!(s, "  {element} ongpu_out_{name}{{}};");
        }
    }
    s.push_str("  if (ongpu_live) {\n");
    for line in parts.loads.lines() {
        let _ = writeln!(s, "    {line}");
    }
    s.push_str("    {\n");
    for line in site.body.lines() {
        let _ = writeln!(s, "      {line}");
    }
    s.push_str("    }\n");
    for line in parts.stores.lines() {
        let _ = writeln!(s, "    {line}");
    }
    s.push_str("  }\n");
    let written: Vec<usize> = (0..fields.len())
        .filter(|&k| fields[k].4.is_some())
        .collect();
    let leave = |s: &mut String, k: usize| {
        let (name, scalar, element, ..) = fields[k];
        let _ = writeln!(
            s,
            "  if (ongpu_live) ongpu::store<ongpu::AoS, {element} >({}, threadIdx.x, 0, ongpu_out_{name});",
            part(k, scalar)
        );
    };
    let stage_out = |s: &mut String, k: usize| {
        let (name, scalar, _, c, _) = fields[k];
        let _ = writeln!(
            s,
            "  ongpu::stage_out<{scalar}>(ongpu_p_{name} + ongpu_run * {c}, {}, ongpu_count * {c});",
            part(k, scalar)
        );
    };
    if own_parts {
        written.iter().for_each(|&k| leave(&mut s, k));
        if !written.is_empty() {
            s.push_str("  __syncthreads();\n");
        }
        written.iter().for_each(|&k| stage_out(&mut s, k));
        // The next run's copies must not overwrite what this one still reads.
        s.push_str("  __syncthreads();\n");
    } else {
        for &k in &written {
            leave(&mut s, k);
            s.push_str("  __syncthreads();\n");
            stage_out(&mut s, k);
            s.push_str("  __syncthreads();\n");
        }
    }
    s.push_str("}\n");
    Some(s)
}
