//! The hand-written CUDA kernels of the examples compile with NVRTC (no GPU needed).

#![cfg(feature = "cuda")]

mod common;

#[test]
fn the_zero_copy_dot_kernel_compiles() {
    if !common::require_nvrtc() {
        return;
    }
    let source = include_str!("../examples/zero_copy_dot.cu");
    for arch in ["sm_90", "sm_80"] {
        let c = ongpu::cuda::nvrtc::compile(source, arch, "dot", &[])
            .unwrap_or_else(|e| panic!("{arch}: {e}"));
        assert!(!c.image.is_empty());
    }
}
