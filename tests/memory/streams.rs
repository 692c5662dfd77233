//! Streams: `on_gpu!` and `#[ongpu::kernel]` launches inside `Stream::scope` are queued on
//! the stream; host reads wait for
//! exactly the queued work that writes a field; work on one stream waits for other streams'
//! (and the default stream's) work on the same fields. On the CPU backend every call has
//! finished when it returns, so streams are ordered trivially. The GPU tests (ignored
//! without a device) use a kernel whose site 0 spins long enough (~0.1 s) for a missing wait
//! to show as a wrong value.

use ongpu::prelude::*;
use ongpu::{in_stream_scope, with_backend, Backend, Residency, Stream};

const POISON: u32 = 0xDEAD_BEEF;

/// `m` rounds of xorshift on `v`: the site value of the kernels below, and their reference.
#[ongpu::device]
fn spin(seed: u32, m: u32) -> u32 {
    let mut v = seed;
    for k in 0..m {
        v ^= v << 13u32;
        v ^= v >> 17u32;
        v ^= v << 5u32;
        v ^= k;
    }
    v
}

/// `x[i] = spin(seed + i, m)` with `m = iters` at site 0 and 1 elsewhere: one slow site
/// keeps the kernel running.
fn spin_write(x: &mut Field<u32, AoS>, seed: u32, iters: u32) -> ongpu::Result<()> {
    on_gpu!(|i| {
        let m = if i == 0 { iters } else { 1u32 };
        x = spin(seed + (i as u32), m);
    })
}

/// `y[i] = spin(x[i], m)` (m as above): reads `x`; thread 0 loads its later sites' `x` only
/// after the slow site.
fn spin_read(y: &mut Field<u32, AoS>, x: &Field<u32, AoS>, iters: u32) -> ongpu::Result<()> {
    on_gpu!(|i| {
        let m = if i == 0 { iters } else { 1u32 };
        y = spin(x, m);
    })
}

/// `y[i] = spin(x[i], m)` as an explicit kernel, one thread per site (`m` as above): the
/// launch reads `x` and writes `y` like `spin_read`.
#[ongpu::kernel]
fn spin_kernel(x: &[u32], y: &mut [u32], iters: u32) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < y.len() {
        let m = if i == 0 { iters } else { 1u32 };
        y[i] = spin(x[i], m);
    }
}

/// One thread per element of `n`.
fn per_site(n: usize) -> LaunchShape {
    LaunchShape::linear(n.div_ceil(256) as u32, 256)
}

fn check_spin_write(name: &str, got: &[u32], seed: u32, iters: u32) {
    for (i, &v) in got.iter().enumerate() {
        let m = if i == 0 { iters } else { 1 };
        assert_eq!(v, spin(seed.wrapping_add(i as u32), m), "{name}: site {i}");
    }
}

fn check_spin_read(name: &str, got: &[u32], x: &[u32], iters: u32) {
    assert_eq!(got.len(), x.len());
    for (i, (&v, &xi)) in got.iter().zip(x).enumerate() {
        let m = if i == 0 { iters } else { 1 };
        assert_eq!(v, spin(xi, m), "{name}: site {i}");
    }
}

// ---------------------------------------------------------------- CPU backend

#[test]
fn on_the_cpu_a_scope_runs_calls_in_order_and_results_are_there_at_once() {
    with_backend(Backend::Cpu, || {
        let (s1, s2) = (Stream::new(), Stream::new());
        assert_ne!(s1.id(), s2.id());
        let n = 1000;
        let mut x: Field<u32, AoS> = Field::filled(n, POISON);
        let mut y: Field<u32, AoS> = Field::filled(n, POISON);
        assert!(!in_stream_scope());
        s1.scope(|| {
            assert!(in_stream_scope());
            spin_write(&mut x, 7, 50)
        })
        .unwrap();
        s2.scope(|| spin_read(&mut y, &x, 30)).unwrap();
        assert!(!in_stream_scope());
        let xv = x.to_vec().unwrap();
        check_spin_write("x", &xv, 7, 50);
        check_spin_read("y", &y.to_vec().unwrap(), &xv, 30);
        s1.synchronize().unwrap();
        s2.synchronize().unwrap();
    });
}

#[test]
fn on_the_cpu_a_kernel_in_a_scope_runs_in_order_with_the_calls_around_it() {
    with_backend(Backend::Cpu, || {
        let s = Stream::new();
        let n = 1000;
        let mut x: Field<u32, AoS> = Field::filled(n, POISON);
        let mut y: Field<u32, AoS> = Field::filled(n, POISON);
        let mut z: Field<u32, AoS> = Field::filled(n, POISON);
        s.scope(|| -> ongpu::Result<()> {
            spin_write(&mut x, 11, 40)?;
            spin_kernel::launch(per_site(n), &x, &mut y, 20)?;
            on_gpu!({
                z = y + 1u32;
            })
        })
        .unwrap();
        assert!(!in_stream_scope());
        let (xv, yv) = (x.to_vec().unwrap(), y.to_vec().unwrap());
        check_spin_write("x", &xv, 11, 40);
        check_spin_read("y (kernel)", &yv, &xv, 20);
        let zv = z.to_vec().unwrap();
        assert!(zv.iter().zip(&yv).all(|(&z, &y)| z == y.wrapping_add(1)));
        for f in [&x, &y, &z] {
            assert_eq!(f.residency(), Residency::Host);
            assert_eq!(f.transfers(), ongpu::Transfers::default());
        }
        s.synchronize().unwrap();
    });
}

#[test]
fn on_the_cpu_copies_on_a_stream_are_no_ops_and_events_time_on_the_host() {
    with_backend(Backend::Cpu, || {
        let s = Stream::new();
        let x: Field<f32> = Field::from_fn(100, |i| i as f32).pinned().unwrap();
        let start = s.record().unwrap();
        x.upload_async(&s).unwrap();
        x.download_async(&s).unwrap();
        x.sync_device().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let end = s.record().unwrap();
        end.synchronize().unwrap();
        assert!(start.is_complete().unwrap() && end.is_complete().unwrap());
        let ms = start.elapsed_ms(&end).unwrap();
        assert!((15.0..5000.0).contains(&ms), "{ms} ms for a 20 ms sleep");
        assert_eq!(x.transfers(), ongpu::Transfers::default());
        assert_eq!(x.residency(), Residency::Host);
        s.wait_for(&start).unwrap();
        assert_eq!(x.get(99).unwrap(), 99.0);
    });
}

#[test]
fn scopes_nest_and_are_restored_after_a_panic() {
    let (a, b) = (Stream::new(), Stream::new());
    a.scope(|| {
        b.scope(|| assert!(in_stream_scope()));
        assert!(in_stream_scope());
    });
    assert!(!in_stream_scope());
    let r = std::panic::catch_unwind(|| a.scope(|| panic!("inside a scope")));
    assert!(r.is_err());
    assert!(!in_stream_scope(), "the scope ended with the panic");
}

#[test]
fn a_scope_is_per_thread() {
    with_backend(Backend::Cpu, || {
        let s = Stream::new();
        s.scope(|| {
            let other = std::thread::spawn(in_stream_scope).join().unwrap();
            assert!(!other, "threads spawned in a scope use the default stream");
            assert!(in_stream_scope());
        });
    });
}

/// The kernels of the GPU tests below compile with NVRTC (no GPU needed).
#[cfg(feature = "cuda")]
#[test]
fn the_gpu_tests_kernels_compile() {
    if !crate::support::require_nvrtc() {
        return;
    }
    let ((), sources) = ongpu::inspect::collect_kernel_sources(|| {
        with_backend(Backend::Cpu, || {
            let mut x: Field<u32, AoS> = Field::zeros(10);
            let mut y: Field<u32, AoS> = Field::zeros(10);
            spin_write(&mut x, 1, 3).unwrap();
            spin_read(&mut y, &x, 3).unwrap();
            on_gpu!({
                y = x + 1u32;
            })
            .unwrap();
            on_gpu!({
                x = 7u32;
            })
            .unwrap();
            on_gpu!({
                y = x;
            })
            .unwrap();
            spin_kernel::launch(per_site(10), &x, &mut y, 3).unwrap();
        })
    });
    assert_eq!(sources.len(), 6);
    for s in &sources {
        ongpu::inspect::compile(s, "sm_90").unwrap_or_else(|e| panic!("{e}"));
    }
}

// ---------------------------------------------------------------- GPU

#[cfg(feature = "cuda")]
mod gpu {
    use super::*;

    /// Iterations of the slow site: about 0.1 s on a current GPU (a dependent chain of
    /// integer operations), long enough for the fast paths below to finish first.
    const SLOW: u32 = 10_000_000;
    const N: usize = 1 << 20;
    /// Large enough that thread 0 of a one-wave grid loads some of its sites only after
    /// its slow site 0: a write that did not wait for that read would show there.
    const LARGE: usize = 1 << 24;

    /// GPU tests of this file run one at a time: they time kernels against each other and
    /// count the process's events, which other tests' work would disturb.
    static ALONE: std::sync::Mutex<()> = std::sync::Mutex::new(());

    fn alone() -> std::sync::MutexGuard<'static, ()> {
        ALONE
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Runs `scenario` with 1 iteration (this compiles every kernel, allocates every copy
    /// and creates every stream: steps that may synchronise the device must not happen
    /// while a slow kernel runs), then with [`SLOW`] iterations.
    fn twice(mut scenario: impl FnMut(u32)) {
        let _alone = alone();
        with_backend(Backend::Cuda, || {
            scenario(1);
            ongpu::synchronize().unwrap();
            scenario(SLOW);
        })
    }

    #[test]
    #[ignore = "needs a CUDA device"]
    fn a_host_read_waits_for_exactly_the_work_that_writes_the_field() {
        let (s1, s2) = (Stream::new(), Stream::new());
        let mut slow: Field<u32, AoS> = Field::filled(N, POISON);
        let mut fast: Field<u32, AoS> = Field::filled(N, POISON);
        twice(|iters| {
            s1.scope(|| spin_write(&mut slow, 1, iters)).unwrap();
            let slow_done = s1.record().unwrap();
            s2.scope(|| spin_write(&mut fast, 2, 1)).unwrap();
            assert_eq!(fast.residency(), Residency::Device);
            check_spin_write("fast", &fast.to_vec().unwrap(), 2, 1);
            if iters == SLOW {
                assert!(
                    !slow_done.is_complete().unwrap(),
                    "reading `fast` waited for the slow kernel on the other stream"
                );
            }
            check_spin_write("slow", &slow.to_vec().unwrap(), 1, iters);
            assert!(slow_done.is_complete().unwrap());
            fast.set(0, POISON).unwrap(); // the host copy is newer again
        });
    }

    #[test]
    #[ignore = "needs a CUDA device"]
    fn a_reduction_waits_for_the_queued_write_of_its_field() {
        let s1 = Stream::new();
        let s2 = Stream::new();
        let mut x: Field<u32, AoS> = Field::filled(N, POISON);
        twice(|iters| {
            // in the writer's scope, after it; on another stream; and on the default path
            for (k, reduce_on) in [Some(&s1), Some(&s2), None].into_iter().enumerate() {
                let seed = 40 + 3 * iters + k as u32;
                s1.scope(|| spin_write(&mut x, seed, iters)).unwrap();
                let sum = |x: &Field<u32, AoS>| on_gpu!(sum: { x });
                let got: u64 = match reduce_on {
                    Some(s) => s.scope(|| sum(&x)).unwrap(),
                    None => sum(&x).unwrap(),
                };
                let want: u64 = (0..N)
                    .map(|i| {
                        spin(seed.wrapping_add(i as u32), if i == 0 { iters } else { 1 }) as u64
                    })
                    .sum();
                assert_eq!(
                    got, want,
                    "reduction {k} read `x` before its write finished"
                );
            }
        });
    }

    #[test]
    #[ignore = "needs a CUDA device"]
    fn a_kernel_on_one_stream_waits_for_a_write_on_another() {
        let (s1, s2) = (Stream::new(), Stream::new());
        let mut x: Field<u32, AoS> = Field::filled(N, POISON);
        let mut y: Field<u32, AoS> = Field::filled(N, POISON);
        twice(|iters| {
            s1.scope(|| spin_write(&mut x, 3 + iters, iters)).unwrap();
            s2.scope(|| {
                on_gpu!({
                    y = x + 1u32;
                })
            })
            .unwrap();
            let yv = y.to_vec().unwrap();
            let xv = x.to_vec().unwrap();
            check_spin_write("x", &xv, 3 + iters, iters);
            for (i, (&yi, &xi)) in yv.iter().zip(&xv).enumerate() {
                assert_eq!(yi, xi.wrapping_add(1), "y at site {i}");
            }
        });
    }

    #[test]
    #[ignore = "needs a CUDA device"]
    fn an_explicit_kernel_in_a_scope_is_queued_and_ordered_with_other_streams() {
        let (s1, s2) = (Stream::new(), Stream::new());
        let mut x: Field<u32, AoS> = Field::filled(N, POISON);
        let mut y: Field<u32, AoS> = Field::filled(N, POISON);
        let mut z: Field<u32, AoS> = Field::filled(N, POISON);
        // Unchecked: a checked launch reads its bounds report back, so it waits.
        ongpu::with_bounds_checks(false, || {
            twice(|iters| {
                // s1 writes x slowly; the kernel on s2 must wait for it, and is slow itself.
                s1.scope(|| spin_write(&mut x, 30 + iters, iters)).unwrap();
                s2.scope(|| spin_kernel::launch(per_site(N), &x, &mut y, iters))
                    .unwrap();
                let kernel_done = s2.record().unwrap();
                if iters == SLOW {
                    assert!(
                        !kernel_done.is_complete().unwrap(),
                        "the scoped launch waited for its kernel"
                    );
                }
                assert_eq!(y.residency(), Residency::Device);
                // Back on s1, a call reading y waits for the kernel on s2.
                s1.scope(|| {
                    on_gpu!({
                        z = y + 1u32;
                    })
                })
                .unwrap();
                let zv = z.to_vec().unwrap();
                let (xv, yv) = (x.to_vec().unwrap(), y.to_vec().unwrap());
                check_spin_write("x", &xv, 30 + iters, iters);
                check_spin_read("y (kernel on s2)", &yv, &xv, iters);
                for (i, (&zi, &yi)) in zv.iter().zip(&yv).enumerate() {
                    assert_eq!(zi, yi.wrapping_add(1), "z at site {i}");
                }
                // A kernel on the default stream waits for the scoped kernel's write.
                s2.scope(|| spin_kernel::launch(per_site(N), &x, &mut y, iters))
                    .unwrap();
                spin_kernel::launch(per_site(N), &y, &mut z, 1).unwrap();
                let (yv, zv) = (y.to_vec().unwrap(), z.to_vec().unwrap());
                check_spin_read("z (default stream)", &zv, &yv, 1);
            })
        });
    }

    #[test]
    #[ignore = "needs a CUDA device"]
    fn a_write_on_one_stream_waits_for_reads_on_another() {
        let (s1, s2) = (Stream::new(), Stream::new());
        let mut x: Field<u32, AoS> = Field::filled(LARGE, POISON);
        let mut y: Field<u32, AoS> = Field::filled(LARGE, POISON);
        twice(|iters| {
            spin_write(&mut x, 4 + iters, 1).unwrap(); // x = A, on the default stream
            let a = x.to_vec().unwrap();
            s1.scope(|| spin_read(&mut y, &x, iters)).unwrap();
            s2.scope(|| {
                on_gpu!({
                    x = 7u32;
                })
            })
            .unwrap();
            check_spin_read("y (read before the write)", &y.to_vec().unwrap(), &a, iters);
            assert!(x.to_vec().unwrap().iter().all(|&v| v == 7));
        });
    }

    #[test]
    #[ignore = "needs a CUDA device"]
    fn default_stream_work_and_stream_work_are_ordered_both_ways() {
        let s = Stream::new();
        let mut x: Field<u32, AoS> = Field::filled(N, POISON);
        let mut y: Field<u32, AoS> = Field::filled(N, POISON);
        twice(|iters| {
            // The default stream writes, a stream reads.
            spin_write(&mut x, 5, iters).unwrap();
            s.scope(|| spin_read(&mut y, &x, 1)).unwrap();
            let yv = y.to_vec().unwrap();
            let xv = x.to_vec().unwrap();
            check_spin_write("x (default stream)", &xv, 5, iters);
            check_spin_read("y (stream)", &yv, &xv, 1);
            // A stream writes, the default stream reads.
            s.scope(|| spin_write(&mut x, 6, iters)).unwrap();
            spin_read(&mut y, &x, 1).unwrap();
            let yv = y.to_vec().unwrap();
            let xv = x.to_vec().unwrap();
            check_spin_write("x (stream)", &xv, 6, iters);
            check_spin_read("y (default stream)", &yv, &xv, 1);
        });
    }

    #[test]
    #[ignore = "needs a CUDA device"]
    fn a_host_write_waits_for_a_queued_upload_of_pinned_memory() {
        let s = Stream::new();
        let mut delay: Field<u32, AoS> = Field::filled(N, POISON);
        let mut y: Field<u32, AoS> = Field::filled(N, POISON);
        let mut x: Field<u32, AoS> = Field::zeros(N).pinned().unwrap();
        twice(|iters| {
            {
                let mut h = x.as_host_mut().unwrap();
                for i in 0..N {
                    h.set(i, i as u32 * 3 + iters);
                }
            }
            assert!(x.is_page_locked());
            s.scope(|| spin_write(&mut delay, 8, iters)).unwrap();
            x.upload_async(&s).unwrap(); // queued behind the slow kernel
            s.scope(|| {
                on_gpu!({
                    y = x;
                })
            })
            .unwrap();
            {
                let mut h = x.as_host_mut().unwrap(); // waits until the upload has read x
                for i in 0..N {
                    h.set(i, 1);
                }
            }
            for (i, v) in y.to_vec().unwrap().iter().enumerate() {
                assert_eq!(
                    *v,
                    i as u32 * 3 + iters,
                    "y got data written after the upload, site {i}"
                );
            }
            assert!(x.to_vec().unwrap().iter().all(|&v| v == 1));
        });
        assert_eq!(x.transfers().uploads, 2);
    }

    #[test]
    #[ignore = "needs a CUDA device"]
    fn an_async_download_is_waited_for_by_host_reads() {
        let s = Stream::new();
        let mut x: Field<u32, AoS> = Field::filled(N, POISON).pinned().unwrap();
        twice(|iters| {
            let before = x.transfers().downloads;
            s.scope(|| spin_write(&mut x, 9, iters)).unwrap();
            x.download_async(&s).unwrap();
            assert_eq!(x.residency(), Residency::Both);
            let v = x.to_vec().unwrap(); // waits for the download, copies nothing more
            check_spin_write("x", &v, 9, iters);
            assert_eq!(x.transfers().downloads, before + 1);
            x.download_async(&s).unwrap(); // current already: nothing queued
            assert_eq!(x.transfers().downloads, before + 1);
        });
    }

    #[test]
    #[ignore = "needs a CUDA device"]
    fn mapped_fields_are_read_and_written_by_kernels_without_copies() {
        let s = Stream::new();
        let mut x: Field<u32, AoS> = Field::filled(LARGE, POISON).mapped().unwrap();
        let mut y: Field<u32, AoS> = Field::zeros(LARGE).mapped().unwrap();
        twice(|iters| {
            // The default stream writes host memory; the host read waits for the kernel.
            spin_write(&mut x, 10, iters).unwrap();
            let xv = x.to_vec().unwrap();
            check_spin_write("x", &xv, 10, iters);
            // A stream reads and writes host memory; a host write of x waits for the read.
            s.scope(|| spin_read(&mut y, &x, iters)).unwrap();
            {
                let mut h = x.as_host_mut().unwrap();
                for i in 0..LARGE {
                    h.set(i, 0);
                }
            }
            check_spin_read("y (x rewritten after)", &y.to_vec().unwrap(), &xv, iters);
        });
        assert_eq!(x.transfers(), ongpu::Transfers::default());
        assert_eq!(y.transfers(), ongpu::Transfers::default());
        assert_eq!(x.residency(), Residency::Both);
    }

    /// What `spin_write(x, seed, iters)` writes.
    fn spin_written(seed: u32, iters: u32, n: usize) -> Vec<u32> {
        (0..n)
            .map(|i| spin(seed.wrapping_add(i as u32), if i == 0 { iters } else { 1 }))
            .collect()
    }

    #[test]
    #[ignore = "needs a CUDA device"]
    fn dropping_fields_with_queued_work_is_safe() {
        let (s, s2) = (Stream::new(), Stream::new());
        let mut keep: Field<u32, AoS> = Field::filled(N, POISON);
        let mut ya: Field<u32, AoS> = Field::filled(N, POISON);
        let mut yb: Field<u32, AoS> = Field::filled(N, POISON);
        let mut yc: Field<u32, AoS> = Field::filled(N, POISON);
        twice(|iters| {
            {
                let mut a: Field<u32, AoS> = Field::filled(N, POISON);
                let mut b: Field<u32, AoS> = Field::filled(N, POISON).pinned().unwrap();
                let mut c: Field<u32, AoS> = Field::filled(N, POISON).mapped().unwrap();
                s.scope(|| spin_write(&mut a, 11, iters)).unwrap();
                s2.scope(|| spin_read(&mut ya, &a, iters)).unwrap();
                s.scope(|| spin_write(&mut b, 12, iters)).unwrap();
                b.download_async(&s).unwrap();
                s.scope(|| spin_read(&mut yb, &b, iters)).unwrap();
                s.scope(|| spin_write(&mut c, 13, iters)).unwrap();
                s2.scope(|| spin_read(&mut yc, &c, iters)).unwrap();
                // All three are dropped here with their work queued (reads of them on
                // another stream, and pinned memory being written by a copy): each waits
                // for its own work before freeing.
            }
            // Memory freed by the drops may be handed out again: a field made now must not
            // see their late writes.
            spin_write(&mut keep, 14, 1).unwrap();
            ongpu::synchronize().unwrap();
            check_spin_write("keep", &keep.to_vec().unwrap(), 14, 1);
            // The work the dropped fields were part of read what was written to them.
            for (name, y, seed) in [("a", &ya, 11), ("b", &yb, 12), ("c", &yc, 13)] {
                let x = spin_written(seed, iters, N);
                check_spin_read(name, &y.to_vec().unwrap(), &x, iters);
            }
        });
    }

    #[test]
    #[ignore = "needs a CUDA device"]
    fn the_default_path_records_no_event_and_streams_do() {
        let _alone = alone();
        with_backend(Backend::Cuda, || {
            let a: Field<f32> = Field::filled(4096, 1.5);
            let mut x: Field<f32> = Field::zeros(4096);
            on_gpu!({
                x += a;
            })
            .unwrap();
            ongpu::synchronize().unwrap();
            let before = ongpu::cuda::sync_events_recorded();
            for _ in 0..100 {
                on_gpu!({
                    x += a;
                })
                .unwrap();
            }
            assert_eq!(x.get(4095).unwrap(), 1.5 * 101.0);
            assert_eq!(ongpu::cuda::sync_events_recorded(), before);
            let s = Stream::new();
            s.scope(|| {
                on_gpu!({
                    x += a;
                })
            })
            .unwrap();
            assert!(ongpu::cuda::sync_events_recorded() > before);
            assert_eq!(x.get(0).unwrap(), 1.5 * 102.0);
        });
    }

    #[test]
    #[ignore = "needs a CUDA device"]
    fn events_time_the_work_of_a_stream() {
        let s = Stream::new();
        let mut x: Field<u32, AoS> = Field::zeros(N);
        twice(|iters| {
            let start = s.record().unwrap();
            s.scope(|| spin_write(&mut x, 15, iters)).unwrap();
            let end = s.record().unwrap();
            if iters == SLOW {
                assert!(!end.is_complete().unwrap(), "the kernel is still running");
            }
            end.synchronize().unwrap();
            let ms = start.elapsed_ms(&end).unwrap();
            if iters == SLOW {
                assert!(ms > 1.0, "{ms} ms for a slow kernel");
            }
            check_spin_write("x", &x.to_vec().unwrap(), 15, iters);
        });
    }
}
