//! Sweeps over the gauge field: for each direction and parity, the staples in a call of their
//! own (a field written in a call cannot be shifted in it), then the links of that direction
//! and parity, which share no plaquette, updated at once.

use crate::heatbath::{heatbath_link, overrelax_link};
use ongpu::prelude::*;

/// The gauge field: four links per site.
pub type Gauge = Field<[ColorMatrix<f64>; 4]>;

/// Heatbath passes per sweep: one per direction and parity, each with a stream of its own.
pub const PASSES_PER_SWEEP: u32 = 8;

/// The state of a run: the lattice, the links, scratch space for staples, the generator and
/// the number of heatbath passes so far (each draws from a stream of its own).
pub struct Ensemble {
    /// The lattice.
    pub lat: Lattice,
    /// The links `U_mu(x)`.
    pub u: Gauge,
    staple: Field<ColorMatrix<f64>>,
    rng: Philox,
    passes: u32,
}

impl Ensemble {
    /// A cold start (every link the identity) or a hot one (links drawn from the Haar
    /// measure, i.e. a heatbath at β = 0).
    pub fn new(lat: Lattice, hot: bool, seed: u64) -> ongpu::Result<Ensemble> {
        let v = lat.volume();
        let mut e = Ensemble {
            lat,
            u: Field::filled(v, [ColorMatrix::identity(); 4]),
            staple: Field::zeros(v),
            rng: Philox::new(seed),
            passes: 0,
        };
        if hot {
            e.heatbath(0.0)?;
        }
        Ok(e)
    }

    /// Continues a chain from links read from a file: `sweeps_done` sweeps (the file's
    /// sequence number) have drawn from streams already, so this run draws from later ones.
    pub fn from_links(lat: Lattice, u: Gauge, seed: u64, sweeps_done: u64) -> Ensemble {
        let v = lat.volume();
        Ensemble {
            lat,
            u,
            staple: Field::zeros(v),
            rng: Philox::new(seed),
            passes: (sweeps_done as u32).wrapping_mul(PASSES_PER_SWEEP),
        }
    }

    /// Heatbath sweeps behind the links (a hot start counts as one: a sweep at β = 0): what
    /// a saved configuration records, so that a chain continued from it draws new streams.
    pub fn sweeps_done(&self) -> u64 {
        (self.passes / PASSES_PER_SWEEP) as u64
    }

    /// The sum of the six staples of `U_mu(x)` at the sites of `sites`, so that the
    /// plaquettes containing `U_mu(x)` sum to `Re tr(U_mu(x) A(x))`.
    fn staples(&mut self, mu: usize, sites: Subset) -> ongpu::Result<()> {
        let (u, staple) = (&self.u, &mut self.staple);
        on_gpu!(sites, |i| {
            let mut a = ColorMatrix::zero();
            for nu in 0..4 {
                if nu != mu {
                    a += u.shift(mu, 1)[nu] * u.shift(nu, 1)[mu].adj() * u[nu].adj();
                    a += u.shift(mu, 1).shift(nu, -1)[nu].adj()
                        * u.shift(nu, -1)[mu].adj()
                        * u.shift(nu, -1)[nu];
                }
            }
            staple = a;
        })
    }

    /// The staples of every direction and parity, as a sweep computes them (for timing).
    pub fn staples_sweep(&mut self) -> ongpu::Result<()> {
        for mu in 0..4 {
            for sites in [self.lat.even(), self.lat.odd()] {
                self.staples(mu, sites)?;
            }
        }
        Ok(())
    }

    /// One heatbath sweep at coupling `beta`.
    pub fn heatbath(&mut self, beta: f64) -> ongpu::Result<()> {
        for mu in 0..4 {
            for sites in [self.lat.even(), self.lat.odd()] {
                self.staples(mu, sites)?;
                let rng = self.rng.stream(self.passes);
                self.passes += 1;
                let (u, staple) = (&mut self.u, &self.staple);
                on_gpu!(sites, |i| {
                    u[mu] = heatbath_link(u[mu], staple, beta, rng, i);
                })?;
            }
        }
        Ok(())
    }

    /// One overrelaxation sweep (leaves the action unchanged).
    pub fn overrelax(&mut self) -> ongpu::Result<()> {
        for mu in 0..4 {
            for sites in [self.lat.even(), self.lat.odd()] {
                self.staples(mu, sites)?;
                let (u, staple) = (&mut self.u, &self.staple);
                on_gpu!(sites, |i| {
                    u[mu] = overrelax_link(u[mu], staple);
                })?;
            }
        }
        Ok(())
    }

    /// The mean plaquette `(1/6V) Σ_x Σ_{mu<nu} Re tr U_{mu nu}(x) / 3`.
    pub fn plaquette(&self) -> ongpu::Result<f64> {
        let u = &self.u;
        let sum: f64 = on_gpu!(sum: self.lat, |i| {
            let mut s = 0.0;
            for mu in 0..4 {
                for nu in (mu + 1)..4 {
                    s += (u[mu] * u.shift(mu, 1)[nu] * u.shift(nu, 1)[mu].adj() * u[nu].adj())
                        .trace()
                        .re;
                }
            }
            s
        })?;
        Ok(sum / (18.0 * self.lat.volume() as f64))
    }

    /// The mean link trace `(1/4V) Σ_x Σ_mu Re tr U_mu(x) / 3` (zero on average: gauge
    /// invariance; a check of the start and of stored configurations).
    pub fn link_trace(&self) -> ongpu::Result<f64> {
        let u = &self.u;
        let sum: f64 = on_gpu!(sum: self.lat, |i| {
            let mut s = 0.0;
            for mu in 0..4 {
                s += u[mu].trace().re;
            }
            s
        })?;
        Ok(sum / (12.0 * self.lat.volume() as f64))
    }
}
