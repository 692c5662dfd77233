//! # ongpu
//!
//! Data-parallel Rust blocks that become CUDA kernels. `on_gpu!(n, tpb, { x += y * z; })`
//! walks the block's syntax tree, captures the fields it touches, emits CUDA C++ that NVRTC
//! compiles at run time, and launches it; the same block runs on rayon threads when there is
//! no GPU (or with `ONGPU_BACKEND=cpu`).
//!
//! ```
//! use ongpu::prelude::*;
//!
//! fn main() -> ongpu::Result<()> {
//!     let n = 1000;
//!     let mut x: Field<ColorMatrix<f32>> = Field::zeros(n);        // AoSoA<32> by default
//!     let y: Field<_> = Field::from_fn(n, |i| ColorMatrix::<f32>::identity() * (i as f32));
//!     let z: Field<ColorMatrix<f32>, AoS> = Field::filled(n, ColorMatrix::identity());
//!     on_gpu!(n, 128, { x += y * z; })?;        // n sites, 128 threads per block
//!     on_gpu!({ x += y * z; })?;                // n = the common length of the fields
//!     let a = 0.5f32;
//!     on_gpu!(n, |i| { x = y.adj() * z + a * x; })?;   // `i`: the site index
//!     let host: Vec<ColorMatrix<f32>> = x.to_vec()?;   // copies back only if needed
//!     assert_eq!(host[10].trace().re, 3.0 * (10.0 + 0.5 * 20.0));
//!     Ok(())
//! }
//! ```
//!
//! ## The body language
//!
//! `let` (optionally typed), `=` and `op=` assignments, arithmetic, bitwise and comparison
//! operators, `if`/`else`, `for k in a..b` (and `a..=b`), `as` casts, number and bool
//! literals, the maths functions `sqrt exp ln sin cos tan abs min max floor ceil round trunc
//! powf powi atan2 hypot` (as `sqrt(x)` or `x.sqrt()`), the methods `.adj() .conj()
//! .trace() .norm2() .transpose() .norm_sqr()`, the fields `.re .im`, indexing `m[i][j]`,
//! `Complex::new`, `ColorMatrix::identity()`/`zero()`, and calls of functions marked
//! [`#[ongpu::device]`](macro@device). Anything else is a compile error at its span saying
//! what is supported.
//!
//! Free identifiers of the body are *captures*: a captured [`Field`] means "this site's
//! element"; any other captured value is passed by value to every site. Only fields can be
//! written. See `docs/` in the repository for the semantics (integer and float behaviour,
//! backends, memory).
//!
//! ## Host memory and streams
//!
//! A field's [`Storage`] says where its host copy lives: pageable memory (the default),
//! pinned memory (fast and asynchronous copies), mapped memory (kernels read the host memory
//! itself) or nowhere ([`Storage::DeviceOnly`]). Inside [`Stream::scope`], `on_gpu!` calls
//! are queued on that stream and return at once; host reads of a field wait for exactly
//! the queued work that writes it, and work on one stream waits for the work of other
//! streams on the same fields.
//!
//! ```
//! use ongpu::prelude::*;
//! use ongpu::Stream;
//!
//! fn main() -> ongpu::Result<()> {
//!     let n = 1 << 16;
//!     let a: Field<f32> = Field::from_fn(n, |i| i as f32).pinned()?;
//!     let mut b: Field<f32> = Field::zeros(n).device_only()?;   // never a host copy
//!     let mut c: Field<f32> = Field::zeros(n).pinned()?;
//!     let (s1, s2) = (Stream::new(), Stream::new());
//!     a.upload_async(&s1)?;                                    // queued, returns at once
//!     s1.scope(|| on_gpu!({ b = a * 2.0; }))?;                 // queued on s1
//!     s2.scope(|| on_gpu!({ c = b + 1.0; }))?;                 // s2 waits for s1's write of b
//!     c.download_async(&s2)?;
//!     assert_eq!(c.get(10)?, 21.0);                             // waits for that download
//!     Ok(())
//! }
//! ```

#![warn(missing_docs)]

/// Runs a block of statements for every site of a lattice, as a CUDA kernel (compiled at run
/// time by NVRTC) or on CPU threads.
///
/// Forms: `on_gpu!(n, threads_per_block, BODY)`, `on_gpu!(n, BODY)` and `on_gpu!(BODY)`
/// (then `n` is the common length of the captured fields), with `BODY` either
/// `{ statements }` or `|i| { statements }` where `i: usize` is the site index. The call
/// evaluates to [`Result<()>`](crate::Result); on the GPU it returns once the kernel is
/// queued (errors raised while it runs surface at the next copy back or
/// [`synchronize`]).
///
/// ```
/// use ongpu::prelude::*;
/// let mut c: Field<f32> = Field::zeros(4);
/// let a: Field<f32> = Field::from_vec(vec![1.0, 2.0, 3.0, 4.0]);
/// let b: Field<f32> = Field::filled(4, 0.5);
/// on_gpu!({ c = a + b; })?;
/// assert_eq!(c.to_vec()?, vec![1.5, 2.5, 3.5, 4.5]);
/// # Ok::<(), ongpu::Error>(())
/// ```
pub use ongpu_macros::on_gpu;

/// Marks a function as callable from `on_gpu!` bodies: it keeps its Rust definition (used
/// by the CPU backend) and gains a CUDA C++ translation. Its body uses the body language,
/// plus `while`, `loop`, `break`, `continue` and `return`; its parameters and result are
/// values of the supported types. Device functions are not generic.
///
/// ```
/// use ongpu::prelude::*;
///
/// #[ongpu::device]
/// fn smooth(x: f32, k: f32) -> f32 {
///     x / (1.0 + (x * k).abs())
/// }
///
/// let mut y: Field<f32> = Field::zeros(3);
/// let x: Field<f32> = Field::from_vec(vec![-2.0, 0.0, 2.0]);
/// on_gpu!({ y = smooth(x, 0.5); })?;
/// assert_eq!(y.to_vec()?, vec![-1.0, 0.0, 1.0]);
/// assert_eq!(smooth(2.0, 0.5), 1.0); // still an ordinary function on the host
/// # Ok::<(), ongpu::Error>(())
/// ```
pub use ongpu_macros::device;

pub use ongpu_runtime::{
    backend, codegen, cuda_available, in_stream_scope, math, synchronize, with_backend, AoS, AoSoA,
    Backend, ColorMatrix, ColorVector, Complex, Element, Error, Event, Field, HostMut, Layout,
    Location, Norm2, Real, RealKind, Residency, Result, Scalar, SoA, Storage, Stream, Transfers,
};

/// The CUDA layer under the backend: the device, device buffers, NVRTC and launches, for
/// benchmarks and for code that mixes hand-written kernels with `on_gpu!`.
#[cfg(feature = "cuda")]
pub use ongpu_runtime::cuda;

/// What most programs need: `use ongpu::prelude::*;`.
pub mod prelude {
    pub use crate::{
        on_gpu, AoS, AoSoA, ColorMatrix, ColorVector, Complex, Field, Norm2, Result, SoA,
    };
}

/// What macro expansions call. Not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use ongpu_runtime::__private::*;
}
