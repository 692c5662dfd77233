//! The body language and explicit kernels: every test program on the CPU backend, the same
//! programs on the GPU against the CPU (`--include-ignored`), their kernels compiled by NVRTC
//! without a device, and what the language reports (printing, index checks, errors).

#[macro_use]
#[path = "../support/mod.rs"]
mod support;

mod kernels;
mod programs;

mod errors;
mod example_kernels_nvrtc;
mod half_storage;
mod index_checks;
mod kernels_cpu;
mod kernels_gpu;
mod kernels_nvrtc;
mod lattice_types;
mod printing;
mod programs_cpu;
mod programs_gpu;
mod programs_nvrtc;
mod random_stats;
