//! Every kernel the test programs generate compiles with the real NVRTC (no GPU needed),
//! for Hopper and Ampere, without register spills.

#![cfg(feature = "cuda")]

use crate::programs;

use crate::support::{check_no_local_memory, check_no_warnings, require_nvrtc};
use ongpu::inspect::{collect_kernel_sources, compile, KernelSource};
use ongpu::{with_backend, with_bounds_checks, Backend};

fn sources_of(program: fn() -> Vec<programs::Output>, checked: bool) -> Vec<KernelSource> {
    let (_, sources) = collect_kernel_sources(|| {
        with_bounds_checks(checked, || with_backend(Backend::Cpu, program))
    });
    sources
}

#[test]
fn every_program_compiles_for_sm90_and_sm80_without_spills() {
    if !require_nvrtc() {
        return;
    }
    let (mut kernels, mut reported) = (0, 0);
    for (name, program) in programs::all() {
        for checked in [false, true] {
            let sources = sources_of(program, checked);
            assert!(!sources.is_empty(), "{name} generated no kernel");
            for s in &sources {
                assert!(s
                    .source
                    .starts_with(&format!("#define ONGPU_CHECK_BOUNDS {}", u8::from(checked))));
                for arch in ["sm_90", "sm_80"] {
                    let what = format!("{name} (checked: {checked}, {arch})");
                    let log = compile(s, arch).unwrap_or_else(|e| panic!("{what}: {e}"));
                    check_no_warnings(&what, &log);
                    // The unchecked kernels are the fast path.
                    if !checked {
                        reported += usize::from(check_no_local_memory(&what, &log));
                    }
                }
                kernels += usize::from(!checked);
            }
        }
    }
    assert!(kernels >= 11, "only {kernels} kernels compiled");
    assert!(
        reported >= kernels,
        "ptxas reported on only {reported} of {} compiles",
        2 * kernels
    );
}

#[test]
fn nvrtc_warnings_reach_the_log() {
    if !require_nvrtc() {
        return;
    }
    let overflow = KernelSource {
        location: ongpu::Location {
            file: "overflow.rs",
            line: 1,
            column: 1,
        },
        source: "extern \"C\" __global__ void ongpu_kernel(int* o) { o[0] = 100000 * 100000; }"
            .to_string(),
    };
    let log = compile(&overflow, "sm_90").unwrap();
    let w = ongpu::inspect::warnings(&log).expect("NVRTC warns about the overflow");
    assert!(
        w.contains("integer operation result is out of range"),
        "{w}"
    );
}

#[test]
fn a_compile_error_returns_the_log_and_numbered_source() {
    if !require_nvrtc() {
        return;
    }
    let bad = KernelSource {
        location: ongpu::Location {
            file: "bad.rs",
            line: 1,
            column: 1,
        },
        source: "extern \"C\" __global__ void ongpu_kernel() { undefined_name = 1; }".to_string(),
    };
    let err = compile(&bad, "sm_90").unwrap_err().to_string();
    assert!(err.contains("undefined_name"), "{err}");
    assert!(err.contains("1 | extern"), "numbered source missing: {err}");
    assert!(err.contains("bad.rs:1:1"), "{err}");
}

#[test]
fn the_kernel_is_a_grid_stride_loop_with_restrict_pointers() {
    let sources = sources_of(programs::vector_add, false);
    let s = &sources[0].source;
    assert!(s.contains("const float* __restrict__ ongpu_p_a"), "{s}");
    assert!(s.contains("float* __restrict__ ongpu_p_c"), "{s}");
    assert!(s.contains("ongpu_first += ongpu_step"), "{s}");
    assert!(
        s.contains("ongpu_first += 4 * ongpu_step"),
        "vector add runs 4 sites per iteration: {s}"
    );
    // c is assigned whole before any read: never loaded.
    assert!(s.contains("float c{};"), "{s}");
}
