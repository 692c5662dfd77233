//! A graph whose work repeats on the device: an entry kernel, then a WHILE conditional node
//! whose body runs for as long as a kernel in the graph sets the node's handle to non-zero
//! (`cudaGraphSetConditional`). The body is filled by stream capture ([`Capture::begin_into`]),
//! as a [`Graph`](crate::Graph)'s launches are.

use super::device::Device;
use super::graph::{check, Capture, GraphExec, OwnedGraph};
use super::launch::{ParamList, Shape};
use super::module::Function;
use crate::error::Result;
use cudarc::driver::sys::{self, CUgraph, CUgraphNode, CUstream};

/// A graph being built: `entry → while (handle) { body }`.
#[derive(Debug)]
pub(crate) struct WhileGraph {
    graph: OwnedGraph,
    handle: sys::CUgraphConditionalHandle,
    entry: Option<CUgraphNode>,
    body: Option<CUgraph>,
}

impl WhileGraph {
    /// An empty graph with a conditional handle that is 0 at each launch until a kernel
    /// sets it.
    pub(crate) fn new(device: &'static Device) -> Result<Self> {
        device.bind()?;
        let graph = OwnedGraph::create()?;
        let mut handle: sys::CUgraphConditionalHandle = 0;
        // SAFETY: a live graph of the bound context; default value 0, no flags (the entry
        // kernel sets the value at each launch).
        let status = unsafe {
            sys::cuGraphConditionalHandleCreate(&mut handle, graph.0, device.raw_context(), 0, 0)
        };
        check(
            status,
            "creating the conditional handle of a device loop (CUDA 12.4 or newer is needed)",
        )?;
        Ok(WhileGraph {
            graph,
            handle,
            entry: None,
            body: None,
        })
    }

    /// The handle that kernels of this graph set with `cudaGraphSetConditional`.
    pub(crate) fn handle(&self) -> sys::CUgraphConditionalHandle {
        self.handle
    }

    /// Adds the kernel that runs first at each launch (it sets the handle for the first
    /// test of the loop).
    ///
    /// # Safety
    /// `params` match `f`'s signature; every device address among them stays valid while
    /// the graph may run.
    pub(crate) unsafe fn add_entry_kernel(
        &mut self,
        f: Function,
        shape: Shape,
        params: &mut ParamList<'_>,
    ) -> Result<()> {
        let mut node_params: sys::CUgraphNodeParams = std::mem::zeroed();
        node_params.type_ = sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_KERNEL;
        let kernel = &mut node_params.__bindgen_anon_1.kernel;
        kernel.func = f.raw;
        (kernel.gridDimX, kernel.gridDimY, kernel.gridDimZ) = shape.grid;
        (kernel.blockDimX, kernel.blockDimY, kernel.blockDimZ) = shape.block;
        kernel.sharedMemBytes = shape.shared_bytes;
        kernel.kernelParams = params.raw();
        let mut node: CUgraphNode = std::ptr::null_mut();
        // SAFETY: a live graph; the parameter values are copied during the call.
        let status = sys::cuGraphAddNode_v2(
            &mut node,
            self.graph.0,
            std::ptr::null(),
            std::ptr::null(),
            0,
            &mut node_params,
        );
        check(status, "adding the entry kernel of a device loop")?;
        self.entry = Some(node);
        Ok(())
    }

    /// Adds the WHILE node after the entry kernel and returns its body graph (owned by the
    /// node), empty, to be captured into.
    pub(crate) fn add_while(&mut self, device: &'static Device) -> Result<CUgraph> {
        let entry = self.entry.expect("the entry kernel is added first");
        // SAFETY: zeroed is the documented initial state of the parameters.
        let mut node_params: sys::CUgraphNodeParams = unsafe { std::mem::zeroed() };
        node_params.type_ = sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_CONDITIONAL;
        node_params.__bindgen_anon_1.conditional = sys::CUDA_CONDITIONAL_NODE_PARAMS {
            handle: self.handle,
            type_: sys::CUgraphConditionalNodeType::CU_GRAPH_COND_TYPE_WHILE,
            size: 1,
            phGraph_out: std::ptr::null_mut(),
            ctx: device.raw_context(),
        };
        let mut node: CUgraphNode = std::ptr::null_mut();
        // SAFETY: a live graph and one live dependency; the driver fills `phGraph_out`
        // with an array of `size` body graphs that the node owns.
        let body = unsafe {
            let status = sys::cuGraphAddNode_v2(
                &mut node,
                self.graph.0,
                &entry,
                std::ptr::null(),
                1,
                &mut node_params,
            );
            check(status, "adding the WHILE node of a device loop")?;
            let out = node_params.__bindgen_anon_1.conditional.phGraph_out;
            if out.is_null() || (*out).is_null() {
                return Err(crate::error::Error::Graph(
                    "the driver returned no body graph for a WHILE node".to_string(),
                ));
            }
            *out
        };
        self.body = Some(body);
        Ok(body)
    }

    /// Begins capturing `stream` into the WHILE node's body.
    pub(crate) fn capture_body(
        &self,
        device: &'static Device,
        stream: CUstream,
    ) -> Result<Capture> {
        let body = self.body.expect("the WHILE node is added first");
        Capture::begin_into(device, stream, body)
    }

    /// Instantiates the whole graph.
    pub(crate) fn instantiate(self) -> Result<GraphExec> {
        GraphExec::instantiate(self.graph)
    }
}
