//! Several host threads run `on_gpu!` at once, each on its own fields and all reading one
//! shared field; every result is checked. Fields are `Send + Sync` (their copies are behind
//! a mutex), and each call binds the CUDA context on its own thread.

use ongpu::prelude::*;
use ongpu::{with_backend, Backend, Stream};

const THREADS: usize = 8;
const N: usize = 10_000;

/// Thread `t`'s work: a few calls, half of them on its own stream when `stream` is set.
fn work(t: usize, shared: &Field<f64>, stream: Option<&Stream>) {
    let k = t as f64 + 1.0;
    let mut x: Field<f64> = Field::from_fn(N, |i| (i % 97) as f64);
    let mut y: Field<ColorMatrix<f64>, AoS> = Field::zeros(N);
    for round in 0..10 {
        on_gpu!({
            x += shared * k;
        })
        .unwrap();
        let mut queued = || {
            on_gpu!(|i| {
                y = ColorMatrix::identity() * (x + (i as f64));
            })
        };
        match stream {
            Some(s) if round % 2 == 1 => s.scope(queued).unwrap(),
            _ => queued().unwrap(),
        }
    }
    let xv = x.to_vec().unwrap();
    let yv = y.to_vec().unwrap();
    for i in 0..N {
        let want = (i % 97) as f64 + 10.0 * k * (i as f64 * 0.5);
        assert_eq!(xv[i], want, "thread {t}, x at site {i}");
        let d = want + i as f64;
        assert_eq!(
            yv[i],
            ColorMatrix::identity() * d,
            "thread {t}, y at site {i}"
        );
    }
}

fn run_threads(backend: Backend, streams: bool) {
    let shared: Field<f64> = Field::from_fn(N, |i| i as f64 * 0.5);
    let streams: Vec<Option<Stream>> = (0..THREADS).map(|_| streams.then(Stream::new)).collect();
    std::thread::scope(|scope| {
        for (t, s) in streams.iter().enumerate() {
            let shared = &shared;
            scope.spawn(move || with_backend(backend, || work(t, shared, s.as_ref())));
        }
    });
    // The shared field was only read: still its original values.
    for (i, v) in shared.to_vec().unwrap().iter().enumerate() {
        assert_eq!(*v, i as f64 * 0.5);
    }
}

#[test]
fn eight_threads_run_on_gpu_at_once_on_the_cpu_backend() {
    run_threads(Backend::Cpu, false);
    run_threads(Backend::Cpu, true);
}

/// The GPU test's kernels compile with NVRTC (no GPU needed).
#[cfg(feature = "cuda")]
#[test]
fn the_kernels_compile() {
    if !crate::support::require_nvrtc() {
        return;
    }
    let shared: Field<f64> = Field::from_fn(N, |i| i as f64 * 0.5);
    let ((), sources) = ongpu::inspect::collect_kernel_sources(|| {
        with_backend(Backend::Cpu, || work(0, &shared, None))
    });
    assert_eq!(sources.len(), 20);
    for s in &sources[..2] {
        ongpu::inspect::compile(s, "sm_90").unwrap_or_else(|e| panic!("{e}"));
    }
}

#[cfg(feature = "cuda")]
#[test]
#[ignore = "needs a CUDA device"]
fn eight_threads_run_on_gpu_at_once_on_the_gpu() {
    run_threads(Backend::Cuda, false);
    run_threads(Backend::Cuda, true);
    // Fields moved between threads keep their device copies.
    let x: Field<f32> = with_backend(Backend::Cuda, || {
        let mut x: Field<f32> = Field::zeros(1000);
        on_gpu!(|i| {
            x = i as f32;
        })
        .unwrap();
        x
    });
    let v = std::thread::spawn(move || x.to_vec().unwrap())
        .join()
        .unwrap();
    assert!(v.iter().enumerate().all(|(i, &e)| e == i as f32));
}
