//! The tuning of one kernel on the CUDA backend: the decided shape per size class, kept in
//! the loaded kernel (`Decided`, read with one atomic load on every call), and while a class
//! is undecided, the trials: each call takes the next shape to time and records CUDA events
//! around its launch; the times are read when their events are complete (never waited for).

use super::store::{self, Key};
use super::{candidates, class_of, decide, note, LaunchChoice, TuneChoice, TuneMode};
use crate::cuda::stream::StreamHandle as CUstream;
use crate::cuda::{Device, Event};
use crate::error::Result;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

/// Size classes (sites up to 2^63).
const CLASSES: usize = 64;
/// Times taken of each shape.
const SAMPLES: u8 = 2;

/// A kernel's decided shape per size class: `1 << 63 | fixed << 40 | tpb << 16 | waves`, 0
/// while undecided.
#[derive(Debug)]
pub(crate) struct Decided([AtomicU64; CLASSES]);

impl Decided {
    pub(crate) fn new() -> Self {
        Decided(std::array::from_fn(|_| AtomicU64::new(0)))
    }

    fn get(&self, class: u32, fixed: u32) -> Option<LaunchChoice> {
        let v = self.0[class as usize].load(Ordering::Relaxed);
        (v >> 63 == 1 && (v >> 40) & 0xffff == fixed as u64).then_some(LaunchChoice {
            threads_per_block: ((v >> 16) & 0xffff) as u32,
            waves: (v & 0xffff) as u32,
        })
    }

    fn set(&self, class: u32, fixed: u32, c: LaunchChoice) {
        let v =
            1 << 63 | (fixed as u64) << 40 | (c.threads_per_block as u64) << 16 | c.waves as u64;
        self.0[class as usize].store(v, Ordering::Relaxed);
    }
}

/// A launch being timed: record [`Trial::end`] after it.
pub(crate) struct Trial {
    state: StateKey,
    index: usize,
    start: Event,
}

impl Trial {
    /// Records the start of the timed launch on `stream` (before it).
    pub(crate) fn begin(&self, stream: CUstream) -> Result<()> {
        self.start.record_on(stream)
    }

    /// Records the end of the timed launch on `stream`.
    pub(crate) fn end(self, stream: CUstream) -> Result<()> {
        let stop = Event::new()?;
        stop.record_on(stream)?;
        let mut all = states().lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = all.get_mut(&self.state) {
            t.pending.push((self.index, self.start, stop));
        }
        Ok(())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct StateKey {
    kernel: u64,
    ordinal: usize,
    class: u32,
    fixed: u32,
}

/// The trials of one kernel, device, class and fixed block size.
struct Tuning {
    shapes: Vec<LaunchChoice>,
    best: Vec<Option<f32>>,
    /// Times taken and launches in flight, per shape.
    taken: Vec<u8>,
    pending: Vec<(usize, Event, Event)>,
}

fn states() -> &'static Mutex<HashMap<StateKey, Tuning>> {
    static STATES: OnceLock<Mutex<HashMap<StateKey, Tuning>>> = OnceLock::new();
    STATES.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Where the tuning file is, and its decisions (what it held when first read, and what was
/// written since).
type TuningFile = Mutex<(Option<PathBuf>, HashMap<Key, LaunchChoice>)>;

fn file() -> &'static TuningFile {
    static FILE: OnceLock<TuningFile> = OnceLock::new();
    FILE.get_or_init(|| {
        let path =
            crate::cuda::disk_cache::DiskCache::from_env().map(|c| c.dir().join("tuning.txt"));
        let read = path
            .as_ref()
            .and_then(|p| std::fs::read_to_string(p).ok())
            .map(|t| store::parse(&t))
            .unwrap_or_default();
        Mutex::new((path, read))
    })
}

/// Appends a decision to the tuning file (a failure to write costs later runs a tuning,
/// which is no reason to fail a call).
fn remember(key: Key, choice: LaunchChoice) {
    use std::io::Write;
    let mut f = file().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(path) = f.0.clone() {
        let _ = std::fs::create_dir_all(path.parent().unwrap_or(&path)).and_then(|()| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)?
                .write_all(store::line(&key, choice).as_bytes())
        });
    }
    f.1.insert(key, choice);
}

/// A call to shape.
pub(crate) struct Request<'a> {
    /// The call, for messages (`on_gpu! at file:line:column`).
    pub what: &'a dyn Fn() -> String,
    /// Its sites.
    pub sites: usize,
    /// The kernel's default shape.
    pub default: LaunchChoice,
    /// True if the call named its threads per block.
    pub fixed: bool,
    /// The most threads per block the kernel allows.
    pub max_threads: u32,
    /// The tuning mode.
    pub mode: TuneMode,
}

/// The shape of a call of a kernel (`kernel`: its source's hash; `decided`: its
/// decisions), and the trial to end after its launch if it is timed.
///
/// Inside a graph's closure the recording notes each shape, and a replay is handed the
/// recorded ones in order: a decision made since (by this thread's calls outside the graph,
/// or another thread's trials of the same call) must not make the replay's launches differ
/// from the graph's, which keeps the shapes it was recorded with.
pub(crate) fn shape(
    kernel: u64,
    decided: &Decided,
    dev: &Device,
    call: Request<'_>,
) -> Result<(LaunchChoice, Option<Trial>)> {
    if let Some([threads_per_block, waves]) = crate::graph_pass::replayed_shape() {
        // A call that names its threads per block keeps them: another number than the
        // recording's is another launch, which the replay's check then reports.
        if !call.fixed || threads_per_block == call.default.threads_per_block {
            let recorded = LaunchChoice {
                threads_per_block,
                waves,
            };
            return Ok((recorded, None));
        }
    }
    let chosen = shape_now(kernel, decided, dev, call)?;
    crate::graph_pass::note_shape([chosen.0.threads_per_block, chosen.0.waves]);
    Ok(chosen)
}

/// [`shape`] from the decisions and trials as they stand.
fn shape_now(
    kernel: u64,
    decided: &Decided,
    dev: &Device,
    call: Request<'_>,
) -> Result<(LaunchChoice, Option<Trial>)> {
    let Request {
        what,
        sites: n,
        default,
        fixed,
        max_threads,
        mode,
    } = call;
    let class = class_of(n);
    let fixed_tpb = if fixed { default.threads_per_block } else { 0 };
    if mode == TuneMode::Off || n < super::MIN_TUNED_SITES {
        return Ok((default, None));
    }
    if let Some(c) = decided.get(class, fixed_tpb) {
        return Ok((c, None));
    }
    let info = dev.info();
    let device = store::device_key(&info.name, &info.arch(), info.sm_count);
    let file_key = Key {
        kernel,
        device: device.clone(),
        class,
        fixed: fixed_tpb,
    };
    if mode == TuneMode::On {
        // (A file written with another NVRTC may name a block this build's kernel, with
        // more registers, cannot have: then it is tuned again.)
        let known = file()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .1
            .get(&file_key)
            .copied()
            .filter(|c| c.threads_per_block <= max_threads);
        if let Some(c) = known {
            decided.set(class, fixed_tpb, c);
            note(TuneChoice {
                what: what(),
                device,
                class,
                shape: c,
                ms: 0.0,
                default_ms: 0.0,
            });
            return Ok((c, None));
        }
    }
    // Recorded graphs replay one shape: no trials there.
    if crate::graph_pass::mode().is_some() {
        return Ok((default, None));
    }
    let state = StateKey {
        kernel,
        ordinal: info.ordinal,
        class,
        fixed: fixed_tpb,
    };
    let mut all = states().lock().unwrap_or_else(|e| e.into_inner());
    let t = all.entry(state.clone()).or_insert_with(|| {
        let shapes = candidates(default, fixed, max_threads);
        Tuning {
            best: vec![None; shapes.len()],
            taken: vec![0; shapes.len()],
            shapes,
            pending: Vec::new(),
        }
    });
    // The times whose launches are done.
    let mut k = 0;
    while k < t.pending.len() {
        if t.pending[k].2.is_complete()? {
            let (index, start, stop) = t.pending.swap_remove(k);
            let ms = start.elapsed_ms(&stop)?;
            let best = t.best[index].get_or_insert(ms);
            *best = best.min(ms);
        } else {
            k += 1;
        }
    }
    if t.pending.is_empty() && t.taken.iter().all(|&s| s >= SAMPLES) {
        let times: Vec<(LaunchChoice, f32)> = t
            .shapes
            .iter()
            .zip(&t.best)
            .map(|(&s, b)| (s, b.unwrap_or(f32::INFINITY)))
            .collect();
        let (choice, ms) = decide(&times);
        decided.set(class, fixed_tpb, choice);
        all.remove(&state);
        drop(all);
        remember(file_key, choice);
        note(TuneChoice {
            what: what(),
            device,
            class,
            shape: choice,
            ms,
            default_ms: times[0].1,
        });
        return Ok((choice, None));
    }
    let Some(index) = (0..t.shapes.len())
        .filter(|&i| t.taken[i] < SAMPLES)
        .min_by_key(|&i| t.taken[i])
    else {
        // Every shape is timed; the last times are not in yet.
        return Ok((default, None));
    };
    t.taken[index] += 1;
    let shape = t.shapes[index];
    drop(all);
    let start = Event::new()?;
    Ok((
        shape,
        Some(Trial {
            state,
            index,
            start,
        }),
    ))
}
