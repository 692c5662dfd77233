//! The call kinds and where they run: reductions, graphs and device loops, lattice subsets,
//! lattices split into parts, launch tuning, and calls from several host threads.

#[macro_use]
#[path = "../support/mod.rs"]
mod support;

mod graphs;
mod reductions;
mod split;

mod graphs_cpu;
mod graphs_gpu;
mod graphs_nvrtc;
mod lane_lowering;
mod lattice_subsets;
mod reductions_cpu;
mod reductions_gpu;
mod split_lattice;
mod threads;
mod tuning;
