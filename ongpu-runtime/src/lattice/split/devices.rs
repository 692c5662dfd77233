//! [`Devices`]: the devices a lattice is split over, one part of the lattice per entry.

use crate::backend::{self, Backend};
use crate::error::{Error, Result};

/// The devices a [`SplitLattice`](crate::SplitLattice) puts its parts on: CUDA device
/// ordinals on the CUDA backend; on the CPU backend, parts emulated in host memory (each
/// with its own fields and explicit halo copies, as a GPU would have). With
/// [`with_host`](Devices::with_host), one more part runs on the host's CPU threads beside
/// the GPUs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Devices {
    /// The device of each part (CUDA ordinals; 0 for every emulated part and the host part).
    ordinals: Vec<usize>,
    /// Whether the parts are emulated on one device (or the host) instead of one per GPU.
    emulated: bool,
    /// Whether the last part runs on the host's CPU threads.
    host: bool,
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
                    host: false,
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
            host: false,
        })
    }

    /// These devices and one more part, last, on the host's CPU threads: its fields stay in
    /// host memory and calls run its sites on the CPU backend (rayon) while the GPUs run
    /// theirs; its halos go to and from the neighbouring GPUs through host memory. The CPU
    /// is much slower than a GPU, so size its slab by measured throughput
    /// ([`Lattice::split_weighted`](crate::Lattice::split_weighted)). On the CPU backend the
    /// host part is one more emulated part. An error if the devices have a host part already.
    pub fn with_host(mut self) -> Result<Devices> {
        if self.host {
            return Err(Error::InvalidArgument(
                "these devices have a host part already".to_string(),
            ));
        }
        self.ordinals.push(0);
        self.host = true;
        Ok(self)
    }

    /// Number of parts.
    pub fn len(&self) -> usize {
        self.ordinals.len()
    }

    /// Always false: a list of devices has at least one.
    pub fn is_empty(&self) -> bool {
        self.ordinals.is_empty()
    }

    /// The CUDA ordinal of part `p`, or `None` where the parts share the current device
    /// and for the host part.
    pub fn ordinal(&self, p: usize) -> Option<usize> {
        (!self.emulated && !self.on_host(p)).then(|| self.ordinals[p])
    }

    /// True for the part that runs on the host's CPU threads ([`with_host`](Devices::with_host)).
    pub fn on_host(&self, p: usize) -> bool {
        self.host && p + 1 == self.ordinals.len()
    }

    /// True where one part runs on the host's CPU threads.
    pub fn has_host(&self) -> bool {
        self.host
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
