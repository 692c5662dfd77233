//! The 16-byte path of element-wise kernels whose fields all hold one 4-byte scalar per
//! site (`c = a + b` on `f32`): each thread takes four consecutive sites at a time, reads
//! every field's four values as one 16-byte vector, runs the body for the four sites in
//! registers and writes each written field's four values as one vector. Fewer, wider
//! accesses are what a tuned copy kernel does; the plain loop finishes the sites left over
//! (and runs everything when a pointer or the first site is not aligned to 16 bytes).

use crate::capture::CaptureKind;
use crate::launch::call_site::SiteInfo;
use std::fmt::Write;

/// The scalar types the path reads as vectors of four, with their vector type.
const VECTORS: [(&str, &str); 3] = [
    ("float", "float4"),
    ("int", "int4"),
    ("unsigned int", "uint4"),
];

/// The code that runs the quads of sites, before the plain loop (which it leaves at the
/// first site after them), or `None` if some field is not of a 4-byte scalar.
pub fn quad_loop(site: &SiteInfo, kinds: &[CaptureKind]) -> Option<String> {
    let mut fields = Vec::new();
    for (kind, name) in kinds.iter().zip(site.cuda_names) {
        if let CaptureKind::Field {
            scalar,
            element,
            components: 1,
            write,
            ..
        } = kind
        {
            let (_, vector) = VECTORS
                .iter()
                .find(|(s, _)| s == scalar && element == scalar)?;
            fields.push((*name, *scalar, *vector, *write));
        } else if matches!(kind, CaptureKind::Field { .. }) {
            return None;
        }
    }
    if fields.is_empty() {
        return None;
    }
    let mut s = String::new();
    let aligned: Vec<String> = fields
        .iter()
        .map(|(name, ..)| format!("(unsigned long long)ongpu_p_{name}"))
        .collect();
    let _ = writeln!(
        s,
        "// 4 consecutive sites per thread, each field as one 16-byte vector\n\
         if (!ongpu_box.half && ongpu_begin % 4 == 0 && (({}) & 15) == 0) {{",
        aligned.join(" | ")
    );
    s.push_str("  const unsigned long long ongpu_quads = ongpu_n / 4;\n");
    s.push_str("  for (; ongpu_first < ongpu_quads; ongpu_first += ongpu_step) {\n");
    s.push_str("    const unsigned long long ongpu_q = ongpu_begin + 4 * ongpu_first;\n");
    for (name, _, vector, write) in &fields {
        let _ = match write {
            None | Some(true) => writeln!(
                s,
                "    {vector} ongpu_v_{name} = {}(reinterpret_cast<const {vector}*>(ongpu_p_{name} + ongpu_q));",
                if write.is_none() { "__ldg" } else { "*" }
            ),
            Some(false) => writeln!(s, "    {vector} ongpu_v_{name};"),
        };
    }
    // Each site takes its fields' values from the vectors (`ongpu_in_<name>`) and leaves the
    // written ones (`ongpu_out_<name>`); the rest of a site is the plain loop's.
    let names: Vec<&str> = fields.iter().map(|f| f.0).collect();
    let parts = super::source::site_parts_supplied(site, kinds, &names);
    s.push_str("#pragma unroll\n    for (int ongpu_u = 0; ongpu_u < 4; ongpu_u++) {\n");
    s.push_str("      [[maybe_unused]] const unsigned long long ongpu_site = ongpu_q + ongpu_u;\n");
    for (name, scalar, _, write) in &fields {
        if *write != Some(false) {
            let _ = writeln!(
                s,
                "      const {scalar} ongpu_in_{name} = reinterpret_cast<const {scalar}*>(&ongpu_v_{name})[ongpu_u];"
            );
        }
        if write.is_some() {
            let _ = writeln!(s, "      {scalar} ongpu_out_{name}{{}};");
        }
    }
    for line in parts.loads.lines() {
        let _ = writeln!(s, "      {line}");
    }
    s.push_str("      {\n");
    for line in site.body.lines() {
        let _ = writeln!(s, "        {line}");
    }
    s.push_str("      }\n");
    for line in parts.stores.lines() {
        let _ = writeln!(s, "      {line}");
    }
    for (name, scalar, _, write) in &fields {
        if write.is_some() {
            let _ = writeln!(
                s,
                "      reinterpret_cast<{scalar}*>(&ongpu_v_{name})[ongpu_u] = ongpu_out_{name};"
            );
        }
    }
    s.push_str("    }\n");
    for (name, _, vector, write) in &fields {
        if write.is_some() {
            let _ = writeln!(
                s,
                "    *reinterpret_cast<{vector}*>(ongpu_p_{name} + ongpu_q) = ongpu_v_{name};"
            );
        }
    }
    s.push_str("  }\n");
    s.push_str(
        "  // the sites after the last quad, one per thread\n  \
         ongpu_first = 4 * ongpu_quads + (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;\n}\n",
    );
    Some(s)
}
