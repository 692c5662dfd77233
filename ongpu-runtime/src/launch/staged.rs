//! The staged loop of element-wise kernels with AoS fields of large elements (an AoS
//! `ColorMatrix<f32>` field is 72 bytes a site): read one scalar at a time, a warp's loads of
//! such a field touch 32 addresses 72 bytes apart each, and the kernel runs at a third of the
//! memory's speed. A CUDA programmer stages a block's sites instead: they are one
//! contiguous run of each field, and so are a warp's: each warp copies its sites' run
//! through its own part of shared memory with 16-byte accesses (`stage_in`, `stage_out` in
//! `staging.cuh`), each thread taking its element there: read fields before the body,
//! written ones after it, a part per field. The loop is warp-uniform (a warp's threads meet
//! at every `__syncwarp`; no block barrier, so warps do not wait for each other), one site
//! per thread.

use crate::capture::CaptureKind;
use crate::launch::call_site::SiteInfo;
use std::fmt::Write;

/// The bytes of the smallest element worth staging (a `Complex<f64>` or a `ColorVector`).
const MIN_STAGED_BYTES: usize = 16;

/// An AoS field worth staging.
struct StagedField<'a> {
    /// Its C++ name.
    name: &'a str,
    scalar: &'a str,
    element: &'a str,
    components: usize,
    /// `None` read, `Some(true)` read and written, `Some(false)` written only.
    write: Option<bool>,
    /// Its offset in a thread's share of the buffer (bytes).
    offset: usize,
}

impl StagedField<'_> {
    fn read(&self) -> bool {
        self.write != Some(false)
    }

    fn written(&self) -> bool {
        self.write.is_some()
    }

    /// Its part of the warp's buffer, which starts at 32 × its offset: a multiple of 128
    /// bytes, so every part starts 16-byte aligned.
    fn part(&self) -> String {
        format!(
            "reinterpret_cast<{}*>(ongpu_warp_stage + {})",
            self.scalar,
            32 * self.offset
        )
    }
}

/// The AoS fields of `kinds` worth staging, and the bytes of a thread's share of the
/// buffer. A warp's buffer is 32 shares; every field has a part of its own, so that its
/// copies are in flight together: on an H200 a part per field beat one part reused for each
/// field in turn (f64 AoS `x += y * z`: 3916 against 3762 GB/s with 128 threads a block,
/// 3838 against 2985 with 256).
fn staged_fields<'a>(
    site: &'a SiteInfo,
    kinds: &'a [CaptureKind],
) -> (Vec<StagedField<'a>>, usize) {
    let mut share = 0;
    let fields = kinds
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
            } if layout == "ongpu::AoS" && !super::source::stores_entries(site, name, element) => {
                let bytes = components
                    * match *scalar {
                        "float" => 4,
                        "double" => 8,
                        _ => return None,
                    };
                if bytes < MIN_STAGED_BYTES {
                    return None;
                }
                let offset = share;
                share += bytes;
                Some(StagedField {
                    name,
                    scalar,
                    element: element.as_str(),
                    components: *components,
                    write: *write,
                    offset,
                })
            }
            _ => None,
        })
        .collect();
    (fields, share)
}

/// Shared memory per thread that the staged loop of `site` over `kinds` needs (0: no field
/// is worth staging, and the kernel has no staged loop).
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub fn bytes_per_thread(site: &SiteInfo, kinds: &[CaptureKind]) -> usize {
    staged_fields(site, kinds).1
}

/// The staged loop of `site` over `kinds` (which runs every site), or `None` if no field is
/// worth staging. Each warp runs over its own runs of sites: read fields are copied into the
/// warp's parts before the body and written ones out after it, with `__syncwarp` between.
pub fn staged_loop(site: &SiteInfo, kinds: &[CaptureKind]) -> Option<String> {
    let (fields, share) = staged_fields(site, kinds);
    if fields.is_empty() {
        return None;
    }
    let names: Vec<&str> = fields.iter().map(|f| f.name).collect();
    let parts = super::source::site_parts_supplied(site, kinds, &names);
    let mut s = String::new();
    let _ = write!(
        s,
        "// AoS fields staged through shared memory, a warp's sites at a time\n\
         extern __shared__ uint4 ongpu_stage[];\n\
         const unsigned int ongpu_lane = threadIdx.x & 31u;\n\
         const unsigned int ongpu_warp_first = threadIdx.x & ~31u;\n\
         const unsigned int ongpu_lanes = ongpu::min(32u, blockDim.x - ongpu_warp_first);\n\
         const unsigned int ongpu_mask = ongpu::lanes_mask(ongpu_lanes);\n\
         char* const ongpu_warp_stage = reinterpret_cast<char*>(ongpu_stage) + {share} * (unsigned long long)ongpu_warp_first;\n\
         for (unsigned long long ongpu_base = (unsigned long long)blockIdx.x * blockDim.x + ongpu_warp_first; \
         ongpu_base < ongpu_n; ongpu_base += ongpu_step) {{\n  \
         const unsigned long long ongpu_count = ongpu::min((unsigned long long)ongpu_lanes, ongpu_n - ongpu_base);\n  \
         const bool ongpu_live = ongpu_lane < ongpu_count;\n  \
         const unsigned long long ongpu_run = ongpu_begin + ongpu_base;\n  \
         [[maybe_unused]] const unsigned long long ongpu_site = ongpu_run + (ongpu_live ? ongpu_lane : 0);\n",
    );
    let read: Vec<&StagedField> = fields.iter().filter(|f| f.read()).collect();
    let written: Vec<&StagedField> = fields.iter().filter(|f| f.written()).collect();
    for f in &read {
        let (name, scalar, c) = (f.name, f.scalar, f.components);
        let _ = writeln!(
            s,
            "  ongpu::stage_in<{scalar}, {}>({}, ongpu_p_{name} + ongpu_run * {c}, ongpu_count * {c}, ongpu_lane, ongpu_lanes);",
            f.write.is_none(),
            f.part()
        );
    }
    s.push_str("  __syncwarp(ongpu_mask);\n");
    for f in &read {
        let _ = writeln!(
            s,
            "  const {element} ongpu_in_{name} = ongpu::load<ongpu::AoS, {element} >({}, ongpu_lane, 0);",
            f.part(),
            element = f.element,
            name = f.name,
        );
    }
    for f in &written {
        let _ = writeln!(s, "  {} ongpu_out_{}{{}};", f.element, f.name);
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
    for f in &written {
        let _ = writeln!(
            s,
            "  if (ongpu_live) ongpu::store<ongpu::AoS, {element} >({}, ongpu_lane, 0, ongpu_out_{name});",
            f.part(),
            element = f.element,
            name = f.name,
        );
    }
    if !written.is_empty() {
        s.push_str("  __syncwarp(ongpu_mask);\n");
    }
    for f in &written {
        let (name, scalar, c) = (f.name, f.scalar, f.components);
        let _ = writeln!(
            s,
            "  ongpu::stage_out<{scalar}>(ongpu_p_{name} + ongpu_run * {c}, {}, ongpu_count * {c}, ongpu_lane, ongpu_lanes);",
            f.part()
        );
    }
    // The next run's copies must not overwrite what this one still reads.
    s.push_str("  __syncwarp(ongpu_mask);\n}\n");
    Some(s)
}
