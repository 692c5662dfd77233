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

/// The call a graph records in `graph_replay_child`: `x = 1.5 x + a` over 2^16 sites.
fn scale_and_add(x: &mut Field<f32>, a: &Field<f32>) -> ongpu::Result<()> {
    on_gpu!(x.len(), {
        x = x * 1.5 + a;
    })
}

/// In a child process with its own cache folder: `ONGPU_GRAPH_STEP=decide` tunes
/// `scale_and_add` until it decides (written to the tuning file); `replay` records a graph of
/// it untuned, then lets the call read its decision from the file outside the graph, then
/// replays the graph twice and prints `replayed` with the largest error against the host.
#[test]
fn graph_replay_child() {
    if !support::is_child() {
        return;
    }
    let n = 1 << 16;
    let a: Field<f32> = Field::from_fn(n, |i| (i % 13) as f32);
    let mut x: Field<f32> = Field::from_fn(n, |i| (i % 7) as f32);
    let mut expect: Vec<f32> = x.to_vec().unwrap();
    let host = a.to_vec().unwrap();
    let step = |expect: &mut Vec<f32>| {
        for (e, a) in expect.iter_mut().zip(&host) {
            *e = *e * 1.5 + a;
        }
    };
    with_backend(Backend::Cuda, || {
        match std::env::var("ONGPU_GRAPH_STEP").unwrap().as_str() {
            "decide" => with_tuning(TuneMode::Force, || {
                for call in 0..41 {
                    if call == 40 {
                        ongpu::synchronize().unwrap();
                    }
                    scale_and_add(&mut x, &a).unwrap();
                }
                println!("decided {}", choices().len());
            }),
            "replay" => {
                let mut graph = Graph::new();
                let run =
                    |x: &mut Field<f32>, graph: &mut Graph| graph.run(|| scale_and_add(x, &a));
                // Forced tuning skips the file, and a graph takes no trials: the default
                // shape is recorded.
                with_tuning(TuneMode::Force, || run(&mut x, &mut graph)).unwrap();
                step(&mut expect);
                // Outside the graph the call reads its decision from the file.
                with_tuning(TuneMode::On, || scale_and_add(&mut x, &a)).unwrap();
                step(&mut expect);
                for _ in 0..2 {
                    with_tuning(TuneMode::Force, || run(&mut x, &mut graph)).unwrap();
                    step(&mut expect);
                }
                let got = x.to_vec().unwrap();
                let err = got
                    .iter()
                    .zip(&expect)
                    .map(|(g, e)| (g - e).abs() / e.abs().max(1.0))
                    .fold(0.0f32, f32::max);
                for ch in choices() {
                    println!("choice {} {}", ch.shape.threads_per_block, ch.shape.waves);
                }
                println!("replayed {err:e}");
            }
            other => panic!("ONGPU_GRAPH_STEP={other}"),
        }
    });
}

/// A graph replays the shapes it was recorded with: a decision made after the recording
/// (here read from the tuning file, rewritten to a shape the default is not) changes
/// neither the replay's check nor its launches. Before, the replay failed with "differs from
/// its recording" whenever a call of the graph was tuned meanwhile, by this thread or another.
#[test]
#[ignore = "needs a CUDA device"]
fn a_graph_replays_the_shapes_it_recorded_after_its_call_is_tuned() {
    let dir = std::env::temp_dir().join(format!("ongpu-graph-tuning-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let cache = dir.to_str().unwrap();
    let run = |step: &str| {
        support::run_child(
            module_path!(),
            "graph_replay_child",
            &[("ONGPU_CACHE_DIR", cache), ("ONGPU_GRAPH_STEP", step)],
        )
    };
    let decided = run("decide");
    assert!(decided.contains("decided 1"), "{decided}");
    // The decision becomes 128 threads per block over 2 waves: not the default's 256.
    let file = dir.join("tuning.txt");
    let text = std::fs::read_to_string(&file).unwrap();
    let rewritten: String = text
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(f.len(), 6, "{text}");
            format!("{} 128 2\n", f[..4].join(" "))
        })
        .collect();
    std::fs::write(&file, rewritten).unwrap();
    let out = run("replay");
    // (The harness prints `test ... ` before the child's first line.)
    assert!(
        out.lines().any(|l| l.ends_with("choice 128 2")),
        "the call outside the graph read the rewritten decision: {out}"
    );
    let err: f32 = out
        .lines()
        .find_map(|l| l.strip_prefix("replayed "))
        .unwrap_or_else(|| panic!("the replays failed: {out}"))
        .parse()
        .unwrap();
    assert_eq!(err, 0.0, "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}
