//! Sweeps over a gauge field: for each direction and parity, the staples in a call of their
//! own (a field written in a call cannot be shifted in it), then the links of that direction
//! and parity, which share no plaquette, updated at once.

use super::heatbath::{heatbath_link, overrelax_link};
use crate::gauge::staple_sum::by_direction;
use crate::gauge::GaugeField;
use crate::SiteLayout;
use ongpu::prelude::*;

/// Heatbath passes per sweep: one per direction and parity, each with a stream of its own.
pub const PASSES_PER_SWEEP: u32 = 8;

/// The state of a Markov chain's updates: the generator, the number of heatbath passes so
/// far (each draws from a stream of its own) and scratch space for the staples (allocated
/// at the first sweep). A site's random numbers are keyed by its index in the whole lattice,
/// so a chain on a split lattice, or on one cut over MPI ranks, makes the same links as on
/// the whole lattice.
///
/// ```
/// # mod ongpu { pub use ::ongpu_runtime::*; pub mod qcd { pub use ::ongpu_qcd::*; } }
/// use ongpu::qcd::{gauge::GaugeField, quenched::QuenchedUpdate};
/// # fn main() -> ongpu::Result<()> {
/// let lat = ongpu::Lattice::new([4, 4, 4, 4])?;
/// let mut u = GaugeField::unit(lat)?;
/// let mut update = QuenchedUpdate::new(lat, 1);
/// update.sweep(&mut u, 5.7, 2)?;          // one heatbath and two overrelaxation sweeps
/// assert_eq!(update.sweeps_done(), 1);
/// # Ok(())
/// # }
/// ```
pub struct QuenchedUpdate<S: Space = Lattice> {
    lat: S,
    staple: Option<S::Field<ColorMatrix<f64>, SiteLayout>>,
    rng: Philox,
    passes: u32,
}

impl<S: Space> QuenchedUpdate<S> {
    /// Updates of gauge fields on `lat`, drawing from the generator of `seed` from its
    /// first stream.
    pub fn new(lat: S, seed: u64) -> QuenchedUpdate<S> {
        QuenchedUpdate::resume(lat, seed, 0)
    }

    /// Goes on with a chain that `sweeps_done` heatbath sweeps (a saved configuration's
    /// sequence number) have drawn from already, so that this run draws from later streams.
    pub fn resume(lat: S, seed: u64, sweeps_done: u64) -> QuenchedUpdate<S> {
        QuenchedUpdate {
            lat,
            staple: None,
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
    pub fn heatbath(&mut self, u: &mut GaugeField<S>, beta: f64) -> ongpu::Result<()> {
        u.check_lattice(self.lat, "the update")?;
        let lat = self.lat;
        for mu in 0..4 {
            for sites in [lat.even(), lat.odd()] {
                let rng = self.rng.stream(self.passes);
                self.passes += 1;
                let staple = self.staples(u, mu, sites)?;
                let u = u.links_mut();
                macro_rules! pass {
                    ($mu:literal) => {
                        on_gpu!(sites, |i| {
                            u[$mu] = heatbath_link(u[$mu], staple, beta, rng, lat.whole_index(i));
                        })
                    };
                }
                by_direction!(mu, pass)?;
            }
        }
        Ok(())
    }

    /// One overrelaxation sweep of `u`: leaves the action unchanged, moves the links.
    pub fn overrelax(&mut self, u: &mut GaugeField<S>) -> ongpu::Result<()> {
        u.check_lattice(self.lat, "the update")?;
        for mu in 0..4 {
            for sites in [self.lat.even(), self.lat.odd()] {
                let staple = self.staples(u, mu, sites)?;
                let u = u.links_mut();
                macro_rules! pass {
                    ($mu:literal) => {
                        on_gpu!(sites, {
                            u[$mu] = overrelax_link(u[$mu], staple);
                        })
                    };
                }
                by_direction!(mu, pass)?;
            }
        }
        Ok(())
    }

    /// One heatbath sweep at `beta` followed by `overrelax_steps` overrelaxation sweeps:
    /// the usual update of a quenched chain.
    pub fn sweep(
        &mut self,
        u: &mut GaugeField<S>,
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
    pub fn staples_sweep(&mut self, u: &GaugeField<S>) -> ongpu::Result<()> {
        u.check_lattice(self.lat, "the update")?;
        for mu in 0..4 {
            for sites in [self.lat.even(), self.lat.odd()] {
                self.staples(u, mu, sites)?;
            }
        }
        Ok(())
    }

    /// The staples of direction `mu` at `sites`, in the scratch field (allocated on first
    /// use).
    fn staples(
        &mut self,
        u: &GaugeField<S>,
        mu: usize,
        sites: S::Subset,
    ) -> ongpu::Result<&S::Field<ColorMatrix<f64>, SiteLayout>> {
        let staple = match &mut self.staple {
            Some(s) => s,
            empty => empty.insert(self.lat.zeros()?),
        };
        u.staples(mu, sites, staple)?;
        Ok(staple)
    }
}
