//! The test programs: each runs `on_gpu!` bodies on random inputs (outputs poisoned first)
//! on whatever backend is current, and returns its outputs with an f64 reference computed
//! on the host. The CPU tests check them against the references; the GPU tests also check
//! that both backends agree (bitwise for integers).

#![allow(dead_code)]
// Bodies spell out `w = w | m` on purpose: both that and `w |= m` must translate.
#![allow(clippy::assign_op_pattern)]

mod check;
mod color_ops;
mod lattice;
mod literals;
mod mixed;
mod random;

#[allow(unused_imports)] // not every test file uses every helper
pub use check::{assert_backends_agree, assert_close, rms, Kind, Output};

pub use color_ops::{color_operators_f32, color_operators_f64};
pub use lattice::{
    hopping_gauge_covariance, lattice_parity_arrays, lattice_plaquette, lattice_shifts,
    multi_rhs_entry_stores, staggered_dslash, wilson_spinor_arrays,
};
pub use literals::{constants, integer_literals};
pub use mixed::mixed_precision;
use ongpu::prelude::*;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
pub use random::random_draws;

pub fn rng(seed: u64) -> SmallRng {
    SmallRng::seed_from_u64(seed)
}

/// A random complex number with parts in [-1, 1).
pub fn cplx(r: &mut SmallRng) -> Complex<f64> {
    Complex::new(r.random_range(-1.0..1.0), r.random_range(-1.0..1.0))
}

pub fn matrix(r: &mut SmallRng) -> ColorMatrix<f64> {
    let mut m = ColorMatrix::zero();
    for i in 0..3 {
        for j in 0..3 {
            m[i][j] = cplx(r);
        }
    }
    m
}

pub fn to_f32(m: &ColorMatrix<f64>) -> ColorMatrix<f32> {
    ColorMatrix::new(m.m.map(|row| row.map(|z| Complex::new(z.re as f32, z.im as f32))))
}

pub fn to_f64(m: &ColorMatrix<f32>) -> ColorMatrix<f64> {
    ColorMatrix::new(m.m.map(|row| row.map(|z| Complex::new(z.re as f64, z.im as f64))))
}

pub fn matrix_reals<T: Copy + Into<f64>>(m: &ColorMatrix<T>) -> Vec<f64> {
    m.m.iter()
        .flatten()
        .flat_map(|z| [z.re.into(), z.im.into()])
        .collect()
}

/// A matrix of NaNs: what outputs hold before a run.
pub fn poison_matrix() -> ColorMatrix<f32> {
    ColorMatrix::new([[Complex::new(f32::NAN, f32::NAN); 3]; 3])
}

const F32: Kind = Kind::Rel(1e-6);

/// c = a + b, 12 bytes a site: the classic first program.
pub fn vector_add() -> Vec<Output> {
    let n = 100_003;
    let mut r = rng(1);
    let a64: Vec<f64> = (0..n).map(|_| r.random_range(-10.0..10.0)).collect();
    let b64: Vec<f64> = (0..n).map(|_| r.random_range(-10.0..10.0)).collect();
    let a: Field<f32> = Field::from_fn(n, |i| a64[i] as f32);
    let b: Field<f32> = Field::from_fn(n, |i| b64[i] as f32);
    let mut c: Field<f32> = Field::filled(n, f32::NAN);
    on_gpu!(n, 256, {
        c = a + b;
    })
    .unwrap();
    // f32 addition is exactly rounded on both backends.
    let want = (0..n)
        .map(|i| (a64[i] as f32 + b64[i] as f32) as f64)
        .collect();
    vec![Output {
        name: "c",
        got: c.to_vec().unwrap().into_iter().map(f64::from).collect(),
        want,
        kind: Kind::Exact,
    }]
}

/// Fields of one 4-byte scalar, which the GPU reads and writes four sites at a time: counts
/// that leave 0 to 3 sites after the last four, integer and float fields read, written and
/// both, the site index, and the odd sites of a lattice (a call that starts past site 0).
pub fn quads() -> Vec<Output> {
    let mut out = Vec::new();
    for n in [1usize, 3, 4, 7, 4099] {
        let mut r = rng(40 + n as u64);
        let a64: Vec<f64> = (0..n).map(|_| r.random_range(-100.0..100.0)).collect();
        let a: Field<f32> = Field::from_fn(n, |i| a64[i] as f32);
        let k: Field<i32> = Field::from_fn(n, |i| i as i32 * 7 - 50);
        let mut u: Field<u32> = Field::from_fn(n, |i| i as u32);
        let mut x: Field<f32> = Field::filled(n, f32::NAN);
        let shift = 3u32;
        on_gpu!(n, |i| {
            x = a * 0.5 + k as f32;
            u = (u << shift) ^ (k as u32) ^ (i as u32);
        })
        .unwrap();
        let want_x = (0..n)
            .map(|i| (a64[i] as f32 * 0.5 + (i as i32 * 7 - 50) as f32) as f64)
            .collect();
        let want_u = (0..n)
            .map(|i| (((i as u32) << 3) ^ ((i as i32 * 7 - 50) as u32) ^ i as u32) as f64)
            .collect();
        out.push(Output {
            name: "x",
            got: x.to_vec().unwrap().into_iter().map(f64::from).collect(),
            want: want_x,
            kind: Kind::Exact,
        });
        out.push(Output {
            name: "u",
            got: u.to_vec().unwrap().into_iter().map(f64::from).collect(),
            want: want_u,
            kind: Kind::Exact,
        });
    }
    let lat = Lattice::new([4, 4, 2, 6]).unwrap();
    let half = lat.volume() / 2;
    let mut y: Field<f32> = Field::filled(lat.volume(), -1.0);
    on_gpu!(lat.odd(), |i| {
        y = i as f32;
    })
    .unwrap();
    let want = (0..lat.volume())
        .map(|i| if i < half { -1.0 } else { i as f64 })
        .collect();
    out.push(Output {
        name: "odd sites",
        got: y.to_vec().unwrap().into_iter().map(f64::from).collect(),
        want,
        kind: Kind::Exact,
    });
    out
}

/// Scalar arithmetic, captured values, locals, shadowing, if/else, for, the site index.
pub fn scalar_control_flow() -> Vec<Output> {
    let n = 5_000;
    let mut r = rng(2);
    let x64: Vec<f64> = (0..n).map(|_| r.random_range(-4.0..4.0)).collect();
    let x: Field<f32, SoA> = Field::from_fn(n, |i| x64[i] as f32);
    let mut y: Field<f32> = Field::filled(n, f32::NAN);
    let mut count: Field<i32, AoS> = Field::filled(n, i32::MIN);
    let k = 0.75f32;
    let bias = 3i32;
    on_gpu!(n, |i| {
        let t = x * k;
        let t = t + 1.0;
        let mut acc: f32 = 0.0;
        for j in 0..4 {
            acc += t * (j as f32);
        }
        let mut c = bias;
        for j in 1..=3 {
            c += j;
        }
        if acc > 2.0 {
            y = acc - 2.0;
        } else if acc < -2.0 {
            y = -acc;
        } else {
            y = (i % 7) as f32;
        }
        count = c + (i as i32) % 5;
    })
    .unwrap();
    let want_y = (0..n)
        .map(|i| {
            let t = (x64[i] as f32 * k) as f64 + 1.0;
            let acc = t * 6.0;
            if acc > 2.0 {
                acc - 2.0
            } else if acc < -2.0 {
                -acc
            } else {
                (i % 7) as f64
            }
        })
        .collect();
    let want_c = (0..n).map(|i| (bias + 6 + (i as i32) % 5) as f64).collect();
    vec![
        Output {
            name: "y",
            got: y.to_vec().unwrap().into_iter().map(f64::from).collect(),
            want: want_y,
            kind: F32,
        },
        Output {
            name: "count",
            got: count.to_vec().unwrap().into_iter().map(f64::from).collect(),
            want: want_c,
            kind: Kind::Exact,
        },
    ]
}

/// Integer semantics: Rust's wrapping arithmetic, truncated `/` and `%` (negative operands
/// too), masked shifts, `!` on integers, comparisons, u32 and i32.
pub fn integer_semantics() -> Vec<Output> {
    let n = 4_099;
    let mut r = rng(3);
    let av: Vec<i32> = (0..n).map(|_| r.random_range(-100_000..100_000)).collect();
    let bv: Vec<i32> = (0..n)
        .map(|_| {
            let v = r.random_range(-50..50);
            if v == 0 {
                7
            } else {
                v
            }
        })
        .collect();
    let uv: Vec<u32> = (0..n).map(|_| r.random()).collect();
    let a: Field<i32> = Field::from_vec(av.clone());
    let b: Field<i32, AoS> = Field::from_vec(bv.clone());
    let u: Field<u32, SoA> = Field::from_vec(uv.clone());
    let mut q: Field<i32> = Field::filled(n, i32::MIN);
    let mut m: Field<i32> = Field::filled(n, i32::MIN);
    let mut w: Field<u32> = Field::filled(n, 0xDEAD_BEEF);
    let mut s: Field<i32> = Field::filled(n, i32::MIN);
    on_gpu!({
        q = a / b + a * b;
        m = a % b;
        let sh = (b as u32) & 31;
        w = (u << sh) ^ (u >> 3u32) ^ !u;
        w = w | (u & 0xFF00u32);
        s = if a < b { -a } else { a - b * 3 };
        s = s.abs() - i32::MAX / 2;
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let want_q = (0..n)
        .map(|i| (av[i] / bv[i] + av[i] * bv[i]) as f64)
        .collect();
    let want_m = (0..n).map(|i| (av[i] % bv[i]) as f64).collect();
    let want_w = (0..n)
        .map(|i| {
            let sh = (bv[i] as u32) & 31;
            let w = (uv[i] << sh) ^ (uv[i] >> 3) ^ !uv[i];
            (w | (uv[i] & 0xFF00)) as f64
        })
        .collect();
    let want_s = (0..n)
        .map(|i| {
            let s = if av[i] < bv[i] {
                -av[i]
            } else {
                av[i] - bv[i] * 3
            };
            (s.abs() - i32::MAX / 2) as f64
        })
        .collect();
    let f = |v: Vec<i32>| v.into_iter().map(f64::from).collect();
    vec![
        Output {
            name: "q",
            got: f(q.to_vec().unwrap()),
            want: want_q,
            kind: Kind::Exact,
        },
        Output {
            name: "m",
            got: f(m.to_vec().unwrap()),
            want: want_m,
            kind: Kind::Exact,
        },
        Output {
            name: "w",
            got: w.to_vec().unwrap().into_iter().map(f64::from).collect(),
            want: want_w,
            kind: Kind::Exact,
        },
        Output {
            name: "s",
            got: f(s.to_vec().unwrap()),
            want: want_s,
            kind: Kind::Exact,
        },
    ]
}

/// `as` casts: floats to integers saturate (NaN → 0), narrowing wraps, ints to floats round.
pub fn casts() -> Vec<Output> {
    let specials = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        3.0e9,
        -3.0e9,
        1.0e20,
        -1.0e20,
        -0.5,
        2.7,
        -2.7,
        255.9,
        256.0,
        -129.0,
        65535.5,
        4294967296.0,
        0.0,
        -0.0,
    ];
    let mut r = rng(4);
    let n = 2_000;
    let xv: Vec<f32> = (0..n)
        .map(|i| {
            if i < specials.len() {
                specials[i]
            } else {
                r.random_range(-1.0e10..1.0e10)
            }
        })
        .collect();
    let x: Field<f32> = Field::from_vec(xv.clone());
    let dv: Vec<f64> = (0..n).map(|_| r.random_range(-1.0e12..1.0e12)).collect();
    let d: Field<f64, SoA> = Field::from_vec(dv.clone());
    let mut ci: Field<i32> = Field::filled(n, 1);
    let mut cu: Field<u32> = Field::filled(n, 1);
    let mut c8: Field<u32> = Field::filled(n, 1);
    let mut cl: Field<i32> = Field::filled(n, 1);
    let mut cf: Field<f32> = Field::filled(n, f32::NAN);
    on_gpu!({
        ci = x as i32;
        cu = x as u32;
        c8 = (x as u8) as u32 + (x as i16) as u32;
        cl = (((d as i64) / 3) as i32) ^ (((x as i64) / 3) as i32) ^ (((x as u64) >> 20) as i32);
        cf = d as f32 + (ci as f32) * 0.5;
    })
    .unwrap();
    let wi = (0..n).map(|i| (xv[i] as i32) as f64).collect();
    let wu = (0..n).map(|i| (xv[i] as u32) as f64).collect();
    let w8 = (0..n)
        .map(|i| ((xv[i] as u8) as u32).wrapping_add((xv[i] as i16) as u32) as f64)
        .collect();
    let wl = (0..n)
        .map(|i| {
            ((((dv[i] as i64) / 3) as i32)
                ^ (((xv[i] as i64) / 3) as i32)
                ^ (((xv[i] as u64) >> 20) as i32)) as f64
        })
        .collect();
    let wf = (0..n)
        .map(|i| (dv[i] as f32 + (xv[i] as i32) as f32 * 0.5) as f64)
        .collect();
    vec![
        Output {
            name: "as i32",
            got: ci.to_vec().unwrap().into_iter().map(f64::from).collect(),
            want: wi,
            kind: Kind::Exact,
        },
        Output {
            name: "as u32",
            got: cu.to_vec().unwrap().into_iter().map(f64::from).collect(),
            want: wu,
            kind: Kind::Exact,
        },
        Output {
            name: "as u8/i16",
            got: c8.to_vec().unwrap().into_iter().map(f64::from).collect(),
            want: w8,
            kind: Kind::Exact,
        },
        Output {
            name: "as i64/u64",
            got: cl.to_vec().unwrap().into_iter().map(f64::from).collect(),
            want: wl,
            kind: Kind::Exact,
        },
        Output {
            name: "as f32",
            got: cf.to_vec().unwrap().into_iter().map(f64::from).collect(),
            want: wf,
            kind: F32,
        },
    ]
}

/// The maths functions, as free functions and as methods, in f32 and f64.
pub fn maths() -> Vec<Output> {
    let n = 3_001;
    let mut r = rng(5);
    let pv: Vec<f64> = (0..n).map(|_| r.random_range(0.01..10.0)).collect();
    let xv: Vec<f64> = (0..n).map(|_| r.random_range(-3.0..3.0)).collect();
    let p: Field<f32> = Field::from_fn(n, |i| pv[i] as f32);
    let x: Field<f32, AoS> = Field::from_fn(n, |i| xv[i] as f32);
    let pd: Field<f64> = Field::from_vec(pv.clone());
    let xd: Field<f64> = Field::from_vec(xv.clone());
    let mut o1: Field<f32> = Field::filled(n, f32::NAN);
    let mut o2: Field<f32> = Field::filled(n, f32::NAN);
    let mut o3: Field<f32> = Field::filled(n, f32::NAN);
    let mut o4: Field<f32> = Field::filled(n, f32::NAN);
    let mut d1: Field<f64> = Field::filled(n, f64::NAN);
    let mut d2: Field<f64> = Field::filled(n, f64::NAN);
    on_gpu!({
        o4 = p.log10() + p.log2() * x;
        d2 = pd.log10() + pd.log2() * xd;
        o1 = sqrt(p) + p.ln() + exp(x) + x.sin() * cos(x) + tan(x * 0.4);
        o2 = abs(x) + min(x, p) + x.max(1.0) + floor(x) + x.ceil() + round(x) + x.trunc();
        o3 = powf(p, 0.3) + p.powi(3) + atan2(x, p) + x.hypot(p) + x.mul_add(2.0, 1.0);
        d1 = pd.sqrt()
            + ln(pd)
            + xd.exp()
            + sin(xd) * xd.cos()
            + xd.abs().powf(1.5)
            + atan2(xd, 2.0);
    })
    .unwrap();
    let w1 = (0..n).map(|i| {
        pv[i].sqrt() + pv[i].ln() + xv[i].exp() + xv[i].sin() * xv[i].cos() + (xv[i] * 0.4).tan()
    });
    let w2 = (0..n).map(|i| {
        let (x, p) = (xv[i] as f32 as f64, pv[i] as f32 as f64);
        x.abs() + x.min(p) + x.max(1.0) + x.floor() + x.ceil() + x.round() + x.trunc()
    });
    let w3 = (0..n).map(|i| {
        let (x, p) = (xv[i] as f32 as f64, pv[i] as f32 as f64);
        p.powf(0.3) + p.powi(3) + x.atan2(p) + x.hypot(p) + x.mul_add(2.0, 1.0)
    });
    let w4 = (0..n).map(|i| {
        let (x, p) = (xv[i] as f32 as f64, pv[i] as f32 as f64);
        p.log10() + p.log2() * x
    });
    let wd2 = (0..n).map(|i| pv[i].log10() + pv[i].log2() * xv[i]);
    let wd = (0..n).map(|i| {
        let (x, p) = (xv[i], pv[i]);
        p.sqrt() + p.ln() + x.exp() + x.sin() * x.cos() + x.abs().powf(1.5) + x.atan2(2.0)
    });
    let f = |v: Vec<f32>| v.into_iter().map(f64::from).collect();
    vec![
        Output {
            name: "sqrt ln exp sin cos tan",
            got: f(o1.to_vec().unwrap()),
            want: w1.collect(),
            kind: Kind::Rel(2e-6),
        },
        Output {
            name: "abs min max floor ceil round trunc",
            got: f(o2.to_vec().unwrap()),
            want: w2.collect(),
            kind: F32,
        },
        Output {
            name: "powf powi atan2 hypot mul_add",
            got: f(o3.to_vec().unwrap()),
            want: w3.collect(),
            kind: Kind::Rel(2e-6),
        },
        Output {
            name: "log10 log2",
            got: f(o4.to_vec().unwrap()),
            want: w4.collect(),
            kind: Kind::Rel(2e-6),
        },
        Output {
            name: "f64 maths",
            got: d1.to_vec().unwrap(),
            want: wd.collect(),
            kind: Kind::Rel(1e-13),
        },
        Output {
            name: "f64 log10 log2",
            got: d2.to_vec().unwrap(),
            want: wd2.collect(),
            kind: Kind::Rel(1e-14),
        },
    ]
}

/// Complex arithmetic, conjugates, norms, parts, scaling, polar parts, and `Complex::new`.
pub fn complex() -> Vec<Output> {
    let n = 2_500;
    let mut r = rng(6);
    let av: Vec<Complex<f64>> = (0..n).map(|_| cplx(&mut r)).collect();
    let bv: Vec<Complex<f64>> = (0..n)
        .map(|_| cplx(&mut r) + Complex::new(1.5, 0.0))
        .collect();
    let a: Field<Complex<f32>> =
        Field::from_fn(n, |i| Complex::new(av[i].re as f32, av[i].im as f32));
    let b: Field<Complex<f32>, SoA> =
        Field::from_fn(n, |i| Complex::new(bv[i].re as f32, bv[i].im as f32));
    let k = Complex::new(0.5f32, -0.25);
    let mut w: Field<Complex<f32>> = Field::filled(n, Complex::new(f32::NAN, f32::NAN));
    let mut s: Field<f32, AoS> = Field::filled(n, f32::NAN);
    let mut q: Field<Complex<f32>> = Field::filled(n, Complex::new(f32::NAN, f32::NAN));
    let ad: Field<Complex<f64>, SoA> = Field::from_vec(av.clone());
    let mut qd: Field<Complex<f64>> = Field::filled(n, Complex::new(f64::NAN, f64::NAN));
    on_gpu!({
        q = a.scale(3.0) + b.unscale(4.0) + Complex::new(a.norm(), b.arg());
        qd = ad.scale(3.0) - ad.unscale(0.5) + Complex::new(ad.norm(), ad.arg());
        w = a * b + a / b - a.conj() * 2.0 + k * b;
        w.im = w.im + b.norm_sqr();
        s = a.re * b.im - a.norm2() + Complex::new(s * 0.0 + 1.0, 2.0).im;
    })
    .unwrap();
    let k64 = Complex::new(0.5, -0.25);
    let want_w: Vec<f64> = (0..n)
        .flat_map(|i| {
            let (a, b) = (av[i], bv[i]);
            let mut w = a * b + a / b - a.conj() * 2.0 + k64 * b;
            w.im += b.norm_sqr();
            [w.re, w.im]
        })
        .collect();
    let want_s = (0..n)
        .map(|i| av[i].re * bv[i].im - av[i].norm_sqr() + 2.0)
        .collect();
    let polar = |a: Complex<f64>, b: Complex<f64>| {
        let q = a.scale(3.0) + b.unscale(4.0) + Complex::new(a.norm(), b.arg());
        [q.re, q.im]
    };
    let want_q: Vec<f64> = (0..n)
        .flat_map(|i| {
            let f = |z: Complex<f64>| Complex::new(z.re as f32 as f64, z.im as f32 as f64);
            polar(f(av[i]), f(bv[i]))
        })
        .collect();
    let want_qd: Vec<f64> = (0..n)
        .flat_map(|i| {
            let a = av[i];
            let q = a.scale(3.0) - a.unscale(0.5) + Complex::new(a.norm(), a.arg());
            [q.re, q.im]
        })
        .collect();
    let parts = |v: Vec<Complex<f32>>| -> Vec<f64> {
        v.into_iter()
            .flat_map(|z| [z.re as f64, z.im as f64])
            .collect()
    };
    let got_qd = qd
        .to_vec()
        .unwrap()
        .into_iter()
        .flat_map(|z| [z.re, z.im])
        .collect();
    let got_w = w
        .to_vec()
        .unwrap()
        .into_iter()
        .flat_map(|z| [z.re as f64, z.im as f64])
        .collect();
    vec![
        Output {
            name: "w",
            got: got_w,
            want: want_w,
            kind: Kind::Rel(2e-6),
        },
        Output {
            name: "s",
            got: s.to_vec().unwrap().into_iter().map(f64::from).collect(),
            want: want_s,
            kind: Kind::Rel(2e-6),
        },
        Output {
            name: "scale unscale norm arg",
            got: parts(q.to_vec().unwrap()),
            want: want_q,
            kind: Kind::Rel(2e-6),
        },
        Output {
            name: "f64 scale unscale norm arg",
            got: got_qd,
            want: want_qd,
            kind: Kind::Rel(1e-14),
        },
    ]
}

/// Colour matrices and vectors: products, adjoints, traces, norms, entries, scaling.
pub fn color_algebra() -> Vec<Output> {
    let n = 1_000;
    let mut r = rng(7);
    let yv: Vec<ColorMatrix<f64>> = (0..n).map(|_| matrix(&mut r)).collect();
    let zv: Vec<ColorMatrix<f64>> = (0..n).map(|_| matrix(&mut r)).collect();
    let xv: Vec<ColorMatrix<f64>> = (0..n).map(|_| matrix(&mut r)).collect();
    let vv: Vec<[Complex<f64>; 3]> = (0..n)
        .map(|_| [cplx(&mut r), cplx(&mut r), cplx(&mut r)])
        .collect();
    let y: Field<ColorMatrix<f32>> = Field::from_fn(n, |i| to_f32(&yv[i]));
    let z: Field<ColorMatrix<f32>, AoS> = Field::from_fn(n, |i| to_f32(&zv[i]));
    let mut x: Field<ColorMatrix<f32>, SoA> = Field::from_fn(n, |i| to_f32(&xv[i]));
    let v: Field<ColorVector<f32>> = Field::from_fn(n, |i| {
        ColorVector::new(vv[i].map(|c| Complex::new(c.re as f32, c.im as f32)))
    });
    let mut u: Field<ColorVector<f32>, AoS> =
        Field::filled(n, ColorVector::new([Complex::new(f32::NAN, 0.0); 3]));
    let mut t: Field<Complex<f32>> = Field::filled(n, Complex::new(f32::NAN, f32::NAN));
    let c = Complex::new(0.25f32, 1.0);
    on_gpu!(n, 64, {
        x += y * z;
        x = x - y.adj() * 0.5 + c * z.conj();
        x[0][2] = x[2][0] + ColorMatrix::identity()[1][1];
        u = (x * v) * 2.0 + y.transpose() * v;
        t = x.trace() + Complex::new(y.norm2(), u.norm2()) + u[1] * 0.5;
    })
    .unwrap();
    let c64 = Complex::new(0.25, 1.0);
    let mut want_x = Vec::new();
    let mut want_u = Vec::new();
    let mut want_t = Vec::new();
    for i in 0..n {
        let (y, z) = (to_f64(&to_f32(&yv[i])), to_f64(&to_f32(&zv[i])));
        let mut x = to_f64(&to_f32(&xv[i]));
        let v =
            ColorVector::new(vv[i].map(|c| Complex::new(c.re as f32 as f64, c.im as f32 as f64)));
        x += y * z;
        x = x - y.adj() * 0.5 + c64 * z.conj();
        x[0][2] = x[2][0] + Complex::new(1.0, 0.0);
        let u = (x * v) * 2.0 + y.transpose() * v;
        let t = x.trace() + Complex::new(y.norm2(), u.norm2()) + u[1] * 0.5;
        want_x.extend(matrix_reals(&x));
        want_u.extend(u.v.iter().flat_map(|z| [z.re, z.im]));
        want_t.extend([t.re, t.im]);
    }
    let got_x = x.to_vec().unwrap().iter().flat_map(matrix_reals).collect();
    let got_u = u
        .to_vec()
        .unwrap()
        .iter()
        .flat_map(|u| u.v.map(|z| [z.re as f64, z.im as f64]))
        .flatten()
        .collect();
    let got_t = t
        .to_vec()
        .unwrap()
        .iter()
        .flat_map(|z| [z.re as f64, z.im as f64])
        .collect();
    vec![
        Output {
            name: "x",
            got: got_x,
            want: want_x,
            kind: Kind::Rel(1e-6),
        },
        Output {
            name: "u",
            got: got_u,
            want: want_u,
            kind: Kind::Rel(1e-6),
        },
        Output {
            name: "t",
            got: got_t,
            want: want_t,
            kind: Kind::Rel(1e-6),
        },
    ]
}

/// f64 matrices: unsuffixed literals take f64, and results match to f64 rounding.
pub fn color_f64() -> Vec<Output> {
    let n = 777;
    let mut r = rng(8);
    let yv: Vec<ColorMatrix<f64>> = (0..n).map(|_| matrix(&mut r)).collect();
    let zv: Vec<ColorMatrix<f64>> = (0..n).map(|_| matrix(&mut r)).collect();
    let y: Field<ColorMatrix<f64>> = Field::from_vec(yv.clone());
    let z: Field<ColorMatrix<f64>, AoSoA<8>> = Field::from_vec(zv.clone());
    let mut x: Field<ColorMatrix<f64>> = Field::filled(n, ColorMatrix::identity() * f64::NAN);
    on_gpu!(|i| {
        x = y * z * 0.1 + ColorMatrix::identity() * (i as f64);
        x *= 1.0 / 3.0;
    })
    .unwrap();
    let want: Vec<f64> = (0..n)
        .flat_map(|i| {
            let mut x = yv[i] * zv[i] * 0.1 + ColorMatrix::identity() * (i as f64);
            x *= 1.0 / 3.0;
            matrix_reals(&x)
        })
        .collect();
    let got = x.to_vec().unwrap().iter().flat_map(matrix_reals).collect();
    vec![Output {
        name: "x",
        got,
        want,
        kind: Kind::Rel(1e-14),
    }]
}

#[ongpu::device]
fn soft_clip(v: f32, limit: f32) -> f32 {
    let mut r = v;
    if v > limit {
        r = limit + (v - limit) * 0.1;
    }
    r
}

#[ongpu::device]
fn scaled_trace(m: ColorMatrix<f32>, k: f32) -> f32 {
    soft_clip(m.trace().re * k, 1.0)
}

/// Device functions calling device functions.
pub fn device_functions() -> Vec<Output> {
    let n = 1_500;
    let mut r = rng(9);
    let mv: Vec<ColorMatrix<f64>> = (0..n).map(|_| matrix(&mut r)).collect();
    let m: Field<ColorMatrix<f32>> = Field::from_fn(n, |i| to_f32(&mv[i]));
    let mut o: Field<f32> = Field::filled(n, f32::NAN);
    on_gpu!({
        o = scaled_trace(m, 2.0) + soft_clip(m[1][1].im * 0.0, 5.0);
    })
    .unwrap();
    let want = (0..n)
        .map(|i| {
            let t = to_f64(&to_f32(&mv[i])).trace().re * 2.0;
            if t > 1.0 {
                1.0 + (t - 1.0) * 0.1
            } else {
                t
            }
        })
        .collect();
    vec![Output {
        name: "o",
        got: o.to_vec().unwrap().into_iter().map(f64::from).collect(),
        want,
        kind: F32,
    }]
}

/// `n` smaller than the fields: sites from `n` on keep their values.
pub fn partial_sites() -> Vec<Output> {
    let len = 1_000;
    let n = 613;
    let y: Field<f32> = Field::from_fn(len, |i| i as f32);
    let mut x: Field<f32> = Field::from_fn(len, |i| -(i as f32));
    let mut w: Field<ColorMatrix<f32>, AoS> = Field::filled(len, ColorMatrix::identity());
    on_gpu!(n, {
        x = y * 2.0;
        w = w * y;
    })
    .unwrap();
    let want_x = (0..len)
        .map(|i| if i < n { 2.0 * i as f64 } else { -(i as f64) })
        .collect();
    let want_w: Vec<f64> = (0..len)
        .flat_map(|i| {
            matrix_reals(&(ColorMatrix::<f64>::identity() * if i < n { i as f64 } else { 1.0 }))
        })
        .collect();
    vec![
        Output {
            name: "x",
            got: x.to_vec().unwrap().into_iter().map(f64::from).collect(),
            want: want_x,
            kind: Kind::Exact,
        },
        Output {
            name: "w",
            got: w.to_vec().unwrap().iter().flat_map(matrix_reals).collect(),
            want: want_w,
            kind: Kind::Exact,
        },
    ]
}

/// The same body over every layout gives the same result (bit for bit on one backend:
/// `Rel(0.0)`; across backends FMA contraction may round differently).
pub fn layouts_agree() -> Vec<Output> {
    fn run<L: ongpu::Layout>(n: usize) -> Vec<f64> {
        let mut r = rng(10);
        let yv: Vec<ColorMatrix<f32>> = (0..n).map(|_| to_f32(&matrix(&mut r))).collect();
        let y: Field<ColorMatrix<f32>, L> = Field::from_vec(yv);
        let mut x: Field<ColorMatrix<f32>, L> = Field::filled(n, poison_matrix());
        on_gpu!({
            x = y * y.adj() - y;
        })
        .unwrap();
        x.to_vec().unwrap().iter().flat_map(matrix_reals).collect()
    }
    let n = 333;
    let want = run::<AoS>(n);
    vec![
        Output {
            name: "SoA",
            got: run::<SoA>(n),
            want: want.clone(),
            kind: Kind::Rel(0.0),
        },
        Output {
            name: "AoSoA<32>",
            got: run::<AoSoA<32>>(n),
            want: want.clone(),
            kind: Kind::Rel(0.0),
        },
        Output {
            name: "AoSoA<4>",
            got: run::<AoSoA<4>>(n),
            want: want.clone(),
            kind: Kind::Rel(0.0),
        },
    ]
}

/// AoS fields of large elements, which the GPU stages through shared memory a warp's sites
/// at a time: f32 and f64 matrices read, read-written and written whole, counts that leave
/// a warp partly full, a colour vector beside them, blocks of 100 threads (a last warp of 4
/// lanes), and the odd sites of a lattice (a run that starts past site 0), against the same
/// bodies on AoSoA fields.
pub fn aos_staged() -> Vec<Output> {
    fn run<L: ongpu::Layout>(n: usize) -> Vec<f64> {
        let mut r = rng(11 + n as u64);
        let yv: Vec<ColorMatrix<f32>> = (0..n).map(|_| to_f32(&matrix(&mut r))).collect();
        let zv: Vec<ColorMatrix<f64>> = (0..n).map(|_| matrix(&mut r)).collect();
        let y: Field<ColorMatrix<f32>, L> = Field::from_vec(yv.clone());
        let z: Field<ColorMatrix<f64>, L> = Field::from_vec(zv);
        let v: Field<ColorVector<f32>, L> =
            Field::from_fn(n, |i| ColorVector::new([Complex::new(i as f32, 1.0); 3]));
        let mut x: Field<ColorMatrix<f32>, L> = Field::from_vec(yv);
        let mut w: Field<ColorMatrix<f64>, L> = Field::filled(n, ColorMatrix::identity());
        let mut u: Field<ColorVector<f32>, L> = Field::zeros(n);
        on_gpu!(n, |i| {
            x += y * y.adj();
            w = z * w + z.adj() * (i as f64);
            u = y * v;
        })
        .unwrap();
        on_gpu!(n, 100, |i| {
            w += z.adj() * (i as f64 + 0.5);
        })
        .unwrap();
        let lat = Lattice::new([4, 2, 2, 6]).unwrap();
        let mut o: Field<ColorMatrix<f64>, L> = Field::filled(lat.volume(), ColorMatrix::zero());
        let e: Field<ColorMatrix<f64>, L> =
            Field::from_fn(lat.volume(), |i| ColorMatrix::identity() * (i as f64));
        on_gpu!(lat.odd(), {
            o = e * e;
        })
        .unwrap();
        let mut out: Vec<f64> = x.to_vec().unwrap().iter().flat_map(matrix_reals).collect();
        out.extend(w.to_vec().unwrap().iter().flat_map(matrix_reals));
        out.extend(
            u.to_vec()
                .unwrap()
                .iter()
                .flat_map(|c| c.v.iter().flat_map(|z| [z.re as f64, z.im as f64])),
        );
        out.extend(o.to_vec().unwrap().iter().flat_map(matrix_reals));
        out
    }
    [1usize, 200, 1000, 4097]
        .into_iter()
        .map(|n| Output {
            name: "AoS against AoSoA<32>",
            got: run::<AoS>(n),
            want: run::<AoSoA<32>>(n),
            kind: Kind::Rel(0.0),
        })
        .collect()
}

/// A test program.
pub type Program = fn() -> Vec<Output>;

/// Calls `$m!(name, ...)` with the name of every program: one list for the CPU tests, the GPU
/// tests and [`all`].
macro_rules! with_program_names {
    ($m:ident) => {
        $m! {
            vector_add,
            quads,
            scalar_control_flow,
            integer_semantics,
            integer_literals,
            constants,
            casts,
            maths,
            complex,
            color_algebra,
            color_f64,
            device_functions,
            partial_sites,
            layouts_agree,
            aos_staged,
            color_operators_f32,
            color_operators_f64,
            lattice_parity_arrays,
            lattice_shifts,
            lattice_plaquette,
            staggered_dslash,
            hopping_gauge_covariance,
            wilson_spinor_arrays,
            multi_rhs_entry_stores,
            mixed_precision,
            random_draws
        }
    };
}
#[allow(unused_imports)]
pub(crate) use with_program_names;

/// Every program, by name.
pub fn all() -> Vec<(&'static str, Program)> {
    macro_rules! list {
        ($($name:ident),*) => {
            vec![$((stringify!($name), $name as Program)),*]
        };
    }
    with_program_names!(list)
}
