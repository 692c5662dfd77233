//! The classic CUDA programs of the examples, written as `#[ongpu::kernel]`s like user code:
//! the dot product combined under a lock ([`dot`]), histograms with global, shared and
//! per-lane atomics ([`histogram`]), and matrix products from the naive kernel to the
//! register-tiled SGEMMs ([`matmul`], [`sgemm`]).
//!
//! The examples (`examples/dot_lock`, `examples/histogram`, `examples/matmul`) are programs
//! over this crate, and the tests launch the same kernels on both backends; it is not
//! published.

#![warn(missing_docs)]

pub mod dot;
pub mod histogram;
pub mod matmul;
pub mod sgemm;
