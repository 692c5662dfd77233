//! The kernels of the graph test program (device scalars read by every site, written by a
//! one-site call and by reductions) compile with the real NVRTC, without warnings or
//! spills; no GPU needed.

#![cfg(feature = "cuda")]

use crate::graphs;
use crate::support;

use crate::support::require_nvrtc;
use ongpu::inspect::collect_kernel_sources;
use ongpu::{with_backend, Backend};

#[test]
fn device_scalar_kernels_compile_for_sm90_and_sm80() {
    if !require_nvrtc() {
        return;
    }
    let (_, sources) =
        collect_kernel_sources(|| with_backend(Backend::Cpu, || graphs::eager(64, 1)));
    assert!(sources.len() >= 6, "only {} kernels", sources.len());
    let reads_scalar = sources
        .iter()
        .filter(|s| s.source.contains("const double* __restrict__ ongpu_d_"))
        .count();
    assert!(
        reads_scalar >= 3,
        "{reads_scalar} kernels read a device scalar"
    );
    support::check_kernels_stay_in_registers(&sources);
}

/// The test kernel of a device loop compiles for every value type, without the device
/// runtime's link step: to whole machine code for Hopper and Ampere (ptxas leaves only the
/// address of `cudaGraphSetConditional` to the driver), with no warnings or spills, and to
/// PTX that calls it.
#[test]
fn device_loop_test_kernel_compiles() {
    use ongpu::cuda::{loop_condition, nvrtc::ImageKind};
    if !require_nvrtc() {
        return;
    }
    for value in loop_condition::VALUE_TYPES {
        for arch in ["sm_90", "sm_80"] {
            let what = format!("the loop test ({value}, {arch})");
            let cubin = loop_condition::compile(value, arch, &["--ptxas-options=-v"])
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(cubin.kind, ImageKind::Cubin);
            let names = |name: &[u8]| cubin.image.windows(name.len()).any(|w| w == name);
            assert!(names(loop_condition::NAME.as_bytes()), "{what}: no kernel");
            assert!(
                names(b"cudaGraphSetConditional"),
                "{what}: the call is not left to the driver"
            );
            support::check_no_warnings(&what, &cubin.log);
            support::check_no_local_memory(&what, &cubin.log);
        }
        let ptx = loop_condition::compile(value, "compute_90", &[])
            .unwrap_or_else(|e| panic!("{value} for compute_90: {e}"));
        assert_eq!(ptx.kind, ImageKind::Ptx);
        let text = String::from_utf8_lossy(&ptx.image);
        assert!(
            text.contains(&format!(".entry {}", loop_condition::NAME))
                && text.contains("call.uni")
                && text.contains("cudaGraphSetConditional"),
            "{value}: the PTX does not call cudaGraphSetConditional:\n{text}"
        );
    }
}
