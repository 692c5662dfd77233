//! The Möbius domain-wall operator again, on the host, from its defining formula and the
//! host Wilson hopping term (full γ matrices), slice by slice in the fifth dimension:
//!
//! `D ψ(s) = (b D_W + 1) ψ(s) + (c D_W − 1) χ(s)`, `χ(s) = P_− ψ(s+1) + P_+ ψ(s−1)`,
//!
//! `D_W = (4 − M5) − ½ H`, the walls `P_− ψ(Ls) = −m_f P_− ψ(0)`, `P_+ ψ(−1) = −m_f P_+
//! ψ(Ls−1)`. The device operator is factored differently (`A − ½ H M_φ`); this is the
//! formula as written.

use crate::wilson::HostWilson;
use ongpu_qcd::domain_wall::MobiusParams;
use ongpu_qcd::gauge::GaugeField;
use ongpu_qcd::wilson::HostSpinor;
use ongpu_runtime::ColorVector;

/// A 5-D field on the host: `psi[s][x]`.
pub type HostFive = Vec<Vec<HostSpinor>>;

/// The host Möbius operator.
pub struct HostMobius {
    wilson: HostWilson,
    params: MobiusParams,
}

impl HostMobius {
    /// The operator of the links of `u` with `params`.
    pub fn new(u: &GaugeField, params: MobiusParams) -> ongpu_runtime::Result<Self> {
        Ok(HostMobius {
            wilson: HostWilson::from_gauge(u, 0.125)?,
            params,
        })
    }

    /// `D_W(−M5) ψ = (4 − M5) ψ − ½ H ψ`.
    fn wilson(&self, psi: &[HostSpinor]) -> Vec<HostSpinor> {
        let h = self.wilson.hopping(psi);
        let w = 4.0 - self.params.m5;
        psi.iter()
            .zip(&h)
            .map(|(p, h)| std::array::from_fn(|spin| p[spin] * w - h[spin] * 0.5))
            .collect()
    }

    /// `D ψ` for `psi[s][x]`.
    pub fn apply(&self, psi: &HostFive) -> HostFive {
        let ls = psi.len();
        let MobiusParams { mf, b, c, .. } = self.params;
        (0..ls)
            .map(|s| {
                // χ(s): P_+ (spins 0, 1) from s − 1, P_− (spins 2, 3) from s + 1.
                let (below, wb) = if s == 0 { (ls - 1, -mf) } else { (s - 1, 1.0) };
                let (above, wa) = if s == ls - 1 { (0, -mf) } else { (s + 1, 1.0) };
                let chi: Vec<HostSpinor> = (0..psi[s].len())
                    .map(|x| {
                        [
                            psi[below][x][0] * wb,
                            psi[below][x][1] * wb,
                            psi[above][x][2] * wa,
                            psi[above][x][3] * wa,
                        ]
                    })
                    .collect();
                let (dw_psi, dw_chi) = (self.wilson(&psi[s]), self.wilson(&chi));
                (0..psi[s].len())
                    .map(|x| {
                        std::array::from_fn(|spin| {
                            dw_psi[x][spin] * b + psi[s][x][spin] + dw_chi[x][spin] * c
                                - chi[x][spin]
                        })
                    })
                    .collect()
            })
            .collect()
    }
}

/// `Γ5 ψ = γ5 R5 ψ`: `(Γ5 ψ)(s) = γ5 ψ(Ls − 1 − s)`.
pub fn gamma5_reflect(psi: &HostFive) -> HostFive {
    let ls = psi.len();
    (0..ls)
        .map(|s| {
            psi[ls - 1 - s]
                .iter()
                .map(|p| [p[0], p[1], -p[2], -p[3]])
                .collect()
        })
        .collect()
}

/// A zero 5-D field of `ls` slices of `volume` sites.
pub fn zeros(ls: usize, volume: usize) -> HostFive {
    vec![vec![[ColorVector::zero(); 4]; volume]; ls]
}
