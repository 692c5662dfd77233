//! The halo exchange on the GPU: after the kernels that wrote the field, each halo range is one
//! device-to-device copy per contiguous run of its storage (one for AoS and whole AoSoA
//! blocks, one per component for SoA), queued on the receiving device's halo stream, so
//! that the next call's interior kernels run while the copies are in flight. Events order
//! the copies after the kernels that wrote the parts, the kernels that read a halo after
//! its copies, and the kernels that rewrite a boundary after the copies that read it.

use super::exchange::{runs, HaloCopy, Halos};
use super::lattice::SplitLattice;
use super::run::on_part_device;
use crate::cuda::peer::{self, DeviceEvent};
use crate::cuda::Device;
use crate::element::Element;
use crate::error::Result;
use crate::field::Field;
use crate::layout::Layout;

/// Queues the copies `copies` between the part fields `parts` of `split`; those to or from
/// a part on the host go through host memory at once.
pub(crate) fn exchange<T: Element, L: Layout>(
    split: &SplitLattice,
    parts: &[&Field<T, L>],
    halos: &mut Halos,
    copies: &[HaloCopy],
) -> Result<()> {
    let on_host = |p: usize| split.devices().on_host(p);
    let (through_host, between_gpus): (Vec<HaloCopy>, Vec<HaloCopy>) = copies
        .iter()
        .cloned()
        .partition(|c| on_host(c.src_part) || on_host(c.dst_part));
    let n = split.parts();
    // Each GPU part's device and the address of its device copy (current after the call;
    // the copies read its own sites and write its halos).
    let mut at: Vec<Option<(&'static Device, u64, usize)>> = Vec::with_capacity(n);
    for (p, field) in parts.iter().enumerate() {
        if on_host(p) {
            at.push(None);
            continue;
        }
        at.push(Some(on_part_device(split, p, || {
            let dev = crate::cuda::device()?;
            let what = field.what();
            let stride = *field.stride_ref() as usize;
            let ptr = field.lock().device_for_write(dev, false, &what)?;
            Ok((dev, ptr, stride))
        })?));
    }
    let gpu = |p: usize| at[p].expect("a GPU part");
    // The copies into a part wait for the kernels that wrote the parts they read, and for
    // the part's own earlier kernels (which may still read the halos they overwrite).
    for (p, &(dev, _, _)) in at
        .iter()
        .enumerate()
        .filter_map(|(p, a)| Some((p, a.as_ref()?)))
    {
        event(&mut halos.written, p, dev)?.record_on(std::ptr::null_mut())?;
    }
    let mut streams = vec![std::ptr::null_mut(); n];
    for p in (0..n).filter(|&p| !on_host(p)) {
        let dev = gpu(p).0;
        let stream = peer::halo_stream(dev)?;
        for q in std::iter::once(p).chain(neighbours(&between_gpus, p)) {
            peer::enable_peer_access(dev, gpu(q).0)?;
            event(&mut halos.written, q, gpu(q).0)?.wait_on(dev, stream)?;
        }
        streams[p] = stream;
    }
    let size = std::mem::size_of::<T::Scalar>();
    for c in &between_gpus {
        let (src_dev, src_ptr, src_stride) = gpu(c.src_part);
        let (dst_dev, dst_ptr, dst_stride) = gpu(c.dst_part);
        let dst_sites = c.dst..c.dst + c.src.len();
        let src_runs = runs::<T, L>(&c.src, src_stride);
        let dst_runs = runs::<T, L>(&dst_sites, dst_stride);
        for (&(s, len), &(d, _)) in src_runs.iter().zip(&dst_runs) {
            // SAFETY: both runs lie inside the parts' device copies (sites of their part
            // lattices, which the fields hold); the copy is on the receiving device's halo
            // stream after the writing kernels of both parts (the events above), and later
            // kernels that read the halo or rewrite the source wait for `ready`.
            unsafe {
                peer::copy_on(
                    streams[c.dst_part],
                    dst_dev,
                    dst_ptr + (d * size) as u64,
                    src_dev,
                    src_ptr + (s * size) as u64,
                    len * size,
                )?;
            }
        }
    }
    for p in (0..n).filter(|&p| !on_host(p)) {
        event(&mut halos.ready, p, gpu(p).0)?.record_on(streams[p])?;
    }
    copy_through_host(split, parts, &through_host)
}

/// The copies to or from a part on the host: the source's runs read from its current copy
/// and written into the destination's, synchronously on the GPUs' default streams (after
/// the kernels that wrote the source, before those that read the halo).
fn copy_through_host<T: Element, L: Layout>(
    split: &SplitLattice,
    parts: &[&Field<T, L>],
    copies: &[HaloCopy],
) -> Result<()> {
    let mut values: Vec<T::Scalar> = Vec::new();
    for c in copies {
        let src_stride = *parts[c.src_part].stride_ref() as usize;
        let dst_stride = *parts[c.dst_part].stride_ref() as usize;
        let dst_sites = c.dst..c.dst + c.src.len();
        let src_runs = runs::<T, L>(&c.src, src_stride);
        let dst_runs = runs::<T, L>(&dst_sites, dst_stride);
        for (&(s, len), &(d, _)) in src_runs.iter().zip(&dst_runs) {
            values.resize(len, T::Scalar::default());
            on_part_device(split, c.src_part, || {
                parts[c.src_part].lock().read_current_values(s, &mut values)
            })?;
            on_part_device(split, c.dst_part, || {
                parts[c.dst_part].lock().write_current_values(d, &values)
            })?;
        }
    }
    Ok(())
}

/// The parts whose layers part `p`'s halos receive.
fn neighbours(copies: &[HaloCopy], p: usize) -> Vec<usize> {
    let mut q: Vec<usize> = copies
        .iter()
        .filter(|c| c.dst_part == p && c.src_part != p)
        .map(|c| c.src_part)
        .collect();
    q.sort_unstable();
    q.dedup();
    q
}

/// Part `p`'s event in `events` (created on its device at first use).
fn event<'e>(
    events: &'e mut [Option<DeviceEvent>],
    p: usize,
    dev: &'static Device,
) -> Result<&'e DeviceEvent> {
    let slot = &mut events[p];
    if slot
        .as_ref()
        .map_or(true, |e| !std::ptr::eq(e.device(), dev))
    {
        *slot = Some(DeviceEvent::new(dev)?);
    }
    Ok(slot.as_ref().expect("set above"))
}

impl Halos {
    /// Makes part `p`'s later kernels (on its device's default stream, current) wait for
    /// the copies into its halos.
    pub(crate) fn wait_for_halos(&self, p: usize) -> Result<()> {
        if let Some(e) = &self.ready[p] {
            e.wait_on(crate::cuda::device()?, std::ptr::null_mut())?;
        }
        Ok(())
    }

    /// Makes part `p`'s later kernels wait for the copies that read its boundary layers
    /// (into the neighbours' halos), before they rewrite them.
    pub(crate) fn wait_for_readers(&self, split: &SplitLattice, p: usize) -> Result<()> {
        let n = split.parts();
        for q in [(p + n - 1) % n, (p + 1) % n] {
            if let Some(e) = &self.ready[q] {
                e.wait_on(crate::cuda::device()?, std::ptr::null_mut())?;
            }
        }
        Ok(())
    }

    /// Blocks the host until every queued halo copy has finished.
    pub(crate) fn wait_host(&self) -> Result<()> {
        for e in self.ready.iter().flatten() {
            e.synchronize()?;
        }
        Ok(())
    }
}
