//! The quarks' boundary condition in time.
//!
//! A fermion field on a periodic lattice may be periodic or antiperiodic in time,
//! `ψ(x + T t̂) = ± ψ(x)`; the gauge field is always periodic. Antiperiodic is what the
//! path integral gives for fermions at temperature `1/T` (the trace over Grassmann states),
//! so it is the standard choice of dynamical simulations and of propagators, and the
//! default of this library's HMC and examples. The operators are built periodic unless told
//! otherwise ([`Staggered::with_boundary`](crate::staggered::Staggered::with_boundary),
//! [`Wilson::with_boundary`](crate::wilson::Wilson::with_boundary)).
//!
//! The sign enters the hops that cross the last time slice, `x_t = T − 1 → 0` and back, and
//! nothing else: an operator applies it by negating the time links `U_t(x)` of the last
//! slice in its own copy of the links. This is exact for both hops (the backward hop from
//! `x_t = 0` reads `U_t(x − t̂)†` of the last slice), costs nothing per application, and
//! leaves the clover term alone: each of its plaquettes holds either none or two of those
//! links, so its field strength is the same.

use crate::gauge::LinksOf;
use ongpu::prelude::*;

/// The fermions' boundary condition in time (direction 3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TimeBoundary {
    /// `ψ(x + T t̂) = −ψ(x)`: the physical choice, and the default.
    #[default]
    Antiperiodic,
    /// `ψ(x + T t̂) = ψ(x)`.
    Periodic,
}

impl TimeBoundary {
    /// The factor of a hop across the last time slice: −1 or 1.
    pub fn sign(self) -> f64 {
        match self {
            TimeBoundary::Antiperiodic => -1.0,
            TimeBoundary::Periodic => 1.0,
        }
    }

    /// The allowed time momenta are `(2πn + θ)/T` with this `θ`: π or 0.
    pub fn momentum_offset(self) -> f64 {
        match self {
            TimeBoundary::Antiperiodic => std::f64::consts::PI,
            TimeBoundary::Periodic => 0.0,
        }
    }
}

impl std::fmt::Display for TimeBoundary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TimeBoundary::Antiperiodic => "antiperiodic",
            TimeBoundary::Periodic => "periodic",
        })
    }
}

impl std::str::FromStr for TimeBoundary {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "antiperiodic" | "ap" => Ok(TimeBoundary::Antiperiodic),
            "periodic" | "p" => Ok(TimeBoundary::Periodic),
            _ => Err(format!(
                "`{s}` is not a time boundary: write antiperiodic or periodic"
            )),
        }
    }
}

/// Multiplies the time links `U_t(x)` of the last time slice of `links` by `boundary`'s
/// sign (nothing to do for a periodic boundary): the links of a fermion operator with that
/// boundary. Applying it twice gives the links back.
pub fn apply_time_boundary<S: Space>(
    lat: S,
    boundary: TimeBoundary,
    links: &mut LinksOf<S>,
) -> ongpu::Result<()> {
    if boundary == TimeBoundary::Periodic {
        return Ok(());
    }
    let last = lat.whole().extents()[3] - 1;
    let sign = boundary.sign();
    on_gpu!(lat, |i| {
        if lat.coord(i, 3) == last {
            links[3] = sign * links[3];
        }
    })
}
