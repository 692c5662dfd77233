//! The GPU side: ours, the hand-written kernel of `reference.cu` on the same fields (through
//! their device addresses), and the copy ceiling, each checked first, then timed with CUDA
//! events over batches of back-to-back launches (median of `--reps`).

use crate::data::{Prec, Problem, MODEL_REALS};
use crate::{common, BenchResult, Row};
use ongpu::cuda::{self, nvrtc, Device, Function, ParamList, Shape};
use ongpu::prelude::*;
use ongpu::qcd::SiteLayout;
use ongpu::{Backend, Element};

/// The hand-written kernels.
const REFERENCE: &str = include_str!("reference.cu");

/// Threads per block of the hand-written kernel.
const TPB: u32 = 128;

/// The geometry the reference kernel takes (`struct Geom` of `reference.cu`).
#[repr(C)]
struct Geom {
    l: [i32; 4],
    v: u32,
    h: u32,
}

/// One launch of the hand-written kernel `f`: one thread per even site.
fn hand<T: Prec>(
    dev: &'static Device,
    f: Function,
    p: &Problem,
    fat: &Field<[ColorMatrix<T>; 4], SiteLayout>,
    naik: &Field<[ColorMatrix<T>; 4], SiteLayout>,
    psi: &Field<ColorVector<T>, SiteLayout>,
    chi: &mut Field<ColorVector<T>, SiteLayout>,
) -> ongpu::Result<()>
where
    ColorVector<T>: Element,
    [ColorMatrix<T>; 4]: Element,
{
    let v = p.lat.volume();
    let e = p.lat.extents();
    let (cp, fp, np, pp) = (
        chi.device_ptr_mut()?,
        fat.device_ptr()?,
        naik.device_ptr()?,
        psi.device_ptr()?,
    );
    let geom = Geom {
        l: e.map(|x| x as i32),
        v: v as u32,
        h: (v / 2) as u32,
    };
    let mut params = ParamList::new();
    params.push(&cp);
    params.push(&fp);
    params.push(&np);
    params.push(&pp);
    params.push(&geom);
    let shape = Shape {
        grid: ((v / 2).div_ceil(TPB as usize) as u32, 1, 1),
        block: (TPB, 1, 1),
        shared_bytes: 0,
    };
    // SAFETY: the parameters match `hisq_*(T*, const T*, const T*, const T*, Geom)`; the
    // fields hold the lattice's sites in AoSoA<32> and outlive the launch (the timing
    // synchronises before they are dropped).
    unsafe {
        cuda::launch(dev, f, shape, &mut params, || {
            "the reference HISQ Dslash".into()
        })
    }
}

/// Checks and times ours, the hand-written kernel and the copy for `T`.
pub fn run<T: Prec>(p: &Problem, reps: usize) -> BenchResult<Vec<Row>>
where
    ColorMatrix<T>: Element,
    ColorVector<T>: Element,
    [ColorMatrix<T>; 4]: Element,
{
    let dev = cuda::device()?;
    let (arch, _) = nvrtc::target_for(dev.info().compute_capability);
    let compiled = nvrtc::compile(REFERENCE, &arch, "reference.cu", &[])?;
    let f = cuda::load_function(dev, &compiled, &format!("hisq_{}", T::NAME))?;
    let (fat, naik, psi) = (p.fat::<T>(), p.naik::<T>(), p.psi::<T>());
    let mut chi_ours = p.poisoned::<T>();
    let mut chi_hand = p.poisoned::<T>();
    let ours = |chi: &mut _| ongpu::qcd::hisq::hop(p.lat.even(), &fat, &naik, &psi, chi);
    ours(&mut chi_ours)?;
    let err_ours = p.check("on_gpu!", &chi_ours)?;
    hand(dev, f, p, &fat, &naik, &psi, &mut chi_hand)?;
    let err_hand = p.check("hand-written", &chi_hand)?;
    let t_ours = common::time(Backend::Cuda, reps, || ours(&mut chi_ours))?;
    let t_hand = common::time(Backend::Cuda, reps, || {
        hand(dev, f, p, &fat, &naik, &psi, &mut chi_hand)
    })?;
    let bytes = (p.lat.volume() / 2) as f64 * MODEL_REALS * std::mem::size_of::<T>() as f64;
    drop((fat, naik, psi, chi_ours, chi_hand));
    let t_copy = common::ceiling::Ceilings::new()?
        .copy_seconds(reps, bytes as usize / 2)?
        .best();
    Ok(vec![
        Row {
            kernel: "on_gpu",
            seconds: t_ours,
            error: Some(err_ours),
        },
        Row {
            kernel: "hand_written",
            seconds: t_hand,
            error: Some(err_hand),
        },
        Row {
            kernel: "device_copy",
            seconds: t_copy,
            error: None,
        },
    ])
}
