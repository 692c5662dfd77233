//! CUDA graphs made by stream capture: [`Capture`] begins capturing a stream and ends in a
//! [`GraphExec`], an instantiated graph that launches as one unit of work.

use super::device::Device;
use super::error::driver_error;
use crate::error::Result;
use cudarc::driver::sys::{self, CUgraph, CUgraphExec, CUresult, CUstream};

/// Turns a driver status into a `Result`, naming what was being done.
fn check(status: CUresult, during: &str) -> Result<()> {
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
        })
    }

    /// Ends the capture and instantiates the graph.
    pub(crate) fn end(mut self) -> Result<GraphExec> {
        self.ended = true;
        let mut graph: CUgraph = std::ptr::null_mut();
        // SAFETY: the stream is capturing (begun in `begin`, not ended since).
        let status = unsafe { sys::cuStreamEndCapture(self.stream, &mut graph) };
        check(status, "ending the capture of a graph")?;
        let owned = OwnedGraph(graph);
        let mut exec: CUgraphExec = std::ptr::null_mut();
        // SAFETY: a valid graph; flags 0 (launched as a whole, on any stream).
        let status = unsafe { sys::cuGraphInstantiateWithFlags(&mut exec, owned.0, 0) };
        check(status, "instantiating a graph")?;
        Ok(GraphExec {
            exec,
            _graph: owned,
        })
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
                if !graph.is_null() {
                    let _ = sys::cuGraphDestroy(graph);
                }
            }
        }
    }
}

/// A graph, destroyed on drop.
#[derive(Debug)]
struct OwnedGraph(CUgraph);

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
    /// Launches the whole graph on `stream` (null: the legacy default stream).
    pub(crate) fn launch(&mut self, stream: CUstream) -> Result<()> {
        // SAFETY: a valid executable graph; the caller bound the context.
        let status = unsafe { sys::cuGraphLaunch(self.exec, stream) };
        check(status, "launching a graph")
    }
}

impl Drop for GraphExec {
    fn drop(&mut self) {
        // SAFETY: instantiated in `Capture::end`, destroyed once. The driver lets launched
        // work finish.
        let _ = unsafe { sys::cuGraphExecDestroy(self.exec) };
    }
}
