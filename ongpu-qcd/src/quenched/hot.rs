//! The hot start of a chain, made by the updates: the gauge field knows nothing of them.

use super::QuenchedUpdate;
use crate::gauge::GaugeField;
use ongpu::prelude::*;

impl<S: Space> GaugeField<S> {
    /// The hot start of a Markov chain: the links after one heatbath sweep at β = 0 from the
    /// unit field, i.e. drawn from the Haar measure on the device, by
    /// [`QuenchedUpdate::new(lat, seed)`](QuenchedUpdate::new). A chain that goes on from
    /// here draws from later streams with [`QuenchedUpdate::resume(lat, seed, 1)`](QuenchedUpdate::resume).
    pub fn hot(lat: S, seed: u64) -> ongpu::Result<GaugeField<S>> {
        let mut u = GaugeField::unit(lat)?;
        QuenchedUpdate::new(lat, seed).heatbath(&mut u, 0.0)?;
        Ok(u)
    }
}
