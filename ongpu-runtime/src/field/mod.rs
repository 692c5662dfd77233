//! [`Field`]: `len` elements of one type in one layout, with a host copy and a device copy
//! that are each allocated when first needed and copied only when stale.

mod async_ops;
#[cfg(feature = "cuda")]
mod device_access;
#[cfg(feature = "cuda")]
mod device_only;
#[cfg(feature = "cuda")]
mod device_side;
mod host_mem;
#[cfg(feature = "cuda")]
pub(crate) mod pending;
mod sides;
pub(crate) mod site_io;
mod storage;

pub use sides::{Residency, Transfers};
pub use storage::Storage;

use crate::element::Element;
use crate::error::{Error, Result};
use crate::layout::{AoS, AoSoA, Layout};
use sides::{Sides, Unusable};
use std::fmt;
use std::marker::PhantomData;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// A lattice field: one element of type `T` per site, stored in layout `L` (default
/// `AoSoA<32>`).
///
/// Inside an `on_gpu!` body a captured field means "this site's element". On the host the
/// field is read with [`to_vec`](Field::to_vec) or [`get`](Field::get) and written with
/// [`set`](Field::set) or [`as_host_mut`](Field::as_host_mut); each copies data between
/// host and device only when the other side is newer. Where the host copy lives (pageable,
/// pinned, mapped for the device, or nowhere) is the field's [`Storage`]. A field is `Send`
/// and `Sync`: its copies are behind a mutex, and host reads wait for the queued work that
/// writes them.
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
    fn with_sides(len: usize, stride: usize, sides: Sides<T::Scalar>) -> Self {
        Field {
            len,
            stride: stride as u64,
            sides: Mutex::new(sides),
            _layout: PhantomData,
        }
    }

    /// A field of `len` sites that holds no storage: every use returns `why`'s error.
    fn unusable(len: usize, why: Unusable) -> Self {
        Self::with_sides(len, 0, Sides::unusable(why))
    }

    /// The padded length (the component stride) and the number of scalars of the storage of
    /// `len` sites, checked: their bytes must fit one allocation (`isize::MAX` bytes).
    fn sizes(len: usize) -> std::result::Result<(usize, usize), Unusable> {
        let size = std::mem::size_of::<T::Scalar>();
        let too_large = || Unusable::TooLarge {
            len,
            element: std::any::type_name::<T>(),
            layout: L::name(),
            bytes: (len as u128).next_multiple_of(L::BLOCK as u128)
                * T::COMPONENTS as u128
                * size as u128,
        };
        // `padded_len` rounds up to whole blocks: check first that the round-up fits.
        if len.checked_next_multiple_of(L::BLOCK).is_none() {
            return Err(too_large());
        }
        let stride = L::padded_len(len);
        match stride
            .checked_mul(T::COMPONENTS)
            .and_then(|scalars| Some((scalars, scalars.checked_mul(size)?)))
        {
            Some((scalars, bytes)) if bytes <= isize::MAX as usize => Ok((stride, scalars)),
            _ => Err(too_large()),
        }
    }

    /// A field of `len` zero elements. Nothing is allocated until a side is first used (on
    /// the device it is then zeroed there, without a host copy). A `len` whose storage could
    /// never fit in memory makes a field whose every use returns [`Error::FieldTooLarge`].
    pub fn zeros(len: usize) -> Self {
        match Self::sizes(len) {
            Ok((stride, scalars)) => Self::with_sides(len, stride, Sides::zeros(scalars)),
            Err(why) => Self::unusable(len, why),
        }
    }

    /// A field of `len` copies of `value` (on the host). If the host copy cannot be
    /// allocated, every use of the field returns the error (see [`from_fn`](Field::from_fn)).
    pub fn filled(len: usize, value: T) -> Self {
        Self::from_fn(len, |_| value)
    }

    /// A field whose element `i` is `f(i)` (on the host).
    ///
    /// The constructors return the field itself, not a `Result`: when its storage cannot
    /// be had (its bytes overflow, [`Error::FieldTooLarge`]; the allocator refuses the host
    /// copy, [`Error::OutOfHostMemory`]) the field holds nothing, `f` is not called, and
    /// every use of the field (a call that captures it, `to_vec`, `get`, `set`, ...) returns
    /// that error.
    pub fn from_fn(len: usize, mut f: impl FnMut(usize) -> T) -> Self {
        let (stride, scalars) = match Self::sizes(len) {
            Ok(sizes) => sizes,
            Err(why) => return Self::unusable(len, why),
        };
        let Ok(host) = bytemuck::allocation::try_zeroed_slice_box(scalars) else {
            let what = describe::<T, L>(len, stride as u64);
            let requested = scalars * std::mem::size_of::<T::Scalar>(); // checked in `sizes`
            return Self::unusable(len, Unusable::OutOfHostMemory { what, requested });
        };
        let mut host = Vec::from(host);
        for i in 0..len {
            site_io::set::<T, L>(&mut host, i, stride, f(i));
        }
        Self::with_sides(len, stride, Sides::on_host(host))
    }

    /// A field holding the elements of `values` (on the host; see
    /// [`from_fn`](Field::from_fn) for when its storage cannot be allocated).
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
    /// then keeps the host copy, so a second call copies nothing; a
    /// [`DeviceOnly`](Storage::DeviceOnly) field downloads into a temporary). Waits first for
    /// queued work that writes the field.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let stride = self.stride as usize;
        let mut sides = self.lock();
        #[cfg(feature = "cuda")]
        if let Some(v) = device_only::to_vec_aos(self, &mut sides)? {
            return Ok(v);
        }
        let len = self.len;
        sides.with_host_data(|host| {
            let mut out = Vec::new();
            out.try_reserve_exact(len)
                .map_err(|_| Error::OutOfHostMemory {
                    what: format!("the result of to_vec ({len} elements)"),
                    requested: len.saturating_mul(std::mem::size_of::<T>()),
                })?;
            out.extend((0..len).map(|i| site_io::get::<T, L>(host, i, stride)));
            Ok(out)
        })?
    }

    /// The element of site `i` (downloading first if the device copy is newer; a
    /// [`DeviceOnly`](Storage::DeviceOnly) field copies just that element).
    pub fn get(&self, i: usize) -> Result<T> {
        self.check_index(i)?;
        let stride = self.stride as usize;
        let mut sides = self.lock();
        sides.check_usable()?;
        if sides.storage == Storage::DeviceOnly && sides.newest == Residency::Zeros {
            return Ok(T::zeroed()); // no host copy for one zero
        }
        #[cfg(feature = "cuda")]
        if sides.reads_through_device() {
            return device_only::get_site::<T, L>(&mut sides, i, stride);
        }
        Ok(site_io::get::<T, L>(sides.host_for_read()?, i, stride))
    }

    /// Sets the element of site `i` on the host; the device copy becomes stale. (A
    /// [`DeviceOnly`](Storage::DeviceOnly) field whose device copy is current writes just
    /// that element there instead.)
    pub fn set(&mut self, i: usize, value: T) -> Result<()> {
        self.check_index(i)?;
        let stride = self.stride as usize;
        #[cfg(feature = "cuda")]
        {
            let (len, stride64) = (self.len, self.stride);
            let what = move || describe::<T, L>(len, stride64);
            let sides = self.sides_mut();
            device_only::prepare_set(sides, &what)?;
            if sides.reads_through_device() {
                return device_only::set_site::<T, L>(sides, i, stride, value);
            }
        }
        let sides = self.sides_mut();
        site_io::set::<T, L>(sides.host_for_write(false)?, i, stride, value);
        Ok(())
    }

    /// Makes the host copy current (downloading if the device is newer) and keeps it.
    pub fn sync_host(&mut self) -> Result<()> {
        self.sides_mut().host_for_read().map(drop)
    }

    /// Host access to the elements for writing; the device copy becomes stale. For a
    /// [`DeviceOnly`](Storage::DeviceOnly) field the host copy lives as long as the
    /// `HostMut`: dropping it uploads the data and frees the host copy.
    pub fn as_host_mut(&mut self) -> Result<HostMut<'_, T, L>> {
        let (len, stride) = (self.len, self.stride as usize);
        let sides = self.sides_mut();
        sides.host_for_write(false)?;
        Ok(HostMut {
            sides,
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

    /// Host write access through a shared borrow, for the one writer a shared field has: the
    /// halo refresh of a decomposed field, made by the call that shifts it (under the lock,
    /// so no other user sees it half written).
    #[cfg(feature = "mpi")]
    pub(crate) fn with_host_mut<R>(
        &self,
        f: impl FnOnce(&mut HostMut<'_, T, L>) -> R,
    ) -> Result<R> {
        let (len, stride) = (self.len, self.stride as usize);
        let mut guard = self.lock();
        guard.host_for_write(false)?;
        let mut host = HostMut {
            sides: &mut guard,
            len,
            stride,
            _t: PhantomData,
        };
        Ok(f(&mut host))
    }

    /// `f` given the elements of the host copy (made current first), read under the lock:
    /// the faces a decomposed field sends.
    #[cfg(feature = "mpi")]
    pub(crate) fn with_host_values<R>(
        &self,
        f: impl FnOnce(&dyn Fn(usize) -> T) -> R,
    ) -> Result<R> {
        let stride = self.stride as usize;
        let mut guard = self.lock();
        let host: &[T::Scalar] = guard.host_for_read()?;
        Ok(f(&|i| site_io::get::<T, L>(host, i, stride)))
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Sides<T::Scalar>> {
        // No user code runs under the lock, so a poisoned lock still holds consistent data.
        self.sides.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn sides_mut(&mut self) -> &mut Sides<T::Scalar> {
        self.sides.get_mut().unwrap_or_else(PoisonError::into_inner)
    }

    /// A description of the field for errors, built only if one happens (no allocation on
    /// the hot path).
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub(crate) fn what(&self) -> impl Fn() -> String + 'static {
        let (len, stride) = (self.len, self.stride);
        move || describe::<T, L>(len, stride)
    }

    /// The padded length, as passed to kernels.
    pub(crate) fn stride_ref(&self) -> &u64 {
        &self.stride
    }
}

/// A name for a field's storage in errors (built only when an error happens).
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn describe<T: Element, L: Layout>(len: usize, stride: u64) -> String {
    format!(
        "a field of {len} sites of {} ({}, {} bytes)",
        std::any::type_name::<T>(),
        L::name(),
        stride as u128 * T::COMPONENTS as u128 * std::mem::size_of::<T::Scalar>() as u128
    )
}

impl<T: Element> Field<T, AoS> {
    /// The elements as a slice (AoS storage is exactly `[T]`); downloads first if needed.
    pub fn as_slice(&mut self) -> Result<&[T]> {
        let len = self.len;
        let host = self.sides_mut().host_for_read()?;
        Ok(&bytemuck::cast_slice(host)[..len])
    }

    /// The elements as a mutable slice; the device copy becomes stale.
    pub fn as_slice_mut(&mut self) -> Result<&mut [T]> {
        let len = self.len;
        let host = self.sides_mut().host_for_write(false)?;
        Ok(&mut bytemuck::cast_slice_mut(host)[..len])
    }
}

impl<T: Element, L: Layout> fmt::Debug for Field<T, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Field")
            .field("element", &std::any::type_name::<T>())
            .field("layout", &L::name())
            .field("len", &self.len)
            .field("storage", &self.storage())
            .field("residency", &self.residency())
            .finish()
    }
}

/// Mutable host access to a field's elements, from [`Field::as_host_mut`]: a guard that
/// borrows the field until it is dropped (then a device-only field uploads the writes).
pub struct HostMut<'a, T: Element, L: Layout> {
    /// The field's copies; its host copy is current and allocated while this lives.
    sides: &'a mut Sides<T::Scalar>,
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
        site_io::get::<T, L>(self.sides.host_slice(), i, self.stride)
    }

    /// Sets the element of site `i`. Panics if `i >= len`.
    pub fn set(&mut self, i: usize, value: T) {
        assert!(
            i < self.len,
            "site {i} out of range for a field of {} sites",
            self.len
        );
        let stride = self.stride;
        site_io::set::<T, L>(self.sides.host_slice_mut(), i, stride, value)
    }
}

impl<T: Element, L: Layout> Drop for HostMut<'_, T, L> {
    /// A device-only field keeps no host copy: upload the writes and free it. If that fails
    /// the host copy stays the current one (nothing is lost) and is uploaded when next used.
    fn drop(&mut self) {
        #[cfg(feature = "cuda")]
        if self.sides.storage == Storage::DeviceOnly
            && matches!(crate::backend::current(), Ok(crate::backend::Backend::Cuda))
        {
            if let Ok(dev) = crate::cuda::device() {
                let (len, stride) = (self.len, self.stride as u64);
                let what = move || describe::<T, L>(len, stride);
                let _ = self
                    .sides
                    .device_read_on(dev, crate::cuda::stream::Queue::Default, &what)
                    .and_then(|_| self.sides.release_host_if_device_only());
            }
        }
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
        drop(h); // the guard holds the field until dropped
        assert_eq!(f.to_vec().unwrap(), vec![5, 7, -1, 7]);
    }

    #[test]
    fn aos_slices_view_the_storage() {
        let mut f: Field<u32, AoS> = Field::from_vec(vec![1, 2, 3]);
        f.as_slice_mut().unwrap()[1] = 20;
        assert_eq!(f.as_slice().unwrap(), &[1, 20, 3]);
    }
}
