//! Memory layouts of field storage. Each layout is a zero-sized type that owns the index
//! maths, on the host here and in the CUDA prelude (`ongpu::AoS`, `ongpu::SoA`,
//! `ongpu::AoSoA<V>`), so both sides agree by construction.

use std::fmt::Debug;

/// Where component `c` of site `s` lives in a field's storage.
///
/// `comps` is the number of components per element and `stride` the field's padded length
/// (sites including padding).
pub trait Layout: Copy + Default + Debug + Send + Sync + 'static {
    /// Sites that are stored interleaved (V for `AoSoA<V>`, 1 otherwise). The CPU backend
    /// starts its chunks at multiples of this so that a whole block is processed together.
    const BLOCK: usize;

    /// True when one component of consecutive sites is stored contiguously (SoA, AoSoA):
    /// the CPU backend then runs groups of sites through component-major buffers, which the
    /// compiler vectorises across sites. For AoS (each site's components together) it runs
    /// site by site, unless the element has a single component.
    const SITES_CONTIGUOUS: bool;

    /// Sites of storage for `len` sites (the length rounded up to a whole block).
    fn padded_len(len: usize) -> usize;

    /// Index of component `c` of site `s`.
    fn index(s: usize, c: usize, comps: usize, stride: usize) -> usize;

    /// Copies the components of sites `s0 .. s0 + lanes` into `block`, component-major
    /// (`block[c * lanes + l]` = component `c` of site `s0 + l`): the CPU backend's
    /// per-group buffer, in which one component of consecutive sites is contiguous, so that
    /// the body vectorises across sites. Whole runs are copied where the layout stores them
    /// contiguously.
    ///
    /// # Safety
    /// `storage` holds `stride * comps` values, `s0 + lanes <= stride`, and `block` has room
    /// for `lanes * comps` values.
    #[inline(always)]
    unsafe fn gather<S: Copy>(
        storage: *const S,
        s0: usize,
        comps: usize,
        stride: usize,
        block: *mut S,
        lanes: usize,
    ) {
        for c in 0..comps {
            for l in 0..lanes {
                *block.add(c * lanes + l) = *storage.add(Self::index(s0 + l, c, comps, stride));
            }
        }
    }

    /// The inverse of [`gather`](Layout::gather): writes `block` back to sites
    /// `s0 .. s0 + lanes`.
    ///
    /// # Safety
    /// As for `gather`, and no other thread accesses these sites meanwhile.
    #[inline(always)]
    unsafe fn scatter<S: Copy>(
        storage: *mut S,
        s0: usize,
        comps: usize,
        stride: usize,
        block: *const S,
        lanes: usize,
    ) {
        for c in 0..comps {
            for l in 0..lanes {
                *storage.add(Self::index(s0 + l, c, comps, stride)) = *block.add(c * lanes + l);
            }
        }
    }

    /// The CUDA C++ type of the layout in the prelude.
    fn cuda_name() -> String;

    /// A short name for tables and messages (`AoS`, `SoA`, `AoSoA<32>`).
    fn name() -> String;
}

/// Array of structures: the components of a site are contiguous (`s * C + c`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct AoS;

/// Structure of arrays: component-major (`c * stride + s`); a warp's loads of one component
/// are contiguous.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct SoA;

/// Array of structures of arrays: blocks of `V` sites, component-major inside a block
/// (`(s / V) * C * V + c * V + s % V`). With `V` = 32 a warp's loads of one component are
/// one contiguous 128-byte (f32) line, and the CPU can vectorise across the `V` lanes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct AoSoA<const V: usize>;

impl Layout for AoS {
    const BLOCK: usize = 1;
    const SITES_CONTIGUOUS: bool = false;
    #[inline(always)]
    fn padded_len(len: usize) -> usize {
        len
    }
    #[inline(always)]
    fn index(s: usize, c: usize, comps: usize, _stride: usize) -> usize {
        s * comps + c
    }
    fn cuda_name() -> String {
        "ongpu::AoS".to_string()
    }
    fn name() -> String {
        "AoS".to_string()
    }
}

impl Layout for SoA {
    const BLOCK: usize = 1;
    const SITES_CONTIGUOUS: bool = true;
    #[inline(always)]
    fn padded_len(len: usize) -> usize {
        len
    }
    #[inline(always)]
    fn index(s: usize, c: usize, _comps: usize, stride: usize) -> usize {
        c * stride + s
    }
    #[inline(always)]
    unsafe fn gather<S: Copy>(
        storage: *const S,
        s0: usize,
        comps: usize,
        stride: usize,
        block: *mut S,
        lanes: usize,
    ) {
        for c in 0..comps {
            std::ptr::copy_nonoverlapping(
                storage.add(c * stride + s0),
                block.add(c * lanes),
                lanes,
            );
        }
    }
    #[inline(always)]
    unsafe fn scatter<S: Copy>(
        storage: *mut S,
        s0: usize,
        comps: usize,
        stride: usize,
        block: *const S,
        lanes: usize,
    ) {
        for c in 0..comps {
            std::ptr::copy_nonoverlapping(
                block.add(c * lanes),
                storage.add(c * stride + s0),
                lanes,
            );
        }
    }
    fn cuda_name() -> String {
        "ongpu::SoA".to_string()
    }
    fn name() -> String {
        "SoA".to_string()
    }
}

impl<const V: usize> AoSoA<V> {
    /// Sites from lane `l` of a group of `lanes` starting at site `s = s0 + l` that lie in
    /// one V-block: a whole block, the whole group, or up to the block's end. The common
    /// cases are constants, so the copies become inlined moves rather than memcpy calls.
    #[inline(always)]
    fn run(s: usize, l: usize, lanes: usize) -> usize {
        if s % V == 0 && V <= lanes - l {
            V
        } else if V % lanes == 0 && s % lanes == 0 && l == 0 {
            lanes
        } else {
            (V - s % V).min(lanes - l)
        }
    }
}

impl<const V: usize> Layout for AoSoA<V> {
    const BLOCK: usize = {
        assert!(V > 0, "AoSoA<V> needs V > 0");
        V
    };
    const SITES_CONTIGUOUS: bool = V > 1;
    #[inline(always)]
    fn padded_len(len: usize) -> usize {
        len.div_ceil(Self::BLOCK) * V
    }
    #[inline(always)]
    fn index(s: usize, c: usize, comps: usize, _stride: usize) -> usize {
        (s / V) * comps * V + c * V + s % V
    }
    #[inline(always)]
    unsafe fn gather<S: Copy>(
        storage: *const S,
        s0: usize,
        comps: usize,
        _stride: usize,
        block: *mut S,
        lanes: usize,
    ) {
        if lanes == V && s0 % V != 0 {
            // A whole group across two blocks (a shift along a direction whose step is not
            // a multiple of V): lane `l` lies at `offset + l` in this block's component or
            // at `offset + l - V` in the next block's. Both are read for every lane and the
            // lane keeps the one that holds its site, a loop the compiler vectorises (two
            // loads and a blend), where two `memcpy` calls of odd lengths a component were
            // function calls. Both reads stay within the two blocks' storage: a component
            // lies between them.
            let (offset, first) = (s0 % V, (s0 / V) * comps * V);
            for c in 0..comps {
                let here = storage.add(first + c * V + offset);
                let next = storage.add(first + (comps + c) * V + offset - V);
                let to = block.add(c * V);
                for l in 0..V {
                    let (a, b) = (*here.add(l), *next.add(l));
                    *to.add(l) = if l + offset < V { a } else { b };
                }
            }
            return;
        }
        // Runs of sites within one V-block: component c of each run is contiguous.
        let mut l = 0;
        while l < lanes {
            let s = s0 + l;
            let base = (s / V) * comps * V + s % V;
            let run = Self::run(s, l, lanes);
            for c in 0..comps {
                std::ptr::copy_nonoverlapping(
                    storage.add(base + c * V),
                    block.add(c * lanes + l),
                    run,
                );
            }
            l += run;
        }
    }
    #[inline(always)]
    unsafe fn scatter<S: Copy>(
        storage: *mut S,
        s0: usize,
        comps: usize,
        _stride: usize,
        block: *const S,
        lanes: usize,
    ) {
        let mut l = 0;
        while l < lanes {
            let s = s0 + l;
            let base = (s / V) * comps * V + s % V;
            let run = Self::run(s, l, lanes);
            for c in 0..comps {
                std::ptr::copy_nonoverlapping(
                    block.add(c * lanes + l),
                    storage.add(base + c * V),
                    run,
                );
            }
            l += run;
        }
    }
    fn cuda_name() -> String {
        format!("ongpu::AoSoA<{V}>")
    }
    fn name() -> String {
        format!("AoSoA<{V}>")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every (site, component) pair of a padded field maps to a distinct index inside storage.
    fn is_bijection<L: Layout>(len: usize, comps: usize) {
        let stride = L::padded_len(len);
        let mut seen = vec![false; stride * comps];
        for s in 0..stride {
            for c in 0..comps {
                let i = L::index(s, c, comps, stride);
                assert!(!seen[i], "{} maps two places to {i}", L::name());
                seen[i] = true;
            }
        }
        assert!(seen.iter().all(|&b| b));
    }

    #[test]
    fn layouts_are_bijections() {
        for len in [0, 1, 7, 32, 33, 100] {
            for comps in [1, 2, 18] {
                is_bijection::<AoS>(len, comps);
                is_bijection::<SoA>(len, comps);
                is_bijection::<AoSoA<8>>(len, comps);
                is_bijection::<AoSoA<32>>(len, comps);
            }
        }
    }

    /// `gather` puts component c of site s0 + l at `c * lanes + l`, and `scatter` undoes it,
    /// for any start (aligned to a block or not) and any group width.
    fn gather_scatter_round_trip<L: Layout>(len: usize, comps: usize) {
        let stride = L::padded_len(len);
        let storage: Vec<u32> = (0..stride * comps).map(|i| i as u32 + 1).collect();
        for lanes in [1, 5, 8, 32] {
            for s0 in (0..len.saturating_sub(lanes - 1)).step_by(3) {
                let mut block = vec![0u32; lanes * comps];
                let mut back = vec![0u32; stride * comps];
                // SAFETY: sizes as documented; s0 + lanes <= len <= stride.
                unsafe {
                    L::gather(
                        storage.as_ptr(),
                        s0,
                        comps,
                        stride,
                        block.as_mut_ptr(),
                        lanes,
                    );
                    L::scatter(back.as_mut_ptr(), s0, comps, stride, block.as_ptr(), lanes);
                }
                for c in 0..comps {
                    for l in 0..lanes {
                        let i = L::index(s0 + l, c, comps, stride);
                        assert_eq!(block[c * lanes + l], storage[i], "{} s0 {s0}", L::name());
                        assert_eq!(back[i], storage[i]);
                    }
                }
                let written = back.iter().filter(|&&v| v != 0).count();
                assert_eq!(
                    written,
                    lanes * comps,
                    "{}: scatter wrote elsewhere",
                    L::name()
                );
            }
        }
    }

    #[test]
    fn gather_and_scatter_follow_the_index() {
        for len in [40, 70, 100] {
            for comps in [1, 2, 18] {
                gather_scatter_round_trip::<AoS>(len, comps);
                gather_scatter_round_trip::<SoA>(len, comps);
                gather_scatter_round_trip::<AoSoA<8>>(len, comps);
                gather_scatter_round_trip::<AoSoA<32>>(len, comps);
                gather_scatter_round_trip::<AoSoA<64>>(len, comps);
            }
        }
    }

    #[test]
    fn aosoa_matches_the_documented_formula() {
        // component c of site s at (s / V) * C * V + c * V + s % V
        assert_eq!(AoSoA::<32>::index(70, 5, 18, 96), 2 * 18 * 32 + 5 * 32 + 6);
        assert_eq!(AoSoA::<32>::padded_len(33), 64);
        assert_eq!(SoA::index(3, 2, 18, 10), 23);
        assert_eq!(AoS::index(3, 2, 18, 10), 56);
    }
}
