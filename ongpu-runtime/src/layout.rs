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

    /// Sites of storage for `len` sites (the length rounded up to a whole block).
    fn padded_len(len: usize) -> usize;

    /// Index of component `c` of site `s`.
    fn index(s: usize, c: usize, comps: usize, stride: usize) -> usize;

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
    #[inline(always)]
    fn padded_len(len: usize) -> usize {
        len
    }
    #[inline(always)]
    fn index(s: usize, c: usize, _comps: usize, stride: usize) -> usize {
        c * stride + s
    }
    fn cuda_name() -> String {
        "ongpu::SoA".to_string()
    }
    fn name() -> String {
        "SoA".to_string()
    }
}

impl<const V: usize> Layout for AoSoA<V> {
    const BLOCK: usize = {
        assert!(V > 0, "AoSoA<V> needs V > 0");
        V
    };
    #[inline(always)]
    fn padded_len(len: usize) -> usize {
        len.div_ceil(Self::BLOCK) * V
    }
    #[inline(always)]
    fn index(s: usize, c: usize, comps: usize, _stride: usize) -> usize {
        (s / V) * comps * V + c * V + s % V
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

    #[test]
    fn aosoa_matches_the_documented_formula() {
        // component c of site s at (s / V) * C * V + c * V + s % V
        assert_eq!(AoSoA::<32>::index(70, 5, 18, 96), 2 * 18 * 32 + 5 * 32 + 6);
        assert_eq!(AoSoA::<32>::padded_len(33), 64);
        assert_eq!(SoA::index(3, 2, 18, 10), 23);
        assert_eq!(AoS::index(3, 2, 18, 10), 56);
    }
}
