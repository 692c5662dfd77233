//! Matrix multiply, C = A·B in `f32`, with the two kernels of the CUDA tutorials, one thread
//! per output (naive) and 16×16 shared-memory tiles, and a register-blocked kernel (64×64
//! tiles, 4×4 outputs per thread); on the GPU also cuBLAS SGEMM in the same run. Each result
//! is checked against an f64 product (every element of a small product, 4096 random ones of
//! a large one, where the f64 product would take minutes) and every element of every result
//! against the others; each kernel is timed (CUDA events, median of batches). Square sizes by default; `--shape m,n,k` adds any rectangular one.
//!
//! `cargo run --release --example matmul [-- --sizes 1024,4096,8192 --shape 1000,1500,700 --reps 5]`
//!
//! Checks, with u = 2⁻²⁴ and γ = (k + 2)·u: a computed element is within γ·Σ|a b| of the
//! exact one. The inputs are in [0, 1), so Σ|a b| is C itself and the bound is relative
//! (5e-4 at k = 8192), well below the change a lost 16-term tile makes. Every element of
//! each result is checked against the others (within 2γ·C), and against the f64 product
//! (all elements for small sizes, 4096 random ones otherwise).

#[path = "../common/mod.rs"]
mod common;
mod kernels;

use common::{arg, arg_list, time};
use ongpu::prelude::*;
use ongpu::Backend;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;

type Res<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const U: f64 = 1.0 / (1u64 << 24) as f64;

struct Problem {
    m: usize,
    n: usize,
    k: usize,
    a: Vec<f32>,
    b: Vec<f32>,
}

impl Problem {
    fn random(m: usize, n: usize, k: usize, seed: u64) -> Self {
        let mut r = rand::rngs::SmallRng::seed_from_u64(seed);
        let a = (0..m * k).map(|_| r.random_range(0.0..1.0)).collect();
        let b = (0..k * n).map(|_| r.random_range(0.0..1.0)).collect();
        Problem { m, n, k, a, b }
    }

    /// C[i][j] in f64 and Σ|a b|.
    fn exact(&self, i: usize, j: usize) -> (f64, f64) {
        (0..self.k).fold((0.0, 0.0), |(s, abs), p| {
            let x = self.a[i * self.k + p] as f64 * self.b[p * self.n + j] as f64;
            (s + x, abs + x.abs())
        })
    }

    fn gamma(&self) -> f64 {
        (self.k + 2) as f64 * U
    }

    /// Checks `c` against the f64 product: every element if the product is small, else
    /// 4096 random ones. Returns how many were checked.
    fn check_exact(&self, name: &str, c: &[f32]) -> Res<usize> {
        let (m, n) = (self.m, self.n);
        let points: Vec<(usize, usize)> = if m * n * self.k <= 1 << 28 {
            (0..m * n).map(|e| (e / n, e % n)).collect()
        } else {
            let mut r = rand::rngs::SmallRng::seed_from_u64(7);
            (0..4096)
                .map(|_| (r.random_range(0..m), r.random_range(0..n)))
                .collect()
        };
        let bad = points
            .par_iter()
            .filter(|&&(i, j)| {
                let (s, abs) = self.exact(i, j);
                let err = (c[i * n + j] as f64 - s).abs();
                err.is_nan() || err > self.gamma() * abs
            })
            .count();
        if bad > 0 {
            return Err(format!(
                "{name}: {bad} of {} checked elements are wrong",
                points.len()
            )
            .into());
        }
        Ok(points.len())
    }

    /// Checks that two results agree within 2γ·C everywhere (C ≤ x / (1 − γ) for a computed
    /// x, as the inputs are not negative).
    fn check_agree(&self, names: (&str, &str), x: &[f32], y: &[f32]) -> Res<()> {
        let g = self.gamma();
        let bad = x
            .par_iter()
            .zip(y)
            .filter(|&(&x, &y)| {
                let (x, y) = (x as f64, y as f64);
                x.is_nan() || y.is_nan() || (x - y).abs() > 2.0 * g * x.max(y) / (1.0 - g)
            })
            .count();
        if bad > 0 {
            return Err(format!(
                "{} and {} differ at {bad} of {} elements",
                names.0,
                names.1,
                x.len()
            )
            .into());
        }
        Ok(())
    }
}

/// One kernel's result and time.
struct Run {
    name: &'static str,
    seconds: f64,
    c: Vec<f32>,
}

/// The example's kernels.
#[derive(Clone, Copy)]
enum Kernel {
    Naive,
    Tiled,
    Blocked,
}

fn run_kernel(backend: Backend, reps: usize, p: &Problem, kernel: Kernel) -> Res<Run> {
    let a: Field<f32, AoS> = Field::from_vec(p.a.clone());
    let b: Field<f32, AoS> = Field::from_vec(p.b.clone());
    let mut c: Field<f32, AoS> = Field::filled(p.m * p.n, f32::NAN);
    let (m, n, k) = (p.m as u32, p.n as u32, p.k as u32);
    let (shape, blocked) = (kernels::shape(p.m, p.n), kernels::blocked_shape(p.m, p.n));
    let mut launch = || match kernel {
        Kernel::Naive => kernels::matmul_naive::launch(shape, &a, &b, &mut c, m, n, k),
        Kernel::Tiled => kernels::matmul_tiled::launch(shape, &a, &b, &mut c, m, n, k),
        Kernel::Blocked => kernels::matmul_blocked::launch(blocked, &a, &b, &mut c, m, n, k),
    };
    let seconds = time(backend, reps, &mut launch)?;
    Ok(Run {
        name: match kernel {
            Kernel::Naive => "naive",
            Kernel::Tiled => "tiled 16x16",
            Kernel::Blocked => "blocked 4x4",
        },
        seconds,
        c: c.to_vec()?,
    })
}

#[cfg(feature = "cuda")]
mod cublas {
    //! cuBLAS SGEMM on device buffers, on the legacy default stream (where ongpu launches and
    //! records its timing events).
    use super::{Problem, Res, Run};
    use cudarc::cublas::{result, sys};
    use ongpu::cuda::{device, DeviceBuffer};

    pub fn run(reps: usize, p: &Problem) -> Res<Run> {
        let dev = device()?;
        let bytes = |len: usize| len * std::mem::size_of::<f32>();
        let mut a = DeviceBuffer::alloc(dev, bytes(p.a.len()), "A for cuBLAS")?;
        let mut b = DeviceBuffer::alloc(dev, bytes(p.b.len()), "B for cuBLAS")?;
        let c = DeviceBuffer::alloc(dev, bytes(p.m * p.n), "C for cuBLAS")?;
        a.upload(&p.a)?;
        b.upload(&p.b)?;
        let handle = result::create_handle()?;
        let (m, n, k) = (p.m as i32, p.n as i32, p.k as i32);
        let (one, zero) = (1.0f32, 0.0f32);
        // Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: no transposes, swapped operands.
        let sgemm = || -> ongpu::Result<()> {
            // SAFETY: the buffers hold k·n, m·k and m·n floats and outlive the call; the
            // handle is live; cuBLAS queues the product on the default stream.
            unsafe {
                result::sgemm(
                    handle,
                    sys::cublasOperation_t::CUBLAS_OP_N,
                    sys::cublasOperation_t::CUBLAS_OP_N,
                    n,
                    m,
                    k,
                    &one,
                    b.ptr() as *const f32,
                    n,
                    a.ptr() as *const f32,
                    k,
                    &zero,
                    c.ptr() as *mut f32,
                    n,
                )
            }
            .map_err(|e| ongpu::Error::InvalidArgument(format!("cuBLAS SGEMM failed: {e:?}")))
        };
        let seconds = super::time(ongpu::Backend::Cuda, reps, sgemm)?;
        let mut out = vec![0.0f32; p.m * p.n];
        c.download(&mut out)?;
        // SAFETY: created above, destroyed once, after the last use.
        unsafe { result::destroy_handle(handle) }?;
        Ok(Run {
            name: "cuBLAS SGEMM",
            seconds,
            c: out,
        })
    }
}

/// cuBLAS SGEMM, when the CUDA backend is compiled in.
fn reference_sgemm(reps: usize, p: &Problem) -> Res<Run> {
    #[cfg(feature = "cuda")]
    return cublas::run(reps, p);
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (reps, p);
        unreachable!("the CUDA backend is not compiled in")
    }
}

fn main() -> Res<()> {
    let backend = ongpu::backend()?;
    let default_sizes: &[usize] = match backend {
        Backend::Cuda => &[1024, 4096, 8192],
        Backend::Cpu => &[128, 256],
    };
    let mut problems: Vec<(usize, usize, usize)> = arg_list("--sizes", default_sizes)
        .into_iter()
        .map(|s| (s, s, s))
        .collect();
    let shape = arg_list("--shape", &[]);
    if !shape.is_empty() {
        assert_eq!(shape.len(), 3, "--shape takes m,n,k");
        problems.push((shape[0], shape[1], shape[2]));
    }
    let reps = arg("--reps", 5);
    common::warn_if_checked(backend);
    println!(
        "matmul: C = A·B in f32, backend {backend:?} ({}); times are medians of {reps} batches",
        common::device_name(backend)
    );
    println!(
        "{:>17} | {:>22} | {:>22} | {:>22} | {:>22} | {:>11} | {:>13} | {:>14}",
        "m x n x k",
        "naive ms  GFLOP/s",
        "tiled ms  GFLOP/s",
        "blocked ms  GFLOP/s",
        "cuBLAS ms  GFLOP/s",
        "tiled/naive",
        "blocked/tiled",
        "blocked/cuBLAS"
    );
    for (i, &(m, n, k)) in problems.iter().enumerate() {
        let p = Problem::random(m, n, k, 100 + i as u64);
        let mut runs = vec![
            run_kernel(backend, reps, &p, Kernel::Naive)?,
            run_kernel(backend, reps, &p, Kernel::Tiled)?,
            run_kernel(backend, reps, &p, Kernel::Blocked)?,
        ];
        if backend == Backend::Cuda {
            runs.push(reference_sgemm(reps, &p)?);
        }
        let mut checked = 0;
        for r in &runs {
            checked = p.check_exact(r.name, &r.c)?;
        }
        for w in runs.windows(2) {
            p.check_agree((w[0].name, w[1].name), &w[0].c, &w[1].c)?;
        }
        let flop = 2.0 * m as f64 * n as f64 * k as f64;
        let cell = |r: Option<&Run>| match r {
            Some(r) => format!("{:>10.3} {:>11.1}", r.seconds * 1e3, flop / r.seconds / 1e9),
            None => format!("{:>22}", "-"),
        };
        // How many times faster x is than y.
        let ratio = |x: Option<&Run>, y: Option<&Run>| match (x, y) {
            (Some(x), Some(y)) => format!("{:.2}", y.seconds / x.seconds),
            _ => "-".to_string(),
        };
        println!(
            "{:>17} | {} | {} | {} | {} | {:>11} | {:>13} | {:>14}",
            format!("{m}x{n}x{k}"),
            cell(runs.first()),
            cell(runs.get(1)),
            cell(runs.get(2)),
            cell(runs.get(3)),
            ratio(runs.get(1), runs.first()),
            ratio(runs.get(2), runs.get(1)),
            ratio(runs.get(2), runs.get(3)),
        );
        let sampled = if checked == m * n { "all" } else { "sampled" };
        println!(
            "{:>17}   checked: {checked} elements ({sampled}) against f64, every element across the {} results",
            "",
            runs.len()
        );
    }
    Ok(())
}
