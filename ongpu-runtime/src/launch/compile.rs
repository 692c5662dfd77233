//! Compiling and loading kernels for the device (NVRTC to a cubin of the device's own
//! architecture, through the disk cache), and the grid policy of a loaded kernel: shared by
//! every call kind.

use crate::cuda::disk_cache::{DiskCache, Origin};
use crate::cuda::{self, nvrtc, Device, Function};
use crate::error::Result;
use crate::launch::source as kernel_source;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// A kernel compiled and loaded for one call site and capture types.
#[derive(Debug)]
pub(crate) struct LoadedKernel {
    pub(crate) function: Function,
    /// The last threads-per-block asked for and the resident blocks per multiprocessor it
    /// allows (`tpb << 32 | blocks`), so that repeated calls skip the occupancy query.
    occupancy: AtomicU64,
    /// Full waves of resident blocks a grid spans; 0: no cap (one thread per site).
    waves: usize,
    /// Sites each thread takes at least, when the sites do not fill the grid's cap: the
    /// sites its kernel's loop runs per iteration (reductions size their grid with it).
    sites_per_thread: usize,
    /// The hash of the kernel's source (tuning decisions are kept under it).
    pub(crate) id: u64,
    /// The launch shapes tuning decided, per size class.
    pub(crate) tuned: crate::tune::trials::Decided,
    /// Dynamic shared memory per thread of a block (a kernel that stages AoS fields).
    pub(crate) stage_bytes: usize,
    /// The dynamic shared memory a block of it may have, if raised above 48 KiB.
    stage_limit: usize,
    /// The most threads a block of it may have (its registers allow), read once.
    max_threads: std::sync::atomic::AtomicU32,
}

impl LoadedKernel {
    /// A kernel whose grids span one wave (unless `ONGPU_WAVES` says otherwise).
    pub(crate) fn new(function: Function) -> Self {
        LoadedKernel {
            function,
            occupancy: AtomicU64::new(0),
            waves: forced_waves().unwrap_or(1),
            sites_per_thread: 1,
            id: 0,
            tuned: crate::tune::trials::Decided::new(),
            stage_bytes: 0,
            stage_limit: 0,
            max_threads: std::sync::atomic::AtomicU32::new(0),
        }
    }

    /// The most threads per block this kernel can be launched with: its registers per
    /// thread times the block must fit the multiprocessor's registers.
    pub(crate) fn max_threads_per_block(&self) -> Result<u32> {
        let known = self.max_threads.load(Ordering::Relaxed);
        if known > 0 {
            return Ok(known);
        }
        let n = self
            .function
            .max_threads_per_block(|| "querying a kernel's block limit".to_string())?;
        self.max_threads.store(n, Ordering::Relaxed);
        Ok(n)
    }

    /// The kernel of an element-wise call that stages `bytes` per thread through dynamic
    /// shared memory: allowed as much as the device gives a block (blocks of 1024 threads
    /// staging colour matrices of f64 need 144 KiB, over the 48 KiB a kernel gets unasked).
    pub(crate) fn with_stage_bytes(mut self, bytes: usize) -> Self {
        self.stage_bytes = bytes;
        if bytes > 0 {
            // H100 and H200 give 227 KiB, Ampere's workstation parts 99 KiB; a device that
            // allows neither keeps 48 KiB, and a launch beyond its limit gets no shared
            // memory (`stage_shared`), so that the kernel reads its fields directly.
            for limit in [232_448, 101_376] {
                let limit = limit.min(1024 * bytes as u32);
                if self.function.allow_dynamic_shared(limit).is_ok() {
                    self.stage_limit = limit as usize;
                    break;
                }
            }
        }
        self
    }

    /// The dynamic shared memory of a launch of `tpb` threads per block, or `None` if the
    /// device cannot give it.
    pub(crate) fn stage_shared(&self, tpb: u32) -> Option<u32> {
        let bytes = self.stage_block_bytes(tpb);
        (bytes <= self.stage_limit.max(48 * 1024)).then_some(bytes as u32)
    }

    /// The staged bytes of a block of `tpb` threads: whole warps' shares (a partial last
    /// warp lays its parts out as a full one does).
    fn stage_block_bytes(&self, tpb: u32) -> usize {
        self.stage_bytes * (tpb as usize).next_multiple_of(32)
    }

    /// The kernel compiled from `source` (its hash names its tuning decisions).
    fn of_source(mut self, source: &str) -> Self {
        use sha2::{Digest, Sha256};
        let h = Sha256::digest(source.as_bytes());
        self.id = u64::from_le_bytes(h[..8].try_into().expect("8 bytes"));
        self
    }

    /// Waves of resident blocks this kernel's grids span by default (0: one thread per
    /// site).
    pub(crate) fn default_waves(&self) -> u32 {
        self.waves as u32
    }

    /// True when `ONGPU_WAVES` fixes the grid.
    pub(crate) fn waves_forced() -> bool {
        forced_waves().is_some()
    }

    /// The kernel of a reduction whose loop runs `k` sites per iteration: a thread takes at
    /// least `k` sites (see [`sites_per_thread`](Self::sites_per_thread)).
    pub(crate) fn with_sites_per_thread(mut self, k: usize) -> Self {
        self.sites_per_thread = k.max(1);
        self
    }

    /// Sites each thread takes at least: with `k` sites per iteration, a grid of
    /// `n / (tpb·k)` blocks gives each thread one iteration with all `k` loads in flight,
    /// where one thread per site would leave the unrolled loop unused and `k` times the
    /// partial results to combine.
    pub(crate) fn sites_per_thread(&self) -> usize {
        self.sites_per_thread
    }

    /// The grid policy of an element-wise kernel running `k` sites per iteration. With
    /// k > 1 (few loads per site) one wave of threads, each with k sites' loads in flight,
    /// covers memory latency (vector add: 97% of the copy bandwidth, against 80% with one
    /// thread per site); a site heavy enough to run alone (k = 1: a colour-matrix product
    /// loads 54 values) does best with one thread per site, like a hand-written kernel
    /// (101% of one, against 95% in one wave). Measurements: BENCHMARKS.md.
    pub(crate) fn for_sites_per_iteration(mut self, k: usize) -> Self {
        self.waves = forced_waves().unwrap_or(if k > 1 { 1 } else { 0 });
        self
    }

    /// Blocks of `tpb` threads that fill the device once (all resident at the same time),
    /// times the kernel's waves (0: no cap).
    pub(crate) fn one_wave(&self, dev: &Device, tpb: u32) -> Result<usize> {
        Ok(self.resident_blocks(dev, tpb)? * self.waves)
    }

    /// Blocks of `tpb` threads resident on the whole device at once.
    pub(crate) fn resident_blocks(&self, dev: &Device, tpb: u32) -> Result<usize> {
        let packed = self.occupancy.load(Ordering::Relaxed);
        let per_sm = if packed >> 32 == tpb as u64 {
            packed as u32
        } else {
            let n = self
                .function
                .blocks_per_multiprocessor(tpb, self.stage_block_bytes(tpb))?;
            self.occupancy
                .store((tpb as u64) << 32 | n as u64, Ordering::Relaxed);
            n
        };
        Ok(dev.info().sm_count as usize * per_sm as usize)
    }
}

/// `ONGPU_WAVES`: grids span this many full waves of resident blocks (0: no cap), for
/// tuning; unset, each kernel follows its own policy.
fn forced_waves() -> Option<usize> {
    static WAVES: OnceLock<Option<usize>> = OnceLock::new();
    *WAVES.get_or_init(|| {
        std::env::var("ONGPU_WAVES")
            .ok()
            .and_then(|v| v.trim().parse().ok())
    })
}

/// True when `ONGPU_DUMP_SOURCE` asks to print each kernel's source.
pub(crate) fn dump_source() -> bool {
    static DUMP: OnceLock<bool> = OnceLock::new();
    *DUMP
        .get_or_init(|| std::env::var("ONGPU_DUMP_SOURCE").is_ok_and(|v| !v.is_empty() && v != "0"))
}

/// Compiles `source` for the device (cubin for its own architecture) and loads its kernel.
pub(crate) fn compile_and_load(
    source: &str,
    what: &str,
    dev: &'static Device,
) -> Result<LoadedKernel> {
    Ok(compile_and_load_unnamed(source, what, dev)?.of_source(source))
}

fn compile_and_load_unnamed(
    source: &str,
    what: &str,
    dev: &'static Device,
) -> Result<LoadedKernel> {
    if dump_source() {
        eprintln!(
            "ongpu: source of {what}:\n{}",
            crate::error::number_lines(source)
        );
    }
    let load = |image: &nvrtc::Compiled| {
        // Images from the disk cache have no log: their warnings were shown when compiled.
        cuda::nvrtc_warnings::report(what, &image.log);
        cuda::load_function(dev, image, kernel_source::KERNEL_NAME)
    };
    let Some(cache) = disk_cache() else {
        let (arch, _) = target(dev);
        return Ok(LoadedKernel::new(load(&nvrtc::compile(
            source,
            &arch,
            what,
            &[],
        )?)?));
    };
    // A hit for the device's own architecture needs no NVRTC at all.
    let own = dev.info().arch();
    if let Some(image) = cache.lookup(source, &own, &[]) {
        return match load(&image) {
            Ok(f) => Ok(LoadedKernel::new(f)),
            // The driver refused a cached image (made for another driver, say): rebuild it.
            Err(_) => Ok(LoadedKernel::new(load(&cache.compile_and_store(
                source,
                &own,
                what,
                &[],
            )?)?)),
        };
    }
    let (arch, _) = target(dev);
    let (image, origin) = cache.compile(source, &arch, what, &[])?;
    match load(&image) {
        Ok(f) => Ok(LoadedKernel::new(f)),
        Err(_) if origin == Origin::Disk => Ok(LoadedKernel::new(load(
            &cache.compile_and_store(source, &arch, what, &[])?,
        )?)),
        Err(e) => Err(e),
    }
}

/// The disk cache, as the environment asks for it (read once).
fn disk_cache() -> Option<&'static DiskCache> {
    static CACHE: OnceLock<Option<DiskCache>> = OnceLock::new();
    CACHE.get_or_init(DiskCache::from_env).as_ref()
}

/// The NVRTC target for the device, decided once.
pub(crate) fn target(dev: &Device) -> (String, nvrtc::ImageKind) {
    static TARGET: OnceLock<(String, nvrtc::ImageKind)> = OnceLock::new();
    TARGET
        .get_or_init(|| nvrtc::target_for(dev.info().compute_capability))
        .clone()
}
