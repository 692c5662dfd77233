//! Conversion of driver results into [`Error`](crate::Error), naming what ongpu was doing.

use crate::error::Error;
use cudarc::driver::result::DriverError;
use cudarc::driver::sys::CUresult;

/// Turns a driver error into [`Error::Driver`], with the driver's name and description.
pub(crate) fn driver_error(during: impl Into<String>, e: DriverError) -> Error {
    let name = e.error_name().map(|s| s.to_string_lossy().into_owned());
    let description = e.error_string().map(|s| s.to_string_lossy().into_owned());
    Error::Driver {
        during: during.into(),
        name: name.unwrap_or_else(|_| format!("{:?}", e.0)),
        description: description.unwrap_or_else(|_| "no description".to_string()),
    }
}

/// Extension: `.during("what")` on driver results.
pub(crate) trait DriverResultExt<T> {
    /// Maps the error to [`Error::Driver`] saying what was being done.
    fn during(self, what: &str) -> Result<T, Error>;
}

impl<T> DriverResultExt<T> for Result<T, DriverError> {
    #[inline]
    fn during(self, what: &str) -> Result<T, Error> {
        self.map_err(|e| driver_error(what, e))
    }
}

/// True for the error the driver returns when an allocation does not fit.
pub(crate) fn is_out_of_memory(e: &DriverError) -> bool {
    e.0 == CUresult::CUDA_ERROR_OUT_OF_MEMORY
}
