//! [`DeviceScalar`]: one value that lives where the kernels are, so that a solver's scalars
//! (`|r|²`, `α = |r|²/⟨p, Ap⟩`) go from one call to the next without a trip to the host.
//!
//! It is a field of one element (`Field<T, AoS>` of length 1) with the field's coherence: a
//! reduction `on_gpu!(sum -> s: ...)` writes it on the device, a body that captures it reads
//! the value at every site (the kernel gets its address; see [`ScalarRead`]), a one-site call
//! `on_gpu!({ alpha = rr / pap; })` assigns it, and [`get`](DeviceScalar::get) copies it to
//! the host only when asked. On the CPU backend the same value lives on the host.

// The stream-path methods of the facets take crate-private types (see `capture/mod.rs`).
#![allow(private_interfaces)]

#[cfg(feature = "cuda")]
use crate::capture::DeviceFacet;
use crate::capture::{
    read, CaptureArg, CaptureKind, DeviceVia, FieldRead, FieldWrite, HostFacet, PartFacet,
    ReadCapture, SameEverySite, Uniform, WriteCapture,
};
use crate::element::Element;
use crate::error::Result;
use crate::field::Field;
use crate::layout::AoS;
use std::marker::PhantomData;
use std::ops::Range;

/// A value of type `T` (`f64` by default; `f32 i32 u32 Complex<f32|f64>` too) kept in device
/// memory on the CUDA backend.
///
/// ```
/// use ongpu_runtime::DeviceScalar;
/// let mut s: DeviceScalar = DeviceScalar::new(2.5);
/// assert_eq!(s.get()?, 2.5);
/// s.set(4.0)?;
/// assert_eq!(s.get()?, 4.0);
/// # Ok::<(), ongpu_runtime::Error>(())
/// ```
#[derive(Debug)]
pub struct DeviceScalar<T: Element + Uniform = f64> {
    value: Field<T, AoS>,
}

impl<T: Element + Uniform> DeviceScalar<T> {
    /// A scalar holding `value` (on the host until a kernel needs it).
    pub fn new(value: T) -> Self {
        DeviceScalar {
            value: Field::from_vec(vec![value]),
        }
    }

    /// A scalar holding zero (allocated, and zeroed, on the side that first uses it).
    pub fn zero() -> Self {
        DeviceScalar {
            value: Field::zeros(1),
        }
    }

    /// The value, copied to the host if a kernel wrote it since (waiting for that kernel).
    /// An error inside a [`Graph`](crate::Graph)'s closure, which replays without its host
    /// code.
    pub fn get(&self) -> Result<T> {
        self.value.get(0)
    }

    /// Sets the value on the host (the device copy is refreshed when a kernel next reads
    /// it).
    pub fn set(&mut self, value: T) -> Result<()> {
        self.value.set(0, value)
    }

    /// The one-element field that holds the value.
    pub fn as_field(&self) -> &Field<T, AoS> {
        &self.value
    }

    /// The device address of the value, current for a kernel on the default stream that
    /// reads it (as a call there prepares a field it reads).
    #[cfg(feature = "cuda")]
    pub(crate) fn device_for_read(&self, dev: &'static crate::cuda::Device) -> Result<u64> {
        let mut arg = self.read_arg();
        arg.device_prepare(dev, &(0..1))?;
        Ok(*arg.field.device_ptr())
    }

    /// The device address of the value, marked as written by a kernel on the default
    /// stream that overwrites it (its old value is not copied).
    #[cfg(feature = "cuda")]
    pub(crate) fn device_for_write(&mut self, dev: &'static crate::cuda::Device) -> Result<u64> {
        let mut arg = crate::capture::write::<false, _>(self);
        arg.device_prepare(dev, &(0..1))?;
        Ok(*arg.device_ptr())
    }
}

impl<T: Element + Uniform + Default> Default for DeviceScalar<T> {
    fn default() -> Self {
        Self::zero()
    }
}

/// A [`DeviceScalar`] captured by a body that reads it: every site sees its value.
pub struct ScalarRead<'a, T: Element + Uniform> {
    field: FieldRead<'a, T, AoS>,
}

/// Key type of a [`ScalarRead`].
pub struct ScalarReadKey<T>(PhantomData<T>);

impl<T: Element + Uniform> ReadCapture for DeviceScalar<T> {
    type Site = T;
    type Arg<'a> = ScalarRead<'a, T>;
    #[inline(always)]
    fn read_arg(&self) -> ScalarRead<'_, T> {
        ScalarRead {
            field: read(&self.value),
        }
    }
}

/// A written `DeviceScalar` is its one-element field: a call that assigns it runs one site
/// (`on_gpu!({ alpha = rr / pap; })` takes `n = 1` from it), and a call over more sites is
/// refused as for any field of another length.
impl<T: Element + Uniform> WriteCapture for DeviceScalar<T> {
    type Site = T;
    type Arg<'a, const LOAD: bool> = FieldWrite<'a, T, AoS, LOAD>;
    #[inline(always)]
    fn write_arg<const LOAD: bool>(&mut self) -> FieldWrite<'_, T, AoS, LOAD> {
        self.value.write_arg::<LOAD>()
    }
}

impl<T: Element + Uniform> SameEverySite for ScalarRead<'_, T> {
    type Value = T;
    fn value(&mut self, sites: &Range<usize>) -> Result<T> {
        let view = self.field.host_view(sites)?;
        // SAFETY: the view of a one-element field, current on the host.
        Ok(unsafe { FieldRead::<T, AoS>::load(&view, 0) })
    }
}

impl<T: Element + Uniform> CaptureArg for ScalarRead<'_, T> {
    type Key = ScalarReadKey<T>;

    fn push_kinds(out: &mut Vec<CaptureKind>) {
        out.push(CaptureKind::Scalar {
            cuda_type: <T as Uniform>::cuda_type(),
        })
    }

    #[inline(always)]
    fn for_each_len(&self, f: &mut impl FnMut(Option<usize>)) {
        f(None) // a value for every site, whatever their number
    }
}

/// The device side of the one-element field, passed as its address alone (every site
/// loads the value).
impl<'a, T: Element + Uniform> DeviceVia for ScalarRead<'a, T> {
    type Via = FieldRead<'a, T, AoS>;
    #[inline(always)]
    fn via(&self) -> &FieldRead<'a, T, AoS> {
        &self.field
    }
    #[inline(always)]
    fn via_mut(&mut self) -> &mut FieldRead<'a, T, AoS> {
        &mut self.field
    }
    #[cfg(feature = "cuda")]
    #[inline(always)]
    fn via_params<'b>(&'b self, params: &mut crate::cuda::ParamList<'b>) {
        params.push(self.field.device_ptr());
    }
}

impl<T: Element + Uniform> PartFacet for ScalarRead<'_, T> {}

#[cfg(test)]
mod tests {
    use super::*;
    use num_complex::Complex;

    #[test]
    fn holds_a_value_and_reads_as_a_scalar_capture() {
        let s: DeviceScalar<Complex<f64>> = DeviceScalar::new(Complex::new(1.0, -2.0));
        assert_eq!(s.get().unwrap(), Complex::new(1.0, -2.0));
        assert_eq!(
            ScalarRead::<Complex<f64>>::kinds(),
            [CaptureKind::Scalar {
                cuda_type: "ongpu::complex<double>".into()
            }]
        );
        let mut arg = s.read_arg();
        let mut lens = Vec::new();
        arg.for_each_len(&mut |len| lens.push(len));
        assert_eq!(lens, [None], "not checked against the call's sites");
        assert_eq!(arg.host_view(&(0..100)).unwrap(), Complex::new(1.0, -2.0));
        let z: DeviceScalar<u32> = DeviceScalar::default();
        assert_eq!(z.get().unwrap(), 0);
    }
}
