//! Every explicit kernel the kernel programs (and so the examples) launch compiles with the
//! real NVRTC (no GPU needed), for Hopper and Ampere, with and without bounds checks; the
//! unchecked ones without register spills or local memory.

#![cfg(feature = "cuda")]

use crate::kernels;

use crate::support::{check_no_local_memory, check_no_warnings, require_nvrtc};
use ongpu::inspect::{collect_kernel_sources, compile, KernelSource};
use ongpu::{with_backend, with_bounds_checks, Backend};

fn sources(checked: bool) -> Vec<(&'static str, KernelSource)> {
    let mut all = Vec::new();
    for (name, program) in kernels::all() {
        let (_, sources) = collect_kernel_sources(|| {
            with_bounds_checks(checked, || with_backend(Backend::Cpu, program))
        });
        assert!(!sources.is_empty(), "{name} launched no kernel");
        all.extend(sources.into_iter().map(|s| (name, s)));
    }
    all
}

#[test]
fn every_kernel_compiles_checked_and_unchecked() {
    if !require_nvrtc() {
        return;
    }
    let (mut kernels, mut unchecked, mut reported) = (0, 0, 0);
    for checked in [false, true] {
        let mut seen = std::collections::HashSet::new();
        for (name, s) in sources(checked) {
            if !seen.insert(s.source.clone()) {
                continue;
            }
            let mode = if checked { "checked" } else { "unchecked" };
            assert!(
                s.source
                    .contains(&format!("#define ONGPU_CHECK_BOUNDS {}", u8::from(checked))),
                "{name}: the source does not follow the bounds-check mode"
            );
            for arch in ["sm_90", "sm_80"] {
                let log =
                    compile(&s, arch).unwrap_or_else(|e| panic!("{name} ({mode}, {arch}): {e}"));
                check_no_warnings(&format!("{name} ({mode}, {arch})"), &log);
                if !checked {
                    unchecked += 1;
                    reported +=
                        usize::from(check_no_local_memory(&format!("{name} ({arch})"), &log));
                }
            }
            kernels += 1;
        }
    }
    assert!(kernels >= 2 * 14, "only {kernels} kernels compiled");
    assert!(
        2 * reported >= unchecked,
        "ptxas reported on only {reported} of {unchecked} compiles"
    );
}

#[test]
fn the_tiled_kernel_declares_its_tiles_and_barriers() {
    let (_, sources) = collect_kernel_sources(|| {
        with_bounds_checks(false, || {
            with_backend(Backend::Cpu, kernels::matmul_examples)
        })
    });
    let tiled = sources
        .iter()
        .find(|s| s.source.contains("kernel `matmul_tiled`"))
        .expect("the tiled kernel ran");
    let s = &tiled.source;
    assert!(
        s.contains(
            "__shared__ __align__(16) ongpu_shared_t_0 ta[ongpu_shared_0_0][ongpu_shared_0_1];"
        ),
        "{s}"
    );
    assert!(
        s.contains("constexpr unsigned long long ongpu_shared_0_1 = 16ull;"),
        "{s}"
    );
    assert!(
        s.contains("constexpr unsigned long long ongpu_c_TILE = (unsigned long long)16ull;"),
        "{s}"
    );
    assert_eq!(s.matches("__syncthreads();").count(), 2, "{s}");
    assert!(s.contains("const float* __restrict__ a,"), "{s}");
    assert!(s.contains("float* __restrict__ c,"), "{s}");
}

#[test]
fn the_register_tile_stays_in_registers() {
    if !require_nvrtc() {
        return;
    }
    let (_, sources) = collect_kernel_sources(|| {
        with_bounds_checks(false, || with_backend(Backend::Cpu, kernels::local_arrays))
    });
    let tile = sources
        .iter()
        .find(|s| s.source.contains("kernel `register_tile`"))
        .expect("the register tile ran");
    assert!(
        tile.source.contains("auto acc = ongpu::fill<(ongpu_c_TM)>"),
        "{}",
        tile.source
    );
    for arch in ["sm_90", "sm_80"] {
        let log = compile(tile, arch).unwrap();
        assert!(
            check_no_local_memory(&format!("register_tile ({arch})"), &log),
            "ptxas printed no report for register_tile ({arch}):\n{log}"
        );
    }
}

/// The SGEMMs keep their tiles (8×8, and 16×8 in the 256×128 one), fragments and prefetched
/// vectors in registers; the 128×128 one with BK = 8 within 128 of them, so that two
/// blocks of 256 threads share an SM.
#[test]
fn the_sgemms_stay_in_registers() {
    if !require_nvrtc() {
        return;
    }
    let (_, sources) = collect_kernel_sources(|| {
        with_bounds_checks(false, || {
            with_backend(Backend::Cpu, kernels::matmul_examples)
        })
    });
    let mut seen = std::collections::HashSet::new();
    let sgemms: Vec<&KernelSource> = sources
        .iter()
        .filter(|s| s.source.contains("kernel `sgemm`") && seen.insert(s.source.clone()))
        .collect();
    assert_eq!(sgemms.len(), 3, "the three SGEMM variants ran");
    for s in sgemms {
        assert!(
            s.source.contains("ongpu::load4(ONGPU_VEC4(a, "),
            "{}",
            s.source
        );
        for arch in ["sm_90", "sm_80"] {
            let what = format!("sgemm at {} ({arch})", s.location);
            let log = compile(s, arch).unwrap();
            assert!(
                check_no_local_memory(&what, &log),
                "no ptxas report for {what}:\n{log}"
            );
            let registers: u32 = log
                .split("Used ")
                .nth(1)
                .and_then(|r| r.split(' ').next())
                .and_then(|r| r.parse().ok())
                .unwrap_or_else(|| panic!("{what}: no register count in\n{log}"));
            let constant = |name: &str, value: usize| {
                s.source.contains(&format!(
                    "constexpr unsigned long long ongpu_c_{name} = (unsigned long long){value}ull;"
                ))
            };
            eprintln!("{what}: {registers} registers");
            // The 128×128 tile with BK = 8 (not the 256-row one) fits two blocks on an SM.
            let bk8 = constant("BK", 8) && constant("BM", 128);
            assert!(
                registers <= if bk8 { 128 } else { 255 },
                "{what} uses {registers} registers"
            );
        }
    }
}

/// A generic device function is one C++ template, which each kernel and `on_gpu!` body
/// instantiates by deduction (its `f32` and `f64` callers compile from the same text).
#[test]
fn generic_device_functions_are_templates_instantiated_by_their_callers() {
    if !require_nvrtc() {
        return;
    }
    let (_, sources) = collect_kernel_sources(|| {
        with_bounds_checks(false, || with_backend(Backend::Cpu, kernels::generic_fns))
    });
    let template = "template <typename ongpu_t_T>\n__device__ ongpu_t_T ongpu_fn_strided_dot(\
                    ongpu::slice<const ongpu_t_T> a, \
                    ongpu::slice<const ongpu::nondeduced<ongpu_t_T>> b, \
                    unsigned long long start, unsigned long long stride) {";
    let kernels: Vec<&KernelSource> = sources
        .iter()
        .filter(|s| s.source.contains("kernel `generic_fns_f"))
        .collect();
    assert_eq!(kernels.len(), 2, "both precisions ran");
    for s in kernels {
        assert!(s.source.contains(template), "{}", s.source);
        // The writable `c` passed as `&[T]`: T is deduced through the slice's base.
        assert!(
            s.source
                .contains("ongpu_fn_strided_dot(ongpu::slice_of(c, ongpu_len_c, ongpu_bounds, 1)"),
            "{}",
            s.source
        );
    }
    let on_gpu = sources
        .iter()
        .filter(|s| s.source.contains("ongpu_fn_axpy_half(") && !s.source.contains("kernel `"))
        .count();
    assert_eq!(on_gpu, 2, "the on_gpu! bodies in both precisions");
    for s in &sources {
        for arch in ["sm_90", "sm_80"] {
            let log = compile(s, arch).unwrap_or_else(|e| panic!("{arch}: {e}"));
            check_no_warnings(&format!("{} ({arch})", s.location), &log);
        }
    }
}
