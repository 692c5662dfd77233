//! The CUDA C++ source of a reduction kernel: the prelude and `cuda/reduce.cuh`, the types of
//! the value and the accumulator, and a grid-stride loop in which each thread adds its sites'
//! values into a register, then `ongpu::red::finish` (block tree, one partial per block, the
//! last block combines the partials and writes the result).

use crate::capture::CaptureKind;
use crate::kernel_source::{
    kernel_real, push_device_fns, sites_per_iteration, KERNEL_NAME, PRELUDE,
};
use crate::site::SiteInfo;
use std::fmt::Write;

/// Device code of reductions, appended to the prelude in reduction kernels.
pub const REDUCE_CUH: &str = include_str!("../../cuda/reduce.cuh");

/// What the source needs to know of the reduction, from [`Reduction`](super::Reduction).
#[derive(Debug, Clone, Copy)]
pub struct ReductionKind {
    /// `sum`, `min` or `max`.
    pub keyword: &'static str,
    /// The CUDA operation (`ongpu::red::Sum`).
    pub op: &'static str,
    /// CUDA type of a site's value.
    pub value: &'static str,
    /// CUDA type of the accumulator.
    pub acc: &'static str,
    /// CUDA spelling of the identity.
    pub identity: &'static str,
}

/// The source of the reduction kernel of `site` for captures of the given kinds. Its
/// parameters are the captures' (as in element-wise kernels), `n`, the partials buffer, the
/// block counter and the result's address.
pub fn reduction(site: &SiteInfo, kinds: &[CaptureKind], red: &ReductionKind) -> String {
    let mut s = String::with_capacity(PRELUDE.len() + REDUCE_CUH.len() + 4096);
    let _ = writeln!(
        s,
        "// ongpu: kernel of on_gpu!({}: ...) at {}",
        red.keyword, site.location
    );
    s.push_str(PRELUDE);
    s.push_str(REDUCE_CUH);
    let _ = writeln!(
        s,
        "\ntypedef {} ongpu_real;\ntypedef {} ongpu_value;\ntypedef {} ongpu_acc;",
        kernel_real(kinds).cuda_name(),
        red.value,
        red.acc
    );
    push_device_fns(&mut s, site.device_fns);

    let mut params = Vec::new();
    let mut loads = String::new();
    let mut stores = String::new();
    if let Some(i) = site.site_index {
        let _ = writeln!(loads, "const unsigned long long {i} = ongpu_site;");
    }
    for (kind, name) in kinds.iter().zip(site.cuda_names) {
        match kind {
            CaptureKind::Field {
                scalar,
                element,
                layout,
                write,
                ..
            } => {
                let constness = if write.is_some() { "" } else { "const " };
                params.push(format!("{constness}{scalar}* __restrict__ ongpu_p_{name}"));
                params.push(format!("unsigned long long ongpu_s_{name}"));
                if *write == Some(false) {
                    let _ = writeln!(loads, "{element} {name}{{}};");
                } else {
                    let _ = writeln!(
                        loads,
                        "{element} {name} = ongpu::load<{layout}, {element} >(ongpu_p_{name}, ongpu_site, ongpu_s_{name});"
                    );
                }
                if write.is_some() {
                    let _ = writeln!(
                        stores,
                        "ongpu::store<{layout} >(ongpu_p_{name}, ongpu_site, ongpu_s_{name}, {name});"
                    );
                }
            }
            CaptureKind::Value { cuda_type } => params.push(format!("const {cuda_type} {name}")),
        }
    }
    params.push("unsigned long long ongpu_n".to_string());
    params.push("ongpu_acc* __restrict__ ongpu_partials".to_string());
    params.push("unsigned int* __restrict__ ongpu_ticket".to_string());
    params.push("ongpu_acc* __restrict__ ongpu_result".to_string());

    // One site: load, the body as a lambda returning the value, store, accumulate.
    let mut site_code = loads;
    site_code.push_str("const ongpu_value ongpu_v = [&]() -> ongpu_value {\n");
    for line in site.body.lines() {
        let _ = writeln!(site_code, "  {line}");
    }
    site_code.push_str("}();\n");
    site_code.push_str(&stores);
    let _ = writeln!(
        site_code,
        "ongpu_a = {}::combine(ongpu_a, ongpu::red::lift<ongpu_acc>(ongpu_v));",
        red.op
    );

    let indent = |code: &str, by: &str| {
        code.lines()
            .map(|l| format!("{by}{l}\n"))
            .collect::<String>()
    };
    let k = sites_per_iteration(kinds);
    let _ = writeln!(s, "\nextern \"C\" __global__ void {KERNEL_NAME}(");
    let _ = writeln!(s, "    {}) {{", params.join(",\n    "));
    let _ = writeln!(s, "  ongpu_acc ongpu_a = {};", red.identity);
    s.push_str(
        "  const unsigned long long ongpu_step = (unsigned long long)gridDim.x * blockDim.x;\n",
    );
    s.push_str("  unsigned long long ongpu_first = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;\n");
    if k > 1 {
        let _ = writeln!(
            s,
            "  for (; ongpu_first + {} * ongpu_step < ongpu_n; ongpu_first += {k} * ongpu_step) {{",
            k - 1
        );
        s.push_str("#pragma unroll\n");
        let _ = writeln!(s, "    for (int ongpu_u = 0; ongpu_u < {k}; ongpu_u++) {{");
        s.push_str(
            "      const unsigned long long ongpu_site = ongpu_first + ongpu_u * ongpu_step;\n",
        );
        s.push_str(&indent(&site_code, "      "));
        s.push_str("    }\n  }\n");
    }
    s.push_str("  for (; ongpu_first < ongpu_n; ongpu_first += ongpu_step) {\n");
    s.push_str("    const unsigned long long ongpu_site = ongpu_first;\n");
    s.push_str(&indent(&site_code, "    "));
    s.push_str("  }\n");
    let _ = writeln!(
        s,
        "  ongpu::red::finish<{}>(ongpu_a, ({}), ongpu_partials, ongpu_ticket, ongpu_result);\n}}",
        red.op, red.identity
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::element::RealKind;
    use crate::error::Location;

    #[test]
    fn accumulates_the_body_value_and_finishes() {
        let site = SiteInfo {
            location: Location {
                file: "t.rs",
                line: 1,
                column: 1,
            },
            captures: &["x", "r"],
            cuda_names: &["x", "r"],
            site_index: Some("i"),
            body: "r = x * 2.0f;\nreturn r;",
            device_fns: &[],
        };
        let field = |write| CaptureKind::Field {
            scalar: "float",
            element: "float".into(),
            layout: "ongpu::AoSoA<32>".into(),
            components: 1,
            real: Some(RealKind::F32),
            write,
        };
        let red = ReductionKind {
            keyword: "sum",
            op: "ongpu::red::Sum",
            value: "float",
            acc: "double",
            identity: "ongpu_acc{}",
        };
        let src = reduction(&site, &[field(None), field(Some(false))], &red);
        assert!(src.contains("typedef float ongpu_value;\ntypedef double ongpu_acc;"));
        assert!(src.contains("const float* __restrict__ ongpu_p_x"));
        assert!(src.contains("float r{};"), "written whole: not loaded");
        assert!(src.contains("ongpu::store<ongpu::AoSoA<32> >(ongpu_p_r"));
        assert!(src.contains("const ongpu_value ongpu_v = [&]() -> ongpu_value {"));
        assert!(src.contains(
            "ongpu_a = ongpu::red::Sum::combine(ongpu_a, ongpu::red::lift<ongpu_acc>(ongpu_v));"
        ));
        assert!(src.contains("ongpu::red::finish<ongpu::red::Sum>(ongpu_a, (ongpu_acc{})"));
        assert!(!src.contains("atomicAdd"), "no floating-point atomics");
    }
}
