//! A [`GraphLoop`] on the GPU: the first run records the body into a WHILE node's body
//! graph (`entry test → while { body; test }`) and launches it; later runs replay the body
//! (prepare and check its calls, launch nothing) and launch the graph once.

use super::{GraphLoop, LoopTest, LoopValue};
use crate::cuda::conditional::WhileGraph;
use crate::cuda::graph::GraphExec;
use crate::cuda::stream::RawStream;
use crate::cuda::{loop_condition, Device, DeviceBuffer, Function, ParamList, Shape};
use crate::element::Scalar;
use crate::error::{Error, Location, Result};
use crate::graph_pass::{self, Pass};
use std::panic::Location as Caller;

/// One thread: the test kernel's shape.
const ONE: Shape = Shape {
    grid: (1, 1, 1),
    block: (1, 1, 1),
    shared_bytes: 0,
};

/// What the first run on the GPU recorded.
#[derive(Debug)]
pub(super) struct Recorded {
    exec: GraphExec,
    /// A fingerprint of each launch of the body, with its call site.
    launches: Vec<(u64, Location)>,
    /// The body's reductions' partials and counters.
    _scratch: Vec<DeviceBuffer>,
    /// The tuned calls' shapes in order: a replay launches these, whatever was tuned since.
    shapes: Vec<crate::graph_pass::TunedShape>,
    /// The bound, the largest iteration count and the comparison, read by the test kernel.
    limits: DeviceBuffer,
    /// What `limits` holds.
    uploaded: [u8; 16],
    /// The tested scalar's device address and CUDA type, and the counter's address: the
    /// graph's test kernels were given them.
    value: (u64, &'static str),
    count: u64,
    /// Where `run_while` was called from: the body replayed must be the one recorded.
    at: &'static Caller<'static>,
}

impl Recorded {
    /// The body's kernels.
    pub(super) fn kernels(&self) -> usize {
        self.launches.len()
    }
}

impl Drop for Recorded {
    /// The buffers the graph uses are freed after its queued launches have finished.
    fn drop(&mut self) {
        if crate::cuda::device().is_ok() {
            // SAFETY: the legacy default stream of the bound context.
            let _ = unsafe { crate::cuda::stream::wait_for(std::ptr::null_mut(), String::new) };
        }
    }
}

/// What a run's test gives the kernels: the tested value's address and type, the limits.
struct Tested {
    value: (u64, &'static str),
    limits: [u8; 16],
}

impl Tested {
    fn of<T: LoopValue>(dev: &'static Device, t: &LoopTest<'_, T>, max: u32) -> Result<Self> {
        Ok(Tested {
            value: (
                t.scalar.device_for_read(dev)?,
                <T::Real as Scalar>::CUDA_NAME,
            ),
            limits: t.limits(max),
        })
    }
}

fn at_string(at: &Caller<'_>) -> String {
    format!("{}:{}", at.file(), at.line())
}

/// Runs `lp` on the device: records it the first time, replays it after.
pub(super) fn run<S: ?Sized, T: LoopValue>(
    lp: &mut GraphLoop,
    at: &'static Caller<'static>,
    state: &mut S,
    test: &impl Fn(&S) -> LoopTest<'_, T>,
    max_iterations: u32,
    body: &mut impl FnMut(&mut S) -> Result<()>,
) -> Result<()> {
    let dev = crate::cuda::device()?;
    if graph_pass::mode().is_some() {
        return Err(Error::Graph(format!(
            "{}: GraphLoop::run_while inside a graph's or a loop's closure: graphs do not nest",
            at_string(at)
        )));
    }
    let tested = Tested::of(dev, &test(state), max_iterations)?;
    let count = lp.count.device_for_write(dev)?;
    match lp.recorded.as_mut() {
        None => {
            let rec = record(dev, at, state, test, body, tested, count)?;
            let rec = lp.recorded.insert(rec);
            dev.bind()?;
            rec.exec.launch(std::ptr::null_mut())
        }
        Some(rec) => replay(dev, rec, at, state, test, body, tested, count),
    }
}

/// Checks that the test still reads the scalar it read before the body ran (a scalar the
/// body replaced would leave the graph reading freed memory).
fn same_scalar<S: ?Sized, T: LoopValue>(
    dev: &'static Device,
    at: &'static Caller<'static>,
    state: &S,
    test: &impl Fn(&S) -> LoopTest<'_, T>,
    value: u64,
) -> Result<()> {
    if test(state).scalar.device_for_read(dev)? != value {
        return Err(Error::Graph(format!(
            "{}: the loop's test reads another scalar after the body than before it (the \
             body replaced it): the test kernel would read freed memory",
            at_string(at)
        )));
    }
    Ok(())
}

/// The test kernel's parameters after the handle and value: the limits, the counter, and
/// whether this is the entry test.
fn push_test_params<'a>(
    p: &mut ParamList<'a>,
    handle: &'a u64,
    value: &'a u64,
    limits: &'a [u64; 2],
    count: &'a u64,
    entry: &'a u32,
) {
    p.push(handle);
    p.push(value);
    p.push(&limits[0]);
    p.push(&limits[1]);
    p.push(count);
    p.push(entry);
}

/// Records the loop: the entry test, the WHILE node, the body captured into it, the test
/// at the end of the body; instantiates the graph.
fn record<S: ?Sized, T: LoopValue>(
    dev: &'static Device,
    at: &'static Caller<'static>,
    state: &mut S,
    test: &impl Fn(&S) -> LoopTest<'_, T>,
    body: &mut impl FnMut(&mut S) -> Result<()>,
    tested: Tested,
    count: u64,
) -> Result<Recorded> {
    let f: Function = loop_condition::function(dev, tested.value.1)?;
    let mut limits = DeviceBuffer::alloc(dev, 16, "the limits of a device loop")?;
    limits.upload(&tested.limits)?;
    let limit_ptrs = [limits.ptr(), limits.ptr() + 8];
    let mut graph = WhileGraph::new(dev)?;
    let handle = graph.handle();
    let value = tested.value.0;
    let (entry, after) = (1u32, 0u32);
    let mut p = ParamList::new();
    push_test_params(&mut p, &handle, &value, &limit_ptrs, &count, &entry);
    // SAFETY: the parameters match `ongpu_loop_test`; the addresses are the loop's limits
    // (kept in `Recorded`), its counter and the tested scalar (checked at every run).
    unsafe { graph.add_entry_kernel(f, ONE, &mut p)? };
    graph.add_while(dev)?;
    let stream = RawStream::create(dev)?;
    let capture = graph.capture_body(dev, stream.raw())?;
    let pass = Pass::recording(stream.raw());
    let (r, pass) = graph_pass::run(pass, || body(state));
    r?; // `capture` is dropped, which ends it; `graph` is destroyed with its node
    same_scalar(dev, at, state, test, value)?;
    let mut p = ParamList::new();
    push_test_params(&mut p, &handle, &value, &limit_ptrs, &count, &after);
    dev.bind()?;
    // SAFETY: as above; the stream is live and capturing into the body.
    unsafe {
        crate::cuda::launch_bound_on(stream.raw(), f, ONE, &mut p, || {
            "the test kernel of a device loop".to_string()
        })?
    };
    capture.end_into()?;
    Ok(Recorded {
        exec: graph.instantiate()?,
        launches: pass.launches,
        _scratch: pass.scratch,
        shapes: pass.shapes,
        limits,
        uploaded: tested.limits,
        value: tested.value,
        count,
        at,
    })
}

/// Replays the body's calls against the recording and launches the graph.
#[allow(clippy::too_many_arguments)]
fn replay<S: ?Sized, T: LoopValue>(
    dev: &'static Device,
    rec: &mut Recorded,
    at: &'static Caller<'static>,
    state: &mut S,
    test: &impl Fn(&S) -> LoopTest<'_, T>,
    body: &mut impl FnMut(&mut S) -> Result<()>,
    tested: Tested,
    count: u64,
) -> Result<()> {
    if (rec.at.file(), rec.at.line(), rec.at.column()) != (at.file(), at.line(), at.column()) {
        return Err(Error::Graph(format!(
            "{}: this loop was recorded by run_while(..) at {}: a loop replays the body it \
             recorded; use one GraphLoop per loop",
            at_string(at),
            at_string(rec.at)
        )));
    }
    if tested.value != rec.value || count != rec.count {
        return Err(Error::Graph(format!(
            "{}: the loop's test reads another scalar (or type) than it recorded: the graph's \
             test kernel reads the recorded one; record a new GraphLoop",
            at_string(at)
        )));
    }
    if tested.limits != rec.uploaded {
        // A synchronous copy on the legacy default stream: after the loop's earlier runs.
        rec.limits.upload(&tested.limits)?;
        rec.uploaded = tested.limits;
    }
    let pass = Pass::replaying(
        std::mem::take(&mut rec.launches),
        &rec._scratch,
        std::mem::take(&mut rec.shapes),
    );
    let (r, pass) = graph_pass::run(pass, || body(state));
    rec.launches = pass.launches;
    rec.shapes = pass.shapes;
    r?;
    if pass.checked != rec.launches.len() {
        return Err(Error::Graph(format!(
            "{}: the loop's body made {} launches where {} were recorded: a loop replays one \
             fixed sequence of calls; record a new GraphLoop",
            at_string(at),
            pass.checked,
            rec.launches.len()
        )));
    }
    same_scalar(dev, at, state, test, rec.value.0)?;
    dev.bind()?;
    rec.exec.launch(std::ptr::null_mut())
}
