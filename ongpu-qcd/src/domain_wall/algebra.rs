//! The linear algebra of 5-D fields that the solvers need, at the sites of a call (the
//! even ones for the preconditioned operator, all for the full one), one colour vector at
//! a time.

use super::{FiveFieldOf, FiveSpinor};
use ongpu::prelude::*;

/// `|v|²` over `sites`.
pub fn norm2<const LS: usize, P: SpaceSubset>(
    sites: P,
    v: &FiveFieldOf<P::Space, LS>,
) -> ongpu::Result<f64>
where
    FiveSpinor<f64, LS>: ongpu::Element,
{
    let n = 4 * LS;
    on_gpu!(sum: sites, {
        let mut acc = 0.0;
        for k in 0..n {
            acc += v[k].norm2();
        }
        acc
    })
}

/// `v = 0` at `sites`.
pub fn zero<const LS: usize, P: SpaceSubset>(
    sites: P,
    v: &mut FiveFieldOf<P::Space, LS>,
) -> ongpu::Result<()>
where
    FiveSpinor<f64, LS>: ongpu::Element,
{
    let n = 4 * LS;
    on_gpu!(sites, {
        for k in 0..n {
            v[k] = ColorVector::zero();
        }
    })
}

/// `r = b − ax` at `sites`, returning `|r|²`.
pub fn residual<const LS: usize, P: SpaceSubset>(
    sites: P,
    b: &FiveFieldOf<P::Space, LS>,
    ax: &FiveFieldOf<P::Space, LS>,
    r: &mut FiveFieldOf<P::Space, LS>,
) -> ongpu::Result<f64>
where
    FiveSpinor<f64, LS>: ongpu::Element,
{
    let n = 4 * LS;
    on_gpu!(sum: sites, {
        let mut acc = 0.0;
        for k in 0..n {
            let d = b[k] - ax[k];
            r[k] = d;
            acc += d.norm2();
        }
        acc
    })
}

/// `x += α p`, `s −= α q` at `sites`, in one pass (CGNR's step).
pub fn step<const LS: usize, P: SpaceSubset>(
    sites: P,
    alpha: f64,
    p: &FiveFieldOf<P::Space, LS>,
    q: &FiveFieldOf<P::Space, LS>,
    x: &mut FiveFieldOf<P::Space, LS>,
    s: &mut FiveFieldOf<P::Space, LS>,
) -> ongpu::Result<()>
where
    FiveSpinor<f64, LS>: ongpu::Element,
{
    let n = 4 * LS;
    on_gpu!(sites, {
        for k in 0..n {
            x[k] += p[k] * alpha;
            s[k] -= q[k] * alpha;
        }
    })
}

/// `p = r + β p` at `sites` (CGNR's new direction).
pub fn direction<const LS: usize, P: SpaceSubset>(
    sites: P,
    beta: f64,
    r: &FiveFieldOf<P::Space, LS>,
    p: &mut FiveFieldOf<P::Space, LS>,
) -> ongpu::Result<()>
where
    FiveSpinor<f64, LS>: ongpu::Element,
{
    let n = 4 * LS;
    on_gpu!(sites, {
        for k in 0..n {
            p[k] = r[k] + p[k] * beta;
        }
    })
}

/// The interface the generic solvers take ([`LinearOperator`](crate::solver::LinearOperator),
/// [`VectorAlgebra`](crate::solver::VectorAlgebra) and
/// [`CgnrOperator`](crate::solver::CgnrOperator)) for a domain-wall operator type whose
/// vectors live on `$sites` of its lattice `$lat` (`self` named `$this`): written once for
/// the full operator (every site) and the even-odd one (the even sites).
macro_rules! solver_interface {
    ($ty:ty, |$this:ident| $lat:expr, $sites:ident) => {
        impl<const LS: usize, S: Space> $crate::solver::LinearOperator for $ty
        where
            FiveSpinor<f64, LS>: ongpu::Element,
        {
            type Space = S;
            type Vector = FiveFieldOf<S, LS>;

            fn space(&self) -> S {
                let $this = self;
                $lat
            }

            fn vector(&self) -> ongpu::Result<FiveFieldOf<S, LS>> {
                self.space().zeros()
            }

            fn apply(
                &self,
                x: &FiveFieldOf<S, LS>,
                scratch: &mut FiveFieldOf<S, LS>,
                out: &mut FiveFieldOf<S, LS>,
            ) -> ongpu::Result<()> {
                <$ty>::apply(self, x, scratch, out)
            }
        }

        impl<const LS: usize, S: Space> $crate::solver::VectorAlgebra for $ty
        where
            FiveSpinor<f64, LS>: ongpu::Element,
        {
            fn norm2(&self, v: &FiveFieldOf<S, LS>) -> ongpu::Result<f64> {
                $crate::domain_wall::algebra::norm2(self.space().$sites(), v)
            }

            fn copy(
                &self,
                src: &FiveFieldOf<S, LS>,
                dst: &mut FiveFieldOf<S, LS>,
            ) -> ongpu::Result<()> {
                $crate::domain_wall::passes::copy(self.space().$sites(), src, dst)
            }

            fn zero(&self, v: &mut FiveFieldOf<S, LS>) -> ongpu::Result<()> {
                $crate::domain_wall::algebra::zero(self.space().$sites(), v)
            }

            fn residual(
                &self,
                b: &FiveFieldOf<S, LS>,
                ax: &FiveFieldOf<S, LS>,
                r: &mut FiveFieldOf<S, LS>,
            ) -> ongpu::Result<f64> {
                $crate::domain_wall::algebra::residual(self.space().$sites(), b, ax, r)
            }

            fn check_vector(&self, v: &FiveFieldOf<S, LS>, what: &str) -> ongpu::Result<()> {
                self.space().check_field(v, what)
            }
        }

        impl<const LS: usize, S: Space> $crate::solver::CgnrOperator for $ty
        where
            FiveSpinor<f64, LS>: ongpu::Element,
        {
            fn apply_dagger(
                &self,
                x: &FiveFieldOf<S, LS>,
                scratch: &mut FiveFieldOf<S, LS>,
                scratch2: &mut FiveFieldOf<S, LS>,
                out: &mut FiveFieldOf<S, LS>,
            ) -> ongpu::Result<()> {
                <$ty>::apply_dagger(self, x, scratch, scratch2, out)
            }

            fn cgnr_step(
                &self,
                alpha: f64,
                p: &FiveFieldOf<S, LS>,
                q: &FiveFieldOf<S, LS>,
                x: &mut FiveFieldOf<S, LS>,
                s: &mut FiveFieldOf<S, LS>,
            ) -> ongpu::Result<()> {
                $crate::domain_wall::algebra::step(self.space().$sites(), alpha, p, q, x, s)
            }

            fn cgnr_direction(
                &self,
                beta: f64,
                r: &FiveFieldOf<S, LS>,
                p: &mut FiveFieldOf<S, LS>,
            ) -> ongpu::Result<()> {
                $crate::domain_wall::algebra::direction(self.space().$sites(), beta, r, p)
            }
        }
    };
}
pub(crate) use solver_interface;
