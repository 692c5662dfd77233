//! Arguments that are the same at every site: values passed to the kernel (`Value`), a
//! `DeviceScalar` read by every site and a shifted field's view. Their host facet is written
//! once, over [`SameEverySite`].

use super::device::DeviceFacet;
use super::host::HostFacet;
use super::parts::PartFacet;
use super::wrap::ReadCapture;
use super::{CaptureArg, CaptureKind};
use crate::element::Element;
use crate::error::Result;
use crate::geometry::Lattice;
use crate::random::Philox;
use crate::types::{ColorMatrix, ColorVector};
use num_complex::Complex;
use std::marker::PhantomData;
use std::ops::Range;

/// A type whose values can be captured by value (passed to every site).
///
/// # Safety
/// `cuda_type()` must name a CUDA C++ type with the same size and layout, since the value is
/// passed to the kernel as raw bytes.
pub unsafe trait Uniform: Copy + Send + Sync + 'static {
    /// The CUDA C++ type.
    fn cuda_type() -> String;
}

/// An argument that every site sees the same: its host view is the value itself.
pub trait SameEverySite {
    /// What every site sees.
    type Value: Copy + Send + Sync;
    /// The value for a call over `sites` (made current on the host if need be).
    fn value(&mut self, sites: &Range<usize>) -> Result<Self::Value>;
}

impl<U: SameEverySite> HostFacet for U {
    type Site = U::Value;
    type HostView = U::Value;
    const BLOCK: usize = 1;

    fn host_view(&mut self, sites: &Range<usize>) -> Result<U::Value> {
        self.value(sites)
    }

    #[inline(always)]
    unsafe fn load(view: &U::Value, _s: usize) -> U::Value {
        *view
    }

    #[inline(always)]
    unsafe fn store(_: &U::Value, _: usize, _: U::Value) {}

    type Lanes = U::Value;
    const GROUPS_PAY: bool = false;

    #[inline(always)]
    unsafe fn load_lanes(view: &U::Value, _s0: usize) -> U::Value {
        *view
    }

    type LaneAccess = U::Value;
    type LaneSite = U::Value;

    #[inline(always)]
    fn lane_to_site(lane: U::Value) -> U::Value {
        lane
    }

    #[inline(always)]
    fn site_to_lane(site: U::Value, _: U::Value) -> U::Value {
        site
    }

    #[inline(always)]
    fn lane_access(lanes: &mut U::Value) -> U::Value {
        *lanes
    }

    #[inline(always)]
    unsafe fn lane(access: &U::Value, _: &(), _l: usize) -> U::Value {
        *access
    }

    type LaneOut = ();

    #[inline(always)]
    unsafe fn lane_out(_: &U::Value, _: usize) {}

    #[inline(always)]
    unsafe fn set_lane(_: &mut (), _: usize, _: U::Value) {}

    #[inline(always)]
    unsafe fn store_lanes(_: &U::Value, _: usize, _: &()) {}
}

/// A value passed to every site.
pub struct Value<'a, V> {
    value: &'a V,
}

/// Key type of a [`Value`].
pub struct ValueKey<V>(PhantomData<V>);

macro_rules! uniform {
    ($($t:ty => $cuda:expr;)*) => {$(
        // SAFETY: the named CUDA type has the same layout (scalars, or the prelude's
        // `#[repr(C)]` twins).
        unsafe impl Uniform for $t {
            fn cuda_type() -> String {
                ($cuda).to_string()
            }
        }
        impl ReadCapture for $t {
            type Site = $t;
            type Arg<'a> = Value<'a, $t>;
            #[inline(always)]
            fn read_arg(&self) -> Value<'_, $t> {
                Value { value: self }
            }
        }
    )*};
}

uniform! {
    f32 => "float";
    f64 => "double";
    i32 => "int";
    u32 => "unsigned int";
    i64 => "long long";
    u64 => "unsigned long long";
    usize => "unsigned long long";
    isize => "long long";
    bool => "bool";
    Complex<f32> => <Complex<f32> as Element>::cuda_type();
    Complex<f64> => <Complex<f64> as Element>::cuda_type();
    ColorVector<f32> => <ColorVector<f32> as Element>::cuda_type();
    ColorVector<f64> => <ColorVector<f64> as Element>::cuda_type();
    ColorMatrix<f32> => <ColorMatrix<f32> as Element>::cuda_type();
    ColorMatrix<f64> => <ColorMatrix<f64> as Element>::cuda_type();
    Lattice => "ongpu::Lattice";
    Philox => "ongpu::Philox";
}

// SAFETY: `ongpu::array<T, N>` is N values of T's CUDA twin in a row, with no padding
// beyond theirs, as `[T; N]` is.
unsafe impl<T: Uniform, const N: usize> Uniform for [T; N] {
    fn cuda_type() -> String {
        format!("ongpu::array<{}, {N}>", T::cuda_type())
    }
}

/// An array of values passed to every site (one coefficient per right-hand side, say):
/// `a[k]` in the body reads entry `k`.
impl<T: Uniform, const N: usize> ReadCapture for [T; N] {
    type Site = [T; N];
    type Arg<'a> = Value<'a, [T; N]>;
    #[inline(always)]
    fn read_arg(&self) -> Value<'_, [T; N]> {
        Value { value: self }
    }
}

/// A [`Real`](crate::Real) that an `on_gpu!` body can capture, alone or in an array: the
/// bound generic code over `T: Real` adds to pass coefficients of type `T` to a body
/// (`f32` and `f64` are both).
pub trait RealValue: crate::types::Real + Uniform + ReadCapture<Site = Self> {}
impl RealValue for f32 {}
impl RealValue for f64 {}

const _: () = assert!(
    std::mem::size_of::<usize>() == 8,
    "ongpu needs a 64-bit host"
);

impl<V: Uniform> SameEverySite for Value<'_, V> {
    type Value = V;
    #[inline(always)]
    fn value(&mut self, _sites: &Range<usize>) -> Result<V> {
        Ok(*self.value)
    }
}

impl<V: Uniform> CaptureArg for Value<'_, V> {
    type Key = ValueKey<V>;

    fn push_kinds(out: &mut Vec<CaptureKind>) {
        out.push(CaptureKind::Value {
            cuda_type: V::cuda_type(),
        })
    }

    #[inline(always)]
    fn for_each_len(&self, f: &mut impl FnMut(Option<usize>)) {
        f(None)
    }
}

impl<V: Uniform> DeviceFacet for Value<'_, V> {
    #[cfg(feature = "cuda")]
    fn device_prepare(
        &mut self,
        _dev: &'static crate::cuda::Device,
        _sites: &Range<usize>,
    ) -> Result<()> {
        Ok(())
    }

    #[cfg(feature = "cuda")]
    #[inline(always)]
    fn push_params<'b>(&'b self, params: &mut crate::cuda::ParamList<'b>) {
        params.push(self.value);
    }

    #[cfg(feature = "cuda")]
    fn device_prepare_on(
        &mut self,
        _dev: &'static crate::cuda::Device,
        _sites: &Range<usize>,
        _queue: crate::cuda::stream::Queue,
    ) -> Result<()> {
        Ok(())
    }

    #[cfg(feature = "cuda")]
    fn mark_queued(&mut self, _mark: &crate::field::pending::Mark) {}
}

impl<V: Uniform> PartFacet for Value<'_, V> {}

/// A value captured under an UPPERCASE name: a body treats such a name as a constant (a
/// `const` item cannot be rebound in the body's closure, so the body reads it directly).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is captured under an UPPERCASE name, which an on_gpu! body treats as a constant",
    label = "an UPPERCASE name is passed by value",
    note = "constants and values can be f32, f64, i32, u32, i64, u64, usize, isize, bool, \
            Complex<f32|f64>, ColorVector<f32|f64>, ColorMatrix<f32|f64>, Lattice, Philox or an \
            array of these; name fields in lowercase"
)]
pub trait Constant: Uniform {}
impl<V: Uniform> Constant for V {}

/// Wraps a capture whose name is UPPERCASE (a constant, the macro calls this).
#[inline(always)]
pub fn read_constant<V: Constant>(c: &V) -> Value<'_, V> {
    Value { value: c }
}
