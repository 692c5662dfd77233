//! Bodies that mix f32 and f64 fields: constructors whose precision Rust infers from where
//! their value goes (an f32 field, a typed `let`) while the kernel's real type is f64.

use super::{cplx, rng, Kind, Output};
use ongpu::prelude::*;

/// `x = ColorVector::zero()` into an f32 field, an f32 identity matrix from a typed `let`,
/// and an f64 result, in one body that reads an f64 field.
pub fn mixed_precision() -> Vec<Output> {
    let n = 517;
    let mut r = rng(31);
    let yv: Vec<ColorVector<f64>> = (0..n)
        .map(|_| ColorVector::new(std::array::from_fn(|_| cplx(&mut r))))
        .collect();
    let vv: Vec<ColorVector<f32>> = (0..n)
        .map(|_| {
            ColorVector::new(std::array::from_fn(|_| {
                let z = cplx(&mut r);
                Complex::new(z.re as f32, z.im as f32)
            }))
        })
        .collect();
    let y: Field<ColorVector<f64>> = Field::from_vec(yv.clone());
    let v: Field<ColorVector<f32>> = Field::from_vec(vv.clone());
    let poison = ColorVector::new([Complex::new(f32::NAN, f32::NAN); 3]);
    let mut x: Field<ColorVector<f32>> = Field::filled(n, poison);
    let mut w: Field<ColorVector<f32>> = Field::filled(n, poison);
    let mut s: Field<f64> = Field::filled(n, f64::NAN);
    on_gpu!({
        x = ColorVector::zero();
        x[1].re = y.norm2() as f32;
        let id: ColorMatrix<f32> = ColorMatrix::identity();
        w = id * v;
        s = y.norm2();
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let parts = |f: &Field<ColorVector<f32>>| -> Vec<f64> {
        f.to_vec()
            .unwrap()
            .iter()
            .flat_map(|c| c.v.iter().flat_map(|z| [z.re as f64, z.im as f64]))
            .collect()
    };
    let norm: Vec<f64> = yv.iter().map(|c| c.norm2()).collect();
    let x_want = norm
        .iter()
        .flat_map(|&q| [0.0, 0.0, q as f32 as f64, 0.0, 0.0, 0.0])
        .collect();
    let w_want = vv
        .iter()
        .flat_map(|c| c.v.iter().flat_map(|z| [z.re as f64, z.im as f64]))
        .collect();
    vec![
        Output {
            name: "x",
            got: parts(&x),
            want: x_want,
            kind: Kind::Rel(1e-6),
        },
        Output {
            name: "w",
            got: parts(&w),
            want: w_want,
            kind: Kind::Exact,
        },
        Output {
            name: "s",
            got: s.to_vec().unwrap(),
            want: norm,
            kind: Kind::Rel(1e-14),
        },
    ]
}
