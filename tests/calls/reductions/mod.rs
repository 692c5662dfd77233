//! The reduction test programs: each runs reductions (`on_gpu!(sum|min|max: ...)` and the
//! field methods) over `n` random sites on whatever backend is current, and returns each
//! result with a reference computed on the host in f64 (compensated sums, exact integers).

#![allow(dead_code)]

use ongpu::prelude::*;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// A result: real components (one, or re and im), or an exact integer.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Real(Vec<f64>),
    Int(i128),
}

impl Value {
    /// The bits of the result, to compare runs bit for bit.
    pub fn bits(&self) -> Vec<u64> {
        match self {
            Value::Real(v) => v.iter().map(|x| x.to_bits()).collect(),
            Value::Int(i) => vec![*i as u64, (*i >> 64) as u64],
        }
    }
}

impl From<f64> for Value {
    fn from(x: f64) -> Self {
        Value::Real(vec![x])
    }
}
impl From<f32> for Value {
    fn from(x: f32) -> Self {
        Value::Real(vec![x as f64])
    }
}
impl From<Complex<f64>> for Value {
    fn from(z: Complex<f64>) -> Self {
        Value::Real(vec![z.re, z.im])
    }
}
macro_rules! int_value {
    ($($t:ty),*) => {$(
        impl From<$t> for Value {
            fn from(x: $t) -> Self {
                Value::Int(x as i128)
            }
        }
    )*};
}
int_value!(i32, u32, i64, u64, i128);

/// How a result is compared with its reference.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Check {
    /// Equal (integers; min and max, which pick one of the values).
    Exact,
    /// ‖got − want‖ / ‖want‖ at most this (‖want‖ = 0: ‖got − want‖).
    Rel(f64),
}

/// One reduction's result and its reference.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub name: String,
    pub got: Value,
    pub want: Value,
    pub check: Check,
    /// What `Rel` divides by instead of ‖want‖: Σ|terms| where sites compute in f32, whose
    /// rounding is relative to each term, not to a sum that may cancel.
    pub scale: Option<f64>,
}

/// ‖a − b‖ / ‖b‖ (‖b‖ = 0: ‖a − b‖).
pub fn rel_err(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    let num = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt();
    let den = b.iter().map(|y| y * y).sum::<f64>().sqrt();
    if den == 0.0 {
        num
    } else {
        num / den
    }
}

/// ‖a − b‖.
pub fn abs_err(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt()
}

impl Outcome {
    fn new(name: &str, got: impl Into<Value>, want: impl Into<Value>, check: Check) -> Self {
        Outcome {
            name: name.to_string(),
            got: got.into(),
            want: want.into(),
            check,
            scale: None,
        }
    }

    /// The same, with relative errors measured against `scale`.
    fn scaled(mut self, scale: f64) -> Self {
        self.scale = Some(scale);
        self
    }

    /// Panics unless `got` matches `want`.
    pub fn check(&self, context: &str) {
        match (&self.got, &self.want, self.check) {
            (Value::Int(g), Value::Int(w), Check::Exact) => {
                assert_eq!(g, w, "{context}/{}: got {g}, want {w}", self.name)
            }
            (Value::Real(g), Value::Real(w), Check::Exact) => {
                assert!(
                    g.iter().zip(w).all(|(a, b)| a == b),
                    "{context}/{}: got {g:?}, want {w:?}",
                    self.name
                )
            }
            (Value::Real(g), Value::Real(w), Check::Rel(tol)) => {
                assert!(
                    g.iter().all(|x| !x.is_nan()),
                    "{context}/{}: NaN",
                    self.name
                );
                let e = match self.scale {
                    Some(scale) if scale > 0.0 => abs_err(g, w) / scale,
                    _ => rel_err(g, w),
                };
                assert!(
                    e <= tol,
                    "{context}/{}: relative error {e:.3e} > {tol:.0e} (got {g:?}, want {w:?})",
                    self.name
                );
            }
            (g, w, c) => panic!(
                "{context}/{}: cannot compare {g:?} and {w:?} with {c:?}",
                self.name
            ),
        }
    }
}

/// Checks every outcome.
pub fn check_all(outcomes: &[Outcome], context: &str) {
    assert!(!outcomes.is_empty(), "{context}: no outcome");
    for o in outcomes {
        o.check(context);
    }
}

pub fn rng(seed: u64, n: usize) -> SmallRng {
    SmallRng::seed_from_u64(seed ^ (n as u64).rotate_left(17))
}

/// A compensated (Neumaier) sum: the reference's own rounding error is far below the
/// tolerances checked.
pub fn ref_sum(values: impl IntoIterator<Item = f64>) -> f64 {
    let (mut s, mut c) = (0.0f64, 0.0f64);
    for x in values {
        let t = s + x;
        c += if s.abs() >= x.abs() {
            (s - t) + x
        } else {
            (x - t) + s
        };
        s = t;
    }
    s + c
}

/// Real parts in [-0.5, 1): sums of them grow with n, so their relative error means
/// something.
fn real(r: &mut SmallRng) -> f64 {
    r.random_range(-0.5..1.0)
}

fn cplx32(r: &mut SmallRng) -> Complex<f32> {
    Complex::new(real(r) as f32, real(r) as f32)
}

fn c64(z: Complex<f32>) -> Complex<f64> {
    Complex::new(z.re as f64, z.im as f64)
}

const EXACT_SUM: Check = Check::Rel(1e-12);
/// Per-site arithmetic in f32 before the (f64) sum.
const F32_SITES: Check = Check::Rel(1e-6);

/// Sums of f32 and f64 values: fields, products, the site index, a captured value.
pub fn sum_real(n: usize) -> Vec<Outcome> {
    let mut r = rng(1, n);
    let xv: Vec<f32> = (0..n).map(|_| real(&mut r) as f32).collect();
    let yv: Vec<f32> = (0..n).map(|_| real(&mut r) as f32).collect();
    let dv: Vec<f64> = (0..n).map(|_| real(&mut r)).collect();
    let ev: Vec<f64> = (0..n).map(|_| real(&mut r)).collect();
    let x: Field<f32> = Field::from_vec(xv.clone());
    let y: Field<f32, AoS> = Field::from_vec(yv.clone());
    let d: Field<f64, SoA> = Field::from_vec(dv.clone());
    let e: Field<f64> = Field::from_vec(ev.clone());
    let half = 0.5f64;
    let s_x: f64 = on_gpu!(sum: { x }).unwrap();
    let s_xy: f64 = on_gpu!(sum: n, { x * y }).unwrap();
    let s_de = on_gpu!(sum: n, 128, { d * e + half }).unwrap();
    let s_i = on_gpu!(sum: |i| { (i % 10) as f64 * d }).unwrap();
    vec![
        Outcome::new(
            "sum x (f32)",
            s_x,
            ref_sum(xv.iter().map(|&v| v as f64)),
            EXACT_SUM,
        ),
        Outcome::new(
            "sum x*y (f32)",
            s_xy,
            ref_sum((0..n).map(|i| xv[i] as f64 * yv[i] as f64)),
            F32_SITES,
        )
        .scaled(ref_sum((0..n).map(|i| (xv[i] as f64 * yv[i] as f64).abs()))),
        Outcome::new(
            "sum d*e + 0.5 (f64)",
            s_de,
            ref_sum((0..n).map(|i| dv[i] * ev[i] + 0.5)),
            EXACT_SUM,
        ),
        Outcome::new(
            "sum (i % 10) * d (f64)",
            s_i,
            ref_sum((0..n).map(|i| (i % 10) as f64 * dv[i])),
            EXACT_SUM,
        ),
    ]
}

/// Sums of i32 and u32 values, exact (in i64 and u64).
pub fn sum_int(n: usize) -> Vec<Outcome> {
    let mut r = rng(2, n);
    let kv: Vec<i32> = (0..n).map(|_| r.random()).collect();
    let uv: Vec<u32> = (0..n)
        .map(|_| r.random_range(u32::MAX - 1000..=u32::MAX))
        .collect();
    let k: Field<i32> = Field::from_vec(kv.clone());
    let u: Field<u32, SoA> = Field::from_vec(uv.clone());
    let s_k: i64 = on_gpu!(sum: { k }).unwrap();
    let s_u: u64 = on_gpu!(sum: { u }).unwrap();
    let s_ki = on_gpu!(sum: n, 64, |i| { k / 3 + (i % 5) as i32 }).unwrap();
    vec![
        Outcome::new(
            "sum k (i32)",
            s_k,
            kv.iter().map(|&v| v as i128).sum::<i128>(),
            Check::Exact,
        ),
        Outcome::new(
            "sum u (u32)",
            s_u,
            uv.iter().map(|&v| v as i128).sum::<i128>(),
            Check::Exact,
        ),
        Outcome::new(
            "sum k/3 + i%5 (i32)",
            s_ki,
            (0..n)
                .map(|i| (kv[i] / 3 + (i % 5) as i32) as i128)
                .sum::<i128>(),
            Check::Exact,
        ),
    ]
}

/// Sums of complex values, f32 (added in f64) and f64.
pub fn sum_complex(n: usize) -> Vec<Outcome> {
    let mut r = rng(3, n);
    let av: Vec<Complex<f32>> = (0..n).map(|_| cplx32(&mut r)).collect();
    let bv: Vec<Complex<f32>> = (0..n).map(|_| cplx32(&mut r)).collect();
    let cv: Vec<Complex<f64>> = (0..n)
        .map(|_| Complex::new(real(&mut r), real(&mut r)))
        .collect();
    let a: Field<Complex<f32>> = Field::from_vec(av.clone());
    let b: Field<Complex<f32>, AoS> = Field::from_vec(bv.clone());
    let c: Field<Complex<f64>, SoA> = Field::from_vec(cv.clone());
    let s_ab: Complex<f64> = on_gpu!(sum: { a * b.conj() }).unwrap();
    let s_c = on_gpu!(sum: { c * c + Complex::new(0.25, -1.0) }).unwrap();
    let want_ab: Vec<Complex<f64>> = (0..n).map(|i| c64(av[i]) * c64(bv[i]).conj()).collect();
    let want_c: Vec<Complex<f64>> = cv
        .iter()
        .map(|&z| z * z + Complex::new(0.25, -1.0))
        .collect();
    let csum = |v: &[Complex<f64>]| {
        Complex::new(
            ref_sum(v.iter().map(|z| z.re)),
            ref_sum(v.iter().map(|z| z.im)),
        )
    };
    vec![
        Outcome::new(
            "sum a*conj(b) (Complex<f32>)",
            s_ab,
            csum(&want_ab),
            F32_SITES,
        )
        .scaled(ref_sum(want_ab.iter().map(|z| z.norm()))),
        Outcome::new("sum c*c + k (Complex<f64>)", s_c, csum(&want_c), EXACT_SUM),
    ]
}

/// min and max of f32 (with NaN, which is skipped), f64, i32 and u32 values.
pub fn min_max(n: usize) -> Vec<Outcome> {
    let mut r = rng(4, n);
    let xv: Vec<f32> = (0..n)
        .map(|i| {
            if i % 17 == 5 {
                f32::NAN
            } else {
                real(&mut r) as f32 * 100.0
            }
        })
        .collect();
    let dv: Vec<f64> = (0..n).map(|_| real(&mut r) * 1e6).collect();
    let kv: Vec<i32> = (0..n).map(|_| r.random()).collect();
    let uv: Vec<u32> = (0..n).map(|_| r.random()).collect();
    let x: Field<f32> = Field::from_vec(xv.clone());
    let d: Field<f64, AoS> = Field::from_vec(dv.clone());
    let k: Field<i32, SoA> = Field::from_vec(kv.clone());
    let u: Field<u32> = Field::from_vec(uv.clone());
    let lo_x: f32 = on_gpu!(min: { x }).unwrap();
    let hi_x: f32 = on_gpu!(max: n, 256, { x.abs() * 2.0 }).unwrap();
    let lo_d: f64 = on_gpu!(min: |i| { d - i as f64 }).unwrap();
    let hi_d: f64 = on_gpu!(max: { d }).unwrap();
    let lo_k: i32 = on_gpu!(min: { k }).unwrap();
    let hi_k: i32 = on_gpu!(max: { k ^ 0x55 }).unwrap();
    let lo_u: u32 = on_gpu!(min: { u }).unwrap();
    let hi_u: u32 = on_gpu!(max: { u >> 3u32 }).unwrap();
    let xs = || xv.iter().filter(|v| !v.is_nan()).copied();
    vec![
        Outcome::new(
            "min x (f32, NaN skipped)",
            lo_x,
            xs().fold(f32::INFINITY, f32::min),
            Check::Exact,
        ),
        Outcome::new(
            "max 2|x| (f32, NaN skipped)",
            hi_x,
            xs().map(|v| v.abs() * 2.0)
                .fold(f32::NEG_INFINITY, f32::max),
            Check::Exact,
        ),
        Outcome::new(
            "min d - i (f64)",
            lo_d,
            (0..n)
                .map(|i| dv[i] - i as f64)
                .fold(f64::INFINITY, f64::min),
            Check::Exact,
        ),
        Outcome::new(
            "max d (f64)",
            hi_d,
            dv.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            Check::Exact,
        ),
        Outcome::new(
            "min k (i32)",
            lo_k,
            kv.iter().copied().fold(i32::MAX, i32::min),
            Check::Exact,
        ),
        Outcome::new(
            "max k^0x55 (i32)",
            hi_k,
            kv.iter().map(|v| v ^ 0x55).fold(i32::MIN, i32::max),
            Check::Exact,
        ),
        Outcome::new(
            "min u (u32)",
            lo_u,
            uv.iter().copied().fold(u32::MAX, u32::min),
            Check::Exact,
        ),
        Outcome::new(
            "max u>>3 (u32)",
            hi_u,
            uv.iter().map(|v| v >> 3).fold(0, u32::max),
            Check::Exact,
        ),
    ]
}

/// The field methods on scalar and complex fields: norm2, dot, sum.
pub fn field_methods(n: usize) -> Vec<Outcome> {
    let mut r = rng(5, n);
    let xv: Vec<f32> = (0..n).map(|_| real(&mut r) as f32).collect();
    let yv: Vec<f64> = (0..n).map(|_| real(&mut r)).collect();
    let av: Vec<Complex<f32>> = (0..n).map(|_| cplx32(&mut r)).collect();
    let bv: Vec<Complex<f32>> = (0..n).map(|_| cplx32(&mut r)).collect();
    let kv: Vec<i32> = (0..n).map(|_| r.random_range(-1000..1000)).collect();
    let x: Field<f32> = Field::from_vec(xv.clone());
    let y: Field<f64, SoA> = Field::from_vec(yv.clone());
    let x64: Field<f64> = Field::from_fn(n, |i| xv[i] as f64);
    let a: Field<Complex<f32>> = Field::from_vec(av.clone());
    let b: Field<Complex<f32>, AoS> = Field::from_vec(bv.clone());
    let k: Field<i32> = Field::from_vec(kv.clone());
    let (ac, bc): (Vec<_>, Vec<_>) = (
        av.iter().map(|&z| c64(z)).collect(),
        bv.iter().map(|&z| c64(z)).collect(),
    );
    let ab: Vec<Complex<f64>> = (0..n).map(|i| ac[i].conj() * bc[i]).collect();
    vec![
        Outcome::new(
            "x.norm2() (f32)",
            x.norm2().unwrap(),
            ref_sum(xv.iter().map(|&v| v as f64 * v as f64)),
            EXACT_SUM,
        ),
        Outcome::new(
            "y.norm2() (f64)",
            y.norm2().unwrap(),
            ref_sum(yv.iter().map(|v| v * v)),
            EXACT_SUM,
        ),
        Outcome::new(
            "x64.dot(&y) (f64)",
            x64.dot(&y).unwrap(),
            ref_sum((0..n).map(|i| xv[i] as f64 * yv[i])),
            EXACT_SUM,
        ),
        Outcome::new(
            "a.norm2() (Complex<f32>)",
            a.norm2().unwrap(),
            ref_sum(ac.iter().map(|z| z.norm_sqr())),
            EXACT_SUM,
        ),
        Outcome::new(
            "a.dot(&b) (Complex<f32>)",
            a.dot(&b).unwrap(),
            Complex::new(
                ref_sum(ab.iter().map(|z| z.re)),
                ref_sum(ab.iter().map(|z| z.im)),
            ),
            EXACT_SUM,
        ),
        Outcome::new(
            "x.sum() (f32)",
            x.sum().unwrap(),
            ref_sum(xv.iter().map(|&v| v as f64)),
            EXACT_SUM,
        ),
        Outcome::new(
            "a.sum() (Complex<f32>)",
            a.sum().unwrap(),
            Complex::new(
                ref_sum(ac.iter().map(|z| z.re)),
                ref_sum(ac.iter().map(|z| z.im)),
            ),
            EXACT_SUM,
        ),
        Outcome::new(
            "k.sum() (i32)",
            k.sum().unwrap(),
            kv.iter().map(|&v| v as i128).sum::<i128>(),
            Check::Exact,
        ),
    ]
}

fn matrix(r: &mut SmallRng) -> ColorMatrix<f32> {
    ColorMatrix::new([[(); 3]; 3].map(|row| row.map(|()| cplx32(r))))
}

fn reals<T: Copy + Into<f64>>(m: &ColorMatrix<T>) -> impl Iterator<Item = f64> + '_ {
    m.m.iter()
        .flatten()
        .flat_map(|z| [z.re.into(), z.im.into()])
}

/// Colour matrices and vectors: a trace in the body, norm2 and dot of f32 and f64 fields.
pub fn color(n: usize) -> Vec<Outcome> {
    let mut r = rng(6, n);
    let mv: Vec<ColorMatrix<f32>> = (0..n).map(|_| matrix(&mut r)).collect();
    let pv: Vec<ColorMatrix<f32>> = (0..n).map(|_| matrix(&mut r)).collect();
    let m: Field<ColorMatrix<f32>> = Field::from_vec(mv.clone());
    let p: Field<ColorMatrix<f32>, AoS> = Field::from_vec(pv.clone());
    let q: Field<ColorMatrix<f64>, SoA> = Field::from_fn(n, |i| {
        ColorMatrix::new(pv[i].m.map(|row| row.map(c64))) * 0.5
    });
    // Entries that f32 cannot hold, so that the f64 dot is an f64 computation.
    let third = |a: &ColorMatrix<f32>| ColorMatrix::new(a.m.map(|row| row.map(c64))) * (1.0 / 3.0);
    let qv: Vec<ColorMatrix<f64>> = pv.iter().map(third).collect();
    let uv: Vec<ColorMatrix<f64>> = mv.iter().map(third).collect();
    let q3: Field<ColorMatrix<f64>> = Field::from_vec(qv.clone());
    let u3: Field<ColorMatrix<f64>, AoS> = Field::from_vec(uv.clone());
    let v: Field<ColorVector<f64>> = Field::from_fn(n, |i| ColorVector::new(mv[i].m[0].map(c64)));
    let w: Field<ColorVector<f64>, SoA> =
        Field::from_fn(n, |i| ColorVector::new(pv[i].m[2].map(c64)));
    let s_tr: f64 = on_gpu!(sum: { (m.adj() * p).trace().re }).unwrap();
    // Re tr(m† p) = Σ_jk Re(conj(m_kj) p_kj).
    let tr = ref_sum((0..n).flat_map(|i| {
        reals(&mv[i])
            .zip(reals(&pv[i]))
            .map(|(a, b)| a * b)
            .collect::<Vec<_>>()
    }));
    let tr_size = ref_sum((0..n).flat_map(|i| {
        reals(&mv[i])
            .zip(reals(&pv[i]))
            .map(|(a, b)| (a * b).abs())
            .collect::<Vec<_>>()
    }));
    let dot_mp = {
        let (mut re, mut im) = (Vec::new(), Vec::new());
        for i in 0..n {
            for (a, b) in mv[i].m.iter().flatten().zip(pv[i].m.iter().flatten()) {
                let z = c64(*a).conj() * c64(*b);
                re.push(z.re);
                im.push(z.im);
            }
        }
        Complex::new(ref_sum(re), ref_sum(im))
    };
    let dot_vw = {
        let (mut re, mut im) = (Vec::new(), Vec::new());
        for i in 0..n {
            for k in 0..3 {
                let z = c64(mv[i].m[0][k]).conj() * c64(pv[i].m[2][k]);
                re.push(z.re);
                im.push(z.im);
            }
        }
        Complex::new(ref_sum(re), ref_sum(im))
    };
    let dot_qu = {
        let (mut re, mut im) = (Vec::new(), Vec::new());
        for i in 0..n {
            for (a, b) in qv[i].m.iter().flatten().zip(uv[i].m.iter().flatten()) {
                let z = a.conj() * b;
                re.push(z.re);
                im.push(z.im);
            }
        }
        Complex::new(ref_sum(re), ref_sum(im))
    };
    vec![
        Outcome::new("sum Re tr(m† p) (f32)", s_tr, tr, F32_SITES).scaled(tr_size),
        Outcome::new(
            "m.norm2() (ColorMatrix<f32>)",
            m.norm2().unwrap(),
            ref_sum(
                mv.iter()
                    .flat_map(|x| reals(x).map(|c| c * c).collect::<Vec<_>>()),
            ),
            EXACT_SUM,
        ),
        Outcome::new(
            "m.dot(&p) (ColorMatrix<f32>)",
            m.dot(&p).unwrap(),
            dot_mp,
            EXACT_SUM,
        ),
        Outcome::new(
            "q.norm2() (ColorMatrix<f64>)",
            q.norm2().unwrap(),
            ref_sum(
                pv.iter()
                    .flat_map(|x| reals(x).map(|c| 0.25 * c * c).collect::<Vec<_>>()),
            ),
            EXACT_SUM,
        ),
        Outcome::new(
            "q3.dot(&u3) (ColorMatrix<f64>)",
            q3.dot(&u3).unwrap(),
            dot_qu,
            EXACT_SUM,
        ),
        Outcome::new(
            "v.dot(&w) (ColorVector<f64>)",
            v.dot(&w).unwrap(),
            dot_vw,
            EXACT_SUM,
        ),
    ]
}

/// A body that writes a field and reduces in one pass: r = b - a x, Σ |r|².
pub fn fused(n: usize) -> Vec<Outcome> {
    let mut r = rng(7, n);
    let av: Vec<f32> = (0..n).map(|_| real(&mut r) as f32).collect();
    let bv: Vec<f32> = (0..n).map(|_| real(&mut r) as f32).collect();
    let xv: Vec<f32> = (0..n).map(|_| real(&mut r) as f32).collect();
    let a: Field<f32> = Field::from_vec(av.clone());
    let b: Field<f32, SoA> = Field::from_vec(bv.clone());
    let x: Field<f32> = Field::from_vec(xv.clone());
    let mut res: Field<f32> = Field::filled(n, f32::NAN);
    let rr: f64 = on_gpu!(sum: {
        res = b - a * x;
        res.norm2()
    })
    .unwrap();
    let want: Vec<f64> = (0..n)
        .map(|i| bv[i] as f64 - av[i] as f64 * xv[i] as f64)
        .collect();
    // f32 rounding of b - a x is relative to |b| + |a x|.
    let size: Vec<f64> = (0..n)
        .map(|i| (bv[i] as f64).abs() + (av[i] as f64 * xv[i] as f64).abs())
        .collect();
    let got: Vec<f64> = res.to_vec().unwrap().into_iter().map(f64::from).collect();
    vec![
        Outcome::new(
            "Σ|b - a x|²",
            rr,
            ref_sum(want.iter().map(|v| v * v)),
            F32_SITES,
        )
        .scaled(ref_sum(size.iter().map(|v| v * v))),
        Outcome {
            name: "r = b - a x (written)".into(),
            got: Value::Real(got),
            want: Value::Real(want),
            check: F32_SITES,
            scale: Some(ref_sum(size.iter().map(|v| v * v)).sqrt()),
        },
    ]
}

/// Fewer sites than the fields hold, and block sizes that are not multiples of a warp.
pub fn partial(n: usize) -> Vec<Outcome> {
    let mut r = rng(8, n);
    let len = n + 7;
    let xv: Vec<f64> = (0..len).map(|_| real(&mut r)).collect();
    let x: Field<f64> = Field::from_vec(xv.clone());
    let s_64 = on_gpu!(sum: n, 64, { x }).unwrap();
    let s_48 = on_gpu!(sum: n, 48, { x }).unwrap();
    let s_1 = on_gpu!(sum: n, 1, { x }).unwrap();
    let hi_i: u32 = on_gpu!(max: n, 33, |i| { i as u32 }).unwrap();
    let lo_x = on_gpu!(min: n, 7, { x }).unwrap();
    let want = ref_sum(xv[..n].iter().copied());
    vec![
        Outcome::new("sum of n sites, 64 threads", s_64, want, EXACT_SUM),
        Outcome::new("sum of n sites, 48 threads", s_48, want, EXACT_SUM),
        Outcome::new("sum of n sites, 1 thread", s_1, want, EXACT_SUM),
        Outcome::new(
            "max i, 33 threads",
            hi_i,
            n.saturating_sub(1) as u32,
            Check::Exact,
        ),
        Outcome::new(
            "min x, 7 threads",
            lo_x,
            xv[..n].iter().copied().fold(f64::INFINITY, f64::min),
            Check::Exact,
        ),
    ]
}

/// A program: runs its reductions over `n` sites.
pub type Program = fn(usize) -> Vec<Outcome>;

/// Every program, by name.
pub fn all() -> Vec<(&'static str, Program)> {
    vec![
        ("sum_real", sum_real),
        ("sum_int", sum_int),
        ("sum_complex", sum_complex),
        ("min_max", min_max),
        ("field_methods", field_methods),
        ("color", color),
        ("fused", fused),
        ("partial", partial),
    ]
}

/// Site counts every program runs at: none (the identity), one, and a prime.
pub const SMALL_COUNTS: [usize; 3] = [0, 1, 100_003];

/// 2^24 + 3 sites: many grid-stride iterations and a ragged end.
pub const LARGE: usize = (1 << 24) + 3;
