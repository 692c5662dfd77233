//! The linear algebra of spinors on the even sites, as the generic solvers ask for it
//! ([`BiCgStabOperator`](crate::solver::BiCgStabOperator)), written once per precision: a
//! body sums in its own real type and captures scalars of it, which generic code cannot
//! name, so the macro below is expanded in the operator impls of each precision (f64 for
//! [`WilsonEvenOdd`](super::WilsonEvenOdd), f32 for the mixed solver's inner operator).
//! Scalars arrive in f64 and are rounded to the precision once per pass.

/// For spinor fields of real `$t` on the even sites of `self.space()`: the methods of
/// [`VectorAlgebra`](crate::solver::VectorAlgebra) (`vector $t`) or the vector methods of
/// [`BiCgStabOperator`](crate::solver::BiCgStabOperator) (`bicgstab $t`).
macro_rules! even_spinor_algebra {
    (vector $t:ty) => {
        fn norm2(&self, v: &Self::Vector) -> ongpu::Result<f64> {
            on_gpu!(sum: self.space().even(), {
                (v[0].norm2() + v[1].norm2() + v[2].norm2() + v[3].norm2()) as f64
            })
        }

        fn residual(
            &self,
            b: &Self::Vector,
            ax: &Self::Vector,
            r: &mut Self::Vector,
        ) -> ongpu::Result<f64> {
            on_gpu!(sum: self.space().even(), {
                r[0] = b[0] - ax[0];
                r[1] = b[1] - ax[1];
                r[2] = b[2] - ax[2];
                r[3] = b[3] - ax[3];
                (r[0].norm2() + r[1].norm2() + r[2].norm2() + r[3].norm2()) as f64
            })
        }

        fn copy(&self, src: &Self::Vector, dst: &mut Self::Vector) -> ongpu::Result<()> {
            on_gpu!(self.space().even(), {
                dst[0] = src[0];
                dst[1] = src[1];
                dst[2] = src[2];
                dst[3] = src[3];
            })
        }

        fn zero(&self, v: &mut Self::Vector) -> ongpu::Result<()> {
            on_gpu!(self.space().even(), {
                v[0] = ColorVector::zero();
                v[1] = ColorVector::zero();
                v[2] = ColorVector::zero();
                v[3] = ColorVector::zero();
            })
        }
        fn check_vector(&self, v: &Self::Vector, what: &str) -> ongpu::Result<()> {
            self.space().check_field(v, what)
        }
    };
    (bicgstab $t:ty) => {
        fn dot(
            &self,
            a: &Self::Vector,
            b: &Self::Vector,
        ) -> ongpu::Result<Complex<f64>> {
            on_gpu!(sum: self.space().even(), {
                (a[0].dot(b[0]) + a[1].dot(b[1]) + a[2].dot(b[2]) + a[3].dot(b[3])).to_f64()
            })
        }

        fn direction(
            &self,
            beta: Complex<f64>,
            omega: Complex<f64>,
            r: &Self::Vector,
            v: &Self::Vector,
            p: &mut Self::Vector,
        ) -> ongpu::Result<()> {
            let (beta, omega) = (round_to::<$t>(beta), round_to::<$t>(omega));
            on_gpu!(self.space().even(), {
                p[0] = r[0] + (p[0] - v[0] * omega) * beta;
                p[1] = r[1] + (p[1] - v[1] * omega) * beta;
                p[2] = r[2] + (p[2] - v[2] * omega) * beta;
                p[3] = r[3] + (p[3] - v[3] * omega) * beta;
            })
        }

        fn subtract(
            &self,
            alpha: Complex<f64>,
            r: &Self::Vector,
            v: &Self::Vector,
            s: &mut Self::Vector,
        ) -> ongpu::Result<()> {
            let alpha = round_to::<$t>(alpha);
            on_gpu!(self.space().even(), {
                s[0] = r[0] - v[0] * alpha;
                s[1] = r[1] - v[1] * alpha;
                s[2] = r[2] - v[2] * alpha;
                s[3] = r[3] - v[3] * alpha;
            })
        }

        fn bicgstab_update(
            &self,
            alpha: Complex<f64>,
            omega: Complex<f64>,
            p: &Self::Vector,
            s: &Self::Vector,
            t: &Self::Vector,
            x: &mut Self::Vector,
            r: &mut Self::Vector,
        ) -> ongpu::Result<f64> {
            let (alpha, omega) = (round_to::<$t>(alpha), round_to::<$t>(omega));
            on_gpu!(sum: self.space().even(), {
                x[0] += p[0] * alpha + s[0] * omega;
                x[1] += p[1] * alpha + s[1] * omega;
                x[2] += p[2] * alpha + s[2] * omega;
                x[3] += p[3] * alpha + s[3] * omega;
                r[0] = s[0] - t[0] * omega;
                r[1] = s[1] - t[1] * omega;
                r[2] = s[2] - t[2] * omega;
                r[3] = s[3] - t[3] * omega;
                (r[0].norm2() + r[1].norm2() + r[2].norm2() + r[3].norm2()) as f64
            })
        }

    };
}
pub(crate) use even_spinor_algebra;

use ongpu::prelude::*;

/// A complex scalar rounded to the real type of a pass.
pub(crate) fn round_to<T>(z: Complex<f64>) -> Complex<T>
where
    f64: CastReal<T>,
{
    Complex::new(z.re.cast_real(), z.im.cast_real())
}
