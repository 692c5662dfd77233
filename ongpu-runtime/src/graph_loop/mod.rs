//! [`GraphLoop`]: a solver's loop, "iterate while the residual is above the tolerance",
//! run on the device with no host involvement per iteration.
//!
//! On the GPU the body's calls are recorded once into the body of a CUDA WHILE conditional
//! node (stream capture, as a [`Graph`](crate::Graph) records); a one-thread test kernel at
//! the end of each iteration compares a [`DeviceScalar`] with a bound and sets the node's
//! condition with `cudaGraphSetConditional`. The whole loop is one graph launch; the host
//! waits only when it reads the result. On the CPU backend the same loop runs eagerly and
//! stops at the same iteration. `docs/graphs.md` gives the reasons for this design.

mod condition;
#[cfg(feature = "cuda")]
mod device;

pub use condition::{LoopTest, LoopValue};

use crate::backend::{self, Backend};
use crate::error::Result;
use crate::scalar::DeviceScalar;

/// A loop `while test { body }` of at most a given number of iterations, recorded once and
/// run on the device as one graph launch (on the CPU backend, eagerly).
///
/// The state the loop works on is passed as `&mut S`, and both the test and the body take
/// it: the test reads a scalar that the body writes, which two closures capturing the same
/// variables could not do.
///
/// ```
/// use ongpu_runtime::{with_backend, Backend, DeviceScalar, GraphLoop, LoopTest};
/// with_backend(Backend::Cpu, || {
///     let mut r: DeviceScalar = DeviceScalar::new(1.0);
///     let mut solve = GraphLoop::new();
///     solve.run_while(&mut r, |r| LoopTest::above(r, 0.1), 100, |r| {
///         // on_gpu! calls that update r go here (see `ongpu`); on the CPU backend the
///         // host may halve it itself.
///         let v = r.get()?;
///         r.set(v / 2.0)
///     })?;
///     assert_eq!(solve.iterations()?, 4); // 1 → 0.5 → 0.25 → 0.125 → 0.0625
///     Ok::<(), ongpu_runtime::Error>(())
/// })?;
/// # Ok::<(), ongpu_runtime::Error>(())
/// ```
#[derive(Debug, Default)]
pub struct GraphLoop {
    /// Dropped first: its drop waits for the graph, which writes `count`.
    #[cfg(feature = "cuda")]
    recorded: Option<device::Recorded>,
    /// Iterations of the last run, written by the test kernel on the device.
    count: DeviceScalar<u32>,
    runs: u64,
}

impl GraphLoop {
    /// A loop with nothing recorded yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many times [`run_while`](GraphLoop::run_while) has completed.
    pub fn runs(&self) -> u64 {
        self.runs
    }

    /// The number of kernels of one iteration's body, as recorded (0 before the first run
    /// on the GPU, and on the CPU backend); the loop adds its test kernel.
    pub fn kernels(&self) -> usize {
        #[cfg(feature = "cuda")]
        if let Some(r) = &self.recorded {
            return r.kernels();
        }
        0
    }

    /// The iterations the last run made (waiting for it on the GPU). An error inside a
    /// graph's closure, like any host read.
    pub fn iterations(&self) -> Result<u32> {
        self.count.get()
    }

    /// The iteration counter, in device memory on the GPU: kernels may read it, and a host
    /// read waits only when made.
    pub fn iterations_scalar(&self) -> &DeviceScalar<u32> {
        &self.count
    }

    /// Runs `while test(state) holds and fewer than max_iterations have run { body(state) }`
    /// and returns once it is queued; [`iterations`](GraphLoop::iterations) then says how
    /// many ran.
    ///
    /// On the GPU the first run records `body`'s calls into the body of a WHILE node and
    /// later runs replay it as [`Graph::run`](crate::Graph::run) replays (the body is called
    /// once per run, to prepare and check its fields; its kernels are not launched one by
    /// one); the test is made on the device before the first iteration and after each. On
    /// the CPU backend `body` is called once per iteration and the test read on the host.
    /// `max_iterations == 0` runs nothing (0 iterations).
    ///
    /// The bound and `max_iterations` may change from run to run; the tested scalar and the
    /// body's calls may not (as for a [`Graph`](crate::Graph)). Inside `body`, a host access
    /// to a field or a reduction that returns its value is an
    /// [`Error::Graph`](crate::Error::Graph) on the GPU, as is a loop or graph run inside
    /// another's closure.
    #[track_caller]
    pub fn run_while<S: ?Sized, T: LoopValue>(
        &mut self,
        state: &mut S,
        test: impl Fn(&S) -> LoopTest<'_, T>,
        max_iterations: u32,
        mut body: impl FnMut(&mut S) -> Result<()>,
    ) -> Result<()> {
        #[cfg(feature = "cuda")]
        let at = std::panic::Location::caller();
        if max_iterations == 0 {
            self.count.set(0)?;
            self.runs += 1;
            return Ok(());
        }
        match backend::current()? {
            Backend::Cpu => {
                let mut n = 0;
                while n < max_iterations && test(state).holds()? {
                    body(state)?;
                    n += 1;
                }
                self.count.set(n)?;
            }
            #[cfg(feature = "cuda")]
            Backend::Cuda => device::run(self, at, state, &test, max_iterations, &mut body)?,
            #[cfg(not(feature = "cuda"))]
            Backend::Cuda => {
                unreachable!("backend::current() refuses CUDA when it is not compiled in")
            }
        }
        self.runs += 1;
        Ok(())
    }
}
