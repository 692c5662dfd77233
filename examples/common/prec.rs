//! The precisions the benchmarks run, with their conversions from and to the host's f64.

/// `f32` or `f64`.
pub trait Prec: ongpu::Real + Copy + Send + Sync + 'static {
    /// `f32` or `f64`.
    const NAME: &'static str;
    /// The CUDA C++ name.
    const CUDA: &'static str;
    /// Bound on |got − want| relative to the answer's scale, against the f64 host.
    const TOLERANCE: f64;
    /// Rounds an f64.
    fn of(x: f64) -> Self;
    /// Widens to f64.
    fn to(self) -> f64;
}

impl Prec for f32 {
    const NAME: &'static str = "f32";
    const CUDA: &'static str = "float";
    const TOLERANCE: f64 = 2e-5;
    fn of(x: f64) -> Self {
        x as f32
    }
    fn to(self) -> f64 {
        self as f64
    }
}

impl Prec for f64 {
    const NAME: &'static str = "f64";
    const CUDA: &'static str = "double";
    const TOLERANCE: f64 = 1e-13;
    fn of(x: f64) -> Self {
        x
    }
    fn to(self) -> f64 {
        self
    }
}
