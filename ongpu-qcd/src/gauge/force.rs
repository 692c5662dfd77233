//! The force of the Wilson gauge action and the link update by an su(3) field: the two
//! passes the gradient flow and the molecular dynamics of HMC are made of.

use super::algebra::{exp_su3, traceless_antihermitian};
use super::staple_sum::with_staples;
use super::LinksOf;
use ongpu::prelude::*;

/// `acc_mu = keep · acc_mu + c · D_mu` at every site, with `D_mu(x) = −½ P(U_mu(x) A_mu(x))`
/// (`A` the staples, `P` the traceless anti-Hermitian part): `D = ∂ Σ_p Re tr U_p`, the
/// gradient of the sum over unoriented plaquettes for generators normalised to
/// `tr(TᵃTᵇ) = −½δᵃᵇ` (the HMC force is `(β/3) D`, the flow's `Z` is `2 D`). One pass per
/// direction (each a kernel with its direction a constant), each reading the links shifted
/// and writing only `acc`.
pub fn accumulate_force<S: Space>(
    lat: S,
    u: &LinksOf<S>,
    c: f64,
    keep: f64,
    acc: &mut LinksOf<S>,
) -> ongpu::Result<()> {
    let half_c = -0.5 * c;
    // One pass per direction, the direction a literal (see `with_staples`); with `keep = 0`
    // the accumulator is written without being read.
    macro_rules! pass {
        ($mu:literal) => {
            if keep == 0.0 {
                with_staples!([lat,] u, $mu, |a| {
                    acc[$mu] = traceless_antihermitian(u[$mu] * a) * half_c;
                })
            } else {
                with_staples!([lat,] u, $mu, |a| {
                    acc[$mu] = traceless_antihermitian(u[$mu] * a) * half_c + acc[$mu] * keep;
                })
            }
        };
    }
    pass!(0)?;
    pass!(1)?;
    pass!(2)?;
    pass!(3)
}

/// `U_mu(x) = exp(c · X_mu(x)) U_mu(x)` at every site, for an su(3) field `X`: a pass per
/// direction, with the direction a literal (one exponential per thread keeps it in
/// registers; four in a loop spilled).
pub fn exp_times<S: Space>(
    lat: S,
    x: &LinksOf<S>,
    c: f64,
    u: &mut LinksOf<S>,
) -> ongpu::Result<()> {
    macro_rules! pass {
        ($mu:literal) => {
            on_gpu!(lat, {
                u[$mu] = exp_su3(x[$mu] * c) * u[$mu];
            })
        };
    }
    pass!(0)?;
    pass!(1)?;
    pass!(2)?;
    pass!(3)
}
