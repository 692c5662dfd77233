//! The reductions (`sum`, `min`, `max`) and the per-site value types each accepts, with the
//! host arithmetic of their accumulators and the names of their CUDA twins
//! (`cuda/reduce.cuh`).
//!
//! Sums widen: `f32` and `f64` values are added in `f64`, `i32` in `i64`, `u32` in `u64`,
//! `Complex<f32|f64>` in `Complex<f64>`; the result has the wide type. Integer sums wrap
//! (two's complement) on both backends, which makes them exact for fewer than 2^32 sites
//! and independent of the order of additions. `min`/`max` keep the value's type; on floats
//! they skip NaN and order `-0.0` below `+0.0`, so they too are independent of the order.

use super::exact::ExactSum;
use num_complex::Complex;

mod sealed {
    pub trait Sealed {}
}

/// A per-site value that `on_gpu!(sum: ...)` can add: `f32 f64 i32 u32 Complex<f32>
/// Complex<f64>`.
///
/// ```
/// use ongpu_runtime::{Field, Summable};
/// let x: Field<f32> = Field::from_vec(vec![1.5, 2.0, -0.5]);
/// let s: f64 = x.sum()?; // f32 values, added in f64
/// assert_eq!(s, 3.0);
/// assert_eq!(2_000_000_000i32.widen() * 2, 4_000_000_000i64);
/// # Ok::<(), ongpu_runtime::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "on_gpu!(sum: ...) cannot add per-site values of type `{Self}`",
    label = "the per-site value",
    note = "a sum's per-site value (the body's last expression, without `;`) is f32, f64, i32, \
            u32, Complex<f32> or Complex<f64>; reduce a colour matrix or vector to one first, \
            e.g. with .norm2() or .trace()"
)]
pub trait Summable: sealed::Sealed + Copy + Send + 'static {
    /// The type values are added in, which is also the result's type.
    type Total: bytemuck::Pod + Send + Sync + PartialEq + std::fmt::Debug;
    /// The CUDA C++ type of a value.
    const CUDA: &'static str;
    /// The CUDA C++ type of the total.
    const CUDA_TOTAL: &'static str;
    /// `Self`, for [`summand`].
    #[doc(hidden)]
    type Itself;
    /// `self`, for [`summand`].
    #[doc(hidden)]
    fn itself(self) -> Self::Itself;
    /// Zero.
    fn zero() -> Self::Total;
    /// The value, widened.
    fn widen(self) -> Self::Total;
    /// `a + b` in the total's type (wrapping for integers).
    fn add(a: Self::Total, b: Self::Total) -> Self::Total;
    /// A sum whose result does not depend on the order of the additions (for floats an
    /// [`ExactSum`] per component; for integers the wrapping total): how sums over a
    /// lattice cut over ranks are carried.
    #[doc(hidden)]
    type Exact: bytemuck::Pod + Send + Sync + PartialEq + std::fmt::Debug;
    /// The empty exact sum.
    #[doc(hidden)]
    fn exact_zero() -> Self::Exact;
    /// `e + v`, exactly.
    #[doc(hidden)]
    fn exact_add(e: Self::Exact, v: Self) -> Self::Exact;
    /// `a + b`, exactly.
    #[doc(hidden)]
    fn exact_merge(a: Self::Exact, b: Self::Exact) -> Self::Exact;
    /// The exact sum rounded to the total's type.
    #[doc(hidden)]
    fn exact_total(e: Self::Exact) -> Self::Total;
    /// A total as an exact sum.
    #[doc(hidden)]
    fn exact_of_total(t: Self::Total) -> Self::Exact;
    /// How many [`ExactSum`]s the GPU keeps for a sum of these values over ranks (one per
    /// real component; 0 for integers, whose wrapping sums are order-free as they are).
    #[doc(hidden)]
    const EXACT_PARTS: usize;
    /// The exact sum of `EXACT_PARTS` exact sums, one per component.
    #[doc(hidden)]
    fn exact_of_parts(parts: &[ExactSum]) -> Self::Exact;
}

/// A per-site value that `on_gpu!(min: ...)` and `on_gpu!(max: ...)` can compare: `f32 f64
/// i32 u32`.
///
/// ```
/// use ongpu_runtime::MinMax;
/// assert_eq!(f32::min_of(f32::NAN, 2.0), 2.0); // NaN is skipped
/// assert!(f64::max_of(-0.0, 0.0).is_sign_positive());
/// assert_eq!(<i32 as MinMax>::MIN_IDENTITY, i32::MAX); // the min of no sites
/// ```
#[diagnostic::on_unimplemented(
    message = "on_gpu!(min: ...) and on_gpu!(max: ...) cannot compare per-site values of type \
               `{Self}`",
    label = "the per-site value",
    note = "the per-site value of min and max (the body's last expression, without `;`) is \
            f32, f64, i32 or u32; compare a part of it, e.g. .re, .norm2() or .abs()"
)]
pub trait MinMax:
    sealed::Sealed + bytemuck::Pod + Send + Sync + PartialEq + std::fmt::Debug
{
    /// The CUDA C++ type.
    const CUDA: &'static str;
    /// The identity of `min` (the largest value: `+∞` for floats), the result of no sites.
    const MIN_IDENTITY: Self;
    /// The identity of `max` (the smallest value: `-∞` for floats).
    const MAX_IDENTITY: Self;
    /// The CUDA C++ spelling of [`MIN_IDENTITY`](MinMax::MIN_IDENTITY).
    const CUDA_MIN_IDENTITY: &'static str;
    /// The CUDA C++ spelling of [`MAX_IDENTITY`](MinMax::MAX_IDENTITY).
    const CUDA_MAX_IDENTITY: &'static str;
    /// `Self`, for [`compared`].
    #[doc(hidden)]
    type Itself;
    /// `self`, for [`compared`].
    #[doc(hidden)]
    fn itself(self) -> Self::Itself;
    /// The smaller of `a` and `b` (for floats: NaN is skipped and `-0.0 < +0.0`).
    fn min_of(a: Self, b: Self) -> Self;
    /// The larger of `a` and `b` (for floats: NaN is skipped and `-0.0 < +0.0`).
    fn max_of(a: Self, b: Self) -> Self;
}

macro_rules! summable {
    ($($t:ty => $total:ty, $cuda:literal, $cuda_total:literal, $add:expr,
        exact $exact:ty: $ezero:expr, $eadd:expr, $emerge:expr, $etotal:expr, $eof:expr,
        $parts:literal, $eparts:expr;)*) => {$(
        impl sealed::Sealed for $t {}
        impl Summable for $t {
            type Total = $total;
            const CUDA: &'static str = $cuda;
            const CUDA_TOTAL: &'static str = $cuda_total;
            type Itself = Self;
            #[inline(always)]
            fn itself(self) -> Self {
                self
            }
            #[inline(always)]
            fn zero() -> $total {
                <$total>::default()
            }
            #[inline(always)]
            fn widen(self) -> $total {
                self.into()
            }
            #[inline(always)]
            fn add(a: $total, b: $total) -> $total {
                $add(a, b)
            }
            type Exact = $exact;
            fn exact_zero() -> $exact {
                $ezero
            }
            #[inline(always)]
            fn exact_add(e: $exact, v: $t) -> $exact {
                $eadd(e, v)
            }
            fn exact_merge(a: $exact, b: $exact) -> $exact {
                $emerge(a, b)
            }
            fn exact_total(e: $exact) -> $total {
                $etotal(e)
            }
            fn exact_of_total(t: $total) -> $exact {
                $eof(t)
            }
            const EXACT_PARTS: usize = $parts;
            fn exact_of_parts(parts: &[ExactSum]) -> $exact {
                $eparts(parts)
            }
        }
    )*};
}

summable! {
    f32 => f64, "float", "double", |a: f64, b: f64| a + b,
        exact ExactSum: ExactSum::ZERO, |e: ExactSum, v: f32| e.plus(v as f64), ExactSum::merge,
        |e: ExactSum| e.value(), |t| ExactSum::ZERO.plus(t), 1, |p: &[ExactSum]| p[0];
    f64 => f64, "double", "double", |a: f64, b: f64| a + b,
        exact ExactSum: ExactSum::ZERO, ExactSum::plus, ExactSum::merge, |e: ExactSum| e.value(),
        |t| ExactSum::ZERO.plus(t), 1, |p: &[ExactSum]| p[0];
    i32 => i64, "int", "long long", i64::wrapping_add,
        exact i64: 0, |e: i64, v: i32| e.wrapping_add(v as i64), i64::wrapping_add, |e| e, |t| t,
        0, |_| unreachable!("integer sums keep no exact parts");
    u32 => u64, "unsigned int", "unsigned long long", u64::wrapping_add,
        exact u64: 0, |e: u64, v: u32| e.wrapping_add(v as u64), u64::wrapping_add, |e| e, |t| t,
        0, |_| unreachable!("integer sums keep no exact parts");
}

macro_rules! summable_complex {
    ($($t:ty => $cuda:literal;)*) => {$(
        impl sealed::Sealed for Complex<$t> {}
        impl Summable for Complex<$t> {
            type Total = Complex<f64>;
            const CUDA: &'static str = $cuda;
            const CUDA_TOTAL: &'static str = "ongpu::complex<double>";
            type Itself = Self;
            #[inline(always)]
            fn itself(self) -> Self {
                self
            }
            #[inline(always)]
            fn zero() -> Complex<f64> {
                Complex::new(0.0, 0.0)
            }
            #[inline(always)]
            fn widen(self) -> Complex<f64> {
                Complex::new(self.re.into(), self.im.into())
            }
            #[inline(always)]
            fn add(a: Complex<f64>, b: Complex<f64>) -> Complex<f64> {
                Complex::new(a.re + b.re, a.im + b.im)
            }
            type Exact = [ExactSum; 2];
            fn exact_zero() -> [ExactSum; 2] {
                [ExactSum::ZERO; 2]
            }
            #[inline(always)]
            fn exact_add([re, im]: [ExactSum; 2], v: Self) -> [ExactSum; 2] {
                [re.plus(v.re.into()), im.plus(v.im.into())]
            }
            fn exact_merge([a, b]: [ExactSum; 2], [c, d]: [ExactSum; 2]) -> [ExactSum; 2] {
                [a.merge(c), b.merge(d)]
            }
            fn exact_total([re, im]: [ExactSum; 2]) -> Complex<f64> {
                Complex::new(re.value(), im.value())
            }
            fn exact_of_total(t: Complex<f64>) -> [ExactSum; 2] {
                [ExactSum::ZERO.plus(t.re), ExactSum::ZERO.plus(t.im)]
            }
            const EXACT_PARTS: usize = 2;
            fn exact_of_parts(parts: &[ExactSum]) -> [ExactSum; 2] {
                [parts[0], parts[1]]
            }
        }
    )*};
}

summable_complex! {
    f32 => "ongpu::complex<float>";
    f64 => "ongpu::complex<double>";
}

/// `min` of floats as [`MinMax`] defines it; `merge` combines equal values (the same bits,
/// or zeros of either sign: their bits or-ed give -0.0).
#[inline(always)]
fn float_min<T: num_traits::Float>(a: T, b: T, merge: fn(T, T) -> T) -> T {
    if a.is_nan() || b < a {
        b
    } else if b.is_nan() || a < b {
        a
    } else {
        merge(a, b)
    }
}

/// `max` of floats as [`MinMax`] defines it; `merge` gives +0.0 of two zeros (bits and-ed).
#[inline(always)]
fn float_max<T: num_traits::Float>(a: T, b: T, merge: fn(T, T) -> T) -> T {
    if a.is_nan() || b > a {
        b
    } else if b.is_nan() || a > b {
        a
    } else {
        merge(a, b)
    }
}

// The impls are written out (not generated by a macro) so that rustc's list of them, in
// the error for another type, stays short.
impl MinMax for f32 {
    const CUDA: &'static str = "float";
    const MIN_IDENTITY: f32 = f32::INFINITY;
    const MAX_IDENTITY: f32 = f32::NEG_INFINITY;
    const CUDA_MIN_IDENTITY: &'static str = "__int_as_float(0x7f800000)";
    const CUDA_MAX_IDENTITY: &'static str = "__int_as_float(0xff800000)";
    type Itself = f32;
    fn itself(self) -> f32 {
        self
    }
    fn min_of(a: f32, b: f32) -> f32 {
        float_min(a, b, |a, b| f32::from_bits(a.to_bits() | b.to_bits()))
    }
    fn max_of(a: f32, b: f32) -> f32 {
        float_max(a, b, |a, b| f32::from_bits(a.to_bits() & b.to_bits()))
    }
}

impl MinMax for f64 {
    const CUDA: &'static str = "double";
    const MIN_IDENTITY: f64 = f64::INFINITY;
    const MAX_IDENTITY: f64 = f64::NEG_INFINITY;
    const CUDA_MIN_IDENTITY: &'static str = "__longlong_as_double(0x7ff0000000000000ll)";
    const CUDA_MAX_IDENTITY: &'static str = "__longlong_as_double(0xfff0000000000000ll)";
    type Itself = f64;
    fn itself(self) -> f64 {
        self
    }
    fn min_of(a: f64, b: f64) -> f64 {
        float_min(a, b, |a, b| f64::from_bits(a.to_bits() | b.to_bits()))
    }
    fn max_of(a: f64, b: f64) -> f64 {
        float_max(a, b, |a, b| f64::from_bits(a.to_bits() & b.to_bits()))
    }
}

impl MinMax for i32 {
    const CUDA: &'static str = "int";
    const MIN_IDENTITY: i32 = i32::MAX;
    const MAX_IDENTITY: i32 = i32::MIN;
    const CUDA_MIN_IDENTITY: &'static str = "2147483647";
    const CUDA_MAX_IDENTITY: &'static str = "(-2147483647 - 1)";
    type Itself = i32;
    fn itself(self) -> i32 {
        self
    }
    fn min_of(a: i32, b: i32) -> i32 {
        a.min(b)
    }
    fn max_of(a: i32, b: i32) -> i32 {
        a.max(b)
    }
}

impl MinMax for u32 {
    const CUDA: &'static str = "unsigned int";
    const MIN_IDENTITY: u32 = u32::MAX;
    const MAX_IDENTITY: u32 = u32::MIN;
    const CUDA_MIN_IDENTITY: &'static str = "4294967295u";
    const CUDA_MAX_IDENTITY: &'static str = "0u";
    type Itself = u32;
    fn itself(self) -> u32 {
        self
    }
    fn min_of(a: u32, b: u32) -> u32 {
        a.min(b)
    }
    fn max_of(a: u32, b: u32) -> u32 {
        a.max(b)
    }
}

/// A reduction of per-site values of type `V`: the marker types [`Sum`], [`Min`] and
/// [`Max`] implement it for the value types they accept.
pub trait Reduction<V>: Copy + Send + Sync + 'static {
    /// The accumulator, which is also the result's type.
    type Acc: bytemuck::Pod + Send + Sync + PartialEq + std::fmt::Debug;
    /// The keyword of the macro form (`sum`, `min`, `max`).
    const KEYWORD: &'static str;
    /// The CUDA C++ operation (`ongpu::red::Sum`), whose `combine` overloads take `Acc`.
    const CUDA_OP: &'static str;
    /// The result of no sites.
    fn identity() -> Self::Acc;
    /// Adds one site's value.
    fn add(acc: Self::Acc, v: V) -> Self::Acc;
    /// Combines two partial results (`a` holds the earlier sites).
    fn combine(a: Self::Acc, b: Self::Acc) -> Self::Acc;
    /// The CUDA C++ type of a value.
    fn cuda_value() -> &'static str;
    /// The CUDA C++ type of the accumulator.
    fn cuda_acc() -> &'static str;
    /// The CUDA C++ spelling of the identity.
    fn cuda_identity() -> &'static str;
    /// The accumulator of a reduction over a lattice cut over ranks, whose result must not
    /// depend on the cut: an exact sum for floating-point sums, `Acc` for the others (whose
    /// results never depend on the order).
    #[doc(hidden)]
    type RankAcc: bytemuck::Pod + Send + Sync + PartialEq + std::fmt::Debug;
    /// The rank accumulator of no sites.
    #[doc(hidden)]
    fn rank_identity() -> Self::RankAcc;
    /// Adds one site's value to a rank accumulator.
    #[doc(hidden)]
    fn rank_add(acc: Self::RankAcc, v: V) -> Self::RankAcc;
    /// Combines two rank accumulators.
    #[doc(hidden)]
    fn rank_combine(a: Self::RankAcc, b: Self::RankAcc) -> Self::RankAcc;
    /// The result of a rank accumulator.
    #[doc(hidden)]
    fn rank_result(acc: Self::RankAcc) -> Self::Acc;
    /// An accumulator as a rank accumulator.
    #[doc(hidden)]
    fn rank_of(acc: Self::Acc) -> Self::RankAcc;
    /// How many [`ExactSum`]s the GPU's kernel keeps over ranks: one per real component of
    /// a floating-point sum, 0 where the ordinary kernel's result is order-free already.
    #[doc(hidden)]
    const EXACT_PARTS: usize = 0;
    /// The rank accumulator of the GPU's exact sums (`EXACT_PARTS` of them).
    #[doc(hidden)]
    fn rank_of_exact(parts: &[ExactSum]) -> Self::RankAcc {
        let _ = parts;
        unreachable!("only reductions with exact parts have them")
    }
}

/// `on_gpu!(sum: ...)`: the sum of the per-site values, in a widened type.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sum;

/// `on_gpu!(min: ...)`: the smallest per-site value.
#[derive(Debug, Clone, Copy, Default)]
pub struct Min;

/// `on_gpu!(max: ...)`: the largest per-site value.
#[derive(Debug, Clone, Copy, Default)]
pub struct Max;

impl<V: Summable> Reduction<V> for Sum {
    type Acc = V::Total;
    const KEYWORD: &'static str = "sum";
    const CUDA_OP: &'static str = "ongpu::red::Sum";
    #[inline(always)]
    fn identity() -> V::Total {
        V::zero()
    }
    #[inline(always)]
    fn add(acc: V::Total, v: V) -> V::Total {
        V::add(acc, v.widen())
    }
    #[inline(always)]
    fn combine(a: V::Total, b: V::Total) -> V::Total {
        V::add(a, b)
    }
    fn cuda_value() -> &'static str {
        V::CUDA
    }
    fn cuda_acc() -> &'static str {
        V::CUDA_TOTAL
    }
    fn cuda_identity() -> &'static str {
        "ongpu_acc{}"
    }
    type RankAcc = V::Exact;
    fn rank_identity() -> V::Exact {
        V::exact_zero()
    }
    #[inline(always)]
    fn rank_add(acc: V::Exact, v: V) -> V::Exact {
        V::exact_add(acc, v)
    }
    fn rank_combine(a: V::Exact, b: V::Exact) -> V::Exact {
        V::exact_merge(a, b)
    }
    fn rank_result(acc: V::Exact) -> V::Total {
        V::exact_total(acc)
    }
    fn rank_of(acc: V::Total) -> V::Exact {
        V::exact_of_total(acc)
    }
    const EXACT_PARTS: usize = V::EXACT_PARTS;
    fn rank_of_exact(parts: &[ExactSum]) -> V::Exact {
        V::exact_of_parts(parts)
    }
}

macro_rules! min_max_reduction {
    ($op:ident, $keyword:literal, $cuda:literal, $f:ident, $identity:ident, $cuda_identity:ident) => {
        impl<V: MinMax> Reduction<V> for $op {
            type Acc = V;
            const KEYWORD: &'static str = $keyword;
            const CUDA_OP: &'static str = $cuda;
            #[inline(always)]
            fn identity() -> V {
                V::$identity
            }
            #[inline(always)]
            fn add(acc: V, v: V) -> V {
                V::$f(acc, v)
            }
            #[inline(always)]
            fn combine(a: V, b: V) -> V {
                V::$f(a, b)
            }
            fn cuda_value() -> &'static str {
                V::CUDA
            }
            fn cuda_acc() -> &'static str {
                V::CUDA
            }
            fn cuda_identity() -> &'static str {
                V::$cuda_identity
            }
            type RankAcc = V;
            fn rank_identity() -> V {
                V::$identity
            }
            #[inline(always)]
            fn rank_add(acc: V, v: V) -> V {
                V::$f(acc, v)
            }
            fn rank_combine(a: V, b: V) -> V {
                V::$f(a, b)
            }
            fn rank_result(acc: V) -> V {
                acc
            }
            fn rank_of(acc: V) -> V {
                acc
            }
        }
    };
}

min_max_reduction!(
    Min,
    "min",
    "ongpu::red::Min",
    min_of,
    MIN_IDENTITY,
    CUDA_MIN_IDENTITY
);
min_max_reduction!(
    Max,
    "max",
    "ongpu::red::Max",
    max_of,
    MAX_IDENTITY,
    CUDA_MAX_IDENTITY
);

/// The tail of a `sum` body: the macro passes the body's value through this, so that a
/// type [`Summable`] does not take is reported there, once (the result's type is then an
/// unresolved projection, which keeps rustc from reporting it again at the call).
#[inline(always)]
pub fn summand<V: Summable>(v: V) -> V::Itself {
    v.itself()
}

/// The tail of a `min` or `max` body (see [`summand`]).
#[inline(always)]
pub fn compared<V: MinMax>(v: V) -> V::Itself {
    v.itself()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_min_max_skip_nan_and_order_signed_zeros() {
        assert_eq!(f32::min_of(f32::NAN, 2.0), 2.0);
        assert_eq!(f32::min_of(2.0, f32::NAN), 2.0);
        assert_eq!(f64::max_of(f64::NAN, -1.0), -1.0);
        assert!(f32::min_of(0.0, -0.0).is_sign_negative());
        assert!(f32::min_of(-0.0, 0.0).is_sign_negative());
        assert!(f64::max_of(-0.0, 0.0).is_sign_positive());
        assert!(f64::max_of(0.0, -0.0).is_sign_positive());
        assert_eq!(<Min as Reduction<f32>>::identity(), f32::INFINITY);
        assert_eq!(<Max as Reduction<f64>>::identity(), f64::NEG_INFINITY);
        // NaN never survives against a number, so the identity is what all-NaN input gives.
        let all_nan = [f32::NAN; 3]
            .iter()
            .fold(<Min as Reduction<f32>>::identity(), |a, &v| {
                <Min as Reduction<f32>>::add(a, v)
            });
        assert_eq!(all_nan, f32::INFINITY);
    }

    #[test]
    fn float_min_max_do_not_depend_on_order() {
        let v = [3.0f32, -0.0, f32::NAN, 0.0, -2.5, f32::INFINITY, -2.5, 7.0];
        let fold = |it: &mut dyn Iterator<Item = &f32>| {
            it.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &x| {
                (f32::min_of(lo, x), f32::max_of(hi, x))
            })
        };
        let (lo, hi) = fold(&mut v.iter());
        let (lo_r, hi_r) = fold(&mut v.iter().rev());
        assert_eq!(lo.to_bits(), lo_r.to_bits());
        assert_eq!(hi.to_bits(), hi_r.to_bits());
        assert_eq!((lo, hi), (-2.5, f32::INFINITY));
    }

    #[test]
    fn sums_widen_and_integers_wrap() {
        assert_eq!(<Sum as Reduction<f32>>::add(0.0, 0.1f32), 0.1f32 as f64);
        assert_eq!(
            <Sum as Reduction<i32>>::add(i32::MAX as i64, i32::MAX),
            2 * i32::MAX as i64
        );
        assert_eq!(<Sum as Reduction<u32>>::combine(u64::MAX, 2), 1);
        let z =
            <Sum as Reduction<Complex<f32>>>::add(Complex::new(1.0, 2.0), Complex::new(0.5, -1.0));
        assert_eq!(z, Complex::new(1.5, 1.0));
    }
}
