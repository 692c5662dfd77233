//! The pass of a [`Graph`](crate::Graph)'s closure on this thread: recording (calls are
//! captured into the graph, not run) or replaying (calls only prepare and mark their fields
//! and check that they would launch what was recorded; the graph then runs them all in one
//! launch). Fields ask it to refuse host access inside either pass, and the launch path asks
//! it where a kernel goes.

// Without the CUDA backend no pass ever runs (a graph on the CPU backend calls its closure):
// only `mode` and `forbid_host` are used, and they find no pass.
#![cfg_attr(not(feature = "cuda"), allow(dead_code))]

use crate::error::{Error, Result};
use std::cell::RefCell;

/// A tuned call's launch shape as a recording keeps it for its replays: threads per block
/// and waves (the tuner's `LaunchChoice`, which this module does not name, so that the tuner
/// can ask it without an import circle).
pub(crate) type TunedShape = [u32; 2];

/// What a graph's closure is doing on this thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Calls are captured into a new graph.
    Recording,
    /// Calls are checked against the recording; the graph launches them.
    Replaying,
}

/// The state of one pass: its mode, the capture stream, what each recorded launch passed
/// (a fingerprint of its kernel, shape and parameter bytes), and during a replay how many
/// launches have been checked.
#[derive(Debug)]
pub(crate) struct Pass {
    pub(crate) mode: Mode,
    /// The stream being captured (recording only).
    #[cfg(feature = "cuda")]
    pub(crate) stream: crate::cuda::stream::StreamHandle,
    /// One fingerprint per launch, in order, with where the call is (for errors).
    pub(crate) launches: Vec<(u64, crate::error::Location)>,
    /// Launches checked so far in a replay.
    pub(crate) checked: usize,
    /// Reduction scratch buffers the recording's reductions own (partials and counter).
    #[cfg(feature = "cuda")]
    pub(crate) scratch: Vec<crate::cuda::DeviceBuffer>,
    /// In a replay, the recorded reductions' scratch addresses, handed out in order: a
    /// replayed reduction passes the address its recording passed.
    pub(crate) recorded_scratch: Vec<u64>,
    /// Scratch addresses handed out so far in a replay.
    pub(crate) scratch_used: usize,
    /// The tuned calls' shapes, in order: noted by the recording, handed out by a replay.
    pub(crate) shapes: Vec<TunedShape>,
    /// Shapes handed out so far in a replay.
    shapes_used: usize,
}

#[cfg(feature = "cuda")]
impl Pass {
    /// The pass that records a graph's (or a graph loop's body's) launches on `stream`,
    /// being captured.
    pub(crate) fn recording(stream: crate::cuda::stream::StreamHandle) -> Pass {
        Pass {
            mode: Mode::Recording,
            stream,
            launches: Vec::new(),
            checked: 0,
            scratch: Vec::new(),
            recorded_scratch: Vec::new(),
            scratch_used: 0,
            shapes: Vec::new(),
            shapes_used: 0,
        }
    }

    /// The pass that replays: the closure's calls are checked against the recorded
    /// `launches`, its reductions handed the recorded `scratch` addresses and its tuned
    /// calls the recorded `shapes`.
    pub(crate) fn replaying(
        launches: Vec<(u64, crate::error::Location)>,
        scratch: &[crate::cuda::DeviceBuffer],
        shapes: Vec<TunedShape>,
    ) -> Pass {
        Pass {
            mode: Mode::Replaying,
            stream: std::ptr::null_mut(),
            launches,
            checked: 0,
            scratch: Vec::new(),
            recorded_scratch: scratch.iter().map(|b| b.ptr()).collect(),
            scratch_used: 0,
            shapes,
            shapes_used: 0,
        }
    }
}

thread_local! {
    static PASS: RefCell<Option<Pass>> = const { RefCell::new(None) };
}

/// The mode of the pass running on this thread, if any.
#[inline(always)]
pub(crate) fn mode() -> Option<Mode> {
    PASS.with(|p| p.borrow().as_ref().map(|p| p.mode))
}

/// Runs `f` with the pass of a graph's closure, then returns `f`'s result and the pass
/// (restored to none also when `f` panics).
pub(crate) fn run<R>(pass: Pass, f: impl FnOnce() -> R) -> (R, Pass) {
    struct Clear;
    impl Drop for Clear {
        fn drop(&mut self) {
            PASS.with(|p| p.borrow_mut().take());
        }
    }
    PASS.with(|p| *p.borrow_mut() = Some(pass));
    let clear = Clear;
    let r = f();
    let pass = PASS
        .with(|p| p.borrow_mut().take())
        .expect("the pass set above");
    drop(clear);
    (r, pass)
}

/// In a replay, the next shape its recording chose (`None` elsewhere, or past the
/// recorded ones: then the launch check reports the extra launch).
#[cfg(feature = "cuda")]
pub(crate) fn replayed_shape() -> Option<TunedShape> {
    with(|p| {
        let p = p.filter(|p| p.mode == Mode::Replaying)?;
        let shape = p.shapes.get(p.shapes_used).copied();
        p.shapes_used += 1;
        shape
    })
}

/// In a recording, notes the shape a tuned call chose, for the replays.
#[cfg(feature = "cuda")]
pub(crate) fn note_shape(shape: TunedShape) {
    with(|p| {
        if let Some(p) = p.filter(|p| p.mode == Mode::Recording) {
            p.shapes.push(shape);
        }
    });
}

/// Calls `f` with this thread's pass (`None` outside a graph's closure).
pub(crate) fn with<R>(f: impl FnOnce(Option<&mut Pass>) -> R) -> R {
    PASS.with(|p| f(p.borrow_mut().as_mut()))
}

/// An error for `what`, a host access, inside a graph's closure; `Ok` elsewhere.
#[inline(always)]
pub(crate) fn forbid_host(what: &dyn Fn() -> String) -> Result<()> {
    match mode() {
        None => Ok(()),
        Some(_) => Err(Error::Graph(format!(
            "{} inside a Graph's closure or a GraphLoop's body: they are recorded once and \
             replayed without running their host code, so they may only make on_gpu! calls \
             (reductions into a DeviceScalar with `sum -> s:`); read results on the host \
             after graph.run(..) or run_while(..) returns",
            what()
        ))),
    }
}
