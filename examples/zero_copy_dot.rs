//! The lecture's zero-copy dot product: `a · b` over two vectors of doubles whose storage is
//! page-locked host memory mapped for the device (the kernel reads host memory over the
//! link; nothing is copied), against copying them to the device first (from pinned and from
//! pageable fields) and then computing. The kernel is hand-written in the lecture's style
//! (`zero_copy_dot.cu`) and gets the fields' addresses from `Field::device_ptr`.
//!
//! Each variant is timed by CUDA events (copies included) after a warm-up, as a median; the
//! inputs change every repetition and every result is checked exactly (the inputs are small
//! integers, so every partial sum is an exact double whatever the order of the additions).
//!
//! `cargo run --release --example zero_copy_dot [-- --n 16777216 --reps 20]`

mod common;

use common::arg;

fn main() -> ongpu::Result<()> {
    let n = arg("--n", 1 << 24).max(1);
    let reps = arg("--reps", 20).max(1);
    #[cfg(feature = "cuda")]
    if ongpu::cuda_available() {
        return ongpu::with_backend(ongpu::Backend::Cuda, || gpu::run(n, reps));
    }
    println!("zero_copy_dot runs a hand-written CUDA kernel: it needs a CUDA device (n = {n}, {reps} repetitions not run)");
    Ok(())
}

#[cfg(feature = "cuda")]
mod gpu {
    use ongpu::cuda::{self, device, nvrtc, Event, Function, ParamList, Shape};
    use ongpu::prelude::*;
    use ongpu::Storage;

    const SOURCE: &str = include_str!("zero_copy_dot.cu");
    const TPB: u32 = 256;

    fn a_at(i: usize, rep: usize) -> f64 {
        ((i * 7 + rep) % 13) as f64 - 6.0
    }

    fn b_at(i: usize, rep: usize) -> f64 {
        ((i * 5 + 3 * rep) % 11) as f64 - 5.0
    }

    fn exact_dot(n: usize, rep: usize) -> f64 {
        let s: i64 = (0..n)
            .map(|i| (a_at(i, rep) as i64) * (b_at(i, rep) as i64))
            .sum();
        s as f64
    }

    fn median(v: &mut [f32]) -> f32 {
        v.sort_by(f32::total_cmp);
        v[v.len() / 2]
    }

    /// Median milliseconds of `a · b` with `a`, `b` in `storage`: the copies the storage
    /// needs (none when mapped) and the kernel, timed together.
    fn variant(f: Function, storage: Storage, n: usize, reps: usize) -> ongpu::Result<f32> {
        let dev = device()?;
        let mut a: Field<f64, AoS> = Field::zeros(n).with_storage(storage)?;
        let mut b: Field<f64, AoS> = Field::zeros(n).with_storage(storage)?;
        let mut r: Field<f64, AoS> = Field::zeros(1);
        let blocks = (dev.info().sm_count * 8).min(n.div_ceil(TPB as usize) as u32);
        let shape = Shape {
            grid: (blocks, 1, 1),
            block: (TPB, 1, 1),
            shared_bytes: TPB * 8,
        };
        let (start, end) = (Event::new()?, Event::new()?);
        let mut ms = Vec::new();
        for rep in 0..=reps {
            {
                // New inputs on the host: the device copies (if any) become stale. A mapped
                // field's host write waits for the previous kernel still reading it.
                for (i, v) in a.as_slice_mut()?.iter_mut().enumerate() {
                    *v = a_at(i, rep);
                }
                for (i, v) in b.as_slice_mut()?.iter_mut().enumerate() {
                    *v = b_at(i, rep);
                }
            }
            on_gpu!({
                r = 0.0;
            })?;
            start.record()?;
            let (pa, pb, pr) = (a.device_ptr()?, b.device_ptr()?, r.device_ptr_mut()?);
            let n64 = n as u64;
            let mut params = ParamList::new();
            params.push(&pa);
            params.push(&pb);
            params.push(&pr);
            params.push(&n64);
            // SAFETY: the parameters follow the kernel's signature; the fields outlive the
            // kernel (the result is read below, which waits for it, and the next host write
            // of a mapped field waits for it too).
            unsafe { cuda::launch(dev, f, shape, &mut params, || "dot".into())? };
            end.record()?;
            end.synchronize()?;
            let got = r.get(0)?;
            let want = exact_dot(n, rep);
            assert_eq!(got, want, "{storage:?}, repetition {rep}");
            if rep > 0 {
                ms.push(start.elapsed_ms(&end)?);
            }
        }
        if storage == Storage::Mapped {
            assert_eq!(
                a.transfers(),
                ongpu::Transfers::default(),
                "mapped: no copy"
            );
        } else {
            assert_eq!(a.transfers().uploads, reps as u64 + 1);
        }
        Ok(median(&mut ms))
    }

    pub fn run(n: usize, reps: usize) -> ongpu::Result<()> {
        let dev = device()?;
        let (arch, _) = nvrtc::target_for(dev.info().compute_capability);
        let f = cuda::load_function(dev, &nvrtc::compile(SOURCE, &arch, "dot", &[])?, "dot")?;
        let bytes = 2 * n * 8;
        println!(
            "zero_copy_dot: a · b over {n} doubles ({} MiB read), device {}, median of {reps} \
             after a warm-up",
            bytes >> 20,
            dev.info().name
        );
        let gbs = |ms: f32| bytes as f64 / (ms as f64 * 1e-3) / 1e9;
        let rows = [
            ("zero-copy: mapped host memory", Storage::Mapped),
            ("copy then compute: pinned", Storage::Pinned),
            ("copy then compute: pageable", Storage::Pageable),
        ];
        let mut times = Vec::new();
        for (what, storage) in rows {
            times.push((what, variant(f, storage, n, reps)?));
        }
        println!();
        println!("| variant | time | input GB/s | ratio to zero-copy |");
        println!("|---|---|---|---|");
        let zero = times[0].1;
        for (what, t) in &times {
            println!("| {what} | {t:.3} ms | {:.1} | {:.2}x |", gbs(*t), t / zero);
        }
        println!();
        println!(
            "zero-copy reads each input once over the link, inside the kernel; copy-then-compute \
             moves the same bytes first, then reads device memory. Zero-copy wins when data is \
             read once; data read many times belongs on the device."
        );
        Ok(())
    }
}
