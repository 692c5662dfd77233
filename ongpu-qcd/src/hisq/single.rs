//! The HISQ operator in single precision: `f32` copies of the fat and Naik links (rounded
//! once from the `f64` smearing), for the low-precision iterations of
//! [`MixedMultiShiftCg`](crate::staggered::MixedMultiShiftCg). Its sums are taken in `f64`.

use super::operator::{diagonal_minus_hop, hop, Hisq};
use crate::gauge::LinksOf;
use crate::staggered::{FermionOf, ShiftedNormal};
use ongpu::prelude::*;

/// [`Hisq`] with `f32` links, on `f32` vectors.
pub struct SingleHisq<S: Space = Lattice> {
    lat: S,
    fat: LinksOf<S, f32>,
    naik: LinksOf<S, f32>,
    mass: f64,
}

impl<S: Space> SingleHisq<S> {
    /// The links of `op` rounded to `f32`.
    pub fn new(op: &Hisq<S>) -> ongpu::Result<Self> {
        let lat = op.lattice();
        let (fat64, naik64) = (&op.links().fat, &op.links().naik);
        let mut fat: LinksOf<S, f32> = lat.zeros()?;
        let mut naik: LinksOf<S, f32> = lat.zeros()?;
        on_gpu!(lat, {
            for mu in 0..4 {
                fat[mu] = fat64[mu].to_f32();
                naik[mu] = naik64[mu].to_f32();
            }
        })?;
        Ok(SingleHisq {
            lat,
            fat,
            naik,
            mass: op.mass(),
        })
    }

    /// Where its vectors live.
    pub fn lattice(&self) -> S {
        self.lat
    }
}

/// At the even sites `w = (m² + shift − D_eo D_oe) x` in `f32` (through `t = D_oe x` at the
/// odd sites), returning `|x|²` and `Re⟨x, w⟩` summed in `f64`.
impl<S: Space> ShiftedNormal<S, f32> for SingleHisq<S> {
    fn space(&self) -> S {
        self.lat
    }

    fn apply_shifted(
        &self,
        x: &FermionOf<S, f32>,
        shift: f64,
        t: &mut FermionOf<S, f32>,
        w: &mut FermionOf<S, f32>,
    ) -> ongpu::Result<(f64, f64)> {
        hop(self.lat.odd(), &self.fat, &self.naik, x, t)?;
        let diagonal = self.mass * self.mass + shift;
        diagonal_minus_hop(self.lat, &self.fat, &self.naik, diagonal, x, t, w)
    }
}
