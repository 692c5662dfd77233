//! Property tests of the lattice types: every operator of `ColorMatrix<T>` and
//! `ColorVector<T>` (T = f32, f64) against a plain f64 reference written here with arrays.
//!
//! The reference carries, with each value, the sum of the magnitudes of the terms that made
//! it, so a result is checked against the rounding-error bound of its own computation:
//! `|got − want| ≤ k·u·Σ|terms|` (u = the unit roundoff of T). A wrong formula, index or
//! sign misses that bound by far; exact operations (conjugates, transposes, entries) must be
//! exact.

use ongpu::prelude::*;
use proptest::prelude::*;
use std::ops::{Add, Div, Mul, Neg, Sub};

/// A reference value and the sum of the magnitudes of the terms it was computed from.
#[derive(Debug, Clone, Copy)]
struct R {
    v: f64,
    m: f64,
}

fn r(v: f64) -> R {
    R { v, m: v.abs() }
}

impl Add for R {
    type Output = R;
    fn add(self, o: R) -> R {
        R {
            v: self.v + o.v,
            m: self.m + o.m,
        }
    }
}
impl Sub for R {
    type Output = R;
    fn sub(self, o: R) -> R {
        R {
            v: self.v - o.v,
            m: self.m + o.m,
        }
    }
}
impl Mul for R {
    type Output = R;
    fn mul(self, o: R) -> R {
        R {
            v: self.v * o.v,
            m: self.m * o.m,
        }
    }
}
impl Div for R {
    type Output = R;
    fn div(self, o: R) -> R {
        R {
            v: self.v / o.v,
            m: self.m / o.v.abs(),
        }
    }
}
impl Neg for R {
    type Output = R;
    fn neg(self) -> R {
        R {
            v: -self.v,
            m: self.m,
        }
    }
}

/// A reference complex number: (re, im).
type C = (R, R);
/// A reference matrix, row-major, and vector.
type M = [[C; 3]; 3];
type V = [C; 3];

fn cadd(a: C, b: C) -> C {
    (a.0 + b.0, a.1 + b.1)
}
fn csub(a: C, b: C) -> C {
    (a.0 - b.0, a.1 - b.1)
}
fn cmul(a: C, b: C) -> C {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}
fn cscale(a: C, k: R) -> C {
    (a.0 * k, a.1 * k)
}
fn cdiv(a: C, k: R) -> C {
    (a.0 / k, a.1 / k)
}
fn cconj(a: C) -> C {
    (a.0, -a.1)
}
fn cnorm2(a: C) -> R {
    a.0 * a.0 + a.1 * a.1
}
fn mmap(a: &M, f: impl Fn(usize, usize) -> C) -> M {
    let _ = a;
    std::array::from_fn(|i| std::array::from_fn(|j| f(i, j)))
}
fn mmul(a: &M, b: &M) -> M {
    mmap(a, |i, j| {
        (0..3).map(|k| cmul(a[i][k], b[k][j])).reduce(cadd).unwrap()
    })
}
fn mvec(a: &M, v: &V) -> V {
    std::array::from_fn(|i| (0..3).map(|k| cmul(a[i][k], v[k])).reduce(cadd).unwrap())
}

/// f32 or f64, seen from the reference.
trait Prec: ongpu::Real {
    /// Unit roundoff.
    const U: f64;
    fn of(x: f64) -> Self;
    fn wide(self) -> f64;
}
impl Prec for f32 {
    const U: f64 = f32::EPSILON as f64 / 2.0;
    fn of(x: f64) -> Self {
        x as f32
    }
    fn wide(self) -> f64 {
        self as f64
    }
}
impl Prec for f64 {
    const U: f64 = f64::EPSILON / 2.0;
    fn of(x: f64) -> Self {
        x
    }
    fn wide(self) -> f64 {
        self
    }
}

fn complex_of<T: Prec>(re: f64, im: f64) -> Complex<T> {
    Complex::new(T::of(re), T::of(im))
}
fn ref_c<T: Prec>(z: Complex<T>) -> C {
    (r(z.re.wide()), r(z.im.wide()))
}
fn matrix_of<T: Prec>(a: &[f64; 18]) -> ColorMatrix<T> {
    ColorMatrix::new(std::array::from_fn(|i| {
        std::array::from_fn(|j| complex_of(a[2 * (3 * i + j)], a[2 * (3 * i + j) + 1]))
    }))
}
fn vector_of<T: Prec>(a: &[f64; 6]) -> ColorVector<T> {
    ColorVector::new(std::array::from_fn(|i| complex_of(a[2 * i], a[2 * i + 1])))
}
fn ref_m<T: Prec>(m: &ColorMatrix<T>) -> M {
    std::array::from_fn(|i| std::array::from_fn(|j| ref_c(m[i][j])))
}
fn ref_v<T: Prec>(v: &ColorVector<T>) -> V {
    std::array::from_fn(|i| ref_c(v[i]))
}

/// Rounding steps allowed per result: the longest chain in these operators is a 3-term
/// complex dot product plus one more addition (7 roundings); 16 leaves room and still
/// rejects any wrong term by orders of magnitude.
const K: f64 = 16.0;

fn check_real<T: Prec>(what: &str, got: T, want: R) -> Result<(), TestCaseError> {
    let err = (got.wide() - want.v).abs();
    let bound = K * T::U * want.m;
    prop_assert!(
        err <= bound,
        "{what}: got {:e}, want {:e} (error {err:e} > bound {bound:e})",
        got.wide(),
        want.v
    );
    Ok(())
}
fn check_c<T: Prec>(what: &str, got: Complex<T>, want: C) -> Result<(), TestCaseError> {
    check_real(&format!("{what}.re"), got.re, want.0)?;
    check_real(&format!("{what}.im"), got.im, want.1)
}
fn check_m<T: Prec>(what: &str, got: &ColorMatrix<T>, want: &M) -> Result<(), TestCaseError> {
    for i in 0..3 {
        for j in 0..3 {
            check_c(&format!("{what}[{i}][{j}]"), got[i][j], want[i][j])?;
        }
    }
    Ok(())
}
fn check_v<T: Prec>(what: &str, got: &ColorVector<T>, want: &V) -> Result<(), TestCaseError> {
    for i in 0..3 {
        check_c(&format!("{what}[{i}]"), got[i], want[i])?;
    }
    Ok(())
}

/// Values in [-2, 2]; divisors at least 1/4 away from 0.
fn entry() -> impl Strategy<Value = f64> {
    -2.0f64..2.0
}
fn divisor() -> impl Strategy<Value = f64> {
    prop_oneof![-4.0f64..-0.25, 0.25f64..4.0]
}

/// Every matrix operator, for one precision.
fn matrix_ops<T>(
    a: &[f64; 18],
    b: &[f64; 18],
    w: &[f64; 6],
    k: f64,
    c: (f64, f64),
    d: f64,
) -> Result<(), TestCaseError>
where
    T: Prec + Mul<ColorMatrix<T>, Output = ColorMatrix<T>>,
{
    let (x, y): (ColorMatrix<T>, ColorMatrix<T>) = (matrix_of(a), matrix_of(b));
    let v: ColorVector<T> = vector_of(w);
    let (k, d, c) = (T::of(k), T::of(d), complex_of::<T>(c.0, c.1));
    let (rx, ry, rv) = (ref_m(&x), ref_m(&y), ref_v(&v));
    let (rk, rd, rc) = (r(k.wide()), r(d.wide()), ref_c(c));

    check_m(
        "x + y",
        &(x + y),
        &mmap(&rx, |i, j| cadd(rx[i][j], ry[i][j])),
    )?;
    check_m(
        "x - y",
        &(x - y),
        &mmap(&rx, |i, j| csub(rx[i][j], ry[i][j])),
    )?;
    check_m("-x", &(-x), &mmap(&rx, |i, j| (-rx[i][j].0, -rx[i][j].1)))?;
    check_m("x * y", &(x * y), &mmul(&rx, &ry))?;
    check_v("x * v", &(x * v), &mvec(&rx, &rv))?;
    let scaled = mmap(&rx, |i, j| cscale(rx[i][j], rk));
    check_m("x * k", &(x * k), &scaled)?;
    check_m("k * x", &(k * x), &scaled)?;
    check_m("x / d", &(x / d), &mmap(&rx, |i, j| cdiv(rx[i][j], rd)))?;
    check_m("x * c", &(x * c), &mmap(&rx, |i, j| cmul(rx[i][j], rc)))?;
    check_m("c * x", &(c * x), &mmap(&rx, |i, j| cmul(rc, rx[i][j])))?;

    let mut t = x;
    t += y;
    check_m("x += y", &t, &mmap(&rx, |i, j| cadd(rx[i][j], ry[i][j])))?;
    let mut t = x;
    t -= y;
    check_m("x -= y", &t, &mmap(&rx, |i, j| csub(rx[i][j], ry[i][j])))?;
    let mut t = x;
    t *= y;
    check_m("x *= y", &t, &mmul(&rx, &ry))?;
    let mut t = x;
    t *= k;
    check_m("x *= k", &t, &scaled)?;
    let mut t = x;
    t *= c;
    check_m("x *= c", &t, &mmap(&rx, |i, j| cmul(rx[i][j], rc)))?;
    let mut t = x;
    t /= d;
    check_m("x /= d", &t, &mmap(&rx, |i, j| cdiv(rx[i][j], rd)))?;
    // The benchmark's operation, in the benchmark's order.
    let mut t = x;
    t += x * y;
    let xy = mmul(&rx, &ry);
    check_m(
        "x += x * y",
        &t,
        &mmap(&rx, |i, j| cadd(rx[i][j], xy[i][j])),
    )?;

    check_m("x.adj()", &x.adj(), &mmap(&rx, |i, j| cconj(rx[j][i])))?;
    check_m("x.conj()", &x.conj(), &mmap(&rx, |i, j| cconj(rx[i][j])))?;
    check_m("x.transpose()", &x.transpose(), &mmap(&rx, |i, j| rx[j][i]))?;
    let tr = cadd(cadd(rx[0][0], rx[1][1]), rx[2][2]);
    check_c("x.trace()", x.trace(), tr)?;
    let n2 = rx.iter().flatten().map(|&z| cnorm2(z)).reduce(|a, b| a + b);
    check_real("x.norm2()", x.norm2(), n2.unwrap())?;

    // Entries, constructors.
    for i in 0..3 {
        for j in 0..3 {
            let want = complex_of::<T>(a[2 * (3 * i + j)], a[2 * (3 * i + j) + 1]);
            prop_assert_eq!(x[i][j], want, "x[{}][{}]", i, j);
            prop_assert_eq!(x.m[i][j], want);
        }
    }
    let mut t = x;
    t[2][1] = c;
    prop_assert_eq!(t[2][1], c);
    prop_assert_eq!(t[1][2], x[1][2]);
    let one = Complex::new(T::one(), T::zero());
    let zero = Complex::new(T::zero(), T::zero());
    for i in 0..3 {
        for j in 0..3 {
            let id = if i == j { one } else { zero };
            prop_assert_eq!(ColorMatrix::<T>::identity()[i][j], id);
            prop_assert_eq!(ColorMatrix::<T>::zero()[i][j], zero);
        }
    }
    prop_assert_eq!(ColorMatrix::<T>::default(), ColorMatrix::zero());
    check_m("identity * x", &(ColorMatrix::identity() * x), &rx)?;
    Ok(())
}

/// Every vector operator, for one precision.
fn vector_ops<T>(
    a: &[f64; 6],
    b: &[f64; 6],
    k: f64,
    c: (f64, f64),
    d: f64,
) -> Result<(), TestCaseError>
where
    T: Prec + Mul<ColorVector<T>, Output = ColorVector<T>>,
{
    let (u, v): (ColorVector<T>, ColorVector<T>) = (vector_of(a), vector_of(b));
    let (k, d, c) = (T::of(k), T::of(d), complex_of::<T>(c.0, c.1));
    let (ru, rv) = (ref_v(&u), ref_v(&v));
    let (rk, rd, rc) = (r(k.wide()), r(d.wide()), ref_c(c));
    let each = |f: &dyn Fn(usize) -> C| -> V { std::array::from_fn(f) };

    check_v("u + v", &(u + v), &each(&|i| cadd(ru[i], rv[i])))?;
    check_v("u - v", &(u - v), &each(&|i| csub(ru[i], rv[i])))?;
    check_v("-u", &(-u), &each(&|i| (-ru[i].0, -ru[i].1)))?;
    let scaled = each(&|i| cscale(ru[i], rk));
    check_v("u * k", &(u * k), &scaled)?;
    check_v("k * u", &(k * u), &scaled)?;
    check_v("u / d", &(u / d), &each(&|i| cdiv(ru[i], rd)))?;
    check_v("u * c", &(u * c), &each(&|i| cmul(ru[i], rc)))?;
    check_v("c * u", &(c * u), &each(&|i| cmul(rc, ru[i])))?;
    let mut t = u;
    t += v;
    check_v("u += v", &t, &each(&|i| cadd(ru[i], rv[i])))?;
    let mut t = u;
    t -= v;
    check_v("u -= v", &t, &each(&|i| csub(ru[i], rv[i])))?;
    let mut t = u;
    t *= k;
    check_v("u *= k", &t, &scaled)?;
    let mut t = u;
    t *= c;
    check_v("u *= c", &t, &each(&|i| cmul(ru[i], rc)))?;
    let mut t = u;
    t /= d;
    check_v("u /= d", &t, &each(&|i| cdiv(ru[i], rd)))?;
    check_v("u.conj()", &u.conj(), &each(&|i| cconj(ru[i])))?;
    let n2 = cnorm2(ru[0]) + cnorm2(ru[1]) + cnorm2(ru[2]);
    check_real("u.norm2()", u.norm2(), n2)?;
    let dot = (0..3).map(|i| cmul(cconj(ru[i]), rv[i])).reduce(cadd);
    check_c("u.dot(v)", u.dot(v), dot.unwrap())?;

    for i in 0..3 {
        let want = complex_of::<T>(a[2 * i], a[2 * i + 1]);
        prop_assert_eq!(u[i], want);
        prop_assert_eq!(u.v[i], want);
    }
    let mut t = u;
    t[1] = c;
    prop_assert_eq!(t[1], c);
    prop_assert_eq!(t[0], u[0]);
    let zero = Complex::new(T::zero(), T::zero());
    prop_assert_eq!(ColorVector::<T>::zero().v, [zero; 3]);
    Ok(())
}

proptest! {
    #[test]
    fn matrix_operators_f32(
        a in prop::array::uniform18(entry()),
        b in prop::array::uniform18(entry()),
        w in prop::array::uniform6(entry()),
        k in entry(),
        c in (entry(), entry()),
        d in divisor(),
    ) {
        matrix_ops::<f32>(&a, &b, &w, k, c, d)?;
    }

    #[test]
    fn matrix_operators_f64(
        a in prop::array::uniform18(entry()),
        b in prop::array::uniform18(entry()),
        w in prop::array::uniform6(entry()),
        k in entry(),
        c in (entry(), entry()),
        d in divisor(),
    ) {
        matrix_ops::<f64>(&a, &b, &w, k, c, d)?;
    }

    #[test]
    fn vector_operators_f32(
        a in prop::array::uniform6(entry()),
        b in prop::array::uniform6(entry()),
        k in entry(),
        c in (entry(), entry()),
        d in divisor(),
    ) {
        vector_ops::<f32>(&a, &b, k, c, d)?;
    }

    #[test]
    fn vector_operators_f64(
        a in prop::array::uniform6(entry()),
        b in prop::array::uniform6(entry()),
        k in entry(),
        c in (entry(), entry()),
        d in divisor(),
    ) {
        vector_ops::<f64>(&a, &b, k, c, d)?;
    }
}

/// The check itself rejects a wrong result: a product with one term's sign flipped is far
/// outside the bound.
#[test]
fn the_bound_rejects_a_wrong_formula() {
    let a: [f64; 18] = std::array::from_fn(|i| 0.1 * i as f64 - 0.7);
    let b: [f64; 18] = std::array::from_fn(|i| 0.9 - 0.05 * i as f64);
    let (x, y) = (matrix_of::<f32>(&a), matrix_of::<f32>(&b));
    let (rx, ry) = (ref_m(&x), ref_m(&y));
    let mut wrong = x * y;
    wrong[1][2] -= x[1][0] * y[0][2] * 2.0;
    assert!(check_m("wrong", &wrong, &mmul(&rx, &ry)).is_err());
    assert!(check_m("right", &(x * y), &mmul(&rx, &ry)).is_ok());
}
