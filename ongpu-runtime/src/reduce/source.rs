//! The CUDA C++ source of a reduction kernel: the prelude and `cuda/reduce.cuh`, the types of
//! the value and the accumulator, and a grid-stride loop in which each thread adds its sites'
//! values into a register, then `ongpu::red::finish` (block tree, one partial per block, the
//! last block combines the partials and writes the result).

use crate::capture::CaptureKind;
use crate::launch::call_site::SiteInfo;
use crate::launch::source::{
    header, site_loop, site_parts, sites_per_iteration, SiteParts, SITE_PARAMS,
};
use std::fmt::Write;

/// Device code of reductions, appended to the prelude in reduction kernels.
pub const REDUCE_CUH: &str = include_str!("../../cuda/reduce.cuh");

/// Device code of exact sums, appended after [`REDUCE_CUH`] in exact-sum kernels.
#[cfg(all(feature = "mpi", feature = "cuda"))]
pub const EXACT_CUH: &str = include_str!("../../cuda/exact.cuh");

/// What the source needs to know of the reduction, from [`Reduction`](super::Reduction).
#[derive(Debug, Clone, Copy)]
pub struct ReductionKind {
    /// The CUDA operation (`ongpu::red::Sum`).
    pub op: &'static str,
    /// CUDA type of a site's value.
    pub value: &'static str,
    /// CUDA type of the accumulator.
    pub acc: &'static str,
    /// CUDA spelling of the identity.
    pub identity: &'static str,
}

/// A reduction kernel's parameters (the captures', the site parameters, then the partials,
/// the block counter and the result, whose words are of type `word`) and one site's code:
/// the loads, `target = ` the body as a lambda returning the site's value, the stores.
fn value_site(
    site: &SiteInfo,
    kinds: &[CaptureKind],
    word: &str,
    target: &str,
) -> (Vec<String>, String) {
    let SiteParts {
        mut params,
        loads,
        stores,
    } = site_parts(site, kinds);
    params.extend(SITE_PARAMS.map(String::from));
    params.push(format!("{word}* __restrict__ ongpu_partials"));
    params.push("unsigned int* __restrict__ ongpu_ticket".to_string());
    params.push(format!("{word}* __restrict__ ongpu_result"));
    let mut site_code = loads;
    let _ = writeln!(site_code, "{target} = [&]() -> ongpu_value {{");
    for line in site.body.lines() {
        let _ = writeln!(site_code, "  {line}");
    }
    site_code.push_str("}();\n");
    site_code.push_str(&stores);
    (params, site_code)
}

/// The source of the reduction kernel of `site` for captures of the given kinds. Its
/// parameters are the captures' (as in element-wise kernels), `n`, the partials buffer, the
/// block counter and the result's address.
pub fn reduction(
    site: &SiteInfo,
    kinds: &[CaptureKind],
    red: &ReductionKind,
    checked: bool,
) -> String {
    let mut s = header(site, kinds, REDUCE_CUH, checked);
    let _ = writeln!(
        s,
        "typedef {} ongpu_value;\ntypedef {} ongpu_acc;",
        red.value, red.acc
    );
    // One site: load, the body as a lambda returning the value, store, accumulate.
    let (params, mut site_code) = value_site(site, kinds, "ongpu_acc", "const ongpu_value ongpu_v");
    let _ = writeln!(
        site_code,
        "ongpu_a = {}::combine(ongpu_a, ongpu::red::lift<ongpu_acc>(ongpu_v));",
        red.op
    );
    let prologue = format!("ongpu_acc ongpu_a = {};", red.identity);
    let epilogue = format!(
        "ongpu::red::finish<{}>(ongpu_a, ({}), ongpu_partials, ongpu_ticket, ongpu_result);",
        red.op, red.identity
    );
    s.push_str(&site_loop(
        &params,
        &site_code,
        sites_per_iteration(kinds),
        &prologue,
        &epilogue,
    ));
    s
}

/// The source of the exact-sum kernel of `site` (sums over ranks on the GPU): each site's
/// value of CUDA type `value` goes into `parts` exact sums in the block's shared memory
/// (`ongpu::red::exact`), whose digits the last block adds and writes to the result in the
/// host's [`ExactSum`](super::ExactSum) layout. Its parameters are those of
/// [`reduction`]'s kernel, the partials and the result as `long long` words.
///
/// A block's threads run the same number of iterations (a thread past the last site adds
/// zero), so that its warps add their values together.
#[cfg(all(feature = "mpi", feature = "cuda"))]
pub fn exact_reduction(
    site: &SiteInfo,
    kinds: &[CaptureKind],
    value: &str,
    parts: usize,
    checked: bool,
) -> String {
    let mut s = header(site, kinds, &format!("{REDUCE_CUH}{EXACT_CUH}"), checked);
    let _ = writeln!(s, "typedef {value} ongpu_value;");
    let (params, site_code) = value_site(site, kinds, "long long", "ongpu_v");
    let _ = writeln!(
        s,
        "\nextern \"C\" __global__ void {}(\n    {}) {{",
        crate::launch::source::KERNEL_NAME,
        params.join(",\n    ")
    );
    s.push_str(
        "  __shared__ ongpu::red::exact::block_sums ongpu_sums;\n  \
         ongpu::red::exact::clear(ongpu_sums);\n  \
         const unsigned long long ongpu_step = (unsigned long long)gridDim.x * blockDim.x;\n  \
         for (unsigned long long ongpu_block = (unsigned long long)blockIdx.x * blockDim.x; \
         ongpu_block < ongpu_n; ongpu_block += ongpu_step) {\n    \
         const unsigned long long ongpu_first = ongpu_block + threadIdx.x;\n    \
         ongpu_value ongpu_v{};\n    \
         if (ongpu_first < ongpu_n) {\n",
    );
    let _ = writeln!(
        s,
        "      const unsigned long long ongpu_site = {};",
        crate::launch::source::site_of("(ongpu_begin + ongpu_first)")
    );
    for line in site_code.lines() {
        let _ = writeln!(s, "      {line}");
    }
    let _ = writeln!(
        s,
        "    }}\n    ongpu::red::exact::add(ongpu_sums, ongpu_v);\n  }}\n  \
         ongpu::red::exact::finish<{parts}>(ongpu_sums, ongpu_partials, ongpu_ticket, \
         ongpu_result);\n}}"
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
            entry_stores: &[],
            site_index: Some("i"),
            body: "r = x * 2.0f;\nreturn r;",
            device_fns: &[],
            prints: None,
            lowering: crate::Lowering::LaneMajor,
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
            op: "ongpu::red::Sum",
            value: "float",
            acc: "double",
            identity: "ongpu_acc{}",
        };
        let src = reduction(&site, &[field(None), field(Some(false))], &red, false);
        assert!(src.contains("typedef float ongpu_value;\ntypedef double ongpu_acc;"));
        assert!(src.contains("const float* __restrict__ ongpu_p_x"));
        assert!(src.contains("float r{};"), "written whole: not loaded");
        assert!(src.contains("ongpu::store<ongpu::AoSoA<32> >(ongpu_p_r"));
        assert!(src.contains("const ongpu_value ongpu_v = [&]() -> ongpu_value {"));
        assert!(src.contains(
            "ongpu_a = ongpu::red::Sum::combine(ongpu_a, ongpu::red::lift<ongpu_acc>(ongpu_v));"
        ));
        assert!(src.contains("ongpu::red::finish<ongpu::red::Sum>(ongpu_a, (ongpu_acc{})"));
        // (The prelude's print buffer, compiled only in kernels that print, has an atomic.)
        let own = src.replace(crate::launch::source::PRELUDE, "");
        assert!(!own.contains("atomicAdd"), "no floating-point atomics");
    }

    #[cfg(all(feature = "mpi", feature = "cuda"))]
    #[test]
    fn the_exact_sum_kernels_compile_for_real_and_complex_values() {
        use crate::cuda::nvrtc;
        if !nvrtc::available() {
            eprintln!("NVRTC is not available: the exact-sum kernels are not compiled here");
            return;
        }
        let x = CaptureKind::Field {
            scalar: "float",
            element: "float".into(),
            layout: "ongpu::AoSoA<32>".into(),
            components: 1,
            real: Some(RealKind::F32),
            write: None,
        };
        for (value, parts, body) in [
            ("float", 1, "return x;"),
            ("double", 1, "return 0.5 * x;"),
            (
                "ongpu::complex<float>",
                2,
                "return ongpu::complex<float>{x, -x};",
            ),
        ] {
            let site = SiteInfo {
                location: Location {
                    file: "t.rs",
                    line: 1,
                    column: 1,
                },
                captures: &["x"],
                cuda_names: &["x"],
                entry_stores: &[],
                site_index: None,
                body,
                device_fns: &[],
                prints: None,
                lowering: crate::Lowering::LaneMajor,
            };
            for checked in [false, true] {
                let src = exact_reduction(&site, std::slice::from_ref(&x), value, parts, checked);
                assert!(src.contains(&format!("finish<{parts}>")));
                nvrtc::compile(&src, "sm_90", "an exact sum", &[])
                    .unwrap_or_else(|e| panic!("{e}\n{src}"));
            }
        }
    }
}
