//! The histogram of the atomics lecture: 100 MiB of random bytes into 256 bins, with one
//! global atomic per byte, with a shared-memory histogram per block (the lecture's
//! version), and with one shared-memory copy per warp lane (no bank conflicts). Every count
//! is checked against the host's; each kernel is timed (CUDA events, median of batches) and
//! compared with a kernel that only reads the bytes (the read bandwidth) and with one host
//! thread.
//!
//! `cargo run --release --example histogram [-- --mib 100 --reps 10 --blocks-per-sm 8]`

#[path = "../common/mod.rs"]
mod common;
mod kernels;

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
    let read = time(backend, reps, || {
        kernels::read_words::launch(kernels[0].1, &words, &mut sink)
    })?;

    println!(
        "histogram: {} random bytes ({mib} MiB) into {} bins, backend {backend:?} ({}); all counts exact",
        words_n * 4,
        kernels::BINS,
        common::device_name(backend)
    );
    println!(
        "  {:<18} {:>10} {:>9} {:>11} {:>12}",
        "kernel", "ms", "GB/s", "vs global", "of read BW"
    );
    for ((name, _), s) in kernels.iter().zip(&seconds) {
        println!(
            "  {name:<18} {:>10.3} {:>9.1} {:>10.1}x {:>11.1}%",
            s * 1e3,
            bytes / s / 1e9,
            seconds[0] / s,
            100.0 * read / s
        );
    }
    println!(
        "  {:<18} {:>10.3} {:>9.1} {:>11} {:>11.1}%",
        "read only",
        read * 1e3,
        bytes / read / 1e9,
        "",
        100.0
    );
    println!(
        "  {:<18} {:>10.3} {:>9.1}   (host, one thread, for reference)",
        "host loop",
        host_seconds * 1e3,
        bytes / host_seconds / 1e9
    );
    Ok(())
}
