//! The kernels of the graph test program (device scalars read by every site, written by a
//! one-site call and by reductions) compile with the real NVRTC, without warnings or
//! spills; no GPU needed.

#![cfg(feature = "cuda")]

mod common;
mod graph_programs;

use common::require_nvrtc;
use ongpu::codegen::collect_kernel_sources;
use ongpu::{with_backend, Backend};

#[test]
fn device_scalar_kernels_compile_for_sm90_and_sm80() {
    if !require_nvrtc() {
        return;
    }
    let (_, sources) =
        collect_kernel_sources(|| with_backend(Backend::Cpu, || graph_programs::eager(64, 1)));
    assert!(sources.len() >= 6, "only {} kernels", sources.len());
    let reads_scalar = sources
        .iter()
        .filter(|s| s.source.contains("const double* __restrict__ ongpu_d_"))
        .count();
    assert!(
        reads_scalar >= 3,
        "{reads_scalar} kernels read a device scalar"
    );
    common::check_kernels_stay_in_registers(&sources);
}
