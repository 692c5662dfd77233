//! [`Graph`]: a sequence of `on_gpu!` calls recorded once as a CUDA graph and replayed with
//! one launch, for solvers whose iterations are many short kernels.
//!
//! The sequence is a closure. The first [`run`](Graph::run) captures its kernels into a
//! graph (nothing runs while they are captured), then launches the graph. Each later `run`
//! calls the closure again in a replay pass, in which every call prepares and marks its
//! fields exactly as a call on the default stream does (copies a stale field, records the
//! write) and checks that it would launch what was recorded, but launches nothing; then
//! the graph is launched once. `docs/graphs.md` gives the reasons for this design.

use crate::backend::{self, Backend};
use crate::error::Result;
#[cfg(feature = "cuda")]
use crate::error::{Error, Location};

/// A recorded sequence of calls, replayed as one CUDA graph launch (on the CPU backend the
/// closure simply runs each time).
///
/// ```
/// use ongpu_runtime::{DeviceScalar, Field, Graph};
/// let x: Field<f64> = Field::filled(100, 2.0);
/// let mut graph = Graph::new();
/// for _ in 0..3 {
///     graph.run(|| {
///         // on_gpu! calls and `on_gpu!(sum -> s: ...)` reductions go here (see `ongpu`).
///         Ok(())
///     })?;
/// }
/// assert_eq!(graph.runs(), 3);
/// # Ok::<(), ongpu_runtime::Error>(())
/// ```
#[derive(Debug, Default)]
pub struct Graph {
    #[cfg(feature = "cuda")]
    recorded: Option<Recorded>,
    runs: u64,
}

/// What the first run on the GPU recorded.
#[cfg(feature = "cuda")]
#[derive(Debug)]
struct Recorded {
    exec: crate::cuda::graph::GraphExec,
    /// A fingerprint of each launch, with its call site.
    launches: Vec<(u64, Location)>,
    /// The reductions' partials and counters, which the graph's kernels use.
    _scratch: Vec<crate::cuda::DeviceBuffer>,
    /// The tuned calls' shapes in order: a replay launches these, whatever was tuned since.
    shapes: Vec<crate::graph_pass::TunedShape>,
    /// Where `run` was called from: the closure replayed must be the one recorded.
    at: &'static std::panic::Location<'static>,
}

impl Graph {
    /// A graph with nothing recorded yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many times [`run`](Graph::run) has completed.
    pub fn runs(&self) -> u64 {
        self.runs
    }

    /// The number of kernels recorded (0 before the first run on the GPU, and on the CPU
    /// backend).
    pub fn kernels(&self) -> usize {
        #[cfg(feature = "cuda")]
        if let Some(r) = &self.recorded {
            return r.launches.len();
        }
        0
    }

    /// Runs the sequence of calls `f` makes: on the GPU, the first time by recording and
    /// launching a CUDA graph, later times by replaying it (`f` is called again only to
    /// prepare and check the fields of each call; its kernels are not launched one by
    /// one); on the CPU backend by calling `f`.
    ///
    /// The graph runs on the default stream, ordered with every call outside a
    /// [`Stream::scope`](crate::Stream::scope), and returns once it is queued. Inside `f`,
    /// a host access to a field or a reduction that returns its value is an
    /// [`Error::Graph`](crate::Error::Graph): results stay on the device
    /// (`on_gpu!(sum -> s: ...)` into a [`DeviceScalar`](crate::DeviceScalar)) and are read
    /// after `run` returns. A replay whose calls differ from the recording (a field freed,
    /// resized or replaced, a value captured by value changed, another closure) is an
    /// `Error::Graph` too, and launches nothing.
    #[track_caller]
    pub fn run(&mut self, f: impl FnOnce() -> Result<()>) -> Result<()> {
        #[cfg(feature = "cuda")]
        let at = std::panic::Location::caller();
        match backend::current()? {
            Backend::Cpu => f()?,
            #[cfg(feature = "cuda")]
            Backend::Cuda => self.run_on_device(at, f)?,
            #[cfg(not(feature = "cuda"))]
            Backend::Cuda => {
                unreachable!("backend::current() refuses CUDA when it is not compiled in")
            }
        }
        self.runs += 1;
        Ok(())
    }

    #[cfg(feature = "cuda")]
    fn run_on_device(
        &mut self,
        at: &'static std::panic::Location<'static>,
        f: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        use crate::graph_pass::{self, Pass};
        let dev = crate::cuda::device()?;
        if crate::graph_pass::mode().is_some() {
            return Err(Error::Graph(format!(
                "{}:{}: Graph::run inside another graph's closure: graphs do not nest",
                at.file(),
                at.line()
            )));
        }
        let Some(rec) = self.recorded.as_mut() else {
            let stream = crate::cuda::stream::RawStream::create(dev)?;
            let capture = crate::cuda::graph::Capture::begin(dev, stream.raw())?;
            let pass = Pass::recording(stream.raw());
            let (r, pass) = graph_pass::run(pass, f);
            r?; // `capture` is dropped, which ends it and discards the graph
            let exec = capture.end()?;
            let mut rec = Recorded {
                exec,
                launches: pass.launches,
                _scratch: pass.scratch,
                shapes: pass.shapes,
                at,
            };
            dev.bind()?;
            rec.exec.launch(std::ptr::null_mut())?;
            self.recorded = Some(rec);
            return Ok(());
        };
        if (rec.at.file(), rec.at.line(), rec.at.column()) != (at.file(), at.line(), at.column()) {
            return Err(Error::Graph(format!(
                "{}:{}: this graph was recorded by graph.run(..) at {}:{}: a graph replays \
                 the closure it recorded; use one Graph per sequence of calls",
                at.file(),
                at.line(),
                rec.at.file(),
                rec.at.line()
            )));
        }
        let pass = Pass::replaying(
            std::mem::take(&mut rec.launches),
            &rec._scratch,
            std::mem::take(&mut rec.shapes),
        );
        let (r, pass) = graph_pass::run(pass, f);
        rec.launches = pass.launches;
        rec.shapes = pass.shapes;
        r?;
        if pass.checked != rec.launches.len() {
            return Err(Error::Graph(format!(
                "{}:{}: the graph's closure made {} launches where {} were recorded: a graph \
                 replays one fixed sequence of calls; record a new Graph",
                at.file(),
                at.line(),
                pass.checked,
                rec.launches.len()
            )));
        }
        dev.bind()?;
        rec.exec.launch(std::ptr::null_mut())
    }
}

#[cfg(feature = "cuda")]
impl Drop for Recorded {
    /// The scratch buffers are freed after the graph's queued launches have finished.
    fn drop(&mut self) {
        if crate::cuda::device().is_ok() {
            // SAFETY: the legacy default stream of the bound context.
            let _ = unsafe { crate::cuda::stream::wait_for(std::ptr::null_mut(), String::new) };
        }
    }
}
