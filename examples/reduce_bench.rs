//! Reductions against the device's read bandwidth, measured in the same run: `norm2` and
//! `dot` of colour-matrix fields (f32 and f64, AoSoA) up to 2^24 sites, each checked
//! against the CPU backend; and the latency of a whole call with the result on the host at
//! 1024 sites against a bare launch + synchronize of an empty kernel.
//!
//! `cargo run --release --example reduce_bench [-- --n 16777216 --reps 30]` (on CPU threads
//! the default `--n` is 2^20)
//!
//! Device times are CUDA events around batches of back-to-back calls (medians of `--reps`
//! batches, after warm-up). `norm2` and `dot` return their value, so their time includes
//! the host's wait for it; `norm2→s` and `dot→s` (`norm2_into`, `dot_into`) leave it in a
//! `DeviceScalar`, so back-to-back calls queue without a wait, as in a solver or a graph:
//! the kernel's own rate. Latencies are host clocks around single calls (medians).

mod common;

use common::arg;
use common::median;

use ongpu::prelude::*;
use ongpu::{with_backend, Backend};
use std::time::Instant;

/// A value in [-0.25, 0.75) from a hash of `k` (no integer overflow, so debug builds on
/// the CPU backend run it too).
#[ongpu::device]
fn hash_unit(k: u32) -> f32 {
    let h = (k as u64 * 2654435761u64) % 4294967291u64;
    let h = (h * 2246822519u64) % 4294967291u64;
    (h >> 8) as f32 / 16777216.0 - 0.25
}

/// Colour-matrix fields that can be filled on the current backend from the site index (no
/// host data to upload).
trait Fill: ongpu::InnerProduct<Dot = Complex<f64>> + Sized {
    fn fill(x: &mut Field<Self>, y: &mut Field<Self>) -> ongpu::Result<()>;
}

impl Fill for ColorMatrix<f32> {
    fn fill(x: &mut Field<Self>, y: &mut Field<Self>) -> ongpu::Result<()> {
        on_gpu!(|i| {
            for a in 0..3 {
                for b in 0..3 {
                    let k = (i * 18 + a * 6 + b * 2) as u32;
                    x[a][b] = Complex::new(hash_unit(k), hash_unit(k + 1));
                    y[a][b] = Complex::new(hash_unit(k ^ 0x5555), hash_unit(k ^ 0xAAAA));
                }
            }
        })
    }
}

impl Fill for ColorMatrix<f64> {
    fn fill(x: &mut Field<Self>, y: &mut Field<Self>) -> ongpu::Result<()> {
        on_gpu!(|i| {
            for a in 0..3 {
                for b in 0..3 {
                    let k = (i * 18 + a * 6 + b * 2) as u32;
                    let p = hash_unit(k) as f64;
                    let q = hash_unit(k + 1) as f64;
                    x[a][b] = Complex::new(p, q * 0.5 + p * 1e-9);
                    y[a][b] = Complex::new(q, p - q * 1e-9);
                }
            }
        })
    }
}

/// One measured reduction.
struct Row {
    op: &'static str,
    ty: &'static str,
    n: usize,
    seconds: f64,
    bytes: f64,
    reference: f64,
}

fn main() -> ongpu::Result<()> {
    let backend = ongpu::backend()?;
    // CPU threads get a smaller default: the f64 fields of 2^24 sites take 4.8 GB.
    let n_max = arg(
        "--n",
        if backend == Backend::Cuda {
            1 << 24
        } else {
            1 << 20
        },
    );
    let reps = arg("--reps", 30).max(3);
    let mut sizes: Vec<usize> = [1 << 16, 1 << 20]
        .into_iter()
        .filter(|&s| s < n_max)
        .collect();
    sizes.push(n_max);
    let mut rows = Vec::new();
    let mut timer = Timer::new(backend, reps, n_max * 2 * 18 * 8)?;
    for &n in &sizes {
        measure::<f32>(n, "ColorMatrix<f32>", &mut timer, &mut rows)?;
        measure::<f64>(n, "ColorMatrix<f64>", &mut timer, &mut rows)?;
    }
    println!(
        "reduce_bench: backend {backend:?} ({}); read reference: {}",
        timer.device_name(),
        timer.reference_name()
    );
    println!(
        "{:<8} {:<17} {:>9} {:>10} {:>9} {:>12} {:>9}",
        "op", "field (AoSoA<32>)", "sites", "ms/call", "GB/s", "ref GB/s", "% of ref"
    );
    for r in &rows {
        let gbs = r.bytes / r.seconds / 1e9;
        let refs = r.bytes / r.reference / 1e9;
        println!(
            "{:<8} {:<17} {:>9} {:>10.4} {:>9.1} {:>12.1} {:>8.1}%",
            r.op,
            r.ty,
            r.n,
            r.seconds * 1e3,
            gbs,
            refs,
            100.0 * r.reference / r.seconds
        );
    }
    timer.latency()?;
    Ok(())
}

/// Times norm2 and dot of two fresh fields of `n` sites, after checking them against the
/// CPU backend.
fn measure<T: ongpu::Real>(
    n: usize,
    ty: &'static str,
    timer: &mut Timer,
    rows: &mut Vec<Row>,
) -> ongpu::Result<()>
where
    ColorMatrix<T>: Fill,
{
    let mut x: Field<ColorMatrix<T>> = Field::zeros(n);
    let mut y: Field<ColorMatrix<T>> = Field::zeros(n);
    Fill::fill(&mut x, &mut y)?;
    let (norm, dot) = (x.norm2()?, x.dot(&y)?);
    let (cpu_norm, cpu_dot) = with_backend(Backend::Cpu, || -> ongpu::Result<_> {
        Ok((x.norm2()?, x.dot(&y)?))
    })?;
    let (en, ed) = (
        (norm - cpu_norm).abs() / cpu_norm,
        (dot - cpu_dot).norm() / cpu_dot.norm(),
    );
    if en > 1e-12 || ed > 1e-12 {
        eprintln!("reduce_bench: {ty} n = {n}: results differ from the CPU backend's (norm2 {en:.2e}, dot {ed:.2e})");
        std::process::exit(1);
    }
    let bytes = (n * 18 * std::mem::size_of::<T>()) as f64;
    let t = timer.time(&mut || x.norm2().map(drop))?;
    let r = timer.reference(bytes as usize)?;
    rows.push(Row {
        op: "norm2",
        ty,
        n,
        seconds: t,
        bytes,
        reference: r,
    });
    let t = timer.time(&mut || x.dot(&y).map(drop))?;
    let r2 = timer.reference(2 * bytes as usize)?;
    rows.push(Row {
        op: "dot",
        ty,
        n,
        seconds: t,
        bytes: 2.0 * bytes,
        reference: r2,
    });
    let (mut norm_s, mut dot_s) = (DeviceScalar::zero(), DeviceScalar::zero());
    x.norm2_into(&mut norm_s)?;
    x.dot_into(&y, &mut dot_s)?;
    if norm_s.get()?.to_bits() != norm.to_bits() || dot_s.get()? != dot {
        eprintln!(
            "reduce_bench: {ty} n = {n}: results into device scalars differ from the returned ones"
        );
        std::process::exit(1);
    }
    let t = timer.time(&mut || x.norm2_into(&mut norm_s))?;
    rows.push(Row {
        op: "norm2→s",
        ty,
        n,
        seconds: t,
        bytes,
        reference: r,
    });
    let t = timer.time(&mut || x.dot_into(&y, &mut dot_s))?;
    rows.push(Row {
        op: "dot→s",
        ty,
        n,
        seconds: t,
        bytes: 2.0 * bytes,
        reference: r2,
    });
    Ok(())
}

/// Times calls on the current backend, and the read reference of the same backend.
struct Timer {
    reps: usize,
    #[cfg(feature = "cuda")]
    gpu: Option<gpu::Reference>,
    host: Vec<u64>,
}

impl Timer {
    fn new(backend: Backend, reps: usize, max_bytes: usize) -> ongpu::Result<Self> {
        #[cfg(feature = "cuda")]
        let gpu = match backend {
            Backend::Cuda => Some(gpu::Reference::new()?),
            Backend::Cpu => None,
        };
        let host = match backend {
            Backend::Cpu => vec![1u64; max_bytes / 8],
            Backend::Cuda => Vec::new(),
        };
        Ok(Timer {
            reps,
            #[cfg(feature = "cuda")]
            gpu,
            host,
        })
    }

    fn device_name(&self) -> String {
        #[cfg(feature = "cuda")]
        if let Some(g) = &self.gpu {
            return g.device_name();
        }
        format!("host CPU, {} rayon threads", rayon::current_num_threads())
    }

    fn reference_name(&self) -> &'static str {
        #[cfg(feature = "cuda")]
        if self.gpu.is_some() {
            return gpu::REFERENCE_NAME;
        }
        "a parallel wrapping sum of u64 words over the same bytes (rayon)"
    }

    /// Median seconds per call of `f`.
    fn time(&mut self, f: &mut dyn FnMut() -> ongpu::Result<()>) -> ongpu::Result<f64> {
        #[cfg(feature = "cuda")]
        if let Some(g) = &self.gpu {
            return g.time(self.reps, f);
        }
        host_time(self.reps, f)
    }

    /// Median seconds to read `bytes` bytes at the backend's best rate.
    fn reference(&mut self, bytes: usize) -> ongpu::Result<f64> {
        #[cfg(feature = "cuda")]
        if let Some(g) = &self.gpu {
            return g.read_seconds(self.reps, bytes);
        }
        use rayon::prelude::*;
        let data = &self.host[..bytes / 8];
        host_time(self.reps, &mut || {
            let s = data
                .par_chunks(1 << 16)
                .map(|c| c.iter().fold(0u64, |a, &w| a.wrapping_add(w)))
                .reduce(|| 0, u64::wrapping_add);
            std::hint::black_box(s);
            Ok(())
        })
    }

    /// The whole call at 1024 sites, result on the host, against a bare launch + sync.
    fn latency(&mut self) -> ongpu::Result<()> {
        let n = 1024;
        let mut x: Field<ColorMatrix<f32>> = Field::zeros(n);
        let mut y: Field<ColorMatrix<f32>> = Field::zeros(n);
        Fill::fill(&mut x, &mut y)?;
        let calls = 2000;
        let norm = host_latency(calls, &mut || x.norm2().map(drop))?;
        let sum = host_latency(calls, &mut || on_gpu!(sum: { x.norm2() }).map(drop))?;
        println!(
            "latency at n = {n} (ColorMatrix<f32>), result on the host, median of {calls} calls:"
        );
        println!("  x.norm2()                  {:>8.2} µs", norm * 1e6);
        println!("  on_gpu!(sum: {{ x.norm2() }}) {:>8.2} µs", sum * 1e6);
        #[cfg(feature = "cuda")]
        if let Some(g) = &self.gpu {
            let bare = g.bare_launch_sync(calls)?;
            println!("  empty kernel launch + sync {:>8.2} µs", bare * 1e6);
            println!(
                "  x.norm2() / bare launch+sync: {:.2}x (target: at most 3x)",
                norm / bare
            );
        }
        Ok(())
    }
}

/// Median seconds per call on the host clock (reductions on the CPU return when done).
fn host_time(reps: usize, f: &mut dyn FnMut() -> ongpu::Result<()>) -> ongpu::Result<f64> {
    for _ in 0..2 {
        f()?;
    }
    let mut t = Vec::new();
    for _ in 0..reps {
        let s = Instant::now();
        f()?;
        t.push(s.elapsed().as_secs_f64());
    }
    Ok(median(t))
}

/// Median seconds of single calls, after warm-up.
fn host_latency(calls: usize, f: &mut dyn FnMut() -> ongpu::Result<()>) -> ongpu::Result<f64> {
    for _ in 0..calls / 10 {
        f()?;
    }
    let mut t = Vec::with_capacity(calls);
    for _ in 0..calls {
        let s = Instant::now();
        f()?;
        t.push(s.elapsed().as_secs_f64());
    }
    Ok(median(t))
}

#[cfg(feature = "cuda")]
mod gpu {
    use crate::common::ceiling::Ceilings;
    use ongpu::cuda::{self, nvrtc, time_device, Device, Function, ParamList, Shape};
    use std::time::Instant;

    /// Calls per timed batch.
    const BATCH: usize = 10;

    pub const REFERENCE_NAME: &str =
        "the shared 16-byte reader (examples/common/ceiling.cu: 4 loads in flight per thread), best of 5 grid sizes";

    /// An empty kernel, for the bare launch.
    const SOURCE: &str = r#"extern "C" __global__ void empty() {}"#;

    pub struct Reference {
        dev: &'static Device,
        ceilings: Ceilings,
        empty: Function,
    }

    impl Reference {
        pub fn new() -> ongpu::Result<Self> {
            let dev = cuda::device()?;
            let (arch, _) = nvrtc::target_for(dev.info().compute_capability);
            let compiled = nvrtc::compile(SOURCE, &arch, "the empty kernel", &[])?;
            let empty = cuda::load_function(dev, &compiled, "empty")?;
            Ok(Reference {
                dev,
                ceilings: Ceilings::new()?,
                empty,
            })
        }

        pub fn device_name(&self) -> String {
            let i = self.dev.info();
            format!("{}, {} SMs", i.name, i.sm_count)
        }

        /// Median seconds per call of `f`, from CUDA events around batches of calls.
        pub fn time(
            &self,
            reps: usize,
            f: &mut dyn FnMut() -> ongpu::Result<()>,
        ) -> ongpu::Result<f64> {
            for _ in 0..3 {
                f()?;
            }
            let mut t = Vec::with_capacity(reps);
            for _ in 0..reps {
                let (_, ms) = time_device(|| {
                    for _ in 0..BATCH {
                        f()?;
                    }
                    Ok(())
                })?;
                t.push(ms as f64 / 1e3 / BATCH as f64);
            }
            Ok(super::median(t))
        }

        /// Median seconds to read `bytes` bytes: the best over grid sizes of the reader, timed
        /// as the reductions are.
        pub fn read_seconds(&self, reps: usize, bytes: usize) -> ongpu::Result<f64> {
            self.ceilings
                .read_seconds_with(bytes, &mut |f| self.time(reps, f))
        }

        /// Median seconds of a launch of an empty kernel followed by a synchronize.
        pub fn bare_launch_sync(&self, calls: usize) -> ongpu::Result<f64> {
            let once = || -> ongpu::Result<()> {
                let mut params = ParamList::new();
                let shape = Shape {
                    grid: (1, 1, 1),
                    block: (32, 1, 1),
                    shared_bytes: 0,
                };
                // SAFETY: `empty` takes no parameter.
                unsafe {
                    cuda::launch(self.dev, self.empty, shape, &mut params, || "empty".into())?
                };
                self.dev.synchronize()
            };
            for _ in 0..calls / 10 {
                once()?;
            }
            let mut t = Vec::with_capacity(calls);
            for _ in 0..calls {
                let s = Instant::now();
                once()?;
                t.push(s.elapsed().as_secs_f64());
            }
            Ok(super::median(t))
        }
    }
}
