//! # ongpu-reference
//!
//! The operators of `ongpu::qcd` written again on the host, independently of the library's
//! `on_gpu!` passes: plain loops over sites, neighbours from coordinates, full Dirac
//! matrices. They are test oracles (the tests and examples check the library's results
//! against them), so they live beside the tests, not in the published library, as QUDA keeps
//! its `tests/host_reference`. Not published.

#![warn(missing_docs)]

pub mod domain_wall;
pub mod sites;
pub mod staggered;
pub mod wilson;
