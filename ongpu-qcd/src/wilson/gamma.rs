//! The Dirac matrices of the DeGrand–Rossi basis (MILC's, Chroma's and QUDA's), as plain
//! complex 4×4 matrices on the host: what the host operator and the tests multiply with,
//! written independently of the spin projections the device passes use.
//!
//! `γ_0 … γ_3` are the x, y, z, t directions (the lattice's directions 0–3); they are
//! Hermitian, anticommute (`{γ_mu, γ_nu} = 2 δ_mu,nu`), and `γ_5 = γ_0 γ_1 γ_2 γ_3` is
//! `diag(1, 1, −1, −1)`: the basis is chiral, so the clover term's blocks are the upper and
//! lower two spins.

use ongpu::prelude::*;

/// A complex 4×4 matrix in spin space, `m[row][column]`.
pub type SpinMatrix = [[Complex<f64>; 4]; 4];

fn c(re: f64, im: f64) -> Complex<f64> {
    Complex::new(re, im)
}

/// `γ_mu` for `mu` in `0..4` (x, y, z, t), and `γ_5` for `mu == 4`.
pub fn gamma(mu: usize) -> SpinMatrix {
    let (o, i, one) = (c(0.0, 0.0), c(0.0, 1.0), c(1.0, 0.0));
    let (mi, mone) = (-i, -one);
    match mu {
        0 => [[o, o, o, i], [o, o, i, o], [o, mi, o, o], [mi, o, o, o]],
        1 => [
            [o, o, o, mone],
            [o, o, one, o],
            [o, one, o, o],
            [mone, o, o, o],
        ],
        2 => [[o, o, i, o], [o, o, o, mi], [mi, o, o, o], [o, i, o, o]],
        3 => [
            [o, o, one, o],
            [o, o, o, one],
            [one, o, o, o],
            [o, one, o, o],
        ],
        4 => [
            [one, o, o, o],
            [o, one, o, o],
            [o, o, mone, o],
            [o, o, o, mone],
        ],
        _ => panic!("gamma({mu}): directions are 0..4 and 4 is γ5"),
    }
}

/// The product of two spin matrices.
pub fn spin_product(a: &SpinMatrix, b: &SpinMatrix) -> SpinMatrix {
    std::array::from_fn(|r| std::array::from_fn(|col| (0..4).map(|k| a[r][k] * b[k][col]).sum()))
}

/// `m ψ` for a Dirac spinor `ψ` (spin components of colour vectors).
pub fn spin_times(m: &SpinMatrix, psi: &[ColorVector<f64>; 4]) -> [ColorVector<f64>; 4] {
    std::array::from_fn(|r| (0..4).fold(ColorVector::zero(), |acc, k| acc + psi[k] * m[r][k]))
}

/// `1 + sign γ_mu`.
pub fn one_plus(sign: f64, mu: usize) -> SpinMatrix {
    let g = gamma(mu);
    std::array::from_fn(|r| {
        std::array::from_fn(|col| {
            let one = if r == col { 1.0 } else { 0.0 };
            g[r][col] * sign + c(one, 0.0)
        })
    })
}
