//! Assembly of a kernel's CUDA C++ source: the prelude, the kernel's real type, the device
//! functions it calls, and a grid-stride loop that loads each captured field's element,
//! runs the translated body and stores the written fields back.

use crate::capture::CaptureKind;
use crate::element::RealKind;
use crate::site::{DeviceFnInfo, SiteInfo};
use std::fmt::Write;

/// The CUDA C++ prelude every kernel starts with (types, operators, layouts, maths).
pub const PRELUDE: &str = include_str!("../cuda/prelude.cuh");

/// Name of the generated kernel function.
pub const KERNEL_NAME: &str = "ongpu_kernel";

/// The kernel's real type: the widest float among the captured fields, else among the
/// captured values, else `double` (Rust's own default for an unconstrained float literal).
pub fn kernel_real(kinds: &[CaptureKind]) -> RealKind {
    let fields = kinds.iter().filter_map(|k| match k {
        CaptureKind::Field { real, .. } => *real,
        CaptureKind::Value { .. } => None,
    });
    let values = kinds.iter().filter_map(|k| match k {
        CaptureKind::Value { cuda_type } => real_of_cuda_type(cuda_type),
        CaptureKind::Field { .. } => None,
    });
    fields.max().or_else(|| values.max()).unwrap_or(RealKind::F64)
}

fn real_of_cuda_type(t: &str) -> Option<RealKind> {
    if t == "double" || t.contains("<double>") {
        Some(RealKind::F64)
    } else if t == "float" || t.contains("<float>") {
        Some(RealKind::F32)
    } else {
        None
    }
}

/// Appends the definitions of `fns` and everything they call, each once, callees first.
pub fn push_device_fns(out: &mut String, fns: &[&'static DeviceFnInfo]) {
    fn visit(out: &mut String, f: &'static DeviceFnInfo, seen: &mut Vec<*const DeviceFnInfo>) {
        let id = f as *const DeviceFnInfo;
        if seen.contains(&id) {
            return;
        }
        seen.push(id);
        for &g in f.calls {
            visit(out, g, seen);
        }
        out.push_str(f.source);
        out.push('\n');
    }
    let mut seen = Vec::new();
    for &f in fns {
        visit(out, f, &mut seen);
    }
}

/// The source of the element-wise kernel of `site` for captures of the given kinds.
pub fn elementwise(site: &SiteInfo, kinds: &[CaptureKind]) -> String {
    let mut s = String::with_capacity(PRELUDE.len() + 2048);
    let _ = writeln!(s, "// ongpu: kernel of on_gpu! at {}", site.location);
    s.push_str(PRELUDE);
    let _ = writeln!(s, "\ntypedef {} ongpu_real;", kernel_real(kinds).cuda_name());
    push_device_fns(&mut s, site.device_fns);

    let mut params = Vec::new();
    let mut loads = String::new();
    let mut stores = String::new();
    for (kind, name) in kinds.iter().zip(site.cuda_names) {
        match kind {
            CaptureKind::Field { scalar, element, layout, write, .. } => {
                let constness = if write.is_some() { "" } else { "const " };
                params.push(format!("{constness}{scalar}* __restrict__ ongpu_p_{name}"));
                params.push(format!("unsigned long long ongpu_s_{name}"));
                let load = format!("ongpu::load<{layout}, {element} >(ongpu_p_{name}, ongpu_site, ongpu_s_{name})");
                match write {
                    Some(false) => {
                        let _ = writeln!(loads, "    {element} {name}{{}};");
                    }
                    _ => {
                        let _ = writeln!(loads, "    {element} {name} = {load};");
                    }
                }
                if write.is_some() {
                    let _ = writeln!(stores, "    ongpu::store<{layout} >(ongpu_p_{name}, ongpu_site, ongpu_s_{name}, {name});");
                }
            }
            CaptureKind::Value { cuda_type } => params.push(format!("const {cuda_type} {name}")),
        }
    }
    params.push("unsigned long long ongpu_n".to_string());

    let _ = writeln!(s, "\nextern \"C\" __global__ void {KERNEL_NAME}(");
    let _ = writeln!(s, "    {}) {{", params.join(",\n    "));
    s.push_str("  const unsigned long long ongpu_step = (unsigned long long)gridDim.x * blockDim.x;\n");
    s.push_str(
        "  for (unsigned long long ongpu_site = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;\n       \
         ongpu_site < ongpu_n; ongpu_site += ongpu_step) {\n",
    );
    if let Some(i) = site.site_index {
        let _ = writeln!(s, "    const unsigned long long {i} = ongpu_site;");
    }
    s.push_str(&loads);
    s.push_str("    {\n");
    for line in site.body.lines() {
        let _ = writeln!(s, "      {line}");
    }
    s.push_str("    }\n");
    s.push_str(&stores);
    s.push_str("  }\n}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Location;

    fn site() -> SiteInfo {
        SiteInfo {
            location: Location { file: "t.rs", line: 1, column: 1 },
            captures: &["x", "y", "a"],
            cuda_names: &["x", "y", "a"],
            site_index: Some("i"),
            body: "x += y * a;",
            device_fns: &[],
        }
    }

    #[test]
    fn loads_runs_and_stores() {
        let kinds = vec![
            CaptureKind::Field {
                scalar: "float",
                element: "float".into(),
                layout: "ongpu::AoS".into(),
                real: Some(RealKind::F32),
                write: Some(true),
            },
            CaptureKind::Field {
                scalar: "float",
                element: "float".into(),
                layout: "ongpu::SoA".into(),
                real: Some(RealKind::F32),
                write: None,
            },
            CaptureKind::Value { cuda_type: "float".into() },
        ];
        let src = elementwise(&site(), &kinds);
        assert!(src.contains("typedef float ongpu_real;"));
        assert!(src.contains("const float* __restrict__ ongpu_p_y"));
        assert!(src.contains("float* __restrict__ ongpu_p_x"));
        assert!(src.contains("const float a"));
        assert!(src.contains("const unsigned long long i = ongpu_site;"));
        assert!(src.contains("ongpu::store<ongpu::AoS >(ongpu_p_x"));
        assert!(!src.contains("ongpu::store<ongpu::SoA >(ongpu_p_y"));
    }

    #[test]
    fn real_type_is_widest_field_then_value() {
        let f = |r| CaptureKind::Field {
            scalar: "x",
            element: "x".into(),
            layout: "x".into(),
            real: r,
            write: None,
        };
        assert_eq!(kernel_real(&[f(Some(RealKind::F32)), f(Some(RealKind::F64))]), RealKind::F64);
        assert_eq!(kernel_real(&[f(None), CaptureKind::Value { cuda_type: "float".into() }]), RealKind::F32);
        assert_eq!(kernel_real(&[f(None)]), RealKind::F64);
    }
}
