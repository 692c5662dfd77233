//! Random numbers for bodies: a counter-based generator captured by value.
//!
//! A draw is a pure function of (seed, stream, site, draw number): no state moves between
//! sites, calls or backends, so every site draws independently, a run is reproducible for any
//! thread count and launch shape, and the CPU and CUDA backends give the same bits. The CUDA
//! twin is `cuda/random.cuh`; change both together.

mod philox;
pub mod portable;

pub use philox::philox4x32_10;

/// A Philox-4x32-10 generator: a 64-bit seed (the key) and a 32-bit stream number.
///
/// Captured by an `on_gpu!` body, `rng.uniform_f64(i, k)` is the `k`-th uniform draw of site
/// `i` in this stream. Use a new stream for each update of a Monte Carlo (`rng.stream(n)`),
/// and distinct draw numbers for the draws of one site in one call. The 128-bit counter is
/// `(draw, site low word, site high word, stream)`, so no two (site, stream, draw) share a
/// block.
///
/// In a body: `on_gpu!(lat, |i| { x = rng.uniform_f64(i, 0); })`. On the host:
///
/// ```
/// use ongpu_runtime::Philox;
///
/// let rng = Philox::new(2026).stream(7);
/// let u = rng.uniform_f64(3, 0);              // draw 0 of site 3, the body's bits
/// assert!(u > 0.0 && u < 1.0);
/// assert_ne!(u, rng.stream(8).uniform_f64(3, 0));
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Philox {
    key: [u32; 2],
    stream: u32,
    _pad: u32,
}

// The CUDA twin `ongpu::Philox` has this size and field order.
const _: () = assert!(std::mem::size_of::<Philox>() == 16);

// SAFETY: four `u32`s, no padding bytes (the explicit `_pad` fills the struct).
unsafe impl bytemuck::Zeroable for Philox {}
// SAFETY: as above; every bit pattern is a valid generator.
unsafe impl bytemuck::Pod for Philox {}

/// `2^-23` and `2^-52`: the spacing of the uniform grids.
const F32_STEP: f32 = 1.0 / (1u32 << 23) as f32;
const F64_STEP: f64 = 1.0 / (1u64 << 52) as f64;

impl Philox {
    /// A generator keyed by `seed`, on stream 0.
    pub fn new(seed: u64) -> Philox {
        Philox {
            key: [seed as u32, (seed >> 32) as u32],
            stream: 0,
            _pad: 0,
        }
    }

    /// The same generator on stream `stream` (for example the update number of a Monte
    /// Carlo: each stream's draws are independent of every other's).
    #[must_use]
    pub fn stream(self, stream: u32) -> Philox {
        Philox { stream, ..self }
    }

    /// The stream number.
    pub fn stream_number(&self) -> u32 {
        self.stream
    }

    /// The four 32-bit words of draw `draw` at site `site`.
    #[inline]
    pub fn block(&self, site: usize, draw: u32) -> [u32; 4] {
        let site = site as u64;
        philox4x32_10(
            [draw, site as u32, (site >> 32) as u32, self.stream],
            self.key,
        )
    }

    /// A uniform 32-bit integer: the first word of the block.
    #[inline]
    pub fn bits(&self, site: usize, draw: u32) -> u32 {
        self.block(site, draw)[0]
    }

    /// A uniform deviate in the open interval (0, 1): the midpoints of a grid of 2^23
    /// cells, so that `ln` of it is finite. Exact on both backends.
    #[inline]
    pub fn uniform_f32(&self, site: usize, draw: u32) -> f32 {
        ((self.block(site, draw)[0] >> 9) as f32 + 0.5) * F32_STEP
    }

    /// A uniform deviate in (0, 1) on a grid of 2^52 cells (midpoints). Exact on both
    /// backends.
    #[inline]
    pub fn uniform_f64(&self, site: usize, draw: u32) -> f64 {
        let w = self.block(site, draw);
        uniform_from_words(w[0], w[1])
    }

    /// A standard normal deviate (Box–Muller from the block's two 64-bit halves), computed
    /// with [`portable`] functions so that both backends give the same bits.
    #[inline]
    pub fn normal_f64(&self, site: usize, draw: u32) -> f64 {
        let w = self.block(site, draw);
        let (u1, u2) = (
            uniform_from_words(w[0], w[1]),
            uniform_from_words(w[2], w[3]),
        );
        (-2.0 * portable::ln(u1)).sqrt() * portable::cos_2pi(u2)
    }

    /// A standard normal deviate in single precision: [`normal_f64`](Self::normal_f64)
    /// rounded.
    #[inline]
    pub fn normal_f32(&self, site: usize, draw: u32) -> f32 {
        self.normal_f64(site, draw) as f32
    }
}

/// The 52 high bits of `(hi, lo)` as a midpoint of the 2^52-cell grid of (0, 1).
#[inline(always)]
fn uniform_from_words(hi: u32, lo: u32) -> f64 {
    let k = ((hi as u64) << 20) | (lo as u64 >> 12);
    (k as f64 + 0.5) * F64_STEP
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniforms_stay_inside_the_open_interval() {
        assert_eq!(uniform_from_words(0, 0), 0.5 * F64_STEP);
        assert!(uniform_from_words(u32::MAX, u32::MAX) < 1.0);
        assert!(((u32::MAX >> 9) as f32 + 0.5) * F32_STEP < 1.0);
    }

    #[test]
    fn streams_sites_and_draws_are_distinct_counters() {
        let r = Philox::new(1);
        let a = r.block(5, 0);
        assert_ne!(a, r.block(6, 0));
        assert_ne!(a, r.block(5, 1));
        assert_ne!(a, r.stream(1).block(5, 0));
        assert_ne!(a, Philox::new(2).block(5, 0));
        assert_ne!(r.block(1 << 32, 0), r.block(0, 0));
    }
}
