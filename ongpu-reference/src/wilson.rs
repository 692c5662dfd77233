//! The Wilson(-clover) operator again, on the host and independent of the `on_gpu!`
//! passes: plain loops over sites, neighbours from coordinates, full 4×4 Dirac matrices (no
//! spin projection), the clover term as a dense 12×12 matrix per site built from the γ
//! matrices (no packing). Results on the device are checked against it.

use crate::sites::{neighbour, step};
use ongpu_qcd::gauge::{GaugeField, HostLinks, PLANES};
use ongpu_qcd::wilson::gamma::{gamma, one_plus, spin_product, spin_times};
use ongpu_qcd::wilson::{CloverSite, HostSpinor};
use ongpu_runtime::{ColorMatrix, ColorVector, Complex, Lattice};

/// A dense 12×12 matrix on spin-colour space, index `3 · spin + colour`.
pub type SpinColorMatrix = [[Complex<f64>; 12]; 12];

/// The clover-leaf field strength at every site, `[F_{mu nu}; 6]` in the order of
/// [`PLANES`]: `(Q − Q†)/8` less its trace over 3, `Q` the four plaquettes of the plane
/// through `x`, each walked from `x` link by link.
pub fn field_strength(lat: &Lattice, links: &HostLinks) -> Vec<[ColorMatrix<f64>; 6]> {
    // The link from `c` one step along `±mu` (the adjoint of the backward link).
    let step = |c: [usize; 4], mu: usize, d: isize| -> (ColorMatrix<f64>, [usize; 4]) {
        let n = step(lat, c, mu, d);
        if d > 0 {
            (links[lat.index(c)][mu], n)
        } else {
            (links[lat.index(n)][mu].adj(), n)
        }
    };
    // The closed path from `c` along the steps `path`.
    let walk = |c: [usize; 4], path: [(usize, isize); 4]| -> ColorMatrix<f64> {
        let mut at = c;
        let mut m = ColorMatrix::identity();
        for (mu, d) in path {
            let (u, next) = step(at, mu, d);
            m *= u;
            at = next;
        }
        m
    };
    (0..lat.volume())
        .map(|x| {
            let c = lat.coords(x);
            PLANES.map(|(mu, nu)| {
                let q = walk(c, [(mu, 1), (nu, 1), (mu, -1), (nu, -1)])
                    + walk(c, [(nu, 1), (mu, -1), (nu, -1), (mu, 1)])
                    + walk(c, [(mu, -1), (nu, -1), (mu, 1), (nu, 1)])
                    + walk(c, [(nu, -1), (mu, 1), (nu, 1), (mu, -1)]);
                let a = (q - q.adj()) * 0.125;
                a - ColorMatrix::identity() * (a.trace() / 3.0)
            })
        })
        .collect()
}

/// The clover blocks `A(x) = 1 − c_sw κ Σ_{mu<nu} γ_mu γ_nu F_{mu nu}(x)` as dense 12×12
/// matrices, from [`field_strength`] and the γ matrices.
pub fn clover_matrices(
    lat: &Lattice,
    links: &HostLinks,
    kappa: f64,
    c_sw: f64,
) -> Vec<SpinColorMatrix> {
    let spin: Vec<_> = PLANES
        .iter()
        .map(|&(mu, nu)| spin_product(&gamma(mu), &gamma(nu)))
        .collect();
    field_strength(lat, links)
        .into_iter()
        .map(|f| {
            std::array::from_fn(|i| {
                std::array::from_fn(|j| {
                    let (s, a, t, b) = (i / 3, i % 3, j / 3, j % 3);
                    let one = if i == j { 1.0 } else { 0.0 };
                    let sum: Complex<f64> = (0..6).map(|p| spin[p][s][t] * f[p][a][b]).sum();
                    Complex::new(one, 0.0) - sum * (c_sw * kappa)
                })
            })
        })
        .collect()
}

/// `m ψ` for a dense spin-colour matrix.
pub fn spin_color_times(m: &SpinColorMatrix, psi: &HostSpinor) -> HostSpinor {
    std::array::from_fn(|s| {
        ColorVector::new(std::array::from_fn(|a| {
            (0..12).map(|j| m[3 * s + a][j] * psi[j / 3][j % 3]).sum()
        }))
    })
}

/// `D_W ψ(x) = ψ(x) − κ Σ_mu [(1 − γ_mu) U_mu(x) ψ(x+mû) + (1 + γ_mu) U_mu(x−mû)† ψ(x−mû)]`
/// on a periodic lattice, on the host.
pub struct HostWilson {
    lat: Lattice,
    links: HostLinks,
    kappa: f64,
    clover: Option<Vec<SpinColorMatrix>>,
}

impl HostWilson {
    /// The operator of the links of `u` (copied to the host) and the hopping parameter
    /// `kappa`.
    pub fn from_gauge(u: &GaugeField, kappa: f64) -> ongpu_runtime::Result<Self> {
        Ok(HostWilson {
            lat: u.lattice(),
            links: u.to_host()?,
            kappa,
            clover: None,
        })
    }

    /// The clover-improved operator `D = A − κ H` of `u` ([`clover_matrices`]).
    pub fn with_clover(u: &GaugeField, kappa: f64, c_sw: f64) -> ongpu_runtime::Result<Self> {
        let mut op = HostWilson::from_gauge(u, kappa)?;
        op.clover = Some(clover_matrices(&op.lat, &op.links, kappa, c_sw));
        Ok(op)
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
                    let f = neighbour(&self.lat, c, mu, true);
                    let b = neighbour(&self.lat, c, mu, false);
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

    /// `D ψ = A ψ − κ H ψ` at every site (`A = 1` without a clover term).
    pub fn apply(&self, psi: &[HostSpinor]) -> Vec<HostSpinor> {
        let h = self.hopping(psi);
        (0..psi.len())
            .map(|x| {
                let a_psi = match &self.clover {
                    None => psi[x],
                    Some(a) => spin_color_times(&a[x], &psi[x]),
                };
                std::array::from_fn(|s| a_psi[s] - h[x][s] * self.kappa)
            })
            .collect()
    }
}

/// The dense 12×12 matrix of a packed clover site (block diagonal: spins 0, 1 and 2, 3),
/// read by the table of [`clover_algebra`](ongpu_qcd::wilson::clover_algebra).
pub fn unpack_clover(site: &CloverSite) -> SpinColorMatrix {
    let zero = Complex::new(0.0, 0.0);
    let mut m = [[zero; 12]; 12];
    for b in 0..2 {
        let v = &site[6 * b..6 * b + 6];
        let o = 6 * b;
        for r in 0..3 {
            m[o + r][o + r] = Complex::new(v[3][r].re, 0.0);
            m[o + 3 + r][o + 3 + r] = Complex::new(v[3][r].im, 0.0);
            for k in 0..3 {
                m[o + r][o + 3 + k] = v[r][k];
                m[o + 3 + k][o + r] = v[r][k].conj();
            }
        }
        for (n, (r, k)) in [(1, 0), (2, 0), (2, 1)].into_iter().enumerate() {
            m[o + r][o + k] = v[4][n];
            m[o + k][o + r] = v[4][n].conj();
            m[o + 3 + r][o + 3 + k] = v[5][n];
            m[o + 3 + k][o + 3 + r] = v[5][n].conj();
        }
    }
    m
}
