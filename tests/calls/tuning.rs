//! Launch autotuning: the mode switch on every backend, and on the GPU (`--include-ignored`)
//! that tuning decides a shape per call, writes it to the tuning file, leaves every result
//! bit for bit as the untuned launches compute it, and that a later process reads the file
//! instead of tuning again.

use crate::support;

use ongpu::prelude::*;
use ongpu::tune::{choices, mode, with_tuning, TuneMode};
use ongpu::{with_backend, Backend};

/// Two calls, each made 41 times on 2^16 sites (the smallest calls that are tuned): a
/// read-modify-write body with its threads per block free, and vector add with 256 named.
/// Returns both results.
///
/// The first 40 calls of each take every trial (at most 12 shapes, 2 samples each); the
/// host then waits for the device, so every trial's events are complete, and the 41st call
/// of each decides. (Without the wait, a loaded GPU can leave the last trials' times
/// unread at the 40th call, and the test would see no decision.)
fn tuned_calls() -> (Vec<f32>, Vec<f32>) {
    let n = 1 << 16;
    let a: Field<f32> = Field::from_fn(n, |i| ((i * 7919) % 1000) as f32 * 1e-3);
    let b: Field<f32> = Field::from_fn(n, |i| (i % 17) as f32);
    let mut x: Field<f32> = Field::from_fn(n, |i| (i % 5) as f32);
    let mut c: Field<f32> = Field::zeros(n);
    for call in 0..41 {
        if call == 40 {
            ongpu::synchronize().unwrap();
        }
        on_gpu!(n, {
            x = a * x + b * 0.25;
        })
        .unwrap();
        on_gpu!(n, 256, {
            c = a + b;
        })
        .unwrap();
    }
    (x.to_vec().unwrap(), c.to_vec().unwrap())
}

#[test]
fn the_mode_follows_with_tuning_and_the_cpu_tunes_nothing() {
    with_tuning(TuneMode::Force, || {
        assert_eq!(mode().unwrap(), TuneMode::Force);
        with_backend(Backend::Cpu, tuned_calls);
    });
    // (The decisions are the process's: other tests of this harness may tune their own
    // calls on a GPU meanwhile, so only this file's calls are looked at.)
    let ours: Vec<_> = choices()
        .into_iter()
        .filter(|c| c.what.contains(file!()))
        .collect();
    assert!(ours.is_empty(), "{ours:?}");
}

/// In a child process with its own cache folder (`ONGPU_TUNE_CHILD` says which run): the
/// results as bits, then each choice as `class threads waves ms`.
#[test]
fn tuning_child() {
    if !support::is_child() {
        return;
    }
    let (x, c) = with_backend(Backend::Cuda, tuned_calls);
    let bits: u64 = x
        .iter()
        .chain(&c)
        .fold(0, |h, v| h.rotate_left(5) ^ u64::from(v.to_bits()));
    println!("bits {bits:016x}");
    for ch in choices() {
        println!(
            "choice {} {} {} {}",
            ch.class, ch.shape.threads_per_block, ch.shape.waves, ch.ms
        );
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn tuning_decides_remembers_and_changes_no_bit() {
    let dir = std::env::temp_dir().join(format!("ongpu-tuning-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let cache = dir.to_str().unwrap();
    let run = |tune: &str| {
        support::run_child(
            module_path!(),
            "tuning_child",
            &[("ONGPU_CACHE_DIR", cache), ("ONGPU_TUNE", tune)],
        )
    };
    let bits_of = |out: &str| -> String {
        // (The test harness prints `test tuning_child ... ` before the child's first line.)
        out.lines()
            .find_map(|l| l.split("bits ").nth(1))
            .unwrap_or_else(|| panic!("no result: {out}"))
            .to_string()
    };
    let choices_of = |out: &str| -> Vec<(u32, u32, u32, f32)> {
        out.lines()
            .filter_map(|l| l.strip_prefix("choice "))
            .map(|l| {
                let f: Vec<&str> = l.split(' ').collect();
                (
                    f[0].parse().unwrap(),
                    f[1].parse().unwrap(),
                    f[2].parse().unwrap(),
                    f[3].parse().unwrap(),
                )
            })
            .collect()
    };
    // Untuned: the default shapes, no decisions, no file.
    let off = run("off");
    assert!(choices_of(&off).is_empty(), "{off}");
    assert!(!dir.join("tuning.txt").exists());
    let bits = bits_of(&off);

    let first = run("force");
    assert_eq!(bits_of(&first), bits, "tuning changed a result: {first}");
    let tuned = choices_of(&first);
    assert_eq!(tuned.len(), 2, "two calls tuned: {first}");
    for &(class, tpb, _, ms) in &tuned {
        assert_eq!(class, 16);
        assert!(ms > 0.0, "timed: {first}");
        assert!([128, 256, 512].contains(&tpb));
    }
    assert!(
        tuned.iter().any(|t| t.1 == 256),
        "the call that names 256 threads keeps them"
    );
    let file = std::fs::read_to_string(dir.join("tuning.txt")).unwrap();
    assert_eq!(file.lines().count(), 2, "{file}");

    // A later process reads the decisions (time 0: not timed again) and gets the same bits.
    let second = run("on");
    assert_eq!(bits_of(&second), bits, "{second}");
    let read = choices_of(&second);
    assert_eq!(read.len(), 2, "{second}");
    // The same decisions; in call order here, in the order the trials ended when tuned.
    let shapes = |c: &[(u32, u32, u32, f32)]| {
        let mut s: Vec<(u32, u32, u32)> = c.iter().map(|t| (t.0, t.1, t.2)).collect();
        s.sort_unstable();
        s
    };
    assert_eq!(shapes(&read), shapes(&tuned), "{first}\n{second}");
    assert!(read.iter().all(|r| r.3 == 0.0), "not timed again: {second}");
    let _ = std::fs::remove_dir_all(&dir);
}
