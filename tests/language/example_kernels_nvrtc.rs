//! The hand-written CUDA kernels of the examples compile with NVRTC (no GPU needed).

#![cfg(feature = "cuda")]

use crate::support;

fn compiles(name: &str, source: &str) {
    if !support::require_nvrtc() {
        return;
    }
    for arch in ["sm_90", "sm_80"] {
        let c = ongpu::cuda::nvrtc::compile(source, arch, name, &[])
            .unwrap_or_else(|e| panic!("{name}, {arch}: {e}"));
        assert!(!c.image.is_empty());
    }
}

#[test]
fn the_zero_copy_dot_kernel_compiles() {
    compiles("dot", include_str!("../../examples/zero_copy_dot.cu"));
}

#[test]
fn the_ceiling_kernels_compile() {
    compiles(
        "ceiling.cu",
        include_str!("../../examples/common/ceiling.cu"),
    );
}

#[test]
fn the_su3_reference_kernels_compile() {
    compiles("su3", include_str!("../../examples/su3_bench/reference.cu"));
}

#[test]
fn the_dslash_reference_kernels_compile() {
    compiles(
        "dslash",
        include_str!("../../examples/dslash_bench/reference.cu"),
    );
}

#[test]
fn the_wilson_reference_kernels_compile() {
    compiles(
        "wilson",
        include_str!("../../examples/wilson_bench/reference.cu"),
    );
}

#[test]
fn the_domain_wall_reference_kernels_compile() {
    // dwf_bench compiles its kernel after wilson_bench's reference, whose hop it calls.
    compiles(
        "dwf",
        &[
            include_str!("../../examples/wilson_bench/reference.cu"),
            include_str!("../../examples/dwf_bench/reference.cu"),
        ]
        .concat(),
    );
}

#[test]
fn the_hisq_reference_kernels_compile() {
    compiles(
        "hisq",
        include_str!("../../examples/hisq_bench/reference.cu"),
    );
}
