//! The device's bandwidth ceilings, measured in the benchmark's own process: a copy and a
//! reader written as a CUDA programmer tunes them (16-byte words, the best of several grid
//! sizes). `cuMemcpyDtoD` is not the fastest copy on every device, so a ratio to it can
//! read above 100%; it is kept beside the tuned copy so both ratios can be printed.

use ongpu::cuda::{self, nvrtc, Device, DeviceBuffer, Function, ParamList, Shape};
use ongpu::Backend;

const SOURCE: &str = include_str!("ceiling.cu");

/// Threads per block of both kernels.
const TPB: u32 = 256;

/// A timer: seconds per call of the closure it is given (a benchmark's own method).
pub type Timer<'a> = &'a mut dyn FnMut(&mut dyn FnMut() -> ongpu::Result<()>) -> ongpu::Result<f64>;

/// The ceiling kernels, compiled for the device.
pub struct Ceilings {
    dev: &'static Device,
    copy: Function,
    read: Function,
}

/// How long copying a number of bytes takes, by the two copies.
#[derive(Debug, Clone, Copy)]
pub struct CopyTimes {
    /// `cuMemcpyDtoD` (the ceiling the benchmarks used before).
    pub memcpy: f64,
    /// The fastest run of the 16-byte copy kernel.
    pub kernel: f64,
}

impl CopyTimes {
    /// The ceiling: the faster of the two.
    pub fn best(&self) -> f64 {
        self.memcpy.min(self.kernel)
    }
}

impl Ceilings {
    pub fn new() -> ongpu::Result<Self> {
        let dev = cuda::device()?;
        let (arch, _) = nvrtc::target_for(dev.info().compute_capability);
        let compiled = nvrtc::compile(SOURCE, &arch, "ceiling.cu", &[])?;
        Ok(Ceilings {
            dev,
            copy: cuda::load_function(dev, &compiled, "copy16")?,
            read: cuda::load_function(dev, &compiled, "read16")?,
        })
    }

    /// Grid sizes tried: 4 to 32 blocks per multiprocessor, and one thread per word.
    fn grids(&self, words: u64) -> Vec<u32> {
        let sms = self.dev.info().sm_count;
        let mut g = vec![sms * 4, sms * 8, sms * 16, sms * 32];
        g.push(words.div_ceil(TPB as u64).clamp(1, u32::MAX as u64) as u32);
        g
    }

    /// Seconds to copy `bytes` bytes (rounded up to 16) from one device buffer to another,
    /// timed by [`super::time`].
    pub fn copy_seconds(&self, reps: usize, bytes: usize) -> ongpu::Result<CopyTimes> {
        self.copy_seconds_with(bytes, &mut |f| super::time(Backend::Cuda, reps, f))
    }

    /// Seconds to read `bytes` bytes (rounded up to 16), timed by [`super::time`].
    pub fn read_seconds(&self, reps: usize, bytes: usize) -> ongpu::Result<f64> {
        self.read_seconds_with(bytes, &mut |f| super::time(Backend::Cuda, reps, f))
    }

    /// [`copy_seconds`](Self::copy_seconds) with the caller's timer.
    pub fn copy_seconds_with(&self, bytes: usize, time: Timer) -> ongpu::Result<CopyTimes> {
        let bytes = bytes.div_ceil(16) * 16;
        let mut src = DeviceBuffer::alloc(self.dev, bytes, "the copy's source")?;
        src.zero()?;
        let mut dst = DeviceBuffer::alloc(self.dev, bytes, "the copy's destination")?;
        let memcpy = time(&mut || dst.copy_from(&src))?;
        let words = (bytes / 16) as u64;
        let (sp, dp) = (src.ptr(), dst.ptr());
        let mut kernel = f64::INFINITY;
        for blocks in self.grids(words) {
            let t = time(&mut || {
                let mut params = ParamList::new();
                params.push(&sp);
                params.push(&dp);
                params.push(&words);
                // SAFETY: `copy16(const uint4*, uint4*, u64)` over `words` 16-byte words of
                // two live buffers (the timing synchronises before they are freed).
                unsafe {
                    cuda::launch(self.dev, self.copy, shape(blocks), &mut params, || {
                        "copy16".into()
                    })
                }
            })?;
            kernel = kernel.min(t);
        }
        Ok(CopyTimes { memcpy, kernel })
    }

    /// Seconds to read `bytes` bytes (rounded up to 16): the fastest run of the reader, timed
    /// by `time`.
    pub fn read_seconds_with(&self, bytes: usize, time: Timer) -> ongpu::Result<f64> {
        let bytes = bytes.div_ceil(16) * 16;
        let mut data = DeviceBuffer::alloc(self.dev, bytes, "the reader's input")?;
        data.zero()?;
        let out = DeviceBuffer::alloc(self.dev, 16, "the reader's output")?;
        let words = (bytes / 16) as u64;
        let (p, o) = (data.ptr(), out.ptr());
        let mut best = f64::INFINITY;
        for blocks in self.grids(words) {
            let t = time(&mut || {
                let mut params = ParamList::new();
                params.push(&p);
                params.push(&words);
                params.push(&o);
                // SAFETY: `read16(const float4*, u64, float*)` over `words` words of a live
                // buffer, and a live 16-byte output.
                unsafe {
                    cuda::launch(self.dev, self.read, shape(blocks), &mut params, || {
                        "read16".into()
                    })
                }
            })?;
            best = best.min(t);
        }
        Ok(best)
    }
}

fn shape(blocks: u32) -> Shape {
    Shape {
        grid: (blocks, 1, 1),
        block: (TPB, 1, 1),
        shared_bytes: 0,
    }
}
