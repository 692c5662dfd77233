//! The GPU side: ours, the hand-written kernel of `reference.cu` on the same fields (through
//! their device addresses), and the copy ceiling, each checked first, then timed with CUDA
//! events over batches of back-to-back launches (median of `--reps`).

use crate::data::{Prec, Problem};
use crate::report::Row;
use crate::{common, ours, ours12, ours16, BenchResult, Options};
use ongpu::cuda::{self, nvrtc, Device, DeviceBuffer, Function, ParamList, Shape};
use ongpu::prelude::*;
use ongpu::{Backend, Element, Layout};

/// The hand-written kernels.
const REFERENCE: &str = include_str!("reference.cu");

/// The geometry the reference kernel takes (`struct Geom` of `reference.cu`).
#[repr(C)]
struct Geom {
    l: [i32; 4],
    v: u32,
    h: u32,
}

fn module(dev: &'static Device) -> ongpu::Result<nvrtc::Compiled> {
    let (arch, _) = nvrtc::target_for(dev.info().compute_capability);
    nvrtc::compile(REFERENCE, &arch, "reference.cu", &[])
}

/// The neighbour table of the even sites (forward and backward per direction), on the
/// device, for the `_table` variant of the reference.
fn neighbour_table(dev: &'static Device, p: &Problem) -> ongpu::Result<DeviceBuffer> {
    let h = p.lat.volume() / 2;
    let mut table = vec![0u32; 8 * h];
    for mu in 0..4 {
        for s in 0..h {
            table[2 * mu * h + s] = p.lat.shift(s, mu, 1) as u32;
            table[(2 * mu + 1) * h + s] = p.lat.shift(s, mu, -1) as u32;
        }
    }
    let mut buf = DeviceBuffer::alloc(dev, 4 * table.len(), "the neighbour table")?;
    buf.upload(&table)?;
    Ok(buf)
}

/// One launch of the hand-written kernel `f`: one thread per even site (with the neighbour
/// table `nbr` for the `_table` variant).
#[allow(clippy::too_many_arguments)]
fn hand<T: Prec, L: Layout>(
    dev: &'static Device,
    f: Function,
    p: &Problem,
    tpb: u32,
    u: &Field<[ColorMatrix<T>; 4], L>,
    psi: &Field<ColorVector<T>, L>,
    chi: &mut Field<ColorVector<T>, L>,
    nbr: Option<u64>,
) -> ongpu::Result<()>
where
    ColorVector<T>: Element,
    [ColorMatrix<T>; 4]: Element,
{
    let v = p.lat.volume();
    let (cp, up, pp) = (chi.device_ptr_mut()?, u.device_ptr()?, psi.device_ptr()?);
    let geom = Geom {
        l: [p.l as i32; 4],
        v: v as u32,
        h: (v / 2) as u32,
    };
    let stride = L::padded_len(v) as u64;
    let mut params = ParamList::new();
    params.push(&cp);
    params.push(&up);
    params.push(&pp);
    params.push(&geom);
    params.push(&stride);
    if let Some(nbr) = &nbr {
        params.push(nbr);
    }
    let shape = Shape {
        grid: ((v / 2).div_ceil(tpb as usize) as u32, 1, 1),
        block: (tpb, 1, 1),
        shared_bytes: 0,
    };
    // SAFETY: the parameters match `dslash_*(T*, const T*, const T*, Geom, u64)`; the fields
    // hold `stride` padded sites of their layout and outlive the launch (the timing
    // synchronises before they are dropped).
    unsafe { cuda::launch(dev, f, shape, &mut params, || "the reference Dslash".into()) }
}

/// Checks and times ours, the hand-written kernel and the copy for `T`, `L` on `p`.
pub fn run<T: Prec, L: Layout>(opts: &Options, p: &Problem) -> BenchResult<Vec<Row>>
where
    ColorMatrix<T>: Element,
    ColorVector<T>: Element,
    [ColorMatrix<T>; 4]: Element,
    [[ColorVector<T>; 2]; 4]: Element,
{
    let dev = cuda::device()?;
    let compiled = module(dev)?;
    let layout = L::name().to_lowercase().replace(['<', '>'], "");
    let f = cuda::load_function(dev, &compiled, &format!("dslash_{}_{layout}", T::NAME))?;
    let f_table = cuda::load_function(
        dev,
        &compiled,
        &format!("dslash_{}_{layout}_table", T::NAME),
    )?;
    let table = neighbour_table(dev, p)?;
    let nbr = Some(table.ptr());
    let (u, psi) = (p.links::<T, L>(), p.psi::<T, L>());
    let mut chi_ours = p.poisoned_chi::<T, L>();
    let mut chi_hand = p.poisoned_chi::<T, L>();
    ours(p.lat, opts.tpb, &u, &psi, &mut chi_ours)?;
    let err_ours = p.check::<T, L>("on_gpu!", &chi_ours)?;
    hand(dev, f, p, opts.tpb, &u, &psi, &mut chi_hand, None)?;
    let err_hand = p.check::<T, L>("hand-written", &chi_hand)?;
    let mut chi_table = p.poisoned_chi::<T, L>();
    hand(dev, f_table, p, opts.tpb, &u, &psi, &mut chi_table, nbr)?;
    let err_table = p.check::<T, L>("hand-written with a table", &chi_table)?;
    let t_ours = common::time(Backend::Cuda, opts.reps, || {
        ours(p.lat, opts.tpb, &u, &psi, &mut chi_ours)
    })?;
    let u12 = p.links12::<T, L>();
    let mut chi_12 = p.poisoned_chi::<T, L>();
    ours12(p.lat, opts.tpb, &u12, &psi, &mut chi_12)?;
    let err_12 = p.check::<T, L>("on_gpu! with 12-real links", &chi_12)?;
    let t_12 = common::time(Backend::Cuda, opts.reps, || {
        ours12(p.lat, opts.tpb, &u12, &psi, &mut chi_12)
    })?;
    drop((u12, chi_12));
    // 16-bit storage, against the f32 kernels (the row counts the f32 model's bytes).
    let sixteen = if T::NAME == "f32" {
        let (u16, psi16) = (p.links16::<L>(), p.psi16::<L>());
        let nan = Complex::new(f16::NAN, f16::NAN);
        let mut chi16: Field<ColorVector<f16>, L> =
            Field::filled(p.lat.volume(), ColorVector::new([nan; 3]));
        ours16(p.lat, opts.tpb, &u16, &psi16, &mut chi16)?;
        let err = p.check16::<L>("on_gpu! with 16-bit storage", &chi16)?;
        let t = common::time(Backend::Cuda, opts.reps, || {
            ours16(p.lat, opts.tpb, &u16, &psi16, &mut chi16)
        })?;
        Some(Row::new::<T, L>("gpu", "on_gpu_16", p, t, Some(err)))
    } else {
        None
    };
    let t_hand = common::time(Backend::Cuda, opts.reps, || {
        hand(dev, f, p, opts.tpb, &u, &psi, &mut chi_hand, None)
    })?;
    let t_table = common::time(Backend::Cuda, opts.reps, || {
        hand(dev, f_table, p, opts.tpb, &u, &psi, &mut chi_table, nbr)
    })?;
    drop((u, psi, chi_ours, chi_hand, chi_table, table));
    let t_copy = common::ceiling::Ceilings::new()?
        .copy_seconds(opts.reps, p.model_bytes::<T>() / 2)?
        .best();
    let mut rows = vec![
        Row::new::<T, L>("gpu", "on_gpu", p, t_ours, Some(err_ours)),
        Row::new::<T, L>("gpu", "on_gpu_12", p, t_12, Some(err_12)),
        Row::new::<T, L>("gpu", "hand_written", p, t_hand, Some(err_hand)),
        Row::new::<T, L>("gpu", "hand_table", p, t_table, Some(err_table)),
        Row::new::<T, L>("gpu", "device_copy", p, t_copy, None),
    ];
    rows.extend(sixteen);
    Ok(rows)
}
