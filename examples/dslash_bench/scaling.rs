//! `--devices N`: the Dslash of `ours` over a lattice split across 1 to N devices
//! (`SplitLattice`), f32 in AoSoA<32>. Weak scaling keeps L^4 sites per device (the lattice
//! grows along t); strong scaling splits one lattice. Each split's result is checked against
//! the same lattice run as one part on one device, element by element and bit for bit.
//! Timings: wall clock of `--reps` calls between synchronisations of every device, median of
//! five. Each timed call shifts what the call before it wrote (`D_oe` then `D_eo`, as in a
//! solver), so each refreshes one parity's halos (halos move only where a call shifts a
//! field written since); the exchange's unhidden cost is that time minus the time of the
//! same call on a source whose halos are current.

use crate::BenchResult;
use ongpu::prelude::*;
use ongpu::{AoSoA, Devices};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::time::Instant;

type L32 = AoSoA<32>;

/// The stencil over the sites of parity `parity` of a split lattice: the body of `ours`,
/// unchanged.
fn dslash(
    lat: &SplitLattice,
    parity: usize,
    u: &SplitField<[ColorMatrix<f32>; 4], L32>,
    psi: &SplitField<ColorVector<f32>, L32>,
    chi: &mut SplitField<ColorVector<f32>, L32>,
) -> ongpu::Result<()> {
    on_gpu!(lat.of_parity(parity), 128, |i| {
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

pub fn matrix(site: usize, mu: usize) -> ColorMatrix<f32> {
    let mut m = ColorMatrix::zero();
    for a in 0..3 {
        for b in 0..3 {
            let k = 18 * mu + 6 * a + 2 * b;
            m[a][b] = Complex::new(noise(site, k), noise(site, k + 1));
        }
    }
    m
}

pub fn vector(site: usize) -> ColorVector<f32> {
    let mut v = ColorVector::zero();
    for a in 0..3 {
        v[a] = Complex::new(noise(site, 100 + 2 * a), noise(site, 101 + 2 * a));
    }
    v
}

/// What one split run gives: the two results (whole-lattice order) and the times.
struct SplitRun {
    chi: Vec<ColorVector<f32>>,
    eta: Vec<ColorVector<f32>>,
    /// Seconds per Dslash call, its halo refresh included.
    call: Seconds,
    /// Seconds per Dslash call on a source whose halos are current (no exchange).
    current: f64,
}

/// Median seconds per call over five batches of `reps` calls of `f` over `split`, after a
/// warm-up call.
fn time_batches(
    split: &SplitLattice,
    reps: usize,
    f: impl FnMut() -> ongpu::Result<()>,
) -> ongpu::Result<Seconds> {
    Seconds::of_batches(reps, f, || split.synchronize())
}

/// Seconds per call: the whole call, and the host's share (queueing it, before the final
/// synchronisation): a host time near the call's says the host, not the GPUs, sets the pace.
#[derive(Clone, Copy)]
pub struct Seconds {
    pub call: f64,
    pub host: f64,
}

impl Seconds {
    /// After a warm-up call of `f`, five batches of `reps` calls, each between two calls of
    /// `settle` (which waits for the devices, and for the other ranks where there are some):
    /// the medians of the call's time and of the host's time to queue it.
    pub fn of_batches(
        reps: usize,
        mut f: impl FnMut() -> ongpu::Result<()>,
        mut settle: impl FnMut() -> ongpu::Result<()>,
    ) -> ongpu::Result<Seconds> {
        f()?;
        let (mut times, mut host) = (Vec::new(), Vec::new());
        for _ in 0..5 {
            settle()?;
            let start = Instant::now();
            for _ in 0..reps {
                f()?;
            }
            host.push(start.elapsed().as_secs_f64() / reps as f64);
            settle()?;
            times.push(start.elapsed().as_secs_f64() / reps as f64);
        }
        Ok(Seconds {
            call: crate::common::median(times),
            host: crate::common::median(host),
        })
    }
}

impl std::ops::Div<f64> for Seconds {
    type Output = Seconds;
    fn div(self, n: f64) -> Seconds {
        Seconds {
            call: self.call / n,
            host: self.host / n,
        }
    }
}

/// The call's fields over a split lattice: links and source from `matrix` and `vector` (the
/// same for every split), the two results, and the work vector the timing passes back and
/// forth.
pub struct DslashFields {
    pub u: SplitField<[ColorMatrix<f32>; 4], L32>,
    pub psi: SplitField<ColorVector<f32>, L32>,
    pub chi: SplitField<ColorVector<f32>, L32>,
    pub eta: SplitField<ColorVector<f32>, L32>,
    pub work: SplitField<ColorVector<f32>, L32>,
}

impl DslashFields {
    pub fn new(split: &SplitLattice) -> ongpu::Result<DslashFields> {
        Ok(DslashFields {
            u: SplitField::from_fn(split, |i| std::array::from_fn(|mu| matrix(i, mu)))?,
            psi: SplitField::from_fn(split, vector)?,
            chi: SplitField::zeros(split)?,
            eta: SplitField::zeros(split)?,
            work: SplitField::from_fn(split, vector)?,
        })
    }

    /// Seconds per call of `chi = D_oe work`, then `work = D_eo chi`, `reps` times: each
    /// call shifts what the one before wrote, so each refreshes one parity's halos (its
    /// boundary waits for them while its interior runs), as in a solver. (The values grow
    /// without bound; the time does not depend on them.)
    pub fn time(&mut self, split: &SplitLattice, reps: usize) -> ongpu::Result<Seconds> {
        let DslashFields { u, chi, work, .. } = self;
        Ok(time_batches(split, reps, || {
            dslash(split, 1, u, work, chi)?;
            dslash(split, 0, u, chi, work)
        })? / 2.0)
    }

    /// Seconds per call of `chi = D_oe psi`, `psi` never written: no exchange.
    pub fn time_current(&mut self, split: &SplitLattice, reps: usize) -> ongpu::Result<f64> {
        let DslashFields { u, psi, chi, .. } = self;
        Ok(time_batches(split, reps, || dslash(split, 1, u, psi, chi))?.call)
    }

    /// `chi = D_oe psi`, then `eta = D_eo chi`, and their results in the whole lattice's
    /// order.
    pub fn results(&mut self, split: &SplitLattice) -> ongpu::Result<[Vec<ColorVector<f32>>; 2]> {
        dslash(split, 1, &self.u, &self.psi, &mut self.chi)?;
        dslash(split, 0, &self.u, &self.chi, &mut self.eta)?;
        Ok([self.chi.to_vec()?, self.eta.to_vec()?])
    }
}

/// One run over `lat` split over `devices`: the call's times, with and without its
/// exchange, and the results.
fn run_split(lat: &Lattice, devices: &Devices, reps: usize) -> BenchResult<SplitRun> {
    let split = lat.split_along(devices, 3)?;
    let mut fields = DslashFields::new(&split)?;
    let call = fields.time(&split, reps)?;
    let current = fields.time_current(&split, reps)?;
    let [chi, eta] = fields.results(&split)?;
    Ok(SplitRun {
        chi,
        eta,
        call,
        current,
    })
}

pub fn bits(v: &[ColorVector<f32>]) -> Vec<u32> {
    v.iter()
        .flat_map(|x| (0..3).flat_map(move |a| [x[a].re.to_bits(), x[a].im.to_bits()]))
        .collect()
}

/// Weak and strong scaling over 1 to `max` devices (GPUs, or with `emulate` parts of one
/// device, which run one after another: there the figures show what splitting costs).
pub fn run(
    max: usize,
    l: usize,
    strong: [usize; 4],
    reps: usize,
    emulate: bool,
) -> BenchResult<()> {
    let have = Devices::all()?.len();
    let max = if emulate { max } else { max.min(have) };
    let devices = |n: usize| {
        if emulate {
            Devices::emulated(n)
        } else {
            Devices::first(n)
        }
    };
    let what = if emulate {
        "parts of device 0"
    } else {
        "devices"
    };
    println!(
        "split Dslash (f32, AoSoA<32>, one parity per call), 1 to {max} {what} ({have} present)"
    );
    println!(
        "{:<7} {:>3}  {:<14} {:<14} {:>10} {:>10} {:>7} {:>12} {:>10} {:>10}",
        "scaling",
        "n",
        "lattice",
        "per part",
        "us/call",
        "GFLOP/s",
        "eff.",
        "halo KB",
        "exch. us",
        "host us"
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
            let one = run_split(&lat, &Devices::first(1)?, reps)?;
            let got = if n == 1 {
                None
            } else {
                Some(run_split(&lat, &devices(n)?, reps)?)
            };
            let run = got.as_ref().unwrap_or(&one);
            if bits(&run.chi) != bits(&one.chi) || bits(&run.eta) != bits(&one.eta) {
                return Err(format!("{mode} scaling on {n} {what} differs from one device").into());
            }
            let t = run.call.call;
            let t_base = *t1.get_or_insert(t);
            // Ideal times: weak, t1 on real devices (n times the work on n devices) and
            // n t1 on parts of one; strong, t1 / n and t1.
            let ideal = match (mode, emulate) {
                ("weak", false) => t_base,
                ("weak", true) => n as f64 * t_base,
                (_, false) => t_base / n as f64,
                (_, true) => t_base,
            };
            let flops = crate::FLOPS_PER_SITE * (lat.volume() / 2) as f64;
            let mut per = dims;
            per[3] /= n;
            // Each part receives one layer of the written parity on either side, 24 bytes a site.
            let section = dims[0] * dims[1] * dims[2];
            let halo_kb = if n == 1 {
                0.0
            } else {
                (section * 24 * n) as f64 / 1e3
            };
            println!(
                "{:<7} {:>3}  {:<14} {:<14} {:>10.1} {:>10.0} {:>6.1}% {:>12.0} {:>10.1} {:>10.1}",
                mode,
                n,
                format!("{}x{}x{}x{}", dims[0], dims[1], dims[2], dims[3]),
                format!("{}x{}x{}x{}", per[0], per[1], per[2], per[3]),
                t * 1e6,
                flops / t / 1e9,
                ideal / t * 100.0,
                halo_kb,
                (t - run.current).max(0.0) * 1e6,
                run.call.host * 1e6
            );
        }
    }
    println!(
        "eff.: ideal time / time (weak on real devices: the one-device time; on parts of one \
         device: n times it; strong: 1/n of it, or it); halo KB: bytes copied per exchange \
         of a colour-vector field, all parts; exch. us: the call minus the same call on a \
         source whose halos are current (its exchange, unhidden); host us: the host's time to \
         queue a call (the GPUs wait for the host where it comes near us/call)"
    );
    Ok(())
}
