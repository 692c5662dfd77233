//! CaptureArg: how each free identifier of an `on_gpu!` body reaches a site.
//!
//! The macro wraps each capture in an argument: [`FieldRead`] (a field the body only reads),
//! [`FieldWrite`] (a field it assigns; `LOAD = false` when the body assigns it whole before
//! reading it, so its old value is never loaded), a shifted field
//! (`lattice::shift::FieldShifted`) and [`Value`] (anything else, passed by value to every
//! site). An argument is a [`CaptureArg`]: three facets, each written once and each with one
//! implementation for tuples (`tuple.rs`), so that a call's tuple of arguments is itself an
//! argument:
//!
//! - [`HostFacet`] (`host.rs`): the CPU backend's view, its per-site load and store and its
//!   groups of lanes;
//! - [`DeviceFacet`] (`device.rs`): the device copy made ready, the kernel parameters, the
//!   queued access recorded; explicit kernels' arguments use the same facet;
//! - [`PartFacet`] (`parts.rs`): what a decomposed lattice (split over GPUs or over ranks)
//!   asks of the arguments of a call over it; [`Parted`] is the one argument of a decomposed
//!   field, whatever the decomposition.
//!
//! An argument whose device side is another's (a shifted field, a decomposed field's part, a
//! device scalar, a kernel's slice) gets its device facet through [`DeviceVia`].
//!
//! Values and [`DeviceScalar`](crate::DeviceScalar)s are the same at every site: their host
//! facet is written once (`uniform.rs`).

// The stream-path methods of the facets take crate-private types: only this crate implements
// and calls them (expansions reach the traits through `__private` only).
#![allow(private_interfaces)]

mod device;
mod fields;
mod host;
mod parts;
mod tuple;
mod uniform;
mod wrap;

pub use device::{DeviceFacet, DeviceVia};
pub use fields::{FieldRead, FieldWrite};
pub use host::{HostFacet, HostPtr};
pub use parts::{Decomposition, LatticeParts, PartFacet, PartOf, PartStage, Parted};
#[cfg(feature = "mpi")]
pub use parts::{FaceBuffer, FaceBuffers};
pub use tuple::lcm;
pub use uniform::{read_constant, Constant, RealValue, SameEverySite, Uniform, Value};
pub use wrap::{read, write, CaptureRef, ReadCapture, WriteCapture};

use crate::element::RealKind;

/// What a kernel's source needs to know about one capture's type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CaptureKind {
    /// A field, indexed by the site.
    Field {
        /// CUDA name of the storage scalar (`float`).
        scalar: &'static str,
        /// CUDA type of an element (`ongpu::ColorMatrix<float>`).
        element: String,
        /// CUDA type of the layout (`ongpu::AoSoA<32>`).
        layout: String,
        /// Scalars per element.
        components: usize,
        /// Precision of the components, if they are floating point.
        real: Option<RealKind>,
        /// `None` if read only; `Some(load)` if written, `load` telling whether the old value
        /// is read first.
        write: Option<bool>,
    },
    /// A value passed to every site.
    Value {
        /// CUDA type of the value.
        cuda_type: String,
    },
    /// A [`DeviceScalar`](crate::DeviceScalar) read by every site: the kernel gets its
    /// device address and each site loads the value.
    Scalar {
        /// CUDA type of the value.
        cuda_type: String,
    },
}

/// One capture, or a tuple of them (a call's arguments), as the backends see it: its facets,
/// and what the kernel source and the site checks need of it.
pub trait CaptureArg: HostFacet + DeviceFacet + PartFacet {
    /// A `'static` stand-in for the argument's type, to key compiled kernels.
    type Key: 'static;

    /// Appends the type facts the kernel source depends on (one per capture, in order).
    fn push_kinds(out: &mut Vec<CaptureKind>);

    /// Calls `f` with each capture's field length, in order (`None` for a value).
    fn for_each_len(&self, f: &mut impl FnMut(Option<usize>));

    /// The kinds of the captures, in order.
    fn kinds() -> Vec<CaptureKind> {
        let mut kinds = Vec::new();
        Self::push_kinds(&mut kinds);
        kinds
    }
}
