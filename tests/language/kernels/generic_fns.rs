//! Generic device functions (`fn f<T: Real>`), each instantiated for `f32` and `f64` by the
//! kernels and `on_gpu!` bodies that call it: over arrays of `T` and of `Complex<T>` (a
//! writable array passed where `&[T]` is taken), local arrays, values, unsuffixed literals
//! (which are `T`s), and a generic function that calls another.

use crate::programs::{rng, Kind, Output};
use ongpu::prelude::*;
use ongpu::Real;
use rand::Rng;

/// Σ a[i] b[i] over i = start, start + stride, ...
#[ongpu::device]
pub fn strided_dot<T: Real>(a: &[T], b: &[T], start: usize, stride: usize) -> T {
    let mut s = 0.0;
    let mut i = start;
    while i < a.len() {
        s += a[i] * b[i];
        i += stride;
    }
    s
}

/// `a x / 2 + y`: the literal is a `T`.
#[ongpu::device]
pub fn axpy_half<T: Real>(a: T, x: T, y: T) -> T {
    0.5 * a * x + y
}

/// `x / 10`, as `x * 0.1` with the literal rounded to `T` once: exact on both backends.
#[ongpu::device]
pub fn tenth<T>(x: T) -> T
where
    T: Real,
{
    x * 0.1
}

/// Scales `z[k]` by `s` in place and returns its squared modulus.
#[ongpu::device]
fn scale_at<T: ongpu::Real>(z: &mut [Complex<T>], s: T, k: usize) -> T {
    z[k] = z[k] * s;
    z[k].norm_sqr()
}

/// The sum of a local array's entries.
#[ongpu::device]
fn sum3<T: Real>(v: &[T; 3]) -> T {
    v[0] + v[1] + v[2]
}

/// The mean of a local array's entries, through `sum3`.
#[ongpu::device]
fn mean3<T: Real>(v: &[T; 3]) -> T {
    sum3(v) / 3.0
}

macro_rules! generic_kernel {
    ($name:ident, $t:ty) => {
        /// Thread g writes out[5g..5g+5]: its grid-stride dot product of `c` (writable,
        /// passed as `&[T]`) and `a`, `axpy_half`, `tenth`, the scaled `z[g]`'s squared
        /// modulus, and a mean of three.
        #[ongpu::kernel]
        pub fn $name(a: &[$t], c: &mut [$t], z: &mut [Complex<$t>], out: &mut [$t]) {
            let g = (block_idx().x * block_dim().x + thread_idx().x) as usize;
            let stride = (grid_dim().x * block_dim().x) as usize;
            if g < z.len() {
                out[5 * g] = strided_dot(c, a, g, stride);
                out[5 * g + 1] = axpy_half(a[g], c[g], 1.0);
                out[5 * g + 2] = tenth(a[g]);
                out[5 * g + 3] = scale_at(z, a[g], g);
                let v = [a[g], c[g], 2.0];
                out[5 * g + 4] = mean3(&v);
            }
        }
    };
}

generic_kernel!(generic_fns_f32, f32);
generic_kernel!(generic_fns_f64, f64);

/// What the kernel computes, on the host (the same order of operations).
fn reference<T: Real>(a: &[T], c: &[T], z: &[Complex<T>], threads: usize) -> Vec<f64> {
    let mut want = Vec::new();
    for g in 0..z.len() {
        let mut dot = T::zero();
        for i in (g..a.len()).step_by(threads) {
            dot += c[i] * a[i];
        }
        let two = T::from(2.0).unwrap();
        let half = T::from(0.5).unwrap();
        let scaled = z[g] * a[g];
        let a_tenth = tenth.instance::<T>()(a[g]);
        let out = [
            dot,
            half * a[g] * c[g] + T::one(),
            a_tenth,
            scaled.norm_sqr(),
            (a[g] + c[g] + two) / T::from(3.0).unwrap(),
        ];
        want.extend(out.map(|v| v.to_f64().unwrap()));
    }
    want
}

fn f64s<T: Real>(v: &[T]) -> Vec<f64> {
    v.iter().map(|x| x.to_f64().unwrap()).collect()
}

/// The kernels on random inputs (outputs poisoned), and `on_gpu!` bodies calling the
/// value functions on fields of both precisions.
pub fn generic_fns() -> Vec<Output> {
    let mut r = rng(57);
    let (blocks, threads_per_block, n) = (2u32, 32u32, 300usize);
    let threads = (blocks * threads_per_block) as usize;
    let shape = LaunchShape::linear(blocks, threads_per_block);
    let av: Vec<f64> = (0..n).map(|_| r.random_range(-1.0..1.0)).collect();
    let cv: Vec<f64> = (0..n).map(|_| r.random_range(-1.0..1.0)).collect();
    let zv: Vec<Complex<f64>> = (0..threads)
        .map(|_| Complex::new(r.random_range(-1.0..1.0), r.random_range(-1.0..1.0)))
        .collect();
    let mut outputs = Vec::new();

    // f64
    let a: Field<f64, AoS> = Field::from_vec(av.clone());
    let mut c: Field<f64, AoS> = Field::from_vec(cv.clone());
    let mut z: Field<Complex<f64>, AoS> = Field::from_vec(zv.clone());
    let mut out: Field<f64, AoS> = Field::filled(5 * threads, f64::NAN);
    generic_fns_f64::launch(shape, &a, &mut c, &mut z, &mut out).unwrap();
    outputs.push(Output {
        name: "generic device functions, f64",
        got: out.to_vec().unwrap(),
        want: reference(&av, &cv, &zv, threads),
        kind: Kind::Rel(1e-13),
    });

    // f32
    let (av, cv): (Vec<f32>, Vec<f32>) = (
        av.iter().map(|&x| x as f32).collect(),
        cv.iter().map(|&x| x as f32).collect(),
    );
    let zv: Vec<Complex<f32>> = zv
        .iter()
        .map(|z| Complex::new(z.re as f32, z.im as f32))
        .collect();
    let a: Field<f32, AoS> = Field::from_vec(av.clone());
    let mut c: Field<f32, AoS> = Field::from_vec(cv.clone());
    let mut z: Field<Complex<f32>, AoS> = Field::from_vec(zv.clone());
    let mut out: Field<f32, AoS> = Field::filled(5 * threads, f32::NAN);
    generic_fns_f32::launch(shape, &a, &mut c, &mut z, &mut out).unwrap();
    let got = out.to_vec().unwrap();
    outputs.push(Output {
        name: "generic device functions, f32",
        got: f64s(&got),
        want: reference(&av, &cv, &zv, threads),
        kind: Kind::Rel(1e-5),
    });
    // `x * 0.1` with the literal as an f32: one rounding, the same on both backends.
    outputs.push(Output {
        name: "a literal of T in f32",
        got: got.iter().skip(2).step_by(5).map(|&x| x as f64).collect(),
        want: av[..threads].iter().map(|&x| (x * 0.1f32) as f64).collect(),
        kind: Kind::Exact,
    });

    // on_gpu! bodies, in both precisions.
    let x64: Field<f64> = Field::from_vec(cv.iter().map(|&x| x as f64).collect());
    let mut y64: Field<f64> = Field::filled(n, f64::NAN);
    on_gpu!({
        y64 = axpy_half(x64, 3.0, tenth(x64));
    })
    .unwrap();
    let x32: Field<f32> = Field::from_vec(cv.clone());
    let mut y32: Field<f32> = Field::filled(n, f32::NAN);
    on_gpu!({
        y32 = axpy_half(x32, 3.0, tenth(x32));
    })
    .unwrap();
    let host64 = axpy_half.instance::<f64>();
    outputs.push(Output {
        name: "generic device functions in on_gpu!, f64",
        got: y64.to_vec().unwrap(),
        want: cv
            .iter()
            .map(|&x| host64(x as f64, 3.0, x as f64 * 0.1))
            .collect(),
        kind: Kind::Rel(1e-13),
    });
    let host32 = axpy_half.instance::<f32>();
    outputs.push(Output {
        name: "generic device functions in on_gpu!, f32",
        got: f64s(&y32.to_vec().unwrap()),
        want: cv.iter().map(|&x| host32(x, 3.0, x * 0.1) as f64).collect(),
        kind: Kind::Rel(1e-5),
    });
    outputs
}
