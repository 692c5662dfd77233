//! The quark side of the physics library: the staggered operator and its CG solvers (eager,
//! graph, device loop, mixed precision, small lattices), and Wilson-clover quarks.

#[macro_use]
#[path = "../support/mod.rs"]
mod support;

mod conventions;
mod domain_wall;
mod domain_wall_4d;
mod hisq;
mod hisq_force;
mod many_rhs;
mod mixed_cg;
mod small_lattice;
mod staggered_cg;
mod wilson;
mod wilson_clover;
mod wilson_many_rhs;
