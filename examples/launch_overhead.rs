//! What one `on_gpu!` call costs on the host, next to launches of the very same kernel
//! through cudarc's launch builder (the earlier reference) and through a bare
//! `cuLaunchKernel` with a parameter array prepared once (the floor), for 1, 3 and 8
//! captured fields at n = 1024 sites. Host time per call is measured twice: over calls
//! queued back to back (where a full launch queue can hold every launcher to the GPU's
//! pace), and with the queue drained before each timed call. Then the launch + synchronize
//! round trip; the first call of a process with a cold and with a warm disk cache; and the
//! CPU backend's per-call cost.
//!
//! `cargo run --release --example launch_overhead [-- --calls 20000 --round-trips 5000]`

mod common;

use common::arg;
use ongpu::prelude::*;
use std::time::Instant;

const N: usize = 1024;
#[cfg(feature = "cuda")]
const TPB: u32 = 256;
#[cfg(feature = "cuda")]
const ROUNDS: usize = 5;

/// Seconds per call of `f` over `calls` calls.
fn per_call(calls: usize, f: &mut dyn FnMut() -> ongpu::Result<()>) -> ongpu::Result<f64> {
    let t = Instant::now();
    for _ in 0..calls {
        f()?;
    }
    let s = t.elapsed().as_secs_f64() / calls as f64;
    ongpu::synchronize()?;
    Ok(s)
}

/// Host seconds per call of `f`, each call timed alone after a device synchronize, so that
/// no call waits for room in the launch queue.
#[cfg(feature = "cuda")]
fn per_call_drained(calls: usize, f: &mut dyn FnMut() -> ongpu::Result<()>) -> ongpu::Result<f64> {
    let mut total = 0.0;
    for _ in 0..calls {
        ongpu::synchronize()?;
        let t = Instant::now();
        f()?;
        total += t.elapsed().as_secs_f64();
    }
    ongpu::synchronize()?;
    Ok(total / calls as f64)
}

/// Seconds per call of `f` followed by a device synchronize.
#[cfg(feature = "cuda")]
fn round_trip(calls: usize, f: &mut dyn FnMut() -> ongpu::Result<()>) -> ongpu::Result<f64> {
    per_call(calls, &mut || {
        f()?;
        ongpu::synchronize()
    })
}

fn main() -> ongpu::Result<()> {
    if std::env::args().any(|a| a == "--first-call") {
        return first_call_child();
    }
    let calls = arg("--calls", 20_000);
    let trips = arg("--round-trips", 5_000);
    let backend = ongpu::backend()?;
    println!(
        "launch_overhead: n = {N} sites, {calls} calls per host measurement, {trips} round trips"
    );
    if backend == ongpu::Backend::Cuda {
        gpu::run(calls, trips)?;
    } else {
        println!("(no CUDA device: only the CPU backend is measured)");
    }
    cpu(calls)
}

/// The CPU backend's cost per call at n = 1024 (one thread runs a call this small).
fn cpu(calls: usize) -> ongpu::Result<()> {
    ongpu::with_backend(ongpu::Backend::Cpu, || {
        let a: Field<f32> = Field::filled(N, 1.0);
        let b: Field<f32> = Field::filled(N, 2.0);
        let mut x: Field<f32> = Field::filled(N, 0.0);
        let one = per_call(calls, &mut || {
            on_gpu!(N, {
                x += 1.0;
            })
        })?;
        let three = per_call(calls, &mut || {
            on_gpu!(N, {
                x += a * b;
            })
        })?;
        println!(
            "CPU backend (n = {N}): 1 field {:.2} us/call, 3 fields {:.2} us/call",
            one * 1e6,
            three * 1e6
        );
        Ok(())
    })
}

/// A child process: the device's start, then the first and second call of an SU(3) kernel.
fn first_call_child() -> ongpu::Result<()> {
    let t = Instant::now();
    #[cfg(feature = "cuda")]
    ongpu::cuda::device()?;
    let init = t.elapsed().as_secs_f64();
    let mut x: Field<ColorMatrix<f32>> = Field::filled(N, ColorMatrix::identity());
    let y: Field<ColorMatrix<f32>> = Field::filled(N, ColorMatrix::identity() * 2.0);
    let z: Field<ColorMatrix<f32>> = Field::filled(N, ColorMatrix::identity() * 3.0);
    let t = Instant::now();
    on_gpu!({
        x += y * z;
    })?;
    ongpu::synchronize()?;
    let first = t.elapsed().as_secs_f64();
    let t = Instant::now();
    on_gpu!({
        x += y * z;
    })?;
    ongpu::synchronize()?;
    let second = t.elapsed().as_secs_f64();
    assert_eq!(x.get(N - 1)?.trace().re, 3.0 * 13.0);
    println!("FIRST {} {} {}", init * 1e3, first * 1e3, second * 1e3);
    Ok(())
}

#[cfg(feature = "cuda")]
mod gpu {
    use super::*;
    use cudarc::driver::{result, CudaContext, LaunchConfig, PushKernelArg};
    use cudarc::nvrtc::Ptx;
    use ongpu::cuda::{device, nvrtc, DeviceBuffer};
    use ongpu::inspect::collect_kernel_sources;
    use std::ffi::c_void;

    /// The bytes of an `ongpu::Lattice` kernel parameter (nine u64), for raw launches of
    /// generated kernels.
    #[repr(C)]
    struct NoLattice([u64; 9]);
    // SAFETY: plain integers, passed by value as the kernel's `const ongpu::Lattice`.
    unsafe impl cudarc::driver::DeviceRepr for NoLattice {}

    /// The integer arguments of a generated kernel over the first `fields` buffers: a
    /// (pointer, stride) pair per field, then the first site (0) and n; the lattice and the
    /// box of it follow (two [`NoLattice`]s).
    fn scalar_args(buffers: &[DeviceBuffer], fields: usize) -> Vec<u64> {
        let mut values: Vec<u64> = buffers
            .iter()
            .take(fields)
            .flat_map(|buf| [buf.ptr(), N as u64])
            .collect();
        values.extend([0, N as u64]);
        values
    }

    /// One configuration to measure: a call that queues one kernel.
    type Call<'a> = Box<dyn FnMut() -> ongpu::Result<()> + 'a>;

    pub fn run(calls: usize, trips: usize) -> ongpu::Result<()> {
        let fields: Vec<Field<f32>> = (0..7).map(|k| Field::filled(N, k as f32)).collect();
        let (a, b, c, d, e, f, g) = (
            &fields[0], &fields[1], &fields[2], &fields[3], &fields[4], &fields[5], &fields[6],
        );
        let mut x1: Field<f32> = Field::filled(N, 0.0);
        let mut x3: Field<f32> = Field::filled(N, 0.0);
        let mut x8: Field<f32> = Field::filled(N, 0.0);

        // The generated kernels, compiled on the first call; the same sources feed the raw
        // cudarc launches below.
        let (r, sources) = collect_kernel_sources(|| -> ongpu::Result<()> {
            on_gpu!(N, TPB, {
                x1 += 1.0;
            })?;
            on_gpu!(N, TPB, {
                x3 += a * b;
            })?;
            on_gpu!(N, TPB, {
                x8 = a + b + c + d + e + f + g;
            })?;
            ongpu::synchronize()
        });
        r?;
        let mut configs: Vec<(String, Call<'_>)> = vec![
            (
                "on_gpu!, 1 field".into(),
                Box::new(|| {
                    on_gpu!(N, TPB, {
                        x1 += 1.0;
                    })
                }),
            ),
            (
                "on_gpu!, 3 fields".into(),
                Box::new(|| {
                    on_gpu!(N, TPB, {
                        x3 += a * b;
                    })
                }),
            ),
            (
                "on_gpu!, 8 fields".into(),
                Box::new(|| {
                    on_gpu!(N, TPB, {
                        x8 = a + b + c + d + e + f + g;
                    })
                }),
            ),
        ];

        // The same kernels launched with cudarc's launch builder, on raw device buffers.
        let ctx =
            CudaContext::new(0).map_err(|e| ongpu::Error::InvalidArgument(format!("{e:?}")))?;
        let stream = ctx.default_stream();
        let dev = device()?;
        let arch = format!(
            "sm_{}{}",
            dev.info().compute_capability.0,
            dev.info().compute_capability.1
        );
        let buffers: Vec<DeviceBuffer> = (0..8)
            .map(|_| DeviceBuffer::alloc(dev, 4 * N, "raw launch buffer"))
            .collect::<ongpu::Result<_>>()?;
        let blocks = N.div_ceil(TPB as usize) as u32;
        let cfg = LaunchConfig {
            grid_dim: (blocks, 1, 1),
            block_dim: (TPB, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut funcs = Vec::new();
        for (source, fields) in sources.iter().zip([1usize, 3, 8]) {
            let image = nvrtc::compile(&source.source, &arch, "raw launch kernel", &[])?.image;
            let module = ctx
                .load_module(Ptx::from_binary(image))
                .map_err(|e| ongpu::Error::InvalidArgument(format!("{e:?}")))?;
            let func = module
                .load_function("ongpu_kernel")
                .map_err(|e| ongpu::Error::InvalidArgument(format!("{e:?}")))?;
            funcs.push(func.clone());
            let values = scalar_args(&buffers, fields);
            let no_lattice = NoLattice([0; 9]);
            let stream = stream.clone();
            let raw = move || -> ongpu::Result<()> {
                let mut builder = stream.launch_builder(&func);
                for v in &values {
                    builder.arg(v);
                }
                builder.arg(&no_lattice);
                builder.arg(&no_lattice);
                // SAFETY: the arguments follow the kernel's signature: a (pointer, stride)
                // pair per field, over live buffers of N floats, then begin = 0, n = N and
                // two zeroed `ongpu::Lattice`s, the lattice and its box (9 u64 each, unused
                // by these bodies: no shifts, no box).
                unsafe { builder.launch(cfg) }
                    .map(drop)
                    .map_err(|e| ongpu::Error::InvalidArgument(format!("{e:?}")))
            };
            configs.push((
                format!(
                    "raw cudarc, {fields} field{}",
                    if fields > 1 { "s" } else { "" }
                ),
                Box::new(raw),
            ));
        }

        // The same kernels through a bare `cuLaunchKernel` on the legacy default stream (where
        // `on_gpu!` launches), with the parameter array built once.
        ctx.bind_to_thread()
            .map_err(|e| ongpu::Error::InvalidArgument(format!("{e:?}")))?;
        for (func, fields) in funcs.into_iter().zip([1usize, 3, 8]) {
            let mut values = scalar_args(&buffers, fields);
            let mut lattice = Box::new([NoLattice([0; 9]), NoLattice([0; 9])]);
            // The pointers stay valid: `values`' heap storage and the box move into the
            // closure with them and are never resized.
            let mut params: Vec<*mut c_void> = values
                .iter_mut()
                .map(|v| (v as *mut u64).cast::<c_void>())
                .collect();
            for l in lattice.iter_mut() {
                params.push((l as *mut NoLattice).cast::<c_void>());
            }
            let raw_f = func.cu_function();
            let bare = move || -> ongpu::Result<()> {
                let _keep = (&func, &values, &lattice);
                // SAFETY: `params` points at a (pointer, stride) pair per field over live
                // buffers of N floats, then begin = 0, n = N and two zeroed
                // `ongpu::Lattice`s (the lattice and its box), the kernel's signature; its module lives as long as `func`; the context is
                // current on this thread.
                unsafe {
                    result::launch_kernel(
                        raw_f,
                        (blocks, 1, 1),
                        (TPB, 1, 1),
                        0,
                        std::ptr::null_mut(),
                        &mut params,
                    )
                }
                .map_err(|e| ongpu::Error::InvalidArgument(format!("{e:?}")))
            };
            configs.push((
                format!(
                    "bare cuLaunchKernel, {fields} field{}",
                    if fields > 1 { "s" } else { "" }
                ),
                Box::new(bare),
            ));
        }

        // Rounds over all configurations in turn; each figure is the median of its rounds, so
        // that clock changes and ordering favour no one.
        let mut host = vec![Vec::new(); configs.len()];
        let mut drained = vec![Vec::new(); configs.len()];
        let mut trip = vec![Vec::new(); configs.len()];
        for _ in 0..ROUNDS {
            for (k, (_, f)) in configs.iter_mut().enumerate() {
                host[k].push(per_call(calls, f.as_mut())? * 1e6);
                drained[k].push(per_call_drained(trips, f.as_mut())? * 1e6);
                trip[k].push(round_trip(trips, f.as_mut())? * 1e6);
            }
        }
        let med = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let host: Vec<f64> = host.iter_mut().map(med).collect();
        let drained: Vec<f64> = drained.iter_mut().map(med).collect();
        let trip: Vec<f64> = trip.iter_mut().map(med).collect();

        println!("device: {} (median of {ROUNDS} rounds)", dev.info().name);
        println!(
            "{:<30} {:>14} {:>20} {:>16}",
            "launch", "host us/call", "host us, drained", "launch+sync us"
        );
        for (k, (what, _)) in configs.iter().enumerate() {
            println!(
                "{:<30} {:>14.2} {:>20.2} {:>16.2}",
                what, host[k], drained[k], trip[k]
            );
        }
        for (k, fields) in [1usize, 3, 8].iter().enumerate() {
            for (name, r) in [("raw cudarc", 3 + k), ("bare cuLaunchKernel", 6 + k)] {
                println!(
                    "ratio on_gpu!/{name}, {fields} field(s): host {:.2}x, drained {:.2}x, round trip {:.2}x",
                    host[k] / host[r],
                    drained[k] / drained[r],
                    trip[k] / trip[r]
                );
            }
        }
        drop(configs);
        first_calls()
    }

    /// Runs this program as a child twice with one fresh cache folder: cold, then warm.
    fn first_calls() -> ongpu::Result<()> {
        let dir = tempfile::tempdir().map_err(|e| ongpu::Error::InvalidArgument(e.to_string()))?;
        let exe =
            std::env::current_exe().map_err(|e| ongpu::Error::InvalidArgument(e.to_string()))?;
        for label in ["cold disk cache", "warm disk cache"] {
            let out = std::process::Command::new(&exe)
                .arg("--first-call")
                .env("ONGPU_CACHE_DIR", dir.path())
                .env("ONGPU_TRACE", "1")
                .env_remove("ONGPU_CACHE")
                .output()
                .map_err(|e| ongpu::Error::InvalidArgument(e.to_string()))?;
            let text = String::from_utf8_lossy(&out.stdout);
            let line = text
                .lines()
                .find(|l| l.starts_with("FIRST "))
                .unwrap_or_else(|| {
                    panic!(
                        "child failed: {text}{}",
                        String::from_utf8_lossy(&out.stderr)
                    )
                });
            let v: Vec<f64> = line[6..].split(' ').map(|s| s.parse().unwrap()).collect();
            println!(
                "first SU(3) call, {label}: {:.1} ms (device start {:.1} ms before it; second call {:.3} ms)",
                v[1], v[0], v[2]
            );
            for l in String::from_utf8_lossy(&out.stderr)
                .lines()
                .filter(|l| l.starts_with("ongpu trace"))
            {
                println!("    {l}");
            }
        }
        Ok(())
    }
}

#[cfg(not(feature = "cuda"))]
mod gpu {
    pub fn run(_: usize, _: usize) -> ongpu::Result<()> {
        unreachable!("no CUDA backend in this build")
    }
}
