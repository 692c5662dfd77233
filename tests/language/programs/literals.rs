//! Unsuffixed integer literals take the type Rust infers for them (a typed `let`, the other
//! operand, the assigned place, a later use of the local bound to one), on both backends.

use super::{Kind, Output};
use ongpu::prelude::*;

/// The body's value at site value `a`, as plain Rust.
fn reference(a: u32) -> u64 {
    let t: u64 = 1 << 40;
    let big: u64 = 100000 * 100000;
    let k = 3;
    let s: u64 = (k << 40) + big + t * (a as u64);
    let mut acc = 0;
    for j in 0..4 {
        acc += (a as u64) << (8 * j + 3);
    }
    let e: u64 = if a > 5 { 1 << 40 } else { 1 << 35 };
    let m = (a as u64) * (100000 * 100000);
    s + acc + e + m
}

/// 64-bit values built from unsuffixed literals, split into two u32 outputs.
pub fn integer_literals() -> Vec<Output> {
    let n = 1_027;
    let av: Vec<u32> = (0..n as u32).map(|i| i * 7919).collect();
    let a: Field<u32> = Field::from_vec(av.clone());
    let mut lo: Field<u32> = Field::filled(n, 0xDEAD_BEEF);
    let mut hi: Field<u32> = Field::filled(n, 0xDEAD_BEEF);
    let mut w: Field<u32> = Field::filled(n, 0xDEAD_BEEF);
    on_gpu!({
        let t: u64 = 1 << 40;
        let big: u64 = 100000 * 100000;
        let k = 3;
        let s: u64 = (k << 40) + big + t * (a as u64);
        let mut acc = 0;
        for j in 0..4 {
            acc += (a as u64) << (8 * j + 3);
        }
        let e: u64 = if a > 5 { 1 << 40 } else { 1 << 35 };
        let m = (a as u64) * (100000 * 100000);
        let v = s + acc + e + m;
        lo = (v & 0xFFFF_FFFF) as u32;
        hi = (v >> 32) as u32;
        w = if a % 2 == 0 { 1 << 31 } else { 3_000_000_000 };
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let v: Vec<u64> = av.iter().map(|&a| reference(a)).collect();
    let f = |v: Vec<u32>| v.into_iter().map(f64::from).collect();
    vec![
        Output {
            name: "lo",
            got: f(lo.to_vec().unwrap()),
            want: v.iter().map(|v| (v & 0xFFFF_FFFF) as f64).collect(),
            kind: Kind::Exact,
        },
        Output {
            name: "hi",
            got: f(hi.to_vec().unwrap()),
            want: v.iter().map(|v| (v >> 32) as f64).collect(),
            kind: Kind::Exact,
        },
        Output {
            name: "w",
            got: f(w.to_vec().unwrap()),
            want: av
                .iter()
                .map(|a| if a % 2 == 0 { 2147483648.0 } else { 3e9 })
                .collect(),
            kind: Kind::Exact,
        },
    ]
}

const K: i32 = 4;
const HALF: f32 = 0.5;

/// `const` items named in a body: passed by value to the kernel, read directly on the CPU.
pub fn constants() -> Vec<Output> {
    let n = 515;
    let a: Field<i32> = Field::from_fn(n, |i| i as i32 - 200);
    let f: Field<f32> = Field::from_fn(n, |i| i as f32);
    let mut x: Field<i32> = Field::filled(n, i32::MIN);
    let mut y: Field<f32> = Field::filled(n, f32::NAN);
    on_gpu!({
        x = a * K + 1;
        y = f * HALF + (K as f32);
    })
    .unwrap_or_else(|e| panic!("{e}"));
    vec![
        Output {
            name: "x",
            got: x.to_vec().unwrap().into_iter().map(f64::from).collect(),
            want: (0..n).map(|i| ((i as i32 - 200) * K + 1) as f64).collect(),
            kind: Kind::Exact,
        },
        Output {
            name: "y",
            got: y.to_vec().unwrap().into_iter().map(f64::from).collect(),
            want: (0..n)
                .map(|i| (i as f32 * HALF + K as f32) as f64)
                .collect(),
            kind: Kind::Exact,
        },
    ]
}
