//! Raw device addresses of a field's storage, for hand-written CUDA kernels that work on the
//! same fields as `on_gpu!` (a reference kernel in a benchmark, a call into a CUDA library).

use super::Field;
use crate::element::Element;
use crate::error::Result;
use crate::layout::Layout;

impl<T: Element, L: Layout> Field<T, L> {
    /// The device address of the field's storage, for a kernel that only reads it. The device
    /// copy is made current first (uploaded if the host copy is newer; a [`zeros`] field is
    /// zeroed on the device); the host copy stays current.
    ///
    /// The storage is `L::padded_len(len) * T::COMPONENTS` values of `T::Scalar`, component
    /// `c` of site `s` at `L::index(s, c, T::COMPONENTS, L::padded_len(len))` (see
    /// [`Layout`]). The address stays the same for the field's life, but is only current until
    /// the field is next written on the host: ask again before each launch. Kernels queued on
    /// the default stream (as `on_gpu!` and [`crate::cuda::launch`] do) run in order with
    /// ongpu's own work. An empty field has address 0.
    ///
    /// [`zeros`]: Field::zeros
    /// [`Layout`]: crate::Layout
    ///
    /// ```no_run
    /// use ongpu_runtime::{ColorMatrix, Field};
    /// let y: Field<ColorMatrix<f32>> = Field::filled(1024, ColorMatrix::identity());
    /// let address: u64 = y.device_ptr()?; // pass it as a `const float*` kernel parameter
    /// # Ok::<(), ongpu_runtime::Error>(())
    /// ```
    pub fn device_ptr(&self) -> Result<u64> {
        let dev = crate::cuda::device()?;
        self.lock().device_for_read(dev, &|| self.describe())
    }

    /// The device address of the field's storage, for a kernel that writes it: as
    /// [`device_ptr`](Field::device_ptr), and the host copy becomes stale, so the next host
    /// read ([`to_vec`](Field::to_vec), [`get`](Field::get)) downloads what the kernel wrote.
    pub fn device_ptr_mut(&mut self) -> Result<u64> {
        let dev = crate::cuda::device()?;
        let what = self.describe();
        self.sides_mut()
            .device_for_write(dev, false, &|| what.clone())
    }
}
