//! The clover-leaf field strength `F_{mu nu}(x)`: the anti-Hermitian, traceless part of the
//! four plaquettes of the `mu nu` plane that start and end at `x`, one `on_gpu!` pass. The
//! clover term of Wilson fermions is built from it; the flow's energy density and
//! topological charge read it too.

use super::GaugeField;
use crate::SiteLayout;
use ongpu::prelude::*;

/// The six planes `(mu, nu)`, `mu < nu`, in the order a [`FieldStrengthOf`] stores them.
pub const PLANES: [(usize, usize); 6] = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)];

/// The index of the plane `(mu, nu)`, `mu < nu`, in [`PLANES`].
pub const fn plane(mu: usize, nu: usize) -> usize {
    mu * (7 - mu) / 2 + nu - mu - 1
}

/// `F_{mu nu}(x)` for the six planes of [`PLANES`] at every site.
pub type FieldStrengthOf<S> = <S as Space>::Field<[ColorMatrix<f64>; 6], SiteLayout>;

impl<S: Space> GaugeField<S> {
    /// `f[plane(mu, nu)] = F_{mu nu}(x)` at every site, with
    /// `F_{mu nu} = (Q_{mu nu} − Q_{mu nu}†)/8` less its trace over 3, where `Q_{mu nu}(x)` is
    /// the sum of the four plaquettes `x → x + mû → x + mû + nû → x + nû → x` and its
    /// turns about `x` (the clover leaf): anti-Hermitian and traceless, `a² G_{mu nu}` of
    /// the continuum field plus O(a⁴). Zero for the unit field.
    pub fn field_strength(&self, f: &mut FieldStrengthOf<S>) -> ongpu::Result<()> {
        let u = self.links();
        let lat = self.lattice();
        // A pass per plane, with the directions as constants: one pass for all six would
        // hold more than a thread's registers, and directions known only at run time would
        // index the loaded links in local memory.
        macro_rules! plane_pass {
            ($p:literal, $mu:literal, $nu:literal) => {
                on_gpu!(lat, {
                    let q =
                        u[$mu] * u.shift($mu, 1)[$nu] * u.shift($nu, 1)[$mu].adj() * u[$nu].adj()
                            + u[$nu]
                                * u.shift($nu, 1).shift($mu, -1)[$mu].adj()
                                * u.shift($mu, -1)[$nu].adj()
                                * u.shift($mu, -1)[$mu]
                            + u.shift($mu, -1)[$mu].adj()
                                * u.shift($mu, -1).shift($nu, -1)[$nu].adj()
                                * u.shift($mu, -1).shift($nu, -1)[$mu]
                                * u.shift($nu, -1)[$nu]
                            + u.shift($nu, -1)[$nu].adj()
                                * u.shift($nu, -1)[$mu]
                                * u.shift($nu, -1).shift($mu, 1)[$nu]
                                * u[$mu].adj();
                    let a = (q - q.adj()) * 0.125;
                    let third = a.trace() * (1.0 / 3.0);
                    f[$p] = a - ColorMatrix::identity() * third;
                })
            };
        }
        plane_pass!(0, 0, 1)?;
        plane_pass!(1, 0, 2)?;
        plane_pass!(2, 0, 3)?;
        plane_pass!(3, 1, 2)?;
        plane_pass!(4, 1, 3)?;
        plane_pass!(5, 2, 3)
    }
}
