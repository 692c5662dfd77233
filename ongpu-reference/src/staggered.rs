//! The staggered operator again, on the host and independent of the `on_gpu!` one: plain
//! loops over sites, neighbours from coordinates (`Lattice::coords` and `Lattice::index`,
//! not `Lattice::shift`), parities and phases from coordinates, the links as they are (not
//! folded) and the 1/2 applied here. The solver's answer is checked against it.

use crate::sites::neighbour;
use ongpu_qcd::gauge::{GaugeField, HostLinks};
use ongpu_qcd::staggered::HostVector;
use ongpu_runtime::{ColorVector, Lattice};

/// The parity of the site at coordinates `c`: 0 even, 1 odd.
pub fn parity_of(c: [usize; 4]) -> usize {
    c.iter().sum::<usize>() % 2
}

/// `η_mu(x) = (−1)^(x_0 + … + x_{mu−1})`, written out again here rather than taken from
/// the set-up code that folds it into the device links, so that a wrong phase there shows.
fn phase(c: [usize; 4], mu: usize) -> f64 {
    match (0..mu).map(|nu| c[nu]).sum::<usize>() % 2 {
        0 => 1.0,
        _ => -1.0,
    }
}

/// `Σ |v|²` over the even sites of `v`.
pub fn norm2_even(lat: &Lattice, v: &[ColorVector<f64>]) -> f64 {
    (0..lat.volume())
        .filter(|&i| parity_of(lat.coords(i)) == 0)
        .map(|i| v[i].norm2())
        .sum()
}

/// The operator on the host: `D ψ(x) = ½ Σ_mu η_mu(x) [U_mu(x) ψ(x+mû) − U_mu(x−mû)† ψ(x−mû)]`
/// and `A = m² − D_eo D_oe` on the even sites.
pub struct HostStaggered {
    lat: Lattice,
    links: HostLinks,
    mass: f64,
}

impl HostStaggered {
    /// The operator of the links `links` (`U_mu(x)`, no phases) and the mass `mass`.
    pub fn new(lat: Lattice, links: HostLinks, mass: f64) -> Self {
        HostStaggered { lat, links, mass }
    }

    /// The operator of the links of `u` (copied to the host) and the mass `mass`.
    pub fn from_gauge(u: &GaugeField, mass: f64) -> ongpu_runtime::Result<Self> {
        Ok(HostStaggered::new(u.lattice(), u.to_host()?, mass))
    }

    /// The site one step from `c` along `mu`, forwards or backwards, periodically.
    /// `D ψ` at the sites of parity `parity` (both parities with `None`); zero elsewhere.
    pub fn dslash_at(&self, psi: &[ColorVector<f64>], parity: Option<usize>) -> HostVector {
        (0..self.lat.volume())
            .map(|i| {
                let c = self.lat.coords(i);
                if parity.is_some_and(|p| p != parity_of(c)) {
                    return ColorVector::zero();
                }
                let mut sum = ColorVector::zero();
                for mu in 0..4 {
                    let (f, b) = (
                        neighbour(&self.lat, c, mu, true),
                        neighbour(&self.lat, c, mu, false),
                    );
                    let hop = self.links[i][mu] * psi[f] - self.links[b][mu].adj() * psi[b];
                    sum += hop * phase(c, mu);
                }
                sum * 0.5
            })
            .collect()
    }

    /// `A x = m² x − D_eo D_oe x` at the even sites (zero at the odd ones); reads only the
    /// even sites of `x`.
    pub fn apply(&self, x: &[ColorVector<f64>]) -> HostVector {
        let odd = self.dslash_at(x, Some(1));
        let even = self.dslash_at(&odd, Some(0));
        let m2 = self.mass * self.mass;
        (0..self.lat.volume())
            .map(|i| {
                if parity_of(self.lat.coords(i)) == 0 {
                    x[i] * m2 - even[i]
                } else {
                    ColorVector::zero()
                }
            })
            .collect()
    }

    /// The true `|b − A x| / |b|` over the even sites (0 for a zero source and `x = 0`).
    pub fn relative_residual(&self, b: &[ColorVector<f64>], x: &[ColorVector<f64>]) -> f64 {
        let ax = self.apply(x);
        let r: HostVector = b.iter().zip(&ax).map(|(b, ax)| *b - *ax).collect();
        let (rr, bb) = (norm2_even(&self.lat, &r), norm2_even(&self.lat, b));
        if bb == 0.0 {
            rr.sqrt()
        } else {
            (rr / bb).sqrt()
        }
    }
}
