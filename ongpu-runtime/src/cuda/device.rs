//! The process-wide CUDA device: found once, on first use, and bound to each thread that
//! launches work (the context is the device's primary context, shared with other libraries).

use super::error::DriverResultExt;
use crate::error::{Error, Result};
use cudarc::driver::sys::CUdevice_attribute as Attr;
use cudarc::driver::CudaContext;
use std::sync::{Arc, OnceLock};

/// Facts about the device that kernels are compiled and launched for.
#[derive(Debug, Clone)]
pub struct DeviceInfo {
    /// Device ordinal (0 for the first GPU).
    pub ordinal: usize,
    /// The device's name, as the driver reports it.
    pub name: String,
    /// Compute capability `(major, minor)`.
    pub compute_capability: (u32, u32),
    /// Number of streaming multiprocessors.
    pub sm_count: u32,
    /// Most threads in one block.
    pub max_threads_per_block: u32,
    /// Most resident threads on one multiprocessor.
    pub max_threads_per_sm: u32,
    /// Most blocks along x in a grid.
    pub max_grid_x: u32,
    /// Device memory in bytes.
    pub total_memory: usize,
    /// Whether kernels can read and write mapped page-locked host memory
    /// ([`Storage::Mapped`](crate::Storage::Mapped)).
    pub can_map_host_memory: bool,
}

impl DeviceInfo {
    /// The NVRTC architecture option for this device's own machine code (`sm_90`).
    pub fn arch(&self) -> String {
        format!(
            "sm_{}{}",
            self.compute_capability.0, self.compute_capability.1
        )
    }
}

/// The CUDA device ongpu runs on.
#[derive(Debug)]
pub struct Device {
    ctx: Arc<CudaContext>,
    info: DeviceInfo,
}

static DEVICE: OnceLock<std::result::Result<Device, String>> = OnceLock::new();

impl Device {
    /// The device's facts.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// Makes the device's context current on the calling thread.
    #[inline]
    pub(crate) fn bind(&self) -> Result<()> {
        self.ctx
            .bind_to_thread()
            .during("binding the CUDA context to this thread")
    }

    /// The raw context, for driver calls that name it (conditional nodes, peer copies).
    pub(crate) fn raw_context(&self) -> cudarc::driver::sys::CUcontext {
        self.ctx.cu_ctx()
    }

    /// Waits for all work queued on the device and reports any error it raised.
    pub fn synchronize(&self) -> Result<()> {
        self.bind()?;
        self.ctx.synchronize().during("synchronizing the device")
    }

    /// A name for the device and its context in messages (`device 0 (NVIDIA H200), context
    /// 0x...`).
    pub(crate) fn describe(&self) -> String {
        format!(
            "CUDA device {} ({}), context {:p}",
            self.info.ordinal,
            self.info.name,
            self.ctx.cu_ctx()
        )
    }

    /// Free and total device memory, in bytes.
    pub fn memory(&self) -> Result<(usize, usize)> {
        self.bind()?;
        self.ctx.mem_get_info().during("querying device memory")
    }
}

/// Opens device 0 (or `ONGPU_DEVICE`), reading its facts. Never panics: a missing driver
/// library is an error string.
fn open() -> std::result::Result<Device, String> {
    let ordinal = match std::env::var("ONGPU_DEVICE") {
        Ok(s) => s
            .trim()
            .parse::<usize>()
            .map_err(|_| format!("ONGPU_DEVICE={s:?} is not a device number"))?,
        Err(_) => CHOSEN.get().copied().unwrap_or(0),
    };
    open_ordinal(ordinal).map_err(|e| match std::env::var("ONGPU_DEVICE") {
        Ok(_) => format!("ONGPU_DEVICE={ordinal}: {e}"),
        Err(_) => e,
    })
}

/// Number of devices the driver reports.
fn count() -> std::result::Result<usize, String> {
    // SAFETY: only probes whether the library can be loaded.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err("the CUDA driver library (libcuda.so) was not found".to_string());
    }
    let count =
        CudaContext::device_count().map_err(|e| format!("cuDeviceGetCount failed: {e:?}"))?;
    if count <= 0 {
        return Err("the CUDA driver reports no device".to_string());
    }
    Ok(count as usize)
}

/// Opens the device of ordinal `ordinal`, reading its facts.
fn open_ordinal(ordinal: usize) -> std::result::Result<Device, String> {
    let count = count()?;
    if ordinal >= count {
        return Err(format!(
            "device {ordinal} asked for, but only {count} device(s) exist"
        ));
    }
    if ordinal >= MAX_DEVICES {
        return Err(format!(
            "device {ordinal}: at most {MAX_DEVICES} devices are supported"
        ));
    }
    let ctx = CudaContext::new(ordinal).map_err(|e| format!("creating a context failed: {e:?}"))?;
    let attr = |a: Attr| {
        ctx.attribute(a)
            .map(|v| v.max(0) as u32)
            .map_err(|e| format!("{e:?}"))
    };
    let (major, minor) = ctx.compute_capability().map_err(|e| format!("{e:?}"))?;
    let info = DeviceInfo {
        ordinal,
        name: ctx.name().unwrap_or_else(|_| "unknown".to_string()),
        compute_capability: (major as u32, minor as u32),
        sm_count: attr(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
        max_threads_per_block: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
        max_threads_per_sm: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)?,
        max_grid_x: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
        total_memory: ctx.total_mem().unwrap_or(0),
        can_map_host_memory: attr(Attr::CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY)? != 0,
    };
    Ok(Device { ctx, info })
}

/// The most devices one process uses (the per-device tables' size).
pub const MAX_DEVICES: usize = 16;

/// Devices other than the default one, opened on first use by ordinal.
static OTHERS: [OnceLock<std::result::Result<Device, String>>; MAX_DEVICES] =
    [const { OnceLock::new() }; MAX_DEVICES];

thread_local! {
    /// The device this thread's work goes to inside [`with_device`] (else the default).
    static CURRENT: std::cell::Cell<Option<&'static Device>> = const { std::cell::Cell::new(None) };
}

/// The default device, opened on first use, or why there is none.
pub(crate) fn probe() -> std::result::Result<&'static Device, &'static str> {
    DEVICE
        .get_or_init(|| crate::trace::step(|| "opening the CUDA device".into(), open))
        .as_ref()
        .map_err(|s| s.as_str())
}

/// The device of ordinal `ordinal` (the default device's own entry where it is that one).
pub(crate) fn by_ordinal(ordinal: usize) -> Result<&'static Device> {
    let default = probe().map_err(|reason| Error::NoDevice {
        reason: reason.to_string(),
    })?;
    if default.info.ordinal == ordinal {
        return Ok(default);
    }
    let slot = OTHERS.get(ordinal).ok_or_else(|| Error::NoDevice {
        reason: format!("device {ordinal}: at most {MAX_DEVICES} devices are supported"),
    })?;
    slot.get_or_init(|| {
        crate::trace::step(
            || format!("opening CUDA device {ordinal}"),
            || open_ordinal(ordinal),
        )
    })
    .as_ref()
    .map_err(|reason| Error::NoDevice {
        reason: reason.clone(),
    })
}

/// The default device chosen by the program (an MPI rank's GPU), where `ONGPU_DEVICE` does
/// not say.
static CHOSEN: OnceLock<usize> = OnceLock::new();

/// Makes device `ordinal` the process's default device (opened on first use), as an MPI rank
/// does with the GPU of its node-local rank. An error if the default device is already open
/// and is another, or if another was chosen before.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) fn choose_default_device(ordinal: usize) -> Result<()> {
    if CHOSEN.get_or_init(|| ordinal) != &ordinal {
        return Err(Error::InvalidArgument(format!(
            "device {ordinal} chosen as the default device, but device {} was chosen before",
            CHOSEN.get().copied().unwrap_or(0)
        )));
    }
    match DEVICE.get() {
        Some(Ok(d)) if d.info.ordinal != ordinal => Err(Error::InvalidArgument(format!(
            "device {ordinal} chosen as the default device after device {} was opened as it:              make the MPI World before the first GPU call",
            d.info.ordinal
        ))),
        _ => Ok(()),
    }
}

/// Number of CUDA devices of the machine.
pub fn device_count() -> Result<usize> {
    count().map_err(|reason| Error::NoDevice { reason })
}

/// Runs `f` with the device of ordinal `ordinal` as this thread's device: the calls in `f`
/// run there and the fields they touch live there.
pub(crate) fn with_device<R>(ordinal: usize, f: impl FnOnce() -> Result<R>) -> Result<R> {
    let dev = by_ordinal(ordinal)?;
    let before = CURRENT.with(|c| c.replace(Some(dev)));
    struct Restore(Option<&'static Device>);
    impl Drop for Restore {
        fn drop(&mut self) {
            CURRENT.with(|c| c.set(self.0));
            if let Some(d) = self.0.or_else(|| probe().ok()) {
                let _ = d.bind();
            }
        }
    }
    let _restore = Restore(before);
    f()
}

/// This thread's device (the default one, except while a split lattice runs a part on another), bound to the calling
/// thread; [`Error::NoDevice`] if there is none.
#[inline]
pub fn device() -> Result<&'static Device> {
    let dev = match CURRENT.with(|c| c.get()) {
        Some(d) => d,
        None => probe().map_err(|reason| Error::NoDevice {
            reason: reason.to_string(),
        })?,
    };
    dev.bind()?;
    Ok(dev)
}

/// Checks that memory (or a stream) owned by `owner` is used on `used`. Devices are opened
/// once per process and never dropped, so identity is the address. The check keeps a field
/// from reaching another device's kernels (the parts of a split lattice live on several).
#[inline(always)]
pub(crate) fn check_same_device(
    owner: &Device,
    used: &Device,
    what: impl FnOnce() -> String,
) -> Result<()> {
    if std::ptr::eq(owner, used) {
        Ok(())
    } else {
        Err(Error::WrongDevice {
            what: what(),
            owner: owner.describe(),
            used: used.describe(),
        })
    }
}
