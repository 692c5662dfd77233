//! `--host-part`: whether the host's CPU threads, given a slab of the lattice beside the GPU
//! (`Devices::first(1)?.with_host()?`), make the Dslash faster than the GPU alone. Each
//! side's throughput is measured alone on the whole lattice (the GPU's calls, then the same
//! calls on the CPU backend), the split is sized by those throughputs
//! (`Lattice::split_weighted`; the host slab is at least two sites wide), and the split's
//! time is compared with the GPU's alone and with the ideal of the two together,
//! `1 / (1/t_gpu + 1/t_cpu)`. The split's results are checked against the GPU's (to f32
//! rounding: the host part does not contract to FMA).

use crate::scaling::DslashFields;
use crate::BenchResult;
use ongpu::prelude::*;
use ongpu::{Backend, Devices};

/// Seconds per call and the two results, in whole-lattice order.
type Timed = (f64, Vec<ColorVector<f32>>, Vec<ColorVector<f32>>);

/// Seconds per call of `chi = D psi; eta = D chi` / 2 over `split`, and the results.
fn time_dslash(split: &SplitLattice, reps: usize) -> BenchResult<Timed> {
    let mut fields = DslashFields::new(split)?;
    let call = fields.time(split, reps)?.call;
    let [chi, eta] = fields.results(split)?;
    Ok((call, chi, eta))
}

/// Runs the comparison on a lattice of extents `dims`, split along t.
pub fn run(dims: [usize; 4], reps: usize) -> BenchResult<()> {
    if ongpu::backend()? != Backend::Cuda {
        return Err(
            "--host-part compares the GPU with the GPU and the host's threads: it \
                    needs a CUDA device"
                .into(),
        );
    }
    let lat = Lattice::new(dims)?;
    let gpu_only = lat.split_along(&Devices::first(1)?, 3)?;
    let (t_gpu, chi, eta) = time_dslash(&gpu_only, reps)?;
    let cpu_reps = reps.div_ceil(20).max(1);
    let t_cpu = ongpu::with_backend(Backend::Cpu, || {
        time_dslash(&gpu_only, cpu_reps).map(|(t, _, _)| t)
    })?;
    let devices = Devices::first(1)?.with_host()?;
    let split = lat.split_weighted(&devices, 3, &[1.0 / t_gpu, 1.0 / t_cpu])?;
    let (t_split, c, e) = time_dslash(&split, reps)?;
    for (got, want) in [(&c, &chi), (&e, &eta)] {
        for (a, b) in got.iter().zip(want.iter()) {
            for k in 0..3 {
                if (a[k] - b[k]).norm() > 1e-5 * (1.0 + b[k].norm()) {
                    return Err(
                        format!("{split}: the split's Dslash differs from the GPU's").into(),
                    );
                }
            }
        }
    }
    let ideal = 1.0 / (1.0 / t_gpu + 1.0 / t_cpu);
    let host = split.slab(1);
    println!(
        "Dslash (f32, AoSoA<32>, even sites) on {}x{}x{}x{}: the GPU alone, the host's {} \
         alone, and both on one lattice",
        dims[0],
        dims[1],
        dims[2],
        dims[3],
        crate::common::device_name(Backend::Cpu)
    );
    println!("{:<34} {:>12}", "", "us/call");
    println!("{:<34} {:>12.1}", "GPU alone", t_gpu * 1e6);
    println!("{:<34} {:>12.1}", "CPU threads alone", t_cpu * 1e6);
    println!(
        "{:<34} {:>12.1}",
        format!("GPU + host slab t = {}..{}", host.start, host.end),
        t_split * 1e6
    );
    println!(
        "{:<34} {:>12.1}",
        "ideal of both (1/(1/tg + 1/tc))",
        ideal * 1e6
    );
    println!(
        "host share: {:.2}% of the sites (measured throughput asks for {:.2}%); GPU alone / \
         split: {:.3}x ({})",
        100.0 * host.len() as f64 / dims[3] as f64,
        100.0 * ideal / t_cpu,
        t_gpu / t_split,
        if t_split < t_gpu {
            "the host part pays"
        } else {
            "the host part does not pay"
        }
    );
    Ok(())
}
