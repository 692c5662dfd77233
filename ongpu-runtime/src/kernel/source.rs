//! The CUDA C++ source of an explicit kernel: the prelude, the kernel helpers (atomics,
//! bounds checks), the kernel's real type, its constants and shared-array extents (values
//! that Rust evaluated), the device functions it calls, and the translated body under a
//! signature built from the parameters' types.

use super::args::ParamKind;
use super::call_site::KernelInfo;
use crate::element::RealKind;
use crate::launch::source::{preamble, push_device_fns, widest_real, KERNEL_NAME, PRELUDE};
use std::fmt::Write;

/// The C++ helpers of explicit kernels (after the prelude).
pub const KERNEL_HEADER: &str = include_str!("../../cuda/kernel.cuh");

/// The kernel's real type (that of unsuffixed float literals nothing else types): the
/// widest float among the arrays' elements, else among the values, else `double`.
pub fn kernel_real(kinds: &[ParamKind]) -> RealKind {
    widest_real(
        kinds.iter().map(|k| match k {
            ParamKind::Slice { real, .. } => *real,
            ParamKind::Value { .. } => None,
        }),
        kinds.iter().filter_map(|k| match k {
            ParamKind::Value { cuda_type } => Some(cuda_type.as_str()),
            ParamKind::Slice { .. } => None,
        }),
    )
}

/// The complete source of `info`'s kernel for parameters of `kinds`, with bounds checks
/// compiled in if `checked`.
pub fn assemble(info: &KernelInfo, kinds: &[ParamKind], checked: bool) -> String {
    let mut s = String::with_capacity(PRELUDE.len() + KERNEL_HEADER.len() + 4096);
    let _ = writeln!(s, "// ongpu: kernel `{}` at {}", info.name, info.location);
    preamble(
        &mut s,
        checked,
        info.prints.is_some(),
        KERNEL_HEADER,
        kernel_real(kinds),
    );
    for c in info.consts {
        let _ = writeln!(s, "{}", c.value.cuda_definition(c.cuda_name));
    }
    for (k, shared) in info.shared.iter().enumerate() {
        let _ = writeln!(s, "typedef {} ongpu_shared_t_{k};", (shared.element)());
        for (d, n) in shared.dims.iter().enumerate() {
            let _ = writeln!(
                s,
                "constexpr unsigned long long ongpu_shared_{k}_{d} = {n}ull;"
            );
        }
    }
    push_device_fns(&mut s, info.device_fns);

    let mut params = Vec::with_capacity(2 * kinds.len() + 1);
    for (kind, name) in kinds.iter().zip(info.cuda_params) {
        match kind {
            ParamKind::Slice { element, write, .. } => {
                let constness = if *write { "" } else { "const " };
                params.push(format!("{constness}{element}* __restrict__ {name}"));
                params.push(format!("const unsigned long long ongpu_len_{name}"));
            }
            ParamKind::Value { cuda_type } => params.push(format!("{cuda_type} {name}")),
        }
    }
    params.push("ongpu::BoundsReport* ongpu_bounds".to_string());
    let _ = writeln!(s, "\nextern \"C\" __global__ void {KERNEL_NAME}(");
    let _ = writeln!(s, "    {}) {{", params.join(",\n    "));
    for line in info.body.lines() {
        let _ = writeln!(s, "  {line}");
    }
    s.push_str("}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Location;
    use crate::kernel::call_site::{ConstRef, SharedDecl};

    static TILE: usize = 16;
    static INFO: KernelInfo = KernelInfo {
        name: "k",
        location: Location {
            file: "k.rs",
            line: 3,
            column: 1,
        },
        params: &["a", "c", "n"],
        cuda_params: &["a", "c", "n"],
        body: "c[0] = a[0] * n;",
        device_fns: &[],
        consts: &[ConstRef {
            cuda_name: "ongpu_c_TILE",
            value: &TILE,
        }],
        shared: &[SharedDecl {
            name: "t",
            dims: &[4, 16],
            element: || "float".to_string(),
            element_bytes: 4,
        }],
        barrier_lines: &[],
        prints: None,
    };

    #[test]
    fn signature_constants_and_shared_extents() {
        let kinds = vec![
            ParamKind::Slice {
                element: "float".into(),
                real: Some(RealKind::F32),
                write: false,
            },
            ParamKind::Slice {
                element: "float".into(),
                real: Some(RealKind::F32),
                write: true,
            },
            ParamKind::Value {
                cuda_type: "unsigned int".into(),
            },
        ];
        let s = assemble(&INFO, &kinds, true);
        assert!(s.contains("#define ONGPU_CHECK_BOUNDS 1"), "{s}");
        assert!(s.contains("typedef float ongpu_real;"));
        assert!(
            s.contains("constexpr unsigned long long ongpu_c_TILE = (unsigned long long)16ull;")
        );
        assert!(s.contains("typedef float ongpu_shared_t_0;"));
        assert!(s.contains("constexpr unsigned long long ongpu_shared_0_1 = 16ull;"));
        assert!(
            s.contains("const float* __restrict__ a,\n    const unsigned long long ongpu_len_a")
        );
        assert!(s.contains("float* __restrict__ c,"));
        assert!(s.contains("unsigned int n,\n    ongpu::BoundsReport* ongpu_bounds) {"));
        assert!(s.contains("  c[0] = a[0] * n;\n}"));
        assert!(assemble(&INFO, &kinds, false).contains("#define ONGPU_CHECK_BOUNDS 0"));
    }

    #[test]
    fn real_type_prefers_arrays_then_values() {
        let v = |t: &str| ParamKind::Value {
            cuda_type: t.into(),
        };
        let a = |r| ParamKind::Slice {
            element: "x".into(),
            real: r,
            write: false,
        };
        assert_eq!(
            kernel_real(&[a(Some(RealKind::F32)), v("double")]),
            RealKind::F32
        );
        assert_eq!(kernel_real(&[a(None), v("float")]), RealKind::F32);
        assert_eq!(kernel_real(&[a(None)]), RealKind::F64);
    }
}
