//! The gauge side of the physics library: quenched updates, HMC (quenched and with staggered
//! quarks), the Wilson flow, smearing, compressed links and gauge files.

#[macro_use]
#[path = "../support/mod.rs"]
mod support;

mod compressed_links;
mod gradient_flow;
mod haar;
mod hmc;
mod ildg;
mod nersc;
mod quenched;
mod rhmc;
mod scale;
mod smearing;
mod staggered_hmc;
