//! The linear algebra of 5-D fields that the solvers need, at the sites of a call (the
//! even ones for the preconditioned operator, all for the full one), one colour vector at
//! a time, in the fields' real `T` (sums returned in f64: f32 sites are added in f64).

use super::{FiveFieldOf, FiveSpinor};
use crate::real;
use ongpu::prelude::*;
use ongpu::{Element, RealValue};
use ongpu_runtime::{ElementArray, Summable};

/// `|v|²` over `sites`.
pub fn norm2<T: RealValue + Summable<Total = f64, Itself = T>, const LS: usize, P: SpaceSubset>(
    sites: P,
    v: &FiveFieldOf<P::Space, LS, T>,
) -> ongpu::Result<f64>
where
    ColorVector<T>: Element,
    FiveSpinor<T, LS>: ElementArray<Entry = ColorVector<T>>,
{
    let n = 4 * LS;
    on_gpu!(sum: sites, {
        let mut acc = v[0].norm2();
        for k in 1..n {
            acc += v[k].norm2();
        }
        acc
    })
}

/// `v = 0` at `sites`.
pub fn zero<T: RealValue + Summable<Total = f64, Itself = T>, const LS: usize, P: SpaceSubset>(
    sites: P,
    v: &mut FiveFieldOf<P::Space, LS, T>,
) -> ongpu::Result<()>
where
    ColorVector<T>: Element,
    FiveSpinor<T, LS>: ElementArray<Entry = ColorVector<T>>,
{
    let n = 4 * LS;
    on_gpu!(sites, {
        for k in 0..n {
            v[k] = ColorVector::zero();
        }
    })
}

/// `r = b − ax` at `sites`, returning `|r|²`.
pub fn residual<T: RealValue + Summable<Total = f64, Itself = T>, const LS: usize, P: SpaceSubset>(
    sites: P,
    b: &FiveFieldOf<P::Space, LS, T>,
    ax: &FiveFieldOf<P::Space, LS, T>,
    r: &mut FiveFieldOf<P::Space, LS, T>,
) -> ongpu::Result<f64>
where
    ColorVector<T>: Element,
    FiveSpinor<T, LS>: ElementArray<Entry = ColorVector<T>>,
{
    let n = 4 * LS;
    on_gpu!(sum: sites, {
        let first = b[0] - ax[0];
        r[0] = first;
        let mut acc = first.norm2();
        for k in 1..n {
            let d = b[k] - ax[k];
            r[k] = d;
            acc += d.norm2();
        }
        acc
    })
}

/// `x += α p`, `s −= α q` at `sites`, in one pass (CGNR's step).
pub fn step<T: RealValue + Summable<Total = f64, Itself = T>, const LS: usize, P: SpaceSubset>(
    sites: P,
    alpha: f64,
    p: &FiveFieldOf<P::Space, LS, T>,
    q: &FiveFieldOf<P::Space, LS, T>,
    x: &mut FiveFieldOf<P::Space, LS, T>,
    s: &mut FiveFieldOf<P::Space, LS, T>,
) -> ongpu::Result<()>
where
    ColorVector<T>: Element,
    FiveSpinor<T, LS>: ElementArray<Entry = ColorVector<T>>,
{
    let (n, alpha) = (4 * LS, real::<T>(alpha));
    on_gpu!(sites, {
        for k in 0..n {
            x[k] += p[k] * alpha;
            s[k] -= q[k] * alpha;
        }
    })
}

/// `p = r + β p` at `sites` (CGNR's new direction).
pub fn direction<
    T: RealValue + Summable<Total = f64, Itself = T>,
    const LS: usize,
    P: SpaceSubset,
>(
    sites: P,
    beta: f64,
    r: &FiveFieldOf<P::Space, LS, T>,
    p: &mut FiveFieldOf<P::Space, LS, T>,
) -> ongpu::Result<()>
where
    ColorVector<T>: Element,
    FiveSpinor<T, LS>: ElementArray<Entry = ColorVector<T>>,
{
    let (n, beta) = (4 * LS, real::<T>(beta));
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
        impl<
                const LS: usize,
                S: Space,
                T: ongpu::RealValue + ongpu_runtime::Summable<Total = f64, Itself = T>,
            > $crate::solver::LinearOperator for $ty
        where
            ColorVector<T>: ongpu::Element,
            ColorMatrix<T>: ongpu::Element,
            [ColorMatrix<T>; 4]: ongpu::Element,
            FiveSpinor<T, LS>: ongpu_runtime::ElementArray<Entry = ColorVector<T>>,
        {
            type Space = S;
            type Vector = FiveFieldOf<S, LS, T>;

            fn space(&self) -> S {
                let $this = self;
                $lat
            }

            fn vector(&self) -> ongpu::Result<FiveFieldOf<S, LS, T>> {
                self.space().zeros()
            }

            fn apply(
                &self,
                x: &FiveFieldOf<S, LS, T>,
                scratch: &mut FiveFieldOf<S, LS, T>,
                out: &mut FiveFieldOf<S, LS, T>,
            ) -> ongpu::Result<()> {
                <$ty>::apply(self, x, scratch, out)
            }
        }

        impl<
                const LS: usize,
                S: Space,
                T: ongpu::RealValue + ongpu_runtime::Summable<Total = f64, Itself = T>,
            > $crate::solver::VectorAlgebra for $ty
        where
            ColorVector<T>: ongpu::Element,
            ColorMatrix<T>: ongpu::Element,
            [ColorMatrix<T>; 4]: ongpu::Element,
            FiveSpinor<T, LS>: ongpu_runtime::ElementArray<Entry = ColorVector<T>>,
        {
            fn norm2(&self, v: &FiveFieldOf<S, LS, T>) -> ongpu::Result<f64> {
                $crate::domain_wall::algebra::norm2(self.space().$sites(), v)
            }

            fn copy(
                &self,
                src: &FiveFieldOf<S, LS, T>,
                dst: &mut FiveFieldOf<S, LS, T>,
            ) -> ongpu::Result<()> {
                $crate::domain_wall::passes::copy(self.space().$sites(), src, dst)
            }

            fn zero(&self, v: &mut FiveFieldOf<S, LS, T>) -> ongpu::Result<()> {
                $crate::domain_wall::algebra::zero(self.space().$sites(), v)
            }

            fn residual(
                &self,
                b: &FiveFieldOf<S, LS, T>,
                ax: &FiveFieldOf<S, LS, T>,
                r: &mut FiveFieldOf<S, LS, T>,
            ) -> ongpu::Result<f64> {
                $crate::domain_wall::algebra::residual(self.space().$sites(), b, ax, r)
            }

            fn check_vector(&self, v: &FiveFieldOf<S, LS, T>, what: &str) -> ongpu::Result<()> {
                self.space().check_field(v, what)
            }
        }

        impl<
                const LS: usize,
                S: Space,
                T: ongpu::RealValue + ongpu_runtime::Summable<Total = f64, Itself = T>,
            > $crate::solver::CgnrOperator for $ty
        where
            ColorVector<T>: ongpu::Element,
            ColorMatrix<T>: ongpu::Element,
            [ColorMatrix<T>; 4]: ongpu::Element,
            FiveSpinor<T, LS>: ongpu_runtime::ElementArray<Entry = ColorVector<T>>,
        {
            fn apply_dagger(
                &self,
                x: &FiveFieldOf<S, LS, T>,
                scratch: &mut FiveFieldOf<S, LS, T>,
                scratch2: &mut FiveFieldOf<S, LS, T>,
                out: &mut FiveFieldOf<S, LS, T>,
            ) -> ongpu::Result<()> {
                <$ty>::apply_dagger(self, x, scratch, scratch2, out)
            }

            fn cgnr_step(
                &self,
                alpha: f64,
                p: &FiveFieldOf<S, LS, T>,
                q: &FiveFieldOf<S, LS, T>,
                x: &mut FiveFieldOf<S, LS, T>,
                s: &mut FiveFieldOf<S, LS, T>,
            ) -> ongpu::Result<()> {
                $crate::domain_wall::algebra::step(self.space().$sites(), alpha, p, q, x, s)
            }

            fn cgnr_direction(
                &self,
                beta: f64,
                r: &FiveFieldOf<S, LS, T>,
                p: &mut FiveFieldOf<S, LS, T>,
            ) -> ongpu::Result<()> {
                $crate::domain_wall::algebra::direction(self.space().$sites(), beta, r, p)
            }
        }
    };
}
pub(crate) use solver_interface;
