//! The interface of the generic solvers for staggered-type operators (staggered and HISQ
//! quarks), written once: their even-odd normal operator `A = m² − D_eo D_oe` on the even
//! sites ([`LinearOperator`](crate::solver::LinearOperator)), CG's fused passes
//! ([`CgOperator`](crate::solver::CgOperator)), the linear algebra of their vectors
//! ([`VectorAlgebra`](crate::solver::VectorAlgebra)) and the shifted operator of the
//! multi-shift CG ([`ShiftedNormal`](super::ShiftedNormal)).

/// The solvers' traits for `$ty<S>`, which has `lattice()`, `normal(x, t, out)` (`out = A x`
/// at the even sites through `t = D_oe x`) and `apply_shifted(x, shift, t, w)` (`w = (A +
/// shift) x`, returning `|x|²` and `Re⟨x, w⟩` from the same pass).
macro_rules! even_odd_normal_interface {
    ($ty:ident) => {
        /// The normal operator `A = m² − D_eo D_oe` on the even sites (the scratch vector
        /// receives `D_oe x` on the odd sites).
        impl<S: Space> $crate::solver::LinearOperator for $ty<S> {
            type Space = S;
            type Vector = $crate::staggered::FermionOf<S>;

            fn space(&self) -> S {
                self.lattice()
            }

            fn vector(&self) -> ongpu::Result<Self::Vector> {
                self.lattice().zeros()
            }

            fn apply(
                &self,
                x: &Self::Vector,
                scratch: &mut Self::Vector,
                out: &mut Self::Vector,
            ) -> ongpu::Result<()> {
                self.normal(x, scratch, out)
            }
        }

        /// CG's passes: the second hop fused with the two sums, and the fused updates.
        impl<S: Space> $crate::solver::CgOperator for $ty<S> {
            fn apply_and_norm(
                &self,
                x: &Self::Vector,
                scratch: &mut Self::Vector,
                out: &mut Self::Vector,
            ) -> ongpu::Result<(f64, f64)> {
                self.apply_shifted(x, 0.0, scratch, out)
            }

            fn cg_update(
                &self,
                alpha: f64,
                beta: f64,
                w: &Self::Vector,
                p: &mut Self::Vector,
                s: &mut Self::Vector,
                x: &mut Self::Vector,
                r: &mut Self::Vector,
            ) -> ongpu::Result<()> {
                $crate::staggered::passes::update(self.lattice(), alpha, beta, w, p, s, x, r)
            }
        }

        /// The linear algebra of staggered fermions on the even sites.
        impl<S: Space> $crate::solver::VectorAlgebra for $ty<S> {
            fn residual(
                &self,
                b: &Self::Vector,
                ax: &Self::Vector,
                r: &mut Self::Vector,
            ) -> ongpu::Result<f64> {
                $crate::staggered::passes::residual(self.lattice(), b, ax, r)
            }

            fn norm2(&self, v: &Self::Vector) -> ongpu::Result<f64> {
                $crate::staggered::passes::norm2_even(self.lattice(), v)
            }

            fn copy(&self, src: &Self::Vector, dst: &mut Self::Vector) -> ongpu::Result<()> {
                $crate::staggered::passes::copy_even(self.lattice(), src, dst)
            }

            fn zero(&self, v: &mut Self::Vector) -> ongpu::Result<()> {
                $crate::staggered::passes::zero_even(self.lattice(), v)
            }

            fn check_vector(&self, v: &Self::Vector, what: &str) -> ongpu::Result<()> {
                self.lattice().check_field(v, what)
            }
        }

        /// The shifted normal operator of the multi-shift CG.
        impl<S: Space> $crate::staggered::ShiftedNormal<S> for $ty<S> {
            fn space(&self) -> S {
                self.lattice()
            }

            fn apply_shifted(
                &self,
                x: &$crate::staggered::FermionOf<S>,
                shift: f64,
                t: &mut $crate::staggered::FermionOf<S>,
                w: &mut $crate::staggered::FermionOf<S>,
            ) -> ongpu::Result<(f64, f64)> {
                $ty::apply_shifted(self, x, shift, t, w)
            }
        }
    };
}
pub(crate) use even_odd_normal_interface;
