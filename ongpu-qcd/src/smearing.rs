//! Link smearing: APE (M. Albanese et al., Phys. Lett. B 192 (1987) 163) and stout
//! (C. Morningstar and M. Peardon, Phys. Rev. D 69 (2004) 054501), in all four directions
//! or only the spatial ones (time is direction 3), each step replacing every link at once
//! from the links of the step before.
//!
//! With `A_mu(x)` the sum of the staples around `U_mu(x)` (so that the plaquettes that
//! hold the link sum to `Re tr(U_mu(x) A_mu(x))`; `A†` is the sum of the paths from `x` to
//! `x + mû` the other way round), `n` staples per link (6 in four directions, 4 spatially):
//!
//! - APE: `U' = Proj[(1 − α) U + (α/n) A†]`, with `Proj` the SU(3) projection of
//!   [`polar_su3`] (gauge covariant, unlike a Gram–Schmidt of the rows);
//! - stout: `U' = exp(iQ) U`, `iQ = P(Ω) = −ρ P(U A)` with `Ω = ρ A† U†` and `P` the
//!   traceless anti-Hermitian part: analytic in the links, so differentiable (smeared
//!   fermion forces need that), and one Euler step of the Wilson flow of length `ρ`
//!   (Lüscher's `V_{t+ε} = exp(ε Z) V_t` with `Z = −P(U A)`).

use crate::gauge::algebra::{exp_su3, traceless_antihermitian};
use crate::gauge::staple_sum::with_staples;
use crate::gauge::{polar_su3, GaugeField, LinksOf};
use ongpu::prelude::*;

/// Which smearing and its parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// APE with weight `α ∈ [0, 1]` on the staples.
    Ape {
        /// The staples' weight α.
        alpha: f64,
    },
    /// Stout with the isotropic `ρ ≥ 0`.
    Stout {
        /// The step ρ.
        rho: f64,
    },
}

/// A smearing and the scratch links it writes each step into (allocated at the first
/// step).
///
/// ```
/// # mod ongpu { pub use ::ongpu_runtime::*; pub mod qcd { pub use ::ongpu_qcd::*; } }
/// use ongpu::qcd::gauge::GaugeField;
/// use ongpu::qcd::smearing::Smearing;
/// # fn main() -> ongpu::Result<()> {
/// let lat = ongpu::Lattice::new([4, 4, 4, 4])?;
/// let mut u = GaugeField::smooth(lat, 0.8, 1)?;
/// let rough = u.plaquette()?;
/// Smearing::stout(lat, 0.1)?.apply(&mut u, 5)?;
/// assert!(u.plaquette()? > rough);
/// Smearing::ape(lat, 0.5)?.spatial().apply(&mut u, 3)?;   // spatial links only
/// # Ok(())
/// # }
/// ```
pub struct Smearing<S: Space = Lattice> {
    lat: S,
    kind: Kind,
    spatial: bool,
    scratch: Option<LinksOf<S>>,
}

impl<S: Space> Smearing<S> {
    /// APE smearing with the weight `alpha ∈ [0, 1]` on the staples.
    pub fn ape(lat: S, alpha: f64) -> ongpu::Result<Self> {
        if !(0.0..=1.0).contains(&alpha) {
            return Err(ongpu::Error::InvalidArgument(format!(
                "the APE weight α must lie in [0, 1], not {alpha}"
            )));
        }
        Ok(Smearing::of(lat, Kind::Ape { alpha }))
    }

    /// Stout smearing with the isotropic step `rho ≥ 0` (finite).
    pub fn stout(lat: S, rho: f64) -> ongpu::Result<Self> {
        if !(rho >= 0.0 && rho.is_finite()) {
            return Err(ongpu::Error::InvalidArgument(format!(
                "the stout step ρ must be finite and not negative, not {rho}"
            )));
        }
        Ok(Smearing::of(lat, Kind::Stout { rho }))
    }

    fn of(lat: S, kind: Kind) -> Self {
        Smearing {
            lat,
            kind,
            spatial: false,
            scratch: None,
        }
    }

    /// The same smearing of the spatial links only, from spatial staples (the time links
    /// are left as they are): the smearing of hadron sources and sinks.
    #[must_use]
    pub fn spatial(self) -> Self {
        Smearing {
            spatial: true,
            ..self
        }
    }

    /// Which smearing.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// `steps` smearing steps of `u`.
    pub fn apply(&mut self, u: &mut GaugeField<S>, steps: usize) -> ongpu::Result<()> {
        u.check_lattice(self.lat, "the smearing")?;
        let lat = self.lat;
        let out = match &mut self.scratch {
            Some(s) => s,
            empty => empty.insert(lat.zeros()?),
        };
        for _ in 0..steps {
            let links = u.links();
            // A pass per direction, the direction a literal (see `with_staples`).
            macro_rules! pass {
                ($mu:literal, $planes:literal, $staples:literal) => {
                    match self.kind {
                        Kind::Ape { alpha } => {
                            let keep = 1.0 - alpha;
                            let w = alpha / $staples;
                            with_staples!([lat,] links, $mu, planes = $planes, |a| {
                                out[$mu] = polar_su3(links[$mu] * keep + a.adj() * w);
                            })
                        }
                        Kind::Stout { rho } => {
                            let minus_rho = -rho;
                            with_staples!([lat,] links, $mu, planes = $planes, |a| {
                                let x = traceless_antihermitian(links[$mu] * a) * minus_rho;
                                out[$mu] = exp_su3(x) * links[$mu];
                            })
                        }
                    }
                };
            }
            if self.spatial {
                pass!(0, 3, 4.0)?;
                pass!(1, 3, 4.0)?;
                pass!(2, 3, 4.0)?;
                on_gpu!(lat, {
                    out[3] = links[3];
                })?;
            } else {
                pass!(0, 4, 6.0)?;
                pass!(1, 4, 6.0)?;
                pass!(2, 4, 6.0)?;
                pass!(3, 4, 6.0)?;
            }
            std::mem::swap(u.links_mut(), out);
        }
        Ok(())
    }
}
