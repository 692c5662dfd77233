//! Halo exchange: when a call shifts a split field whose halos are stale (`lattice::halos`),
//! each part's halo layers receive the neighbouring parts' boundary layers (same parity,
//! same order within a layer, so each copy is one contiguous range of sites). On the host
//! it is a copy of elements; on the GPU, device-to-device (peer) copies queued after the
//! kernels that wrote the field, beside the shifting call's interior.

use super::lattice::SplitLattice;
use crate::element::Element;
use crate::error::Result;
use crate::field::Field;
use crate::layout::Layout;
use std::ops::Range;

/// One copy of a halo: from a part's boundary layer to a neighbour's halo layer.
#[derive(Debug, Clone)]
pub(crate) struct HaloCopy {
    pub src_part: usize,
    pub src: Range<usize>,
    pub dst_part: usize,
    pub dst: usize,
}

/// The copies that refresh the halos of parity `parity` (both when `None`) of a field of
/// `split`: a call over one parity writes only its sites.
pub(crate) fn copies(split: &SplitLattice, parity: Option<usize>) -> Vec<HaloCopy> {
    let n = split.parts();
    if n == 1 {
        return Vec::new();
    }
    let mut out = Vec::with_capacity(4 * n);
    for p in 0..n {
        let part = split.part(p);
        let (below, above) = ((p + n - 1) % n, (p + 1) % n);
        let (b, a) = (split.part(below), split.part(above));
        for parity in parity.map_or(0..2, |q| q..q + 1) {
            // The lower halo holds the part below's last `h` own layers, the upper halo the
            // part above's first `h` (consecutive layers of one parity are consecutive
            // sites, so each side is one range).
            let h = part.halo;
            let (lb, la) = (b.layers() - h, h);
            out.push(HaloCopy {
                src_part: below,
                src: b.layer(lb - h, parity).start..b.layer(lb - 1, parity).end,
                dst_part: p,
                dst: part.layer(0, parity).start,
            });
            out.push(HaloCopy {
                src_part: above,
                src: a.layer(la, parity).start..a.layer(la + h - 1, parity).end,
                dst_part: p,
                dst: part.layer(part.layers() - h, parity).start,
            });
        }
    }
    out
}

/// A layout whose layers are not whole blocks would make each halo copy many pieces; such
/// fields are refused.
pub(crate) fn check_layout<L: Layout>(split: &SplitLattice) -> Result<()> {
    if split.parts() == 1 || L::BLOCK == 1 {
        return Ok(());
    }
    let layer = split.part(0).layer_half();
    if layer % L::BLOCK != 0 {
        return Err(crate::error::Error::InvalidArgument(format!(
            "a {} field cannot be split as {}: a layer of one parity has {layer} sites, not a \
             multiple of the layout's block of {} (use AoS or SoA, or a lattice whose \
             cross-section is)",
            L::name(),
            split,
            L::BLOCK
        )));
    }
    Ok(())
}

/// A split field's events for ordering halo copies with kernels (one of each per part, made
/// on the part's device when first needed; unused on the CPU).
#[derive(Debug, Default)]
pub(crate) struct Halos {
    /// Recorded on each part's default stream after the kernels that wrote the field, for
    /// the copies to wait on.
    #[cfg(feature = "cuda")]
    pub(crate) written: Vec<Option<crate::cuda::peer::DeviceEvent>>,
    /// Recorded on each part's halo stream after the copies into its halos: kernels that
    /// read the halos, and kernels that rewrite a boundary the neighbours copy, wait on it.
    #[cfg(feature = "cuda")]
    pub(crate) ready: Vec<Option<crate::cuda::peer::DeviceEvent>>,
}

impl Halos {
    pub(crate) fn new(_parts: usize) -> Self {
        Halos {
            #[cfg(feature = "cuda")]
            written: (0.._parts).map(|_| None).collect(),
            #[cfg(feature = "cuda")]
            ready: (0.._parts).map(|_| None).collect(),
        }
    }

    /// Blocks until the halo copies queued for the field have finished (nothing on the CPU).
    pub(crate) fn finish(&self) -> Result<()> {
        #[cfg(feature = "cuda")]
        return self.wait_host();
        #[cfg(not(feature = "cuda"))]
        Ok(())
    }
}

/// Refreshes the halos of the part fields `parts` of `split`.
pub(crate) fn exchange<T: Element, L: Layout>(
    split: &SplitLattice,
    parts: &[&Field<T, L>],
    halos: &mut Halos,
    parity: Option<usize>,
) -> Result<()> {
    let copies = copies(split, parity);
    if copies.is_empty() {
        return Ok(());
    }
    #[cfg(feature = "cuda")]
    if crate::backend::current()? == crate::backend::Backend::Cuda {
        return super::exchange_cuda::exchange(split, parts, halos, &copies);
    }
    let _ = halos;
    on_host(parts, &copies)
}

/// The exchange on host copies.
fn on_host<T: Element, L: Layout>(parts: &[&Field<T, L>], copies: &[HaloCopy]) -> Result<()> {
    let mut values: Vec<T::Scalar> = Vec::new();
    for c in copies {
        let (src, dst) = (parts[c.src_part], parts[c.dst_part]);
        let dst_sites = c.dst..c.dst + c.src.len();
        let src_runs = runs::<T, L>(&c.src, *src.stride_ref() as usize);
        let dst_runs = runs::<T, L>(&dst_sites, *dst.stride_ref() as usize);
        for (&(s, len), &(d, _)) in src_runs.iter().zip(&dst_runs) {
            values.clear();
            values.extend_from_slice(&src.lock().host_for_read()?[s..s + len]);
            dst.lock().host_for_write(false)?[d..d + len].copy_from_slice(&values);
        }
    }
    Ok(())
}

/// The storage runs of sites `sites` of a field with `stride` sites of storage: (first
/// scalar, scalars). Layers are whole layout blocks (`check_layout`).
pub(crate) fn runs<T: Element, L: Layout>(
    sites: &Range<usize>,
    stride: usize,
) -> Vec<(usize, usize)> {
    let comps = T::COMPONENTS;
    let n = sites.len();
    if L::BLOCK == 1 && L::SITES_CONTIGUOUS && comps > 1 {
        // SoA: one run per component.
        (0..comps)
            .map(|c| (L::index(sites.start, c, comps, stride), n))
            .collect()
    } else {
        // AoS, and AoSoA over whole blocks: the sites' components are one contiguous run.
        let first = L::index(sites.start, 0, comps, stride);
        debug_assert_eq!(
            L::index(sites.end - 1, comps - 1, comps, stride) + 1 - first,
            n * comps
        );
        vec![(first, n * comps)]
    }
}
