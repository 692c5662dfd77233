//! The grid and block of an explicit kernel launch, and the limits CUDA puts on them, checked
//! on the host before anything runs (a shape outside them would fail at launch with the
//! driver's terse "invalid configuration argument").

use crate::error::{Error, Location, Result};

/// A thread's or block's coordinates, or a block's or grid's extent, in x, y and z (what
/// `thread_idx()`, `block_idx()`, `block_dim()` and `grid_dim()` return in a kernel).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Dim3 {
    /// The fastest-varying coordinate.
    pub x: u32,
    /// The middle coordinate.
    pub y: u32,
    /// The slowest-varying coordinate.
    pub z: u32,
}

impl Dim3 {
    /// `(x, y, z)` as a `Dim3`.
    pub const fn new((x, y, z): (u32, u32, u32)) -> Self {
        Dim3 { x, y, z }
    }

    /// `x * y * z`, the number of threads (or blocks) in this extent.
    pub const fn volume(self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }

    /// The coordinates of the `k`-th point of `self`'s extent, x fastest (CUDA's order).
    pub(crate) fn unflatten(self, k: u64) -> Dim3 {
        let (x, y) = (self.x as u64, self.y as u64);
        Dim3 {
            x: (k % x) as u32,
            y: (k / x % y) as u32,
            z: (k / (x * y)) as u32,
        }
    }
}

impl std::fmt::Display for Dim3 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({}, {}, {})", self.x, self.y, self.z)
    }
}

/// The grid (blocks) and block (threads) of an `#[ongpu::kernel]` launch.
///
/// ```
/// use ongpu_runtime::LaunchShape;
/// // a 2-D grid of 16x16 blocks covering a 100 x 70 matrix
/// let shape = LaunchShape { grid: (100u32.div_ceil(16), 70u32.div_ceil(16), 1), block: (16, 16, 1) };
/// assert_eq!(shape, LaunchShape::cover_2d((100, 70), (16, 16)));
/// assert_eq!(LaunchShape::linear(4, 256).block, (256, 1, 1));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LaunchShape {
    /// Blocks in the grid, in x, y and z.
    pub grid: (u32, u32, u32),
    /// Threads in each block, in x, y and z.
    pub block: (u32, u32, u32),
}

impl LaunchShape {
    /// A 1-D launch of `blocks` blocks of `threads` threads.
    pub const fn linear(blocks: u32, threads: u32) -> Self {
        LaunchShape {
            grid: (blocks, 1, 1),
            block: (threads, 1, 1),
        }
    }

    /// A 2-D launch whose blocks of `block` threads cover `extent` (x, y) points: the grid
    /// is rounded up, so the kernel must check its indices against the extent.
    pub const fn cover_2d(extent: (u32, u32), block: (u32, u32)) -> Self {
        LaunchShape {
            grid: (extent.0.div_ceil(block.0), extent.1.div_ceil(block.1), 1),
            block: (block.0, block.1, 1),
        }
    }

    /// Threads per block.
    pub const fn threads_per_block(&self) -> u64 {
        Dim3::new(self.block).volume()
    }

    /// Blocks in the grid.
    pub const fn blocks(&self) -> u64 {
        Dim3::new(self.grid).volume()
    }
}

use crate::launch::limits::{MAX_BLOCK, MAX_GRID};

/// Checks `shape` against CUDA's limits (`max_threads`: the device's, or the kernel's own
/// when its registers allow fewer); the error names the kernel and says what is allowed.
pub(crate) fn check(
    shape: &LaunchShape,
    max_threads: u32,
    kernel: &str,
    site: Location,
) -> Result<()> {
    let invalid = |reason: String| {
        Err(Error::InvalidLaunch {
            site,
            reason: format!("kernel `{kernel}`: {reason}"),
        })
    };
    let (g, b) = (Dim3::new(shape.grid), Dim3::new(shape.block));
    let (mg, mb) = (Dim3::new(MAX_GRID), Dim3::new(MAX_BLOCK));
    if g.x == 0 || g.y == 0 || g.z == 0 || b.x == 0 || b.y == 0 || b.z == 0 {
        return invalid(format!(
            "grid {g} and block {b} must be at least 1 in every dimension"
        ));
    }
    if b.x > mb.x || b.y > mb.y || b.z > mb.z {
        return invalid(format!(
            "block {b} is larger than CUDA allows ({}, {}, {})",
            mb.x, mb.y, mb.z
        ));
    }
    if b.volume() > max_threads as u64 {
        return invalid(format!(
            "block {b} has {} threads; at most {max_threads} are allowed per block",
            b.volume()
        ));
    }
    if g.x > mg.x || g.y > mg.y || g.z > mg.z {
        return invalid(format!(
            "grid {g} is larger than CUDA allows ({}, {}, {})",
            mg.x, mg.y, mg.z
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(grid: (u32, u32, u32), block: (u32, u32, u32)) -> String {
        let site = Location {
            file: "k.rs",
            line: 1,
            column: 1,
        };
        check(&LaunchShape { grid, block }, 1024, "k", site)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn valid_shapes_pass() {
        let site = Location {
            file: "k.rs",
            line: 1,
            column: 1,
        };
        for s in [
            LaunchShape::linear(1, 1),
            LaunchShape::linear(i32::MAX as u32, 1024),
            LaunchShape {
                grid: (1, 65535, 65535),
                block: (16, 16, 4),
            },
        ] {
            check(&s, 1024, "k", site).unwrap();
        }
    }

    #[test]
    fn each_limit_is_reported() {
        assert!(err((0, 1, 1), (32, 1, 1)).contains("at least 1"));
        assert!(err((1, 1, 1), (32, 1, 65)).contains("larger than CUDA allows"));
        assert!(err((1, 1, 1), (64, 32, 1)).contains("2048 threads"));
        assert!(err((1, 65536, 1), (32, 1, 1)).contains("grid (1, 65536, 1)"));
        assert!(err((1, 1, 1), (2048, 1, 1)).contains("kernel `k`"));
    }

    #[test]
    fn unflatten_is_x_fastest() {
        let d = Dim3::new((4, 3, 2));
        assert_eq!(d.unflatten(0), Dim3::new((0, 0, 0)));
        assert_eq!(d.unflatten(5), Dim3::new((1, 1, 0)));
        assert_eq!(d.unflatten(23), Dim3::new((3, 2, 1)));
    }
}
