//! The staged loop of element-wise kernels with AoS fields of large elements (an AoS
//! `ColorMatrix<f32>` field is 72 bytes a site): read one scalar at a time, a warp's loads of
//! such a field touch 32 addresses 72 bytes apart each, and the kernel runs at a third of the
//! memory's speed. A CUDA programmer stages a block's sites instead: they are one
//! contiguous run of each field, which the block copies through shared memory with 16-byte
//! accesses (`stage_in`, `stage_out` in `staging.cuh`), each thread taking its element
//! there. One buffer of `threads × the largest element` is reused for each staged field in
//! turn, read fields before the body and written ones after it. The loop is block-uniform
//! (a block's threads meet at every barrier), one site per thread.

use crate::capture::CaptureKind;
use crate::launch::site::SiteInfo;
use std::fmt::Write;

/// The bytes of the smallest element worth staging (a `Complex<f64>` or a `ColorVector`).
const MIN_STAGED_BYTES: usize = 16;

/// A staged loop.
pub struct Staged {
    /// The loop, which runs every site.
    pub code: String,
    /// Shared memory per thread of the block.
    pub bytes_per_thread: usize,
}

/// The AoS fields of `kinds` worth staging, by C++ name, with their scalar, element type,
/// components and access.
fn staged_fields<'a>(
    site: &'a SiteInfo,
    kinds: &'a [CaptureKind],
) -> Vec<(&'a str, &'a str, &'a str, usize, Option<bool>)> {
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

/// The staged loop of `site` over `kinds`, or `None` if no field is worth staging.
/// `site_code` is given the parts of [`super::source::site_parts_staged`] with the staged
/// names.
pub fn staged_loop(site: &SiteInfo, kinds: &[CaptureKind]) -> Option<Staged> {
    let fields = staged_fields(site, kinds);
    if fields.is_empty() {
        return None;
    }
    let names: Vec<&str> = fields.iter().map(|f| f.0).collect();
    let parts = super::source::site_parts_staged(site, kinds, &names);
    let bytes_per_thread = fields
        .iter()
        .map(|(_, scalar, _, c, _)| c * if *scalar == "double" { 8 } else { 4 })
        .max()
        .expect("not empty");
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
    for (name, scalar, element, c, write) in &fields {
        let run = format!("ongpu_p_{name} + ongpu_run * {c}");
        let sh = format!("reinterpret_cast<{scalar}*>(ongpu_stage)");
        match write {
            Some(false) => {}
            _ => {
                let _ = writeln!(
                    s,
                    "  ongpu::stage_in<{scalar}, {}>({sh}, {run}, ongpu_count * {c});\n  \
                     __syncthreads();\n  \
                     const {element} ongpu_staged_{name} = ongpu::load<ongpu::AoS, {element} >({sh}, threadIdx.x, 0);\n  \
                     __syncthreads();",
                    write.is_none()
                );
            }
        }
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
    for (name, scalar, element, c, write) in &fields {
        if write.is_some() {
            let sh = format!("reinterpret_cast<{scalar}*>(ongpu_stage)");
            let _ = writeln!(
                s,
                "  if (ongpu_live) ongpu::store<ongpu::AoS, {element} >({sh}, threadIdx.x, 0, ongpu_out_{name});\n  \
                 __syncthreads();\n  \
                 ongpu::stage_out<{scalar}>(ongpu_p_{name} + ongpu_run * {c}, {sh}, ongpu_count * {c});\n  \
                 __syncthreads();"
            );
        }
    }
    s.push_str("}\n");
    Some(Staged {
        code: s,
        bytes_per_thread,
    })
}
