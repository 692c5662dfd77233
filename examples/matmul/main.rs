//! Matrix multiply, C = A·B in `f32`, with the two kernels of the CUDA tutorials, one thread
//! per output (naive) and 16×16 shared-memory tiles, a register-blocked kernel (64×64
//! tiles, 4×4 outputs per thread), the SGEMMs of `sgemm.rs` (128×128 tiles, 8×8 outputs
//! per thread in a local array, double-buffered, vector loads; 8 or 16 columns of A per
//! step; and 256×128 tiles with 16×8 outputs per thread, the fastest); on the GPU also
//! cuBLAS SGEMM in the same run. Each result
//! is checked against an f64 product (every element of a small product, 4096 random ones of
//! a large one, where the f64 product would take minutes) and every element of every result
//! against the others; each kernel is timed (CUDA events, median of batches). Square sizes by default; `--shape m,n,k` adds any rectangular one.
//!
//! `cargo run --release --example matmul [-- --sizes 1024,4096,8192 --shape 1000,1500,700 --reps 5
//! --kernels naive,tiled,blocked,sgemm8,sgemm16,sgemm_tall,cublas]`
//!
//! `--kernels` picks the kernels (all by default; cuBLAS on the GPU only). Each size prints
//! one line per kernel: time, GFLOP/s, and the fraction of cuBLAS's GFLOP/s.
//!
//! Checks, with u = 2⁻²⁴ and γ = (k + 2)·u: a computed element is within γ·Σ|a b| of the
//! exact one. The inputs are in [0, 1), so Σ|a b| is C itself and the bound is relative
//! (5e-4 at k = 8192), well below the change a lost 16-term tile makes. Every element of
//! each result is checked against the others (within 2γ·C), and against the f64 product
//! (all elements for small sizes, 4096 random ones otherwise).

#[path = "../common/mod.rs"]
mod common;
use ongpu_classic::matmul as kernels;
use ongpu_classic::sgemm;

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

/// The example's kernels, by their `--kernels` names.
const KERNELS: [&str; 7] = [
    "naive",
    "tiled",
    "blocked",
    "sgemm8",
    "sgemm16",
    "sgemm_tall",
    "cublas",
];

fn run_kernel(backend: Backend, reps: usize, p: &Problem, kernel: &str) -> Res<Run> {
    if kernel == "cublas" {
        return reference_sgemm(reps, p);
    }
    let a: Field<f32, AoS> = Field::from_vec(p.a.clone());
    let b: Field<f32, AoS> = Field::from_vec(p.b.clone());
    let mut c: Field<f32, AoS> = Field::filled(p.m * p.n, f32::NAN);
    let (m, n, k) = (p.m as u32, p.n as u32, p.k as u32);
    let (shape, blocked) = (kernels::shape(p.m, p.n), kernels::blocked_shape(p.m, p.n));
    let (s8, s16) = (sgemm::bk8::shape(p.m, p.n), sgemm::bk16::shape(p.m, p.n));
    let mut launch = || match kernel {
        "naive" => kernels::matmul_naive::launch(shape, &a, &b, &mut c, m, n, k),
        "tiled" => kernels::matmul_tiled::launch(shape, &a, &b, &mut c, m, n, k),
        "blocked" => kernels::matmul_blocked::launch(blocked, &a, &b, &mut c, m, n, k),
        "sgemm8" => sgemm::bk8::sgemm::launch(s8, &a, &b, &mut c, m, n, k),
        "sgemm_tall" => {
            sgemm::tall::sgemm::launch(sgemm::tall::shape(p.m, p.n), &a, &b, &mut c, m, n, k)
        }
        _ => sgemm::bk16::sgemm::launch(s16, &a, &b, &mut c, m, n, k),
    };
    let seconds = time(backend, reps, &mut launch)?;
    Ok(Run {
        name: match kernel {
            "naive" => "naive",
            "tiled" => "tiled 16x16",
            "blocked" => "blocked 4x4",
            "sgemm8" => "sgemm 8x8 BK=8",
            "sgemm_tall" => "sgemm 16x8 256x128",
            _ => "sgemm 8x8 BK=16",
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
    let chosen: Vec<String> = match common::value("--kernels") {
        Some(list) => list.split(',').map(str::to_string).collect(),
        None => KERNELS.iter().map(|k| k.to_string()).collect(),
    };
    for k in &chosen {
        assert!(
            KERNELS.contains(&k.as_str()),
            "--kernels takes names from {KERNELS:?}, not {k}"
        );
    }
    let chosen: Vec<&String> = chosen
        .iter()
        .filter(|k| backend == Backend::Cuda || k.as_str() != "cublas")
        .collect();
    println!(
        "{:>17} | {:>16} | {:>10} | {:>10} | {:>9}",
        "m x n x k", "kernel", "ms", "GFLOP/s", "of cuBLAS"
    );
    for (i, &(m, n, k)) in problems.iter().enumerate() {
        let p = Problem::random(m, n, k, 100 + i as u64);
        let mut runs = Vec::new();
        for kernel in &chosen {
            runs.push(run_kernel(backend, reps, &p, kernel)?);
        }
        let mut checked = 0;
        for r in &runs {
            checked = p.check_exact(r.name, &r.c)?;
        }
        for w in runs.windows(2) {
            p.check_agree((w[0].name, w[1].name), &w[0].c, &w[1].c)?;
        }
        let flop = 2.0 * m as f64 * n as f64 * k as f64;
        let cublas = runs
            .iter()
            .find(|r| r.name == "cuBLAS SGEMM")
            .map(|r| r.seconds);
        for r in &runs {
            let of_cublas = match cublas {
                Some(t) => format!("{:.0}%", 100.0 * t / r.seconds),
                None => "-".to_string(),
            };
            println!(
                "{:>17} | {:>16} | {:>10.3} | {:>10.1} | {:>9}",
                format!("{m}x{n}x{k}"),
                r.name,
                r.seconds * 1e3,
                flop / r.seconds / 1e9,
                of_cublas
            );
        }
        let sampled = if checked == m * n { "all" } else { "sampled" };
        println!(
            "{:>17}   checked: {checked} elements ({sampled}) against f64, every element across the {} results",
            "",
            runs.len()
        );
    }
    Ok(())
}
