//! CUDA graphs made by stream capture: [`Capture`] begins capturing a stream and ends in a
//! [`GraphExec`], an instantiated graph that launches as one unit of work, or captures into
//! a graph that already exists (the body of a conditional node, `conditional.rs`).

use super::device::Device;
use super::error::driver_error;
use crate::error::Result;
use cudarc::driver::sys::{self, CUgraph, CUgraphExec, CUresult, CUstream};

/// Turns a driver status into a `Result`, naming what was being done.
pub(super) fn check(status: CUresult, during: &str) -> Result<()> {
    if status == CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(driver_error(
            during.to_string(),
            cudarc::driver::DriverError(status),
        ))
    }
}

/// A stream being captured. Capture is in relaxed mode: while it lasts, ongpu may still
/// allocate device memory and copy on the legacy default stream (the copies a call makes
/// before its kernel run at once; only kernels go into the graph).
#[derive(Debug)]
pub(crate) struct Capture {
    stream: CUstream,
    ended: bool,
    /// Captured into a graph that another owns (`begin_into`): never destroyed here.
    into: bool,
}

impl Capture {
    /// Begins capturing `stream` (a live non-blocking stream of `device`).
    pub(crate) fn begin(device: &'static Device, stream: CUstream) -> Result<Self> {
        device.bind()?;
        // SAFETY: a live stream of the bound context.
        let status = unsafe {
            sys::cuStreamBeginCapture_v2(
                stream,
                sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED,
            )
        };
        check(status, "beginning the capture of a graph")?;
        Ok(Capture {
            stream,
            ended: false,
            into: false,
        })
    }

    /// Begins capturing `stream` into `graph`, which stays its owner's (a conditional
    /// node's body): the captured launches become nodes of `graph`.
    pub(crate) fn begin_into(
        device: &'static Device,
        stream: CUstream,
        graph: CUgraph,
    ) -> Result<Self> {
        device.bind()?;
        // SAFETY: a live stream and a live graph of the bound context; no dependencies.
        let status = unsafe {
            sys::cuStreamBeginCaptureToGraph(
                stream,
                graph,
                std::ptr::null(),
                std::ptr::null(),
                0,
                sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED,
            )
        };
        check(status, "beginning the capture of a loop's body")?;
        Ok(Capture {
            stream,
            ended: false,
            into: true,
        })
    }

    /// Ends a capture begun by [`begin_into`](Capture::begin_into): the launches are now
    /// nodes of the graph it was given.
    pub(crate) fn end_into(mut self) -> Result<()> {
        self.ended = true;
        let mut graph: CUgraph = std::ptr::null_mut();
        // SAFETY: the stream is capturing into a graph its owner keeps (returned here again).
        let status = unsafe { sys::cuStreamEndCapture(self.stream, &mut graph) };
        check(status, "ending the capture of a loop's body")
    }

    /// Ends the capture and instantiates the graph.
    pub(crate) fn end(mut self) -> Result<GraphExec> {
        self.ended = true;
        let mut graph: CUgraph = std::ptr::null_mut();
        // SAFETY: the stream is capturing (begun in `begin`, not ended since).
        let status = unsafe { sys::cuStreamEndCapture(self.stream, &mut graph) };
        check(status, "ending the capture of a graph")?;
        GraphExec::instantiate(OwnedGraph(graph))
    }
}

impl Drop for Capture {
    /// A capture abandoned (an error or a panic in the closure) is ended and its graph
    /// destroyed, so the stream is usable again.
    fn drop(&mut self) {
        if !self.ended {
            let mut graph: CUgraph = std::ptr::null_mut();
            // SAFETY: the stream is capturing; the graph returned, if any, is ours.
            unsafe {
                let _ = sys::cuStreamEndCapture(self.stream, &mut graph);
                if !graph.is_null() && !self.into {
                    let _ = sys::cuGraphDestroy(graph);
                }
            }
        }
    }
}

/// A graph, destroyed on drop.
#[derive(Debug)]
pub(super) struct OwnedGraph(pub(super) CUgraph);

impl OwnedGraph {
    /// A new empty graph of the bound context.
    pub(super) fn create() -> Result<Self> {
        let mut graph: CUgraph = std::ptr::null_mut();
        // SAFETY: an out-parameter; flags must be 0.
        let status = unsafe { sys::cuGraphCreate(&mut graph, 0) };
        check(status, "creating a graph")?;
        Ok(OwnedGraph(graph))
    }
}

impl Drop for OwnedGraph {
    fn drop(&mut self) {
        // SAFETY: created by the capture, destroyed once.
        let _ = unsafe { sys::cuGraphDestroy(self.0) };
    }
}

/// An instantiated graph.
#[derive(Debug)]
pub(crate) struct GraphExec {
    exec: CUgraphExec,
    _graph: OwnedGraph,
}

// SAFETY: the handles may be used from any thread with the context bound; ongpu binds
// before every call, and `launch` takes `&mut self`.
unsafe impl Send for GraphExec {}

impl GraphExec {
    /// Instantiates `graph`, which the executable graph keeps.
    pub(super) fn instantiate(graph: OwnedGraph) -> Result<GraphExec> {
        let mut exec: CUgraphExec = std::ptr::null_mut();
        // SAFETY: a valid graph; flags 0 (launched as a whole, on any stream).
        let status = unsafe { sys::cuGraphInstantiateWithFlags(&mut exec, graph.0, 0) };
        check(status, "instantiating a graph")?;
        Ok(GraphExec {
            exec,
            _graph: graph,
        })
    }

    /// Launches the whole graph on `stream` (null: the legacy default stream).
    pub(crate) fn launch(&mut self, stream: CUstream) -> Result<()> {
        // SAFETY: a valid executable graph; the caller bound the context.
        let status = unsafe { sys::cuGraphLaunch(self.exec, stream) };
        check(status, "launching a graph")
    }
}

impl Drop for GraphExec {
    fn drop(&mut self) {
        // SAFETY: instantiated in `GraphExec::instantiate`, destroyed once. The driver lets launched
        // work finish.
        let _ = unsafe { sys::cuGraphExecDestroy(self.exec) };
    }
}
