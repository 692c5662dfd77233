//! [`Field`]: `len` elements of one type in one layout, with a host copy and a device copy
//! that are each allocated when first needed and copied only when stale.

#[cfg(feature = "cuda")]
mod device_access;
mod sides;
pub(crate) mod site_io;

pub use sides::{Residency, Transfers};

use crate::element::Element;
use crate::error::{Error, Result};
use crate::layout::{AoS, AoSoA, Layout};
use sides::Sides;
use std::fmt;
use std::marker::PhantomData;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// A lattice field: one element of type `T` per site, stored in layout `L` (default
/// `AoSoA<32>`).
///
/// Inside an `on_gpu!` body a captured field means "this site's element". On the host the
/// field is read with [`to_vec`](Field::to_vec) or [`get`](Field::get) and written with
/// [`set`](Field::set) or [`as_host_mut`](Field::as_host_mut); each copies data between
/// host and device only when the other side is newer.
///
/// ```
/// use ongpu_runtime::{Field, SoA};
/// let x: Field<f64> = Field::from_fn(5, |i| i as f64);      // AoSoA<32>
/// let y: Field<f64, SoA> = Field::filled(5, 2.0);
/// assert_eq!(x.to_vec()?, vec![0.0, 1.0, 2.0, 3.0, 4.0]);
/// assert_eq!(y.get(4)?, 2.0);
/// # Ok::<(), ongpu_runtime::Error>(())
/// ```
pub struct Field<T: Element, L: Layout = AoSoA<32>> {
    len: usize,
    /// Padded length in sites (the SoA component stride), as the kernel parameter type.
    stride: u64,
    /// Copies and their state. Locked only by shared (`&self`) users, which may still make a
    /// stale copy current; `&mut self` users reach it without locking.
    sides: Mutex<Sides<T::Scalar>>,
    _layout: PhantomData<L>,
}

impl<T: Element, L: Layout> Field<T, L> {
    fn with_sides(len: usize, sides: Sides<T::Scalar>) -> Self {
        Field {
            len,
            stride: L::padded_len(len) as u64,
            sides: Mutex::new(sides),
            _layout: PhantomData,
        }
    }

    fn storage_len(len: usize) -> usize {
        L::padded_len(len) * T::COMPONENTS
    }

    /// A field of `len` zero elements. Nothing is allocated until a side is first used (on
    /// the device it is then zeroed there, without a host copy).
    pub fn zeros(len: usize) -> Self {
        Self::with_sides(len, Sides::zeros(Self::storage_len(len)))
    }

    /// A field of `len` copies of `value` (on the host).
    pub fn filled(len: usize, value: T) -> Self {
        Self::from_fn(len, |_| value)
    }

    /// A field whose element `i` is `f(i)` (on the host).
    pub fn from_fn(len: usize, mut f: impl FnMut(usize) -> T) -> Self {
        let stride = L::padded_len(len);
        let mut host = bytemuck::zeroed_vec(Self::storage_len(len));
        for i in 0..len {
            site_io::set::<T, L>(&mut host, i, stride, f(i));
        }
        Self::with_sides(len, Sides::on_host(host))
    }

    /// A field holding the elements of `values` (on the host).
    pub fn from_vec(values: Vec<T>) -> Self {
        Self::from_fn(values.len(), |i| values[i])
    }

    /// Number of sites.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for a field of no sites.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The layout's name (`AoS`, `SoA`, `AoSoA<32>`).
    pub fn layout_name(&self) -> String {
        L::name()
    }

    /// Which copy is current.
    pub fn residency(&self) -> Residency {
        self.lock().newest
    }

    /// The copies made so far between host and device.
    pub fn transfers(&self) -> Transfers {
        self.lock().transfers
    }

    /// The elements, in site order. Downloads first only if the device copy is newer (and
    /// then keeps the host copy, so a second call copies nothing).
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let stride = self.stride as usize;
        let mut sides = self.lock();
        let host = sides.host_for_read()?;
        Ok((0..self.len)
            .map(|i| site_io::get::<T, L>(host, i, stride))
            .collect())
    }

    /// The element of site `i` (downloading first if the device copy is newer).
    pub fn get(&self, i: usize) -> Result<T> {
        self.check_index(i)?;
        let mut sides = self.lock();
        Ok(site_io::get::<T, L>(
            sides.host_for_read()?,
            i,
            self.stride as usize,
        ))
    }

    /// Sets the element of site `i` on the host; the device copy becomes stale.
    pub fn set(&mut self, i: usize, value: T) -> Result<()> {
        self.check_index(i)?;
        let stride = self.stride as usize;
        site_io::set::<T, L>(self.sides_mut().host_for_write(false)?, i, stride, value);
        Ok(())
    }

    /// Makes the host copy current (downloading if the device is newer) and keeps it.
    pub fn sync_host(&mut self) -> Result<()> {
        self.sides_mut().host_for_read().map(drop)
    }

    /// Host access to the elements for writing; the device copy becomes stale.
    pub fn as_host_mut(&mut self) -> Result<HostMut<'_, T, L>> {
        let (len, stride) = (self.len, self.stride as usize);
        let storage = self.sides_mut().host_for_write(false)?.as_mut_slice();
        Ok(HostMut {
            storage,
            len,
            stride,
            _t: PhantomData,
        })
    }

    fn check_index(&self, i: usize) -> Result<()> {
        if i < self.len {
            Ok(())
        } else {
            Err(Error::IndexOutOfRange {
                index: i,
                len: self.len,
            })
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Sides<T::Scalar>> {
        // No user code runs under the lock, so a poisoned lock still holds consistent data.
        self.sides.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn sides_mut(&mut self) -> &mut Sides<T::Scalar> {
        self.sides.get_mut().unwrap_or_else(PoisonError::into_inner)
    }

    /// The padded length, as passed to kernels.
    pub(crate) fn stride_ref(&self) -> &u64 {
        &self.stride
    }

    /// A name for the field's storage in errors.
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub(crate) fn describe(&self) -> String {
        format!(
            "a field of {} sites of {} ({})",
            self.len,
            std::any::type_name::<T>(),
            L::name()
        )
    }
}

impl<T: Element> Field<T, AoS> {
    /// The elements as a slice (AoS storage is exactly `[T]`); downloads first if needed.
    pub fn as_slice(&mut self) -> Result<&[T]> {
        let len = self.len;
        let host = self.sides_mut().host_for_read()?;
        Ok(&bytemuck::cast_slice(host.as_slice())[..len])
    }

    /// The elements as a mutable slice; the device copy becomes stale.
    pub fn as_slice_mut(&mut self) -> Result<&mut [T]> {
        let len = self.len;
        let host = self.sides_mut().host_for_write(false)?;
        Ok(&mut bytemuck::cast_slice_mut(host.as_mut_slice())[..len])
    }
}

impl<T: Element, L: Layout> fmt::Debug for Field<T, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Field")
            .field("element", &std::any::type_name::<T>())
            .field("layout", &L::name())
            .field("len", &self.len)
            .field("residency", &self.residency())
            .finish()
    }
}

/// Mutable host access to a field's elements, from [`Field::as_host_mut`].
pub struct HostMut<'a, T: Element, L: Layout> {
    storage: &'a mut [T::Scalar],
    len: usize,
    stride: usize,
    _t: PhantomData<L>,
}

impl<T: Element, L: Layout> HostMut<'_, T, L> {
    /// Number of sites.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for a field of no sites.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The element of site `i`. Panics if `i >= len`, like slice indexing.
    pub fn get(&self, i: usize) -> T {
        assert!(
            i < self.len,
            "site {i} out of range for a field of {} sites",
            self.len
        );
        site_io::get::<T, L>(self.storage, i, self.stride)
    }

    /// Sets the element of site `i`. Panics if `i >= len`.
    pub fn set(&mut self, i: usize, value: T) {
        assert!(
            i < self.len,
            "site {i} out of range for a field of {} sites",
            self.len
        );
        site_io::set::<T, L>(self.storage, i, self.stride, value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::SoA;
    use crate::ColorMatrix;
    use num_complex::Complex;

    fn matrix(i: usize) -> ColorMatrix<f32> {
        let mut m = ColorMatrix::zero();
        for r in 0..3 {
            for c in 0..3 {
                m[r][c] = Complex::new((i * 9 + r * 3 + c) as f32, -(i as f32) - 0.5);
            }
        }
        m
    }

    fn round_trip<L: Layout>(len: usize) {
        let f: Field<ColorMatrix<f32>, L> = Field::from_fn(len, matrix);
        let v = f.to_vec().unwrap();
        assert_eq!(v.len(), len);
        for (i, m) in v.iter().enumerate() {
            assert_eq!(*m, matrix(i), "{} site {i}", L::name());
        }
    }

    #[test]
    fn every_layout_round_trips_any_length() {
        for len in [0, 1, 31, 32, 33, 100] {
            round_trip::<AoS>(len);
            round_trip::<SoA>(len);
            round_trip::<AoSoA<32>>(len);
            round_trip::<AoSoA<4>>(len);
        }
    }

    #[test]
    fn zeros_allocates_nothing_until_read() {
        let f: Field<f64> = Field::zeros(10);
        assert_eq!(f.residency(), Residency::Zeros);
        assert_eq!(f.to_vec().unwrap(), vec![0.0; 10]);
        assert_eq!(f.residency(), Residency::Host);
    }

    #[test]
    fn set_get_and_bounds() {
        let mut f: Field<i32, SoA> = Field::filled(4, 7);
        f.set(2, -1).unwrap();
        assert_eq!(f.get(2).unwrap(), -1);
        assert!(matches!(
            f.get(4),
            Err(Error::IndexOutOfRange { index: 4, len: 4 })
        ));
        assert!(f.set(9, 0).is_err());
        let mut h = f.as_host_mut().unwrap();
        h.set(0, 5);
        assert_eq!(h.get(0), 5);
        assert_eq!(f.to_vec().unwrap(), vec![5, 7, -1, 7]);
    }

    #[test]
    fn aos_slices_view_the_storage() {
        let mut f: Field<u32, AoS> = Field::from_vec(vec![1, 2, 3]);
        f.as_slice_mut().unwrap()[1] = 20;
        assert_eq!(f.as_slice().unwrap(), &[1, 20, 3]);
    }
}
