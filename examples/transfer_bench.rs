//! The lecture's pinned-versus-pageable table: host-to-device and device-to-host copies of a
//! 256 MiB field, 100 times each, from a field in pageable storage (the default) and from one
//! in pinned storage, next to the best rate this machine's link gives (raw `cuMemcpy` of
//! page-locked memory, synchronous and on a stream). Every copy is timed by CUDA events on
//! the device; the tables show medians after a warm-up copy. The data are checked after the
//! copies (every element, both directions).
//!
//! `cargo run --release --example transfer_bench [-- --mib 256 --reps 100]`

mod common;

use common::arg;

fn main() -> ongpu::Result<()> {
    let mib = arg("--mib", 256).max(1);
    let reps = arg("--reps", 100).max(1);
    #[cfg(feature = "cuda")]
    if ongpu::cuda_available() {
        return ongpu::with_backend(ongpu::Backend::Cuda, || gpu::run(mib, reps));
    }
    println!("transfer_bench measures copies between host and GPU: it needs a CUDA device ({mib} MiB x {reps} not run)");
    Ok(())
}

#[cfg(feature = "cuda")]
mod gpu {
    use ongpu::cuda::{device, Event};
    use ongpu::prelude::*;
    use ongpu::Storage;

    /// The value of element `i` before the copies.
    fn pattern(i: usize) -> u32 {
        (i as u32).wrapping_mul(2_654_435_761) ^ 0x5bd1_e995
    }

    fn median(v: &mut [f32]) -> f32 {
        v.sort_by(f32::total_cmp);
        v[v.len() / 2]
    }

    /// Median milliseconds of `reps` copies (after one warm-up copy). `step(r, false)`
    /// prepares repetition `r` outside the timing; `step(r, true)` is the copy, bracketed by
    /// events on the default stream.
    fn time_copies(
        reps: usize,
        mut step: impl FnMut(usize, bool) -> ongpu::Result<()>,
    ) -> ongpu::Result<f32> {
        let (start, end) = (Event::new()?, Event::new()?);
        let mut ms = Vec::with_capacity(reps);
        for r in 0..=reps {
            step(r, false)?;
            start.record()?;
            step(r, true)?;
            end.record()?;
            end.synchronize()?;
            if r > 0 {
                ms.push(start.elapsed_ms(&end)?);
            }
        }
        Ok(median(&mut ms))
    }

    /// (upload ms, download ms) of a field of `n` u32 in `storage`, through the field's own
    /// copies (`sync_device` after a host write, `sync_host` after a kernel write).
    fn field_copies(storage: Storage, n: usize, reps: usize) -> ongpu::Result<(f32, f32)> {
        let mut f: Field<u32, AoS> = Field::from_fn(n, pattern).with_storage(storage)?;
        assert_eq!(f.is_page_locked(), storage == Storage::Pinned);
        // Host to device: a host write (of one element) makes the device copy stale.
        let up = time_copies(reps, |r, copy| {
            if copy {
                f.sync_device()
            } else {
                f.as_host_mut()?.set(0, r as u32);
                Ok(())
            }
        })?;
        assert_eq!(
            f.transfers().uploads,
            reps as u64 + 1,
            "one upload per repetition"
        );
        // Device to host: a kernel (adding 1 to every element) makes the host copy stale.
        let down = time_copies(reps, |_, copy| {
            if copy {
                f.sync_host()
            } else {
                on_gpu!({
                    f += 1u32;
                })
            }
        })?;
        assert_eq!(
            f.transfers().downloads,
            reps as u64 + 1,
            "one download per repetition"
        );
        // Every element made the round trip: uploaded, incremented on the device, downloaded.
        let v = f.to_vec()?;
        for (i, &x) in v.iter().enumerate() {
            let base = if i == 0 { reps as u32 } else { pattern(i) };
            assert_eq!(
                x,
                base.wrapping_add(reps as u32 + 1),
                "{storage:?}: element {i}"
            );
        }
        Ok((up, down))
    }

    fn driver<T>(r: Result<T, cudarc::driver::DriverError>, what: &str) -> ongpu::Result<T> {
        r.map_err(|e| ongpu::Error::InvalidArgument(format!("{what}: {e:?}")))
    }

    /// (best upload ms, best download ms) of raw copies of page-locked memory: synchronous
    /// `cuMemcpy` and `cuMemcpyAsync` on a non-blocking stream, whichever is faster.
    fn best_rate(bytes: usize, reps: usize) -> ongpu::Result<(f32, f32)> {
        use cudarc::driver::result::{self, event, stream};
        use cudarc::driver::sys::{CUevent_flags, CUstream};
        device()?; // binds the context
                   // SAFETY: plain allocations, freed below; the copies stay inside them.
        let host = driver(unsafe { result::malloc_host(bytes, 0) }, "cuMemHostAlloc")?;
        let host = host.cast::<u8>();
        // SAFETY: `bytes` bytes were allocated above and are owned here.
        let hs = unsafe { std::slice::from_raw_parts_mut(host, bytes) };
        for (i, b) in hs.iter_mut().enumerate() {
            *b = (i % 251) as u8;
        }
        let dptr = driver(unsafe { result::malloc_sync(bytes) }, "cuMemAlloc")?;
        let s: CUstream = driver(stream::create(stream::StreamKind::NonBlocking), "stream")?;
        let e0 = driver(event::create(CUevent_flags::CU_EVENT_DEFAULT), "event")?;
        let e1 = driver(event::create(CUevent_flags::CU_EVENT_DEFAULT), "event")?;
        let time = |on: CUstream, copy: &mut dyn FnMut() -> ongpu::Result<()>| {
            let mut ms = Vec::with_capacity(reps);
            for r in 0..=reps {
                // SAFETY: live events and stream of the bound context.
                driver(unsafe { event::record(e0, on) }, "record")?;
                copy()?;
                driver(unsafe { event::record(e1, on) }, "record")?;
                driver(unsafe { event::synchronize(e1) }, "synchronize")?;
                let t = driver(unsafe { event::elapsed(e0, e1) }, "elapsed")?;
                if r > 0 {
                    ms.push(t);
                }
            }
            Ok::<f32, ongpu::Error>(median(&mut ms))
        };
        let null: CUstream = std::ptr::null_mut();
        // SAFETY (all copies): `dptr` and `hs` hold `bytes` bytes each and outlive the copies,
        // which are waited for (event synchronize) before the next one.
        let up_sync = time(null, &mut || {
            driver(unsafe { result::memcpy_htod_sync(dptr, &hs[..]) }, "HtoD")
        })?;
        let up_async = time(s, &mut || {
            driver(
                unsafe { result::memcpy_htod_async(dptr, &hs[..], s) },
                "HtoD async",
            )
        })?;
        hs.fill(0);
        let down_sync = time(null, &mut || {
            driver(
                unsafe { result::memcpy_dtoh_sync(&mut hs[..], dptr) },
                "DtoH",
            )
        })?;
        let ok = hs.iter().enumerate().all(|(i, &b)| b == (i % 251) as u8);
        hs.fill(0);
        let down_async = time(s, &mut || {
            driver(
                unsafe { result::memcpy_dtoh_async(&mut hs[..], dptr, s) },
                "DtoH async",
            )
        })?;
        let ok = ok && hs.iter().enumerate().all(|(i, &b)| b == (i % 251) as u8);
        assert!(ok, "the raw round trip changed the data");
        // SAFETY: created/allocated above, no work pending (all events were synchronised).
        unsafe {
            let _ = event::destroy(e0);
            let _ = event::destroy(e1);
            let _ = stream::destroy(s);
            let _ = result::free_sync(dptr);
            let _ = result::free_host(host.cast());
        }
        Ok((up_sync.min(up_async), down_sync.min(down_async)))
    }

    pub fn run(mib: usize, reps: usize) -> ongpu::Result<()> {
        let dev = device()?;
        let bytes = mib << 20;
        let n = bytes / 4;
        let gbs = |ms: f32| bytes as f64 / (ms as f64 * 1e-3) / 1e9;
        println!(
            "transfer_bench: {} MiB copied {reps} times each way (median of {reps} after a \
             warm-up copy), device {}",
            mib,
            dev.info().name
        );
        let (pg_up, pg_down) = field_copies(Storage::Pageable, n, reps)?;
        let (pn_up, pn_down) = field_copies(Storage::Pinned, n, reps)?;
        let (best_up, best_down) = best_rate(bytes, reps)?;

        println!();
        println!("| copy | pageable field | pinned field | best raw pinned copy | pinned / pageable | pinned / best |");
        println!("|---|---|---|---|---|---|");
        for (dir, pg, pn, best) in [
            ("host to device", pg_up, pn_up, best_up),
            ("device to host", pg_down, pn_down, best_down),
        ] {
            println!(
                "| {dir} | {:.3} ms, {:.1} GB/s | {:.3} ms, {:.1} GB/s | {:.3} ms, {:.1} GB/s | {:.2}x | {:.0}% |",
                pg,
                gbs(pg),
                pn,
                gbs(pn),
                best,
                gbs(best),
                gbs(pn) / gbs(pg),
                100.0 * gbs(pn) / gbs(best)
            );
        }
        println!();
        println!("In the lecture's words (total of {reps} copies at the median rate):");
        for (what, up, down) in [("pageable", pg_up, pg_down), ("pinned", pn_up, pn_down)] {
            for (dir, ms) in [("up", up), ("down", down)] {
                println!(
                    "  {what:<8} copy {dir:<4}: {:>9.1} ms, {:>8.0} MB/s",
                    ms * reps as f32,
                    (mib * reps) as f64 / (ms as f64 * reps as f64 * 1e-3)
                );
            }
        }
        let speedup = (gbs(pn_up) / gbs(pg_up)).min(gbs(pn_down) / gbs(pg_down));
        let of_best = (gbs(pn_up) / gbs(best_up)).min(gbs(pn_down) / gbs(best_down));
        println!();
        println!(
            "targets: pinned >= 1.5x pageable both ways: {:.2}x ({}); pinned >= 80% of the best rate: {:.0}% ({})",
            speedup,
            if speedup >= 1.5 { "met" } else { "NOT met" },
            100.0 * of_best,
            if of_best >= 0.8 { "met" } else { "NOT met" }
        );
        Ok(())
    }
}
