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
//! and `#[ongpu::kernel]` launches are queued on that stream and return at once; host reads
//! of a field wait for exactly the queued work that writes it, and work on one stream waits
//! for the work of other streams on the same fields.
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
///
/// **Reductions**: `on_gpu!(sum: n, threads_per_block, BODY)`, `on_gpu!(sum: n, BODY)`,
/// `on_gpu!(sum: BODY)`, and the same with `min:` or `max:`. The body ends with an
/// expression without `;`: each site's value. The call evaluates to
/// [`Result`] of the reduced value: a sum of `f32`/`f64` values is an `f64`
/// (added in `f64` on both backends), of `i32`/`u32` an `i64`/`u64`, of `Complex<_>` a
/// `Complex<f64>` (see [`Summable`]); `min`/`max` of `f32 f64 i32 u32` keep the type (see
/// [`MinMax`]). With no sites the result is the identity (0, `+∞`/`MAX` for min,
/// `-∞`/`MIN` for max).
///
/// ```
/// use ongpu::prelude::*;
/// let x: Field<f32> = Field::from_vec(vec![1.0, -2.0, 3.0]);
/// let y: Field<f32> = Field::filled(3, 2.0);
/// let dot: f64 = on_gpu!(sum: { x * y })?;
/// assert_eq!(dot, 4.0);
/// assert_eq!(on_gpu!(max: |i| { x.abs() * i as f32 })?, 6.0);
/// assert_eq!(on_gpu!(min: 2, { x })?, -2.0);   // the first 2 sites
/// # Ok::<(), ongpu::Error>(())
/// ```
pub use ongpu_macros::on_gpu;

/// Marks a function as callable from `on_gpu!` bodies: it keeps its Rust definition (used
/// by the CPU backend) and gains a CUDA C++ translation. Its body uses the body language,
/// plus `while`, `loop`, `break`, `continue` and `return`; its parameters and result are
/// values of the supported types (and, called from kernels, arrays).
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
///
/// A device function may be generic over one [`Real`] type (`f32` or `f64`), written around
/// its complex and colour types (`Complex<T>`, `ColorMatrix<T>`). Each call instantiates it
/// for its arguments' type, on both backends (a C++ template on the GPU); in its body an
/// unsuffixed float literal is a `T`. Another argument type is a compile error at the call.
///
/// ```
/// use ongpu::prelude::*;
///
/// #[ongpu::device]
/// fn lerp<T: Real>(a: T, b: T, t: T) -> T {
///     a + (b - a) * t
/// }
///
/// let x: Field<f64> = Field::from_vec(vec![0.0, 4.0]);
/// let mut y: Field<f64> = Field::zeros(2);
/// on_gpu!({ y = lerp(x, 8.0, 0.25); })?;
/// assert_eq!(y.to_vec()?, vec![2.0, 5.0]);
/// assert_eq!(lerp.instance::<f32>()(0.0, 2.0, 0.5), 1.0); // on the host
/// # Ok::<(), ongpu::Error>(())
/// ```
pub use ongpu_macros::device;

/// Makes a function an explicit kernel in the style of CUDA's `__global__` functions: every
/// thread of a grid of blocks runs its body. The macro generates
/// `name::launch(LaunchShape { grid, block }, args...) -> ongpu::Result<()>`, where an array
/// parameter `&[T]` takes a `&Field<T, AoS>` and `&mut [T]` a `&mut Field<T, AoS>` (copied
/// between host and device only when the other side is newer), and values are passed as
/// declared.
///
/// The body uses the body language of [`on_gpu!`] plus `while`, `loop`, `break`, `continue`
/// and `return`, indexing of the array parameters (`a[i]`, with any integer type; out of
/// range panics on the CPU and, with [`bounds_checks`] on, is an error on the GPU),
/// `a.len()`, `thread_idx()`, `block_idx()`, `block_dim()` and `grid_dim()` (with `.x .y .z`,
/// `u32`), `let s = shared!([T; N]);` or `shared!([[T; N]; M])` (block-shared arrays of
/// constant size, at the top level of the body), `sync_threads()`, `thread_fence()`, and the
/// atomics `atomic_add`, `atomic_sub`, `atomic_min`, `atomic_max`, `atomic_exch` and
/// `atomic_cas` on `&mut a[i]` of a `&mut [T]` parameter or a shared array (each returns the
/// old value). Names that are not parameters or locals are constants (`const` items).
///
/// On the CPU backend blocks run in parallel and the threads of a block run one after the
/// other between barriers, so `sync_threads()` keeps its meaning; threads that do not all
/// reach the same barriers are an [`Error::DivergentBarrier`]. Inside [`Stream::scope`] a
/// launch is queued on the stream, as `on_gpu!` calls are.
///
/// ```
/// use ongpu::prelude::*;
///
/// #[ongpu::kernel]
/// fn block_sums(x: &[f32], sums: &mut [f32]) {
///     let part = shared!([f32; 64]);
///     let t = thread_idx().x as usize;
///     let i = block_idx().x as usize * 64 + t;
///     part[t] = if i < x.len() { x[i] } else { 0.0 };
///     sync_threads();
///     let mut half = 32;
///     while half > 0 {
///         if t < half {
///             part[t] += part[t + half];
///         }
///         sync_threads();
///         half /= 2;
///     }
///     if t == 0 {
///         sums[block_idx().x] = part[0];
///     }
/// }
///
/// let x: Field<f32, AoS> = Field::from_fn(200, |i| i as f32);
/// let mut sums: Field<f32, AoS> = Field::zeros(4);
/// block_sums::launch(LaunchShape { grid: (4, 1, 1), block: (64, 1, 1) }, &x, &mut sums)?;
/// assert_eq!(sums.to_vec()?, vec![2016.0, 6112.0, 10208.0, 1564.0]);
/// # Ok::<(), ongpu::Error>(())
/// ```
pub use ongpu_macros::kernel;

pub use ongpu_runtime::{
    backend, bounds_checks, cpu_lowerings, cpu_vectors, cuda_available, in_stream_scope, inspect,
    math, set_cpu_vectors, synchronize, with_backend, with_bounds_checks, with_cpu_vectors, AoS,
    AoSoA, Backend, ColorMatrix, ColorVector, Complex, CpuVectors, DeviceScalar, Devices, Dim3,
    Element, ElementArray, Error, Event, Field, Graph, GraphLoop, HaloRefreshes, HostMut, Lattice,
    LaunchShape, Layout, Location, LoopTest, LoopValue, Lowering, Norm2, Philox, ProcessGrid, Real,
    RealKind, RealValue, Residency, Result, Scalar, SoA, Space, SpaceField, SpaceSubset,
    SplitField, SplitLattice, SplitSubset, Storage, Stream, Subset, TimesI, Transfers, Uniform,
};
pub use ongpu_runtime::{bf16, f16, CastReal, Precision, StorageReal};
pub use ongpu_runtime::{ExactSum, InnerProduct, MinMax, Summable};

/// Lattice QCD as a library, written with `on_gpu!`: gauge fields and their observables,
/// quenched updates, the staggered operator and its solvers, NERSC gauge files (the
/// `ongpu-qcd` crate; the default feature `qcd`).
#[cfg(feature = "qcd")]
pub use ongpu_qcd as qcd;

/// Many processes, one program, through MPI (the `mpi` feature): [`mpi::World`] (the ranks,
/// the GPU of each, collectives every rank agrees on). The cut of a lattice over the ranks is
/// [`ProcessGrid`]; `docs/multi-node.md` says how to run.
#[cfg(feature = "mpi")]
pub use ongpu_runtime::mpi;
/// Printing from bodies and kernels: `println!`, `print!`, `eprintln!` and `eprint!` inside
/// `on_gpu!` and `#[ongpu::kernel]` write their lines when the call ends, ordered by site or
/// thread, with the same text on both backends; [`print::capture`] collects them instead
/// (`docs/printing.md`).
pub use ongpu_runtime::print;
/// Counter-based random numbers: [`Philox`] and the portable functions its normal deviates use.
pub use ongpu_runtime::random;
/// Launch autotuning of element-wise calls on the GPU: `ONGPU_TUNE=off|on|force`,
/// [`tune::with_tuning`], and the decisions made ([`tune::choices`]); `docs/tuning.md`.
pub use ongpu_runtime::tune;
/// A lattice cut over the ranks of an MPI run and its fields (the `mpi` feature):
/// `lat.over_ranks(&world, dims)`, and `on_gpu!` over it as over a [`Lattice`].
#[cfg(feature = "mpi")]
pub use ongpu_runtime::{RankField, RankLattice, RankSubset};

/// The CUDA layer under the backend: the device, device buffers, NVRTC and launches, for
/// benchmarks and for code that mixes hand-written kernels with `on_gpu!`.
#[cfg(feature = "cuda")]
pub use ongpu_runtime::cuda;

/// What most programs need: `use ongpu::prelude::*;`.
pub mod prelude {
    pub use crate::{
        bf16, f16, on_gpu, AoS, AoSoA, CastReal, ColorMatrix, ColorVector, Complex, DeviceScalar,
        Devices, Field, Graph, GraphLoop, Lattice, LaunchShape, LoopTest, Norm2, Philox, Precision,
        Real, Result, SoA, Space, SpaceField, SpaceSubset, SplitField, SplitLattice, StorageReal,
        Subset, TimesI,
    };
}

/// What macro expansions call. Not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use ongpu_runtime::__private::*;
}
