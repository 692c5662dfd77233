//! Run-time of [ongpu](https://docs.rs/ongpu): fields and element types, the CUDA backend
//! (NVRTC + driver API through cudarc) and the CPU backend (rayon).
//!
//! Users depend on the `ongpu` facade, which re-exports what is public here; the items under
//! `__private` are what `on_gpu!` expansions call.

#![warn(missing_docs)]

#[macro_use]
mod tuples;

mod backend;
mod capture;
mod cpu_vectors;
#[cfg(feature = "cuda")]
pub mod cuda;
mod element;
mod elementwise;
mod error;
mod field;
mod geometry;
mod graph;
mod graph_loop;
mod graph_pass;
pub mod inspect;
mod kernel;
mod lattice;
mod launch;
pub mod math;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod print;
pub mod random;
mod reduce;
mod scalar;
mod stream;
#[cfg(feature = "cuda")]
mod trace;
pub mod tune;
mod types;

pub use backend::{cuda_available, current as backend, synchronize, with_backend, Backend};
pub use capture::{RealValue, Uniform};
pub use cpu_vectors::{cpu_vectors, set_cpu_vectors, with_cpu_vectors, CpuVectors};
pub use element::{Element, ElementArray, RealKind, Scalar};
pub use error::{number_lines, Error, Location, Result};
pub use field::{Field, HostMut, Residency, Storage, Transfers};
pub use geometry::{Lattice, Subset};
pub use graph::Graph;
pub use graph_loop::{GraphLoop, LoopTest, LoopValue};
pub use kernel::shape::{Dim3, LaunchShape};
pub use lattice::halos::HaloRefreshes;
pub use lattice::ranks::ProcessGrid;
#[cfg(feature = "mpi")]
pub use lattice::ranks::{RankField, RankLattice, RankSubset};
pub use lattice::spaces::{Space, SpaceField, SpaceSubset};
pub use lattice::split::{Devices, SplitField, SplitLattice, SplitSubset};
pub use launch::bounds::{bounds_checks, with_bounds_checks};
pub use launch::call_site::Lowering;
pub use layout::{AoS, AoSoA, Layout, SoA};
pub use lowering::cpu_lowerings;
pub use num_complex::Complex;
pub use random::Philox;
pub use reduce::{ExactSum, InnerProduct, MinMax, Summable};
pub use scalar::DeviceScalar;
pub use stream::{in_stream_scope, Event, Stream};
pub use types::{
    bf16, f16, CastReal, ColorMatrix, ColorVector, Norm2, Precision, Real, StorageReal, TimesI,
};

mod layout;
mod lowering;

/// What macro expansions call. Not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use crate::capture::{
        read, read_constant, write, CaptureArg, CaptureKind, CaptureRef, Constant, Decomposition,
        DeviceFacet, DeviceVia, FieldRead, FieldWrite, HostFacet, LatticeParts, PartFacet, PartOf,
        PartStage, Parted, ReadCapture, SameEverySite, Uniform, Value, WriteCapture,
    };
    #[cfg(feature = "mpi")]
    pub use crate::capture::{FaceBuffer, FaceBuffers};
    pub use crate::element::Element;
    pub use crate::elementwise::{
        run as run_elementwise, run_chunked as run_elementwise_chunked,
        run_lowered as run_elementwise_lowered, sites, threads_per_block, LaneGroup, LaneVar,
        SiteCount, GROUP_LANES,
    };
    pub use crate::error::{Location, Result};
    pub use crate::field::Field;
    pub use crate::kernel::args::{slice_read, slice_write, value};
    pub use crate::kernel::args::{KernelParam, ParamKind};
    pub use crate::kernel::atomics::{
        atomic_add, atomic_cas, atomic_exch, atomic_max, atomic_min, atomic_sub, thread_fence,
        AtomicAdd, AtomicCas, AtomicExch, AtomicMinMax, AtomicSub,
    };
    pub use crate::kernel::call_site::{
        shared_dim, ConstRef, KernelConst, KernelInfo, KernelSite, SharedDecl,
    };
    pub use crate::kernel::cpu::{barrier_outside_kernel, SyncThreads, ThreadCtx};
    pub use crate::kernel::shape::LaunchShape;
    pub use crate::kernel::unmarked::{
        NotDeviceFn0, NotDeviceFn1, NotDeviceFn2, NotDeviceFn3, NotDeviceFn4, NotDeviceFn5,
        NotDeviceFn6, NotDeviceFn7, NotDeviceFn8,
    };
    pub use crate::kernel::views::{
        vector_row_dim, ArrayArg, ArrayView, AtomicPlace, KernelIndex, ReadSlice, ReadView,
        SharedSpec, SharedSpecs, Vector4,
    };
    pub use crate::kernel::{launch_phased, launch_straight};
    #[cfg(feature = "mpi")]
    pub use crate::lattice::ranks::{RankRead, RankShifted, RankWrite};
    pub use crate::lattice::shift::{
        index, read_shifted, FieldShifted, ShiftArg, ShiftCapture, ShiftView, ShiftedHost,
    };
    pub use crate::lattice::shift_lanes::{
        CapturedValue, FarShift, GatheredLanes, Gathers, HopArg, LaneShiftView, LaneSlots,
        NotANumber, NumberValue,
    };
    pub use crate::lattice::space::{shift_lattice, IndexSpace, LatticeSpace};
    pub use crate::lattice::split::{SplitRead, SplitShifted, SplitWrite};
    pub use crate::launch::call_site::Lowering;
    pub use crate::launch::call_site::{
        any_barriers, device_fn, site_device_fn, CallSite, DeviceFnInfo, DeviceFunction,
        NotDeviceFn, SiteInfo,
    };
    pub use crate::launch::source::{kernel_real, push_device_fns, PRELUDE};
    pub use crate::layout::AoS;
    pub use crate::math;
    pub use crate::print::{print_cold, PrintValue, Printed, Printer};
    pub use crate::reduce::{
        compared, run as run_reduction, run_into as run_reduction_into,
        run_into_lowered as run_reduction_into_lowered, run_lowered as run_reduction_lowered,
        summand, Max, Min, ReduceSite, Reduction, Sum,
    };
    pub use crate::scalar::ScalarRead;
    pub use crate::types::Norm2;
    pub use crate::types::Real;
    pub use crate::types::TimesI;
}
