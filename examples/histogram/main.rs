//! The histogram of the atomics lecture: 100 MiB of random bytes into 256 bins, with one
//! global atomic per byte, with a shared-memory histogram per block (the lecture's
//! version), and with one shared-memory copy per warp lane (no bank conflicts). Every count
//! is checked against the host's; each kernel is timed (CUDA events, median of batches) and
//! compared with the read bandwidth (on the GPU the faster of an ongpu kernel that reads
//! the words 4 bytes at a time, the earlier bound, and the tuned 16-byte reader of
//! `examples/common`) and with one host thread.
//!
//! `cargo run --release --example histogram [-- --mib 100 --reps 10 --blocks-per-sm 8]`

#[path = "../common/mod.rs"]
mod common;
use ongpu_classic::histogram as kernels;

use common::{arg, time};
use ongpu::prelude::*;
use ongpu::Backend;
use rand::{Rng, SeedableRng};
use std::time::Instant;

type Res<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn main() -> Res<()> {
    let backend = ongpu::backend()?;
    let mib = arg("--mib", if backend == Backend::Cuda { 100 } else { 16 });
    let reps = arg("--reps", 10);
    let words_n = (mib << 20) / 4;
    let bytes = (words_n * 4) as f64;
    common::warn_if_checked(backend);

    let mut r = rand::rngs::SmallRng::seed_from_u64(2024);
    let host: Vec<u32> = (0..words_n).map(|_| r.random()).collect();
    let start = Instant::now();
    let want = kernels::reference(&host);
    let host_seconds = start.elapsed().as_secs_f64();
    assert_eq!(want.iter().sum::<u64>(), words_n as u64 * 4);
    let words: Field<u32, AoS> = Field::from_vec(host);

    // One wave of resident blocks on the GPU: 256 threads, 8 blocks per multiprocessor (6 for
    // the 32 KiB per-lane histograms); on the CPU a few blocks per thread.
    let per_sm = arg("--blocks-per-sm", 8);
    let blocks = |per_sm: usize| match common::sm_count(backend) {
        Some(sms) => (sms * per_sm) as u32,
        None => 8 * rayon::current_num_threads() as u32,
    };
    let threads = 256;
    let kernels: [(&str, LaunchShape); 3] = [
        (
            "global atomics",
            LaunchShape::linear(blocks(per_sm), threads),
        ),
        (
            "shared (lecture)",
            LaunchShape::linear(blocks(per_sm), threads),
        ),
        (
            "shared, per lane",
            LaunchShape::linear(blocks(per_sm.min(6)), threads),
        ),
    ];
    let mut bins: Field<u32, AoS> = Field::zeros(kernels::BINS);
    let launch = |k: usize, shape: LaunchShape, bins: &mut Field<u32, AoS>| match k {
        0 => kernels::histogram_global::launch(shape, &words, bins),
        1 => kernels::histogram_shared::launch(shape, &words, bins),
        _ => kernels::histogram_lanes::launch(shape, &words, bins),
    };
    let mut seconds = Vec::new();
    for (k, (name, shape)) in kernels.iter().enumerate() {
        bins.as_slice_mut()?.fill(0);
        launch(k, *shape, &mut bins)?;
        let got = bins.to_vec()?;
        let wrong = (0..kernels::BINS)
            .filter(|&b| got[b] as u64 != want[b])
            .count();
        if wrong > 0 {
            return Err(format!("{name}: {wrong} of {} bins are wrong", kernels::BINS).into());
        }
        // Timing batches keep adding to the bins (they wrap); only the first run is checked.
        seconds.push(time(backend, reps, || launch(k, *shape, &mut bins))?);
    }
    let mut sink: Field<u32, AoS> = Field::zeros((blocks(per_sm) * threads) as usize);
    let read4 = time(backend, reps, || {
        kernels::read_words::launch(kernels[0].1, &words, &mut sink)
    })?;
    let read16 = read16_seconds(backend, reps, words_n * 4)?;
    let read = read16.map_or(read4, |r| r.min(read4));

    println!(
        "histogram: {} random bytes ({mib} MiB) into {} bins, backend {backend:?} ({}); all counts exact",
        words_n * 4,
        kernels::BINS,
        common::device_name(backend)
    );
    println!(
        "  {:<18} {:>10} {:>9} {:>11} {:>12} {:>15}",
        "kernel", "ms", "GB/s", "vs global", "of read BW", "of 4-byte read"
    );
    for ((name, _), s) in kernels.iter().zip(&seconds) {
        println!(
            "  {name:<18} {:>10.3} {:>9.1} {:>10.1}x {:>11.1}% {:>14.1}%",
            s * 1e3,
            bytes / s / 1e9,
            seconds[0] / s,
            100.0 * read / s,
            100.0 * read4 / s
        );
    }
    let readers = [("read, 4-byte", Some(read4)), ("read, 16-byte", read16)];
    for (name, t) in readers.iter().filter_map(|&(n, t)| Some((n, t?))) {
        println!(
            "  {name:<18} {:>10.3} {:>9.1} {:>11} {:>11.1}% {:>14.1}%",
            t * 1e3,
            bytes / t / 1e9,
            "",
            100.0 * read / t,
            100.0 * read4 / t
        );
    }
    println!(
        "  {:<18} {:>10.3} {:>9.1}   (host, one thread, for reference)",
        "host loop",
        host_seconds * 1e3,
        bytes / host_seconds / 1e9
    );
    Ok(())
}

/// Seconds of the tuned 16-byte reader over `bytes` bytes on the GPU; `None` on the CPU.
#[cfg_attr(not(feature = "cuda"), allow(unused_variables))]
fn read16_seconds(backend: Backend, reps: usize, bytes: usize) -> ongpu::Result<Option<f64>> {
    match backend {
        #[cfg(feature = "cuda")]
        Backend::Cuda => Ok(Some(
            common::ceiling::Ceilings::new()?.read_seconds(reps, bytes)?,
        )),
        _ => Ok(None),
    }
}
