//! A shift-free call over a parity against the same call over a plain count of as many
//! sites: `x = y * 2 + z` on colour vectors, over `lat.even()` and over `V/2` sites of the
//! same fields (the even sites are the first half), and over `lat.odd()` against a count
//! on fields of `V/2` sites. Both read and write the same bytes: a parity call should cost
//! what the count costs.

use crate::common;
use ongpu::prelude::*;
use ongpu::{Backend, Element};

/// One comparison: the subset's and the count's seconds per call.
pub struct SubsetTiming {
    pub what: &'static str,
    pub subset: f64,
    pub count: f64,
    pub bytes: usize,
}

fn call<L: ongpu::Layout>(
    space: impl ongpu::__private::IndexSpace,
    x: &mut Field<ColorVector<f32>, L>,
    y: &Field<ColorVector<f32>, L>,
    z: &Field<ColorVector<f32>, L>,
) -> ongpu::Result<()>
where
    ColorVector<f32>: Element,
{
    on_gpu!(space, {
        x = y * 2.0 + z;
    })
}

/// Times both forms on an L^4 lattice (f32 colour vectors, default layout).
pub fn run(l: usize, reps: usize, backend: Backend) -> ongpu::Result<Vec<SubsetTiming>> {
    let lat = Lattice::new([l; 4])?;
    let (v, h) = (lat.volume(), lat.volume() / 2);
    let one = ColorVector::new([Complex::new(1.0f32, 0.5); 3]);
    let y: Field<ColorVector<f32>> = Field::filled(v, one);
    let z: Field<ColorVector<f32>> = Field::filled(v, one);
    let mut x: Field<ColorVector<f32>> = Field::zeros(v);
    let bytes = 3 * h * std::mem::size_of::<ColorVector<f32>>();
    let even = common::time(backend, reps, || call(lat.even(), &mut x, &y, &z))?;
    let first_half = common::time(backend, reps, || call(h, &mut x, &y, &z))?;
    let odd = common::time(backend, reps, || call(lat.odd(), &mut x, &y, &z))?;
    drop((x, y, z));
    let y2: Field<ColorVector<f32>> = Field::filled(h, one);
    let z2: Field<ColorVector<f32>> = Field::filled(h, one);
    let mut x2: Field<ColorVector<f32>> = Field::zeros(h);
    let half_fields = common::time(backend, reps, || call(h, &mut x2, &y2, &z2))?;
    Ok(vec![
        SubsetTiming {
            what: "lat.even() vs V/2 sites of the same fields",
            subset: even,
            count: first_half,
            bytes,
        },
        SubsetTiming {
            what: "lat.odd() vs V/2-site fields",
            subset: odd,
            count: half_fields,
            bytes,
        },
    ])
}

/// Prints the comparison.
pub fn print(l: usize, rows: &[SubsetTiming]) {
    println!("shift-free call x = y * 2 + z (ColorVector<f32>, AoSoA<32>) on {l}^4:");
    for r in rows {
        println!(
            "  {:<45} subset {:>7.1} us {:>6.0} GB/s   count {:>7.1} us {:>6.0} GB/s   subset/count {:>6.1}%",
            r.what,
            r.subset * 1e6,
            r.bytes as f64 / r.subset / 1e9,
            r.count * 1e6,
            r.bytes as f64 / r.count / 1e9,
            100.0 * r.count / r.subset
        );
    }
}
