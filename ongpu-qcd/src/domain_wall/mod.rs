//! Domain-wall and Möbius fermions: quarks on a 5-D lattice whose fifth dimension (`Ls`
//! sites, `s = 0 … Ls−1`) holds the light chiral modes on its walls.
//!
//! The Möbius operator (Brower, Neff and Orginos), with the Wilson operator `D_W(−M5)` of
//! mass `−M5` (`D_W = (4 − M5) − ½ H`, `H` the hopping term of [`crate::wilson`]):
//!
//! `D ψ(s) = (b D_W + 1) ψ(s) + (c D_W − 1) [P_− ψ(s+1) + P_+ ψ(s−1)]`,
//!
//! the walls closed by the quark mass (`P_− ψ(Ls) ≡ −m_f P_− ψ(0)`, `P_+ ψ(−1) ≡ −m_f P_+
//! ψ(Ls−1)`); `b = 1, c = 0` is Shamir's domain-wall operator. With `S ψ(s) = P_+ ψ(s−1) +
//! P_− ψ(s+1)` it is `D = A − ½ H M_φ`, `A = (b(4−M5) + 1) + (c(4−M5) − 1) S` and `M_φ =
//! b + c S`, both local in 4-D.
//!
//! - [`FiveSpinor`], [`FiveFieldOf`]: a 5-D field is a 4-D field whose element is the `Ls`
//!   spinors of the site, flat (`v[4 s + spin]`), so that a body's loop over `s` reads and
//!   writes one colour vector at a time and loads each link once for all `s`;
//! - [`passes`]: the 4-D hop on every `s` ([`passes::hop5`]) and the parts along `s`;
//! - [`DomainWall`]: the operator on the whole lattice, and its adjoint through
//!   `D† = Γ5 D Γ5` (`Γ5 = γ5 R5`, `R5` the reflection `s → Ls−1−s`);
//! - [`DomainWallEvenOdd`]: the 4-D even-odd preconditioned operator
//!   `M̂ = A − ¼ H_eo M_φ A⁻¹ H_oe M_φ` on the even sites (the form Grid and QUDA use), with
//!   the linear algebra and adjoint that [`Cgnr`](crate::solver::Cgnr) needs;
//! - [`MixedCgnr`]: CGNR on `M̂` with f32 iterations and f64 reliable updates;
//! - [`propagator`]: the 4-D quark at the walls, its source and propagator
//!   ([`DomainWall::propagator`]), and [`DomainWall::correlators`]: the pion and the
//!   residual mass.
//!
//! docs/domain-wall.md has the conventions, the costs and what the tests check.

mod algebra;
mod correlators;
mod even_odd;
mod mixed;
mod operator;
pub mod passes;
pub mod propagator;

/// The element of a 5-D field: the `Ls` spinors of a 4-D site, flat (`v[4 s + spin]`); the
/// element of `Ls` right-hand sides of Wilson quarks.
pub use crate::wilson::Spinors as FiveSpinor;
pub use correlators::DomainWallCorrelators;
pub use even_odd::DomainWallEvenOdd;
pub use mixed::{MixedCgnr, DEFAULT_DOMAIN_WALL_DELTA};
pub use operator::DomainWall;

use crate::SiteLayout;
use ongpu::prelude::*;

/// A 5-D field of `LS` spinors per site of a [`Space`], in double precision unless `T`
/// says otherwise.
pub type FiveFieldOf<S, const LS: usize, T = f64> =
    <S as Space>::Field<FiveSpinor<T, LS>, SiteLayout>;

/// A 5-D field on a [`Lattice`].
pub type FiveField<const LS: usize, T = f64> = FiveFieldOf<Lattice, LS, T>;

/// The parameters of a Möbius operator: the domain-wall height `M5`, the quark mass `m_f`
/// and the Möbius coefficients `b`, `c` (`b = 1, c = 0`: Shamir).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MobiusParams {
    /// The height `M5` (the Wilson mass is `−M5`; `0 < M5 < 2` for one light mode).
    pub m5: f64,
    /// The quark mass on the walls.
    pub mf: f64,
    /// Möbius `b`.
    pub b: f64,
    /// Möbius `c`.
    pub c: f64,
}

impl MobiusParams {
    /// Shamir's domain-wall fermions: `b = 1, c = 0`.
    pub fn shamir(m5: f64, mf: f64) -> Self {
        MobiusParams {
            m5,
            mf,
            b: 1.0,
            c: 0.0,
        }
    }

    /// Möbius fermions with `b` and `c` (`b − c = 1` is the common choice, `b + c` the
    /// scale of the kernel).
    pub fn mobius(m5: f64, mf: f64, b: f64, c: f64) -> Self {
        MobiusParams { m5, mf, b, c }
    }

    /// `(α, β)` of `A = α + β S`: the operator's part at one 4-D site.
    pub fn diagonal(&self) -> (f64, f64) {
        let w = 4.0 - self.m5;
        (self.b * w + 1.0, self.c * w - 1.0)
    }

    /// `(b, c)` of `M_φ = b + c S`, which the hops act on.
    pub fn kernel(&self) -> (f64, f64) {
        (self.b, self.c)
    }

    /// An error unless every parameter is finite.
    fn check(&self) -> ongpu::Result<()> {
        if [self.m5, self.mf, self.b, self.c]
            .iter()
            .all(|x| x.is_finite())
        {
            Ok(())
        } else {
            Err(ongpu::Error::InvalidArgument(format!(
                "domain-wall parameters must be finite: {self:?}"
            )))
        }
    }
}
