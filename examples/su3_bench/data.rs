//! The benchmark's inputs and their check: random matrices that are a pure function of
//! (seed, field, site), so that the f64 reference can make them again site by site instead
//! of keeping copies of fields of gigabytes.

use ongpu::prelude::*;
use ongpu::{Element, Layout};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;

/// The precisions the benchmark runs: f32 and f64.
pub trait Prec: ongpu::Real + Into<f64> {
    /// `f32` or `f64`.
    const NAME: &'static str;
    /// The relative error a correct result stays under (‖out − ref‖ / ‖ref‖).
    const TOLERANCE: f64;
    /// `x` rounded to this precision.
    fn of(x: f64) -> Self;
}

impl Prec for f32 {
    const NAME: &'static str = "f32";
    const TOLERANCE: f64 = 1e-5;
    fn of(x: f64) -> Self {
        x as f32
    }
}

impl Prec for f64 {
    const NAME: &'static str = "f64";
    const TOLERANCE: f64 = 1e-13;
    fn of(x: f64) -> Self {
        x
    }
}

/// Which input a matrix belongs to.
#[derive(Debug, Clone, Copy)]
pub enum Input {
    X = 1,
    Y = 2,
    Z = 3,
}

/// The element of `input` at `site`: entries uniform in [-1, 1), rounded to `T`.
pub fn site_matrix<T: Prec>(seed: u64, input: Input, site: usize) -> ColorMatrix<T>
where
    ColorMatrix<T>: Element,
{
    let key = seed ^ ((input as u64) << 58) ^ (site as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut r = SmallRng::seed_from_u64(key);
    ColorMatrix::new(std::array::from_fn(|_| {
        std::array::from_fn(|_| {
            Complex::new(
                T::of(r.random_range(-1.0..1.0)),
                T::of(r.random_range(-1.0..1.0)),
            )
        })
    }))
}

/// A field of `n` random elements of `input`.
pub fn field<T: Prec, L: Layout>(seed: u64, input: Input, n: usize) -> Field<ColorMatrix<T>, L>
where
    ColorMatrix<T>: Element,
{
    // Made in parallel (the sites are independent), then laid out.
    let values: Vec<ColorMatrix<T>> = (0..n)
        .into_par_iter()
        .map(|i| site_matrix(seed, input, i))
        .collect();
    Field::from_vec(values)
}

fn wide<T: Prec>(z: Complex<T>) -> (f64, f64) {
    (z.re.into(), z.im.into())
}

/// ‖out − ref‖ / ‖ref‖ over every real of every site, with `ref = x + y z` computed in f64
/// (plain loops) from the same `T` inputs. A NaN anywhere (an unwritten element) gives NaN.
pub fn relative_error<T: Prec>(seed: u64, out: &[ColorMatrix<T>]) -> f64
where
    ColorMatrix<T>: Element,
{
    let (num, den) = out
        .par_iter()
        .enumerate()
        .map(|(s, got)| {
            let x = site_matrix::<T>(seed, Input::X, s);
            let y = site_matrix::<T>(seed, Input::Y, s);
            let z = site_matrix::<T>(seed, Input::Z, s);
            let (mut num, mut den) = (0.0, 0.0);
            for i in 0..3 {
                for j in 0..3 {
                    let (mut re, mut im) = wide(x[i][j]);
                    for k in 0..3 {
                        let (ar, ai) = wide(y[i][k]);
                        let (br, bi) = wide(z[k][j]);
                        re += ar * br - ai * bi;
                        im += ar * bi + ai * br;
                    }
                    let (gr, gi) = wide(got[i][j]);
                    num += (gr - re) * (gr - re) + (gi - im) * (gi - im);
                    den += re * re + im * im;
                }
            }
            (num, den)
        })
        .reduce(|| (0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
    (num / den).sqrt()
}
