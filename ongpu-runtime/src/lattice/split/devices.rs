//! [`Devices`]: the devices a lattice is split over, one part of the lattice per entry.

use crate::backend::{self, Backend};
use crate::error::{Error, Result};

/// The devices a [`SplitLattice`](crate::SplitLattice) puts its parts on: CUDA device
/// ordinals on the CUDA backend; on the CPU backend, parts emulated in host memory (each
/// with its own fields and explicit halo copies, as a GPU would have).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Devices {
    /// The device of each part (CUDA ordinals; 0 for every emulated part).
    ordinals: Vec<usize>,
    /// Whether the parts are emulated on one device (or the host) instead of one per GPU.
    emulated: bool,
}

impl Devices {
    /// Every CUDA device of the machine, one part each; on the CPU backend, one part.
    pub fn all() -> Result<Devices> {
        match backend::current()? {
            Backend::Cpu => Devices::emulated(1),
            Backend::Cuda => Devices::first(gpu_count()?),
        }
    }

    /// The first `n` CUDA devices, one part each (an error if the machine has fewer); on
    /// the CPU backend, `n` emulated parts.
    pub fn first(n: usize) -> Result<Devices> {
        check_count(n)?;
        match backend::current()? {
            Backend::Cpu => Devices::emulated(n),
            Backend::Cuda => {
                let have = gpu_count()?;
                if n > have {
                    return Err(Error::InvalidArgument(format!(
                        "{n} devices asked for, but the machine has {have} CUDA device(s); \
                         Devices::emulated({n}) puts {n} parts on one device"
                    )));
                }
                Ok(Devices {
                    ordinals: (0..n).collect(),
                    emulated: false,
                })
            }
        }
    }

    /// `n` parts on one device (the current CUDA device, or the host on the CPU backend),
    /// each with its own fields and halo copies: the decomposition's code paths without
    /// the GPUs, for tests and for comparing against a real split.
    pub fn emulated(n: usize) -> Result<Devices> {
        check_count(n)?;
        Ok(Devices {
            ordinals: vec![0; n],
            emulated: true,
        })
    }

    /// Number of parts.
    pub fn len(&self) -> usize {
        self.ordinals.len()
    }

    /// Always false: a list of devices has at least one.
    pub fn is_empty(&self) -> bool {
        self.ordinals.is_empty()
    }

    /// The CUDA ordinal of part `p`, or `None` where the parts share the current device.
    pub fn ordinal(&self, p: usize) -> Option<usize> {
        (!self.emulated).then(|| self.ordinals[p])
    }

    /// True where parts are emulated on one device.
    pub fn is_emulated(&self) -> bool {
        self.emulated
    }
}

fn check_count(n: usize) -> Result<()> {
    if n == 0 {
        return Err(Error::InvalidArgument(
            "a lattice is split over at least one device".to_string(),
        ));
    }
    Ok(())
}

/// Number of CUDA devices.
fn gpu_count() -> Result<usize> {
    #[cfg(feature = "cuda")]
    {
        crate::cuda::device_count()
    }
    #[cfg(not(feature = "cuda"))]
    {
        unreachable!("backend::current() refuses CUDA when it is not compiled in")
    }
}
