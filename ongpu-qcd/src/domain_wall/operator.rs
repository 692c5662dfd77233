//! The domain-wall (Möbius) operator on the whole lattice: `D = A − ½ H M_φ` in three
//! passes (`M_φ ψ`, the hop of it, `A ψ` added), its adjoint `D† = A† − ½ M_φ† γ5 H γ5`
//! in three (`H† = γ5 H γ5`; `A†` and `M_φ†` are `A` and `M_φ` with `S†`), and the
//! interface the generic solvers take. In f64, or in f32 over links rounded to f32 (the
//! inner operator of [`MixedCgnr`](super::MixedCgnr)).

use super::passes::{combine, combine_in_place, five_local, gamma5, hop5, Along};
use super::{algebra, FiveFieldOf, FiveSpinor, MobiusParams};
use crate::gauge::{GaugeField, LinksOf};
use crate::solver::LinearOperator;
use ongpu::prelude::*;
use ongpu::{Element, RealValue};

/// The Möbius domain-wall operator of a gauge field with `LS` sites in the fifth dimension
/// (module documentation), periodic in every 4-D direction, on fields of real `T`.
pub struct DomainWall<'u, const LS: usize, S: Space = Lattice, T: Real = f64>
where
    [ColorMatrix<T>; 4]: Element,
{
    lat: S,
    links: &'u LinksOf<S, T>,
    params: MobiusParams,
}

impl<'u, const LS: usize, S: Space> DomainWall<'u, LS, S>
where
    FiveSpinor<f64, LS>: ongpu_runtime::ElementArray<Entry = ColorVector<f64>>,
{
    /// The operator of the links of `u` with `params` (Shamir: [`MobiusParams::shamir`]).
    /// An error if a parameter is not finite or `LS` is 0.
    pub fn new(u: &'u GaugeField<S>, params: MobiusParams) -> ongpu::Result<Self> {
        Self::from_links(u.lattice(), u.links(), params)
    }
}

impl<'u, const LS: usize, S: Space, T: RealValue> DomainWall<'u, LS, S, T>
where
    ColorVector<T>: Element,
    ColorMatrix<T>: Element,
    [ColorMatrix<T>; 4]: Element,
    FiveSpinor<T, LS>: ongpu_runtime::ElementArray<Entry = ColorVector<T>>,
{
    /// The operator of `links` on `lat` in the precision of the links (f32 links rounded
    /// from a gauge field's make the f32 operator). An error if a parameter is not finite
    /// or `LS` is 0.
    pub fn from_links(
        lat: S,
        links: &'u LinksOf<S, T>,
        params: MobiusParams,
    ) -> ongpu::Result<Self> {
        params.check()?;
        if LS == 0 {
            return Err(ongpu::Error::InvalidArgument(
                "a domain-wall operator needs Ls ≥ 1 sites in the fifth dimension".into(),
            ));
        }
        lat.check_field(links, "links")?;
        Ok(DomainWall { lat, links, params })
    }

    /// Its parameters.
    pub fn params(&self) -> MobiusParams {
        self.params
    }

    /// Where its fields live (4-D).
    pub fn lattice(&self) -> S {
        self.lat
    }

    /// The links the hops read.
    pub fn links(&self) -> &LinksOf<S, T> {
        self.links
    }

    /// `out = D psi` at every site (`scratch` receives `M_φ psi`).
    pub fn apply(
        &self,
        psi: &FiveFieldOf<S, LS, T>,
        scratch: &mut FiveFieldOf<S, LS, T>,
        out: &mut FiveFieldOf<S, LS, T>,
    ) -> ongpu::Result<()> {
        let p = self.params;
        five_local(self.lat.all(), Along::S, p.kernel(), p.mf, psi, scratch)?;
        hop5(self.lat.all(), self.links, scratch, out)?;
        combine_in_place(self.lat.all(), p.diagonal(), p.mf, -0.5, psi, out)
    }

    /// `out = D† psi = A† psi − ½ M_φ† γ5 H γ5 psi` at every site (`scratch`, `scratch2`
    /// overwritten). For Shamir (`c = 0`) this is `Γ5 D Γ5` (`Γ5 = γ5 R5`); for Möbius it is
    /// not, `M_φ` and `H` do not commute.
    pub fn apply_dagger(
        &self,
        psi: &FiveFieldOf<S, LS, T>,
        scratch: &mut FiveFieldOf<S, LS, T>,
        scratch2: &mut FiveFieldOf<S, LS, T>,
        out: &mut FiveFieldOf<S, LS, T>,
    ) -> ongpu::Result<()> {
        let p = self.params;
        gamma5(self.lat.all(), psi, scratch2)?;
        hop5(self.lat.all(), self.links, scratch2, scratch)?;
        combine(
            self.lat.all(),
            Along::Dagger,
            p.diagonal(),
            p.kernel(),
            p.mf,
            -0.5,
            psi,
            scratch,
            out,
        )
    }
}

// The generic solvers' interface over every site (CGNR on `D`: the unpreconditioned solve).
algebra::solver_interface!(DomainWall<'_, LS, S, T>, |op| op.lat, all);
