//! The Wilson operator again, on the host and independent of the `on_gpu!` passes: plain
//! loops over sites, neighbours from coordinates, full 4×4 Dirac matrices (no spin
//! projection). Results on the device are checked against it.

use super::gamma::{one_plus, spin_times};
use super::HostSpinor;
use crate::gauge::{GaugeField, HostLinks};
use ongpu::prelude::*;

/// `D_W ψ(x) = ψ(x) − κ Σ_mu [(1 − γ_mu) U_mu(x) ψ(x+mû) + (1 + γ_mu) U_mu(x−mû)† ψ(x−mû)]`
/// on a periodic lattice, on the host.
pub struct HostWilson {
    lat: Lattice,
    links: HostLinks,
    kappa: f64,
}

impl HostWilson {
    /// The operator of the links of `u` (copied to the host) and the hopping parameter
    /// `kappa`.
    pub fn from_gauge(u: &GaugeField, kappa: f64) -> ongpu::Result<Self> {
        Ok(HostWilson {
            lat: u.lattice(),
            links: u.to_host()?,
            kappa,
        })
    }

    fn neighbour(&self, c: [usize; 4], mu: usize, forward: bool) -> usize {
        let l = self.lat.extents()[mu];
        let mut n = c;
        n[mu] = if forward {
            (c[mu] + 1) % l
        } else {
            (c[mu] + l - 1) % l
        };
        self.lat.index(n)
    }

    /// The hopping term `H ψ(x) = Σ_mu [(1 − γ_mu) U_mu(x) ψ(x+mû) + (1 + γ_mu)
    /// U_mu(x−mû)† ψ(x−mû)]` at every site, so that `D_W = 1 − κ H`.
    pub fn hopping(&self, psi: &[HostSpinor]) -> Vec<HostSpinor> {
        let minus: Vec<_> = (0..4).map(|mu| one_plus(-1.0, mu)).collect();
        let plus: Vec<_> = (0..4).map(|mu| one_plus(1.0, mu)).collect();
        (0..self.lat.volume())
            .map(|x| {
                let c = self.lat.coords(x);
                let mut acc = [ColorVector::zero(); 4];
                for mu in 0..4 {
                    let f = self.neighbour(c, mu, true);
                    let b = self.neighbour(c, mu, false);
                    let u = self.links[x][mu];
                    let ub = self.links[b][mu].adj();
                    let up: HostSpinor = std::array::from_fn(|s| u * psi[f][s]);
                    let down: HostSpinor = std::array::from_fn(|s| ub * psi[b][s]);
                    let t1 = spin_times(&minus[mu], &up);
                    let t2 = spin_times(&plus[mu], &down);
                    for s in 0..4 {
                        acc[s] = acc[s] + t1[s] + t2[s];
                    }
                }
                acc
            })
            .collect()
    }

    /// `D_W ψ` at every site.
    pub fn apply(&self, psi: &[HostSpinor]) -> Vec<HostSpinor> {
        let h = self.hopping(psi);
        (0..psi.len())
            .map(|x| std::array::from_fn(|s| psi[x][s] - h[x][s] * self.kappa))
            .collect()
    }
}
