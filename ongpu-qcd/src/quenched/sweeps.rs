//! Sweeps over a gauge field: for each direction and parity, the staples in a call of their
//! own (a field written in a call cannot be shifted in it), then the links of that direction
//! and parity, which share no plaquette, updated at once.

use super::heatbath::{heatbath_link, overrelax_link};
use crate::gauge::GaugeField;
use ongpu::prelude::*;

/// Heatbath passes per sweep: one per direction and parity, each with a stream of its own.
pub const PASSES_PER_SWEEP: u32 = 8;

/// The state of a Markov chain's updates: the generator, the number of heatbath passes so
/// far (each draws from a stream of its own) and scratch space for the staples.
///
/// ```
/// # mod ongpu { pub use ::ongpu_runtime::*; pub mod qcd { pub use ::ongpu_qcd::*; } }
/// use ongpu::qcd::{gauge::GaugeField, quenched::QuenchedUpdate};
/// # fn main() -> ongpu::Result<()> {
/// let lat = ongpu::Lattice::new([4, 4, 4, 4])?;
/// let mut u = GaugeField::unit(lat);
/// let mut update = QuenchedUpdate::new(lat, 1);
/// update.sweep(&mut u, 5.7, 2)?;          // one heatbath and two overrelaxation sweeps
/// assert_eq!(update.sweeps_done(), 1);
/// # Ok(())
/// # }
/// ```
pub struct QuenchedUpdate {
    lat: Lattice,
    staple: Field<ColorMatrix<f64>>,
    rng: Philox,
    passes: u32,
}

impl QuenchedUpdate {
    /// Updates of gauge fields on `lat`, drawing from the generator of `seed` from its
    /// first stream.
    pub fn new(lat: Lattice, seed: u64) -> QuenchedUpdate {
        QuenchedUpdate::resume(lat, seed, 0)
    }

    /// Goes on with a chain that `sweeps_done` heatbath sweeps (a saved configuration's
    /// sequence number) have drawn from already, so that this run draws from later streams.
    pub fn resume(lat: Lattice, seed: u64, sweeps_done: u64) -> QuenchedUpdate {
        QuenchedUpdate {
            lat,
            staple: Field::zeros(lat.volume()),
            rng: Philox::new(seed),
            passes: (sweeps_done as u32).wrapping_mul(PASSES_PER_SWEEP),
        }
    }

    /// Heatbath sweeps made by this chain (a hot start counts as one: a sweep at β = 0):
    /// what a saved configuration records as its sequence number.
    pub fn sweeps_done(&self) -> u64 {
        (self.passes / PASSES_PER_SWEEP) as u64
    }

    /// One heatbath sweep of `u` at coupling `beta` (β = 0 draws from the Haar measure).
    pub fn heatbath(&mut self, u: &mut GaugeField, beta: f64) -> ongpu::Result<()> {
        u.check_lattice(self.lat, "the update")?;
        for mu in 0..4 {
            for sites in [self.lat.even(), self.lat.odd()] {
                u.staples(mu, sites, &mut self.staple)?;
                let rng = self.rng.stream(self.passes);
                self.passes += 1;
                let (u, staple) = (u.links_mut(), &self.staple);
                on_gpu!(sites, |i| {
                    u[mu] = heatbath_link(u[mu], staple, beta, rng, i);
                })?;
            }
        }
        Ok(())
    }

    /// One overrelaxation sweep of `u`: leaves the action unchanged, moves the links.
    pub fn overrelax(&mut self, u: &mut GaugeField) -> ongpu::Result<()> {
        u.check_lattice(self.lat, "the update")?;
        for mu in 0..4 {
            for sites in [self.lat.even(), self.lat.odd()] {
                u.staples(mu, sites, &mut self.staple)?;
                let (u, staple) = (u.links_mut(), &self.staple);
                on_gpu!(sites, |i| {
                    u[mu] = overrelax_link(u[mu], staple);
                })?;
            }
        }
        Ok(())
    }

    /// One heatbath sweep at `beta` followed by `overrelax_steps` overrelaxation sweeps:
    /// the usual update of a quenched chain.
    pub fn sweep(
        &mut self,
        u: &mut GaugeField,
        beta: f64,
        overrelax_steps: usize,
    ) -> ongpu::Result<()> {
        self.heatbath(u, beta)?;
        for _ in 0..overrelax_steps {
            self.overrelax(u)?;
        }
        Ok(())
    }

    /// The staples of every direction and parity, as a sweep computes them (to time them
    /// apart from the updates).
    pub fn staples_sweep(&mut self, u: &GaugeField) -> ongpu::Result<()> {
        u.check_lattice(self.lat, "the update")?;
        for mu in 0..4 {
            for sites in [self.lat.even(), self.lat.odd()] {
                u.staples(mu, sites, &mut self.staple)?;
            }
        }
        Ok(())
    }
}
