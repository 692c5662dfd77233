//! `--devices N`: the Dslash of `ours` over a lattice split across 1 to N devices
//! (`SplitLattice`), f32 in AoSoA<32>. Weak scaling keeps L^4 sites per device (the lattice
//! grows along t); strong scaling splits one lattice. Each split's result is checked against
//! the same lattice run as one part on one device, element by element and bit for bit.
//! Timings: wall clock of `--reps` calls between synchronisations of every device, median of
//! five; a call includes refreshing the halos of the field it writes.

use crate::BenchResult;
use ongpu::prelude::*;
use ongpu::{AoSoA, Devices};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::time::Instant;

type L32 = AoSoA<32>;

/// The stencil over a split lattice: the body of `ours`, unchanged.
fn dslash(
    lat: &SplitLattice,
    u: &SplitField<[ColorMatrix<f32>; 4], L32>,
    psi: &SplitField<ColorVector<f32>, L32>,
    chi: &mut SplitField<ColorVector<f32>, L32>,
) -> ongpu::Result<()> {
    on_gpu!(lat.even(), 128, |i| {
        let mut r = ColorVector::zero();
        for mu in 0..4 {
            r += u[mu] * psi.shift(mu, 1) - u.shift(mu, -1)[mu].adj() * psi.shift(mu, -1);
        }
        chi = r;
    })
}

/// A deterministic pseudo-random number per (site, slot), the same for every split.
fn noise(site: usize, slot: usize) -> f32 {
    let mut r = SmallRng::seed_from_u64((site as u64) << 8 | slot as u64);
    r.random_range(-1.0..1.0)
}

fn matrix(site: usize, mu: usize) -> ColorMatrix<f32> {
    let mut m = ColorMatrix::zero();
    for a in 0..3 {
        for b in 0..3 {
            let k = 18 * mu + 6 * a + 2 * b;
            m[a][b] = Complex::new(noise(site, k), noise(site, k + 1));
        }
    }
    m
}

fn vector(site: usize) -> ColorVector<f32> {
    let mut v = ColorVector::zero();
    for a in 0..3 {
        v[a] = Complex::new(noise(site, 100 + 2 * a), noise(site, 101 + 2 * a));
    }
    v
}

/// One run: the result (whole-lattice order) and the time per call in seconds.
fn run_split(
    lat: &Lattice,
    devices: &Devices,
    reps: usize,
) -> BenchResult<(Vec<ColorVector<f32>>, f64)> {
    let split = lat.split_along(devices, 3)?;
    let u = SplitField::from_fn(&split, |i| std::array::from_fn(|mu| matrix(i, mu)))?;
    let psi = SplitField::from_fn(&split, vector)?;
    let mut chi = SplitField::zeros(&split)?;
    dslash(&split, &u, &psi, &mut chi)?;
    split.synchronize()?;
    let result = chi.to_vec()?;
    let mut times = Vec::new();
    for _ in 0..5 {
        let start = Instant::now();
        for _ in 0..reps {
            dslash(&split, &u, &psi, &mut chi)?;
        }
        split.synchronize()?;
        times.push(start.elapsed().as_secs_f64() / reps as f64);
    }
    Ok((result, crate::common::median(times)))
}

/// Weak and strong scaling over 1 to `max` devices.
pub fn run(max: usize, l: usize, strong: [usize; 4], reps: usize) -> BenchResult<()> {
    let have = Devices::all()?.len();
    let max = max.min(have);
    println!("split Dslash (f32, AoSoA<32>, even sites), 1 to {max} device(s) of {have}");
    println!(
        "{:<7} {:>3}  {:<14} {:<14} {:>10} {:>10} {:>7}",
        "scaling", "dev", "lattice", "per device", "us/call", "GFLOP/s", "eff."
    );
    for (mode, dims_for) in [
        (
            "weak",
            Box::new(|n: usize| [l, l, l, l * n]) as Box<dyn Fn(usize) -> [usize; 4]>,
        ),
        ("strong", Box::new(move |_| strong)),
    ] {
        let mut t1 = None;
        for n in 1..=max {
            let dims = dims_for(n);
            let lat = Lattice::new(dims)?;
            // The reference: the same lattice as one part on one device.
            let (want, t_one) = run_split(&lat, &Devices::first(1)?, reps)?;
            let (got, t) = if n == 1 {
                (want.clone(), t_one)
            } else {
                run_split(&lat, &Devices::first(n)?, reps)?
            };
            let bits = |v: &[ColorVector<f32>]| {
                v.iter()
                    .flat_map(|x| (0..3).flat_map(move |a| [x[a].re.to_bits(), x[a].im.to_bits()]))
                    .collect::<Vec<_>>()
            };
            if bits(&got) != bits(&want) {
                return Err(
                    format!("{mode} scaling on {n} devices differs from one device").into(),
                );
            }
            let t_base = *t1.get_or_insert(t);
            let eff = match mode {
                "weak" => t_base / t,
                _ => t_base / (n as f64 * t),
            };
            let flops = crate::FLOPS_PER_SITE * (lat.volume() / 2) as f64;
            let mut per = dims;
            per[3] /= n;
            println!(
                "{:<7} {:>3}  {:<14} {:<14} {:>10.1} {:>10.0} {:>6.1}%",
                mode,
                n,
                format!("{}x{}x{}x{}", dims[0], dims[1], dims[2], dims[3]),
                format!("{}x{}x{}x{}", per[0], per[1], per[2], per[3]),
                t * 1e6,
                flops / t / 1e9,
                eff * 100.0
            );
        }
    }
    Ok(())
}
