//! [`World`]: MPI started once per process, the rank, the node-local rank and the GPU it
//! picks, whether the MPI can take device memory, and the end of every rank at once.

use crate::error::{Error, Result};
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::Threading;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether a [`World`] lives (MPI initialised and not yet finalised): what the calls over
/// rank lattices, which hold no `World`, check before they communicate.
static ALIVE: AtomicBool = AtomicBool::new(false);

/// The world communicator while a [`World`] lives; an [`Error::Mpi`] once it is dropped.
pub(crate) fn world_comm() -> Result<SimpleCommunicator> {
    if !ALIVE.load(Ordering::Acquire) {
        return Err(Error::Mpi(
            "a call over a rank lattice after the World was dropped (MPI is finalised): keep \
             the World until the end of main"
                .to_string(),
        ));
    }
    Ok(SimpleCommunicator::world())
}

/// The processes of a run (MPI's `COMM_WORLD`) and this process's place in it.
///
/// Made once, at the start of `main`, and kept until the end: dropping it finalises MPI.
/// Without `mpirun` the program runs as one rank of one.
///
/// ```no_run
/// use ongpu_runtime::mpi::World;
/// let world = World::init()?;
/// println!("rank {} of {}, GPU {:?}", world.rank(), world.size(), world.gpu());
/// # Ok::<(), ongpu_runtime::Error>(())
/// ```
pub struct World {
    // Finalises MPI when dropped, after the communicators below.
    comm: SimpleCommunicator,
    rank: usize,
    size: usize,
    local_rank: usize,
    local_size: usize,
    gpu: Option<usize>,
    _universe: mpi::environment::Universe,
}

impl World {
    /// Starts MPI (threads: only the thread that made the world calls MPI; CPU bodies run
    /// on other threads but never communicate), finds this process's rank on its node, and,
    /// on a machine with GPUs and unless `ONGPU_DEVICE` says otherwise, makes GPU
    /// `local_rank % count` the process's default device: one rank per GPU when a node runs
    /// as many ranks as it has GPUs.
    ///
    /// A second `World` while one exists is an [`Error::Mpi`]: MPI starts once per process.
    pub fn init() -> Result<World> {
        let (universe, _threading) = mpi::initialize_with_threading(Threading::Funneled)
            .ok_or_else(|| {
                Error::Mpi(
                    "MPI is already initialised in this process: make one World at the start \
                     of main and pass it by reference"
                        .to_string(),
                )
            })?;
        let comm = universe.world();
        let (rank, size) = (comm.rank() as usize, comm.size() as usize);
        let node = comm.split_shared(comm.rank());
        let (local_rank, local_size) = (node.rank() as usize, node.size() as usize);
        // Agreed, so that a rank that cannot take its GPU (one opened before the World)
        // fails every rank with its message instead of leaving them in the next collective.
        let gpu = super::agree::agree_on(&comm, choose_gpu(local_rank))?;
        ALIVE.store(true, Ordering::Release);
        Ok(World {
            comm,
            rank,
            size,
            local_rank,
            local_size,
            gpu,
            _universe: universe,
        })
    }

    /// This process's rank, `0..size()`.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The number of ranks.
    pub fn size(&self) -> usize {
        self.size
    }

    /// This process's rank among the ranks of its node (shared-memory domain).
    pub fn local_rank(&self) -> usize {
        self.local_rank
    }

    /// The number of ranks on this process's node.
    pub fn local_size(&self) -> usize {
        self.local_size
    }

    /// The ordinal of the GPU this rank uses (`local_rank % GPUs`, or `ONGPU_DEVICE`), or
    /// `None` on a machine without one.
    pub fn gpu(&self) -> Option<usize> {
        self.gpu
    }

    /// The MPI library's own description of itself (`MPI_Get_library_version`).
    pub fn library_version(&self) -> String {
        mpi::environment::library_version()
            .unwrap_or_default()
            .lines()
            .next()
            .unwrap_or_default()
            .trim_matches(|c: char| c.is_whitespace() || c == '\0')
            .to_string()
    }

    /// Whether the MPI library takes device pointers in its calls (CUDA-aware MPI): Open
    /// MPI's `MPIX_Query_cuda_support`, looked up at run time, so that any MPI links; an MPI
    /// without that query counts as not CUDA-aware (halos are then staged through host
    /// memory).
    pub fn cuda_aware(&self) -> bool {
        // SAFETY: dlsym with the default handle and a NUL-terminated name only looks the
        // symbol up; a found symbol is Open MPI's `int MPIX_Query_cuda_support(void)`,
        // callable once MPI is initialised, which `self` guarantees.
        unsafe {
            let sym = libc::dlsym(libc::RTLD_DEFAULT, c"MPIX_Query_cuda_support".as_ptr());
            if sym.is_null() {
                return false;
            }
            let query: extern "C" fn() -> libc::c_int = std::mem::transmute(sym);
            query() == 1
        }
    }

    /// Waits until every rank has called it.
    pub fn barrier(&self) {
        use mpi::collective::CommunicatorCollectives;
        self.comm.barrier();
    }

    /// Ends every rank of the run now: prints `message` with this rank's number to stderr
    /// and calls `MPI_Abort`, so that ranks waiting for this one do not hang.
    pub fn abort(&self, message: &str) -> ! {
        let _ = writeln!(
            std::io::stderr(),
            "ongpu: rank {} of {} aborts the run: {message}",
            self.rank,
            self.size
        );
        let _ = std::io::stderr().flush();
        self.comm.abort(1)
    }

    /// Makes a panic on any thread of this process end every rank (with the panic's
    /// message) instead of leaving the other ranks waiting for this one forever. The
    /// previous hook still prints the panic first.
    pub fn abort_on_panic(&self) {
        let (rank, size) = (self.rank, self.size);
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            previous(info);
            let _ = writeln!(
                std::io::stderr(),
                "ongpu: rank {rank} of {size} panicked; aborting every rank"
            );
            // SAFETY: MPI is initialised while the World lives, and MPI_Abort on the world
            // communicator is callable from any thread under MPI_THREAD_FUNNELED in the
            // implementations we support (it never returns).
            unsafe {
                mpi::ffi::MPI_Abort(mpi::ffi::RSMPI_COMM_WORLD, 1);
            }
        }));
    }

    /// The world communicator, for this crate's collectives.
    pub(crate) fn comm(&self) -> &SimpleCommunicator {
        &self.comm
    }
}

impl Drop for World {
    /// Marks MPI as ending (the fields then finalise it).
    fn drop(&mut self) {
        ALIVE.store(false, Ordering::Release);
    }
}

impl std::fmt::Debug for World {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("World")
            .field("rank", &self.rank)
            .field("size", &self.size)
            .field("local_rank", &self.local_rank)
            .field("local_size", &self.local_size)
            .field("gpu", &self.gpu)
            .finish()
    }
}

/// The GPU of node-local rank `local_rank`: `ONGPU_DEVICE` if set, otherwise
/// `local_rank % count`, made the default device; `None` without the CUDA backend or a GPU.
fn choose_gpu(local_rank: usize) -> Result<Option<usize>> {
    #[cfg(feature = "cuda")]
    {
        let Ok(count) = crate::cuda::device_count() else {
            return Ok(None);
        };
        if let Ok(s) = std::env::var("ONGPU_DEVICE") {
            return Ok(s.trim().parse().ok());
        }
        let ordinal = local_rank % count;
        crate::cuda::choose_default_device(ordinal)?;
        Ok(Some(ordinal))
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = local_rank;
        Ok(None)
    }
}
