//! Host access to a device-only field whose only current copy is on the device: one site is
//! read or written with copies of just its values, and a whole AoS field is read straight
//! into the result, so no host copy of the field is ever kept.

use super::sides::{Residency, Sides};
use super::storage::Storage;
use super::Field;
use crate::element::{components, components_mut, Element};
use crate::error::Result;
use crate::layout::{AoS, Layout};
use std::any::TypeId;

/// The element of site `s`, copied from the device copy value by value (one copy when the
/// layout keeps a site's values together).
pub(crate) fn get_site<T: Element, L: Layout>(
    sides: &mut Sides<T::Scalar>,
    s: usize,
    stride: usize,
) -> Result<T> {
    let mut v = T::zeroed();
    let out = components_mut(&mut v);
    for (first, len) in runs::<T, L>(s, stride) {
        let c0 = first.1;
        sides.read_device_values(first.0, &mut out[c0..c0 + len])?;
    }
    sides.transfers.downloads += 1;
    sides.transfers.bytes_down += std::mem::size_of::<T>() as u64;
    Ok(v)
}

/// Writes the element of site `s` into the device copy.
pub(crate) fn set_site<T: Element, L: Layout>(
    sides: &mut Sides<T::Scalar>,
    s: usize,
    stride: usize,
    value: T,
) -> Result<()> {
    let vals = components(&value);
    for (first, len) in runs::<T, L>(s, stride) {
        let c0 = first.1;
        sides.write_device_values(first.0, &vals[c0..c0 + len])?;
    }
    sides.transfers.uploads += 1;
    sides.transfers.bytes_up += std::mem::size_of::<T>() as u64;
    Ok(())
}

/// Before a host write of one site of a device-only field on the GPU: the device copy
/// becomes the only one (zeroed there if the field is still all zeros), so the site can be
/// written there without a host copy of the whole field.
pub(crate) fn prepare_set<S: crate::element::Scalar>(
    sides: &mut Sides<S>,
    what: &dyn Fn() -> String,
) -> Result<()> {
    if sides.storage != Storage::DeviceOnly {
        return Ok(());
    }
    if sides.newest == Residency::Zeros
        && matches!(crate::backend::current(), Ok(crate::backend::Backend::Cuda))
    {
        let dev = crate::cuda::device()?;
        sides.device_read_on(dev, crate::cuda::stream::Queue::Default, what)?;
    }
    sides.release_host_if_device_only()
}

/// The storage runs of site `s`: `((index, first component), length)` for each stretch of
/// components stored next to each other.
fn runs<T: Element, L: Layout>(s: usize, stride: usize) -> Vec<((usize, usize), usize)> {
    let c = T::COMPONENTS;
    let mut runs: Vec<((usize, usize), usize)> = Vec::new();
    for k in 0..c {
        let i = L::index(s, k, c, stride);
        match runs.last_mut() {
            Some(((start, _), len)) if *start + *len == i => *len += 1,
            _ => runs.push(((i, k), 1)),
        }
    }
    runs
}

/// For an AoS field (storage = the elements in order) read through the device: the elements
/// copied straight into the result, with no temporary.
pub(crate) fn to_vec_aos<T: Element, L: Layout>(
    field: &Field<T, L>,
    sides: &mut Sides<T::Scalar>,
) -> Result<Option<Vec<T>>> {
    if TypeId::of::<L>() != TypeId::of::<AoS>() || !sides.reads_through_device() {
        return Ok(None);
    }
    let len = field.len();
    let mut out: Vec<T> = bytemuck::allocation::try_zeroed_slice_box(len)
        .map_err(|()| crate::error::Error::OutOfHostMemory {
            what: format!("the result of to_vec ({len} elements)"),
            requested: len.saturating_mul(std::mem::size_of::<T>()),
        })?
        .into();
    sides.download_into(bytemuck::cast_slice_mut(&mut out))?;
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{AoSoA, SoA};
    use crate::ColorMatrix;

    #[test]
    fn runs_join_neighbouring_components() {
        // AoS keeps a site's 18 values together; SoA spreads them `stride` apart.
        assert_eq!(runs::<ColorMatrix<f32>, AoS>(3, 10), vec![((54, 0), 18)]);
        let soa = runs::<ColorMatrix<f32>, SoA>(3, 10);
        assert_eq!(soa.len(), 18);
        assert_eq!(soa[1], ((13, 1), 1));
        let a = runs::<ColorMatrix<f32>, AoSoA<32>>(33, 64);
        assert_eq!(a.len(), 18);
        assert_eq!(a[0], ((18 * 32 + 1, 0), 1));
        assert_eq!(runs::<f64, AoSoA<4>>(5, 8), vec![((5, 0), 1)]);
    }
}
