//! The lattice element types: colour vectors and matrices over `f32`/`f64`, with the same
//! operators as their twins in the CUDA prelude.

mod color_matrix;
mod color_vector;
mod display;
mod precision;
mod real;
mod times_i;

pub use color_matrix::ColorMatrix;
pub use color_vector::ColorVector;
pub use precision::{bf16, f16, CastReal, Precision, StorageReal};
pub use real::{Norm2, Real};
pub use times_i::TimesI;
