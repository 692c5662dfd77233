//! The GPU side: the library's `hop` and `hop_clover`, the hand-written kernels of
//! `reference.cu` on the same fields (through their device addresses), and the copy
//! ceiling, each checked first, then timed with CUDA events.

use crate::check::{Prec, Problem};
use crate::{common, BenchResult, Row};
use ongpu::cuda::{self, nvrtc, Device, Function, ParamList, Shape};
use ongpu::prelude::*;
use ongpu::qcd::wilson::{CloverSite, Spinor};
use ongpu::{Backend, Element};

/// The hand-written kernels.
const REFERENCE: &str = include_str!("reference.cu");

/// Threads per block of the hand-written kernels (the library's launches choose their own).
const TPB: u32 = 128;

/// The geometry the reference kernels take (`struct Geom` of `reference.cu`).
#[repr(C)]
struct Geom {
    l: [i32; 4],
    v: u32,
    h: u32,
}

/// One launch of the hand-written kernel `f` on the even sites (`a`: the clover blocks of
/// the clover kernel).
fn hand<T: Prec>(
    dev: &'static Device,
    f: Function,
    p: &Problem,
    u: &crate::check::FieldOf<[ColorMatrix<T>; 4]>,
    psi: &crate::check::FieldOf<Spinor<T>>,
    a: Option<&crate::check::FieldOf<CloverSite<T>>>,
    out: &mut crate::check::FieldOf<Spinor<T>>,
) -> ongpu::Result<()>
where
    [ColorMatrix<T>; 4]: Element,
    Spinor<T>: Element,
    CloverSite<T>: Element,
{
    let v = p.lat.volume();
    let (op, up, pp) = (out.device_ptr_mut()?, u.device_ptr()?, psi.device_ptr()?);
    let ap = a.map(|a| a.device_ptr()).transpose()?;
    let geom = Geom {
        l: [p.l as i32; 4],
        v: v as u32,
        h: (v / 2) as u32,
    };
    let mut params = ParamList::new();
    params.push(&op);
    params.push(&up);
    params.push(&pp);
    if let Some(ap) = &ap {
        params.push(ap);
    }
    params.push(&geom);
    let shape = Shape {
        grid: ((v / 2).div_ceil(TPB as usize) as u32, 1, 1),
        block: (TPB, 1, 1),
        shared_bytes: 0,
    };
    // SAFETY: the parameters match `wilson_T(T*, const T*, const T*, Geom)` and
    // `clover_T(T*, const T*, const T*, const T*, Geom)`; the fields are AoSoA<32> fields of
    // the lattice's sites and outlive the launch (the timing synchronises before they drop).
    unsafe {
        cuda::launch(dev, f, shape, &mut params, || {
            "the reference Wilson Dslash".into()
        })
    }
}

/// Checks and times ours, the hand-written kernels and the copy in precision `T`.
pub fn run<T: Prec>(p: &Problem, reps: usize) -> BenchResult<Vec<Row>>
where
    ColorVector<T>: Element,
    ColorMatrix<T>: Element,
    [ColorMatrix<T>; 4]: Element,
    Spinor<T>: Element,
    CloverSite<T>: Element,
{
    let dev = cuda::device()?;
    let (arch, _) = nvrtc::target_for(dev.info().compute_capability);
    let compiled = nvrtc::compile(REFERENCE, &arch, "reference.cu", &[])?;
    let real = if T::NAME == "f32" { "float" } else { "double" };
    let f_wilson = cuda::load_function(dev, &compiled, &format!("wilson_{real}"))?;
    let f_clover = cuda::load_function(dev, &compiled, &format!("clover_{real}"))?;
    let f = crate::check::Fields::<T>::of(p);
    let mut rows = Vec::new();
    for clover in [false, true] {
        let mut ours = p.poisoned::<T>();
        let mut theirs = p.poisoned::<T>();
        let a_hand = clover.then_some(&f.a);
        let kernel = if clover { f_clover } else { f_wilson };
        let call_ours = |out: &mut _| f.ours(p.lat, clover, out);
        call_ours(&mut ours)?;
        let e_ours = p.check("on_gpu!", clover, &ours)?;
        hand(dev, kernel, p, &f.u, &f.psi, a_hand, &mut theirs)?;
        let e_hand = p.check("hand-written", clover, &theirs)?;
        let t_ours = common::time(Backend::Cuda, reps, || call_ours(&mut ours))?;
        let t_hand = common::time(Backend::Cuda, reps, || {
            hand(dev, kernel, p, &f.u, &f.psi, a_hand, &mut theirs)
        })?;
        rows.push(p.row::<T>(clover, "on_gpu", t_ours, Some(e_ours)));
        rows.push(p.row::<T>(clover, "hand_written", t_hand, Some(e_hand)));
    }
    drop(f);
    for clover in [false, true] {
        let (_, bytes) = p.cost::<T>(clover);
        let t_copy = common::ceiling::Ceilings::new()?
            .copy_seconds(reps, bytes as usize / 2)?
            .best();
        rows.push(p.row::<T>(clover, "device_copy", t_copy, None));
    }
    Ok(rows)
}
