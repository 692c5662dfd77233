//! The GPU side: the hand-written kernel of `reference.cu` (compiled after wilson_bench's
//! reference, whose hop it calls) on the library's fields, the comparison of the two at the
//! timed size, and the timings with CUDA events (median of `--reps` batches), with the copy
//! ceiling of the model's bytes.

use crate::{common, ours, print_row, BenchResult, Prec, Problem};
use ongpu::cuda::{self, nvrtc, Device, Function, ParamList, Shape};
use ongpu::prelude::*;
use ongpu::qcd::domain_wall::{FiveField, FiveSpinor};
use ongpu::{Backend, Element};

/// The hand-written kernels: wilson_bench's reference (the hop) and the 5-D kernel.
const REFERENCE: [&str; 2] = [
    include_str!("../wilson_bench/reference.cu"),
    include_str!("reference.cu"),
];

/// The geometry the reference kernels take (`struct Geom` of wilson_bench's reference).
#[repr(C)]
struct Geom {
    l: [i32; 4],
    v: u32,
    h: u32,
}

/// The compiled hand-written kernels.
pub struct Hand {
    dev: &'static Device,
    float: Function,
    double: Function,
}

impl Hand {
    /// Compiles the reference for the current device.
    pub fn new() -> ongpu::Result<Hand> {
        let dev = cuda::device()?;
        let (arch, _) = nvrtc::target_for(dev.info().compute_capability);
        let compiled = nvrtc::compile(&REFERENCE.concat(), &arch, "dwf_reference.cu", &[])?;
        Ok(Hand {
            dev,
            float: cuda::load_function(dev, &compiled, "dwf_float")?,
            double: cuda::load_function(dev, &compiled, "dwf_double")?,
        })
    }

    /// One launch on the even sites of `p`: blocks of 32 sites by 8 slices.
    pub fn run<T: Prec, const LS: usize>(
        &self,
        p: &Problem<T, LS>,
        out: &mut FiveField<LS, T>,
    ) -> ongpu::Result<()>
    where
        [ColorMatrix<T>; 4]: Element,
        FiveSpinor<T, LS>: Element,
    {
        let v = p.lat.volume();
        let (op, up, pp) = (
            out.device_ptr_mut()?,
            p.u.device_ptr()?,
            p.psi.device_ptr()?,
        );
        let dims = p.lat.extents();
        let geom = Geom {
            l: dims.map(|d| d as i32),
            v: v as u32,
            h: (v / 2) as u32,
        };
        let ls = LS as u32;
        let mut params = ParamList::new();
        params.push(&op);
        params.push(&up);
        params.push(&pp);
        params.push(&geom);
        params.push(&ls);
        let shape = Shape {
            grid: ((v / 2).div_ceil(32) as u32, ls.div_ceil(8), 1),
            block: (32, 8, 1),
            shared_bytes: 0,
        };
        let f = if T::NAME == "f32" {
            self.float
        } else {
            self.double
        };
        // SAFETY: the parameters match `dwf_T(T*, const T*, const T*, Geom, unsigned)`; the
        // fields are AoSoA<32> fields of the lattice's sites (links, and 5-D spinors of LS
        // slices) and outlive the launch (the timing synchronises before they drop).
        unsafe {
            cuda::launch(self.dev, f, shape, &mut params, || {
                "the reference domain-wall Dslash".into()
            })
        }
    }
}

/// The largest relative difference between two results at the even sites (odd sites both
/// NaN), or an error naming the first component over `tolerance`.
fn compare<T: Prec, const LS: usize>(
    p: &Problem<T, LS>,
    a: &FiveField<LS, T>,
    b: &FiveField<LS, T>,
) -> BenchResult<f64>
where
    [ColorMatrix<T>; 4]: Element,
    FiveSpinor<T, LS>: Element,
{
    let (a, b) = (a.to_vec()?, b.to_vec()?);
    let mut worst = 0.0f64;
    for x in 0..a.len() {
        let even = p.lat.parity(x) == 0;
        for s in 0..LS {
            for spin in 0..4 {
                for (za, zb) in a[x].0[s][spin].v.iter().zip(b[x].0[s][spin].v) {
                    for (u, w) in [(za.re.to(), zb.re.to()), (za.im.to(), zb.im.to())] {
                        if !even {
                            if !(u.is_nan() && w.is_nan()) {
                                return Err(format!("odd site {x} was written").into());
                            }
                            continue;
                        }
                        let e = (u - w).abs() / w.abs().max(1.0);
                        if e.is_nan() || e > 2.0 * T::TOLERANCE {
                            return Err(format!(
                                "on_gpu! and the hand-written kernel differ at site {x}, s = {s}, spin {spin}: {u} vs {w}"
                            )
                            .into());
                        }
                        worst = worst.max(e);
                    }
                }
            }
        }
    }
    Ok(worst)
}

/// Checks ours against the hand-written kernel at `size`, then times both and the copy.
pub fn time<T: Prec, const LS: usize>(
    hand: &Hand,
    size: usize,
    reps: usize,
    e_small: f64,
) -> BenchResult<()>
where
    ColorVector<T>: Element,
    ColorMatrix<T>: Element,
    [ColorMatrix<T>; 4]: Element,
    FiveSpinor<T, LS>: Element,
{
    let p = Problem::<T, LS>::new(size, 7)?;
    let (mut mine, mut theirs) = (p.poisoned(), p.poisoned());
    ours(&p, &mut mine)?;
    hand.run(&p, &mut theirs)?;
    let e_pair = compare(&p, &mine, &theirs)?;
    let t_ours = common::time(Backend::Cuda, reps, || ours(&p, &mut mine))?;
    let t_hand = common::time(Backend::Cuda, reps, || hand.run(&p, &mut theirs))?;
    let (flops, bytes) = (p.flops(), p.model_bytes());
    drop((mine, theirs));
    print_row::<T>("on_gpu", t_ours, flops, bytes, Some(e_small.max(e_pair)));
    print_row::<T>("hand_written", t_hand, flops, bytes, Some(e_small));
    drop(p);
    let t_copy = common::ceiling::Ceilings::new()?
        .copy_seconds(reps, bytes as usize / 2)?
        .best();
    print_row::<T>("device_copy", t_copy, flops, bytes, None);
    println!(
        "{:>4} on_gpu / hand-written: {:.2}x the speed; {:.0}% of the copy",
        T::NAME,
        t_hand / t_ours,
        100.0 * t_copy / t_ours
    );
    Ok(())
}
