//! The benchmark's inputs and checks: random SU(3) links (so that they can also be stored as
//! two rows) and a random source in f64 (uniform in [-1, 1)),
//! rounded to the precision run, and the hopping term computed on the host in f64 from the
//! rounded inputs, against which every even site of a result is checked.

use crate::BenchResult;
use ongpu::prelude::*;
use ongpu::qcd::gauge::su3::random_su3;
use ongpu::{Element, Layout};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

pub use crate::common::prec::Prec;

fn round<T: Prec>(z: Complex<f64>) -> Complex<T> {
    Complex::new(T::of(z.re), T::of(z.im))
}

fn widen<T: Prec>(z: Complex<T>) -> Complex<f64> {
    Complex::new(z.re.to(), z.im.to())
}

/// One lattice's inputs.
pub struct Problem {
    /// The lattice.
    pub lat: Lattice,
    /// Its extent.
    pub l: usize,
    links: Vec<[ColorMatrix<f64>; 4]>,
    psi: Vec<ColorVector<f64>>,
}

impl Problem {
    /// Random inputs on the L^4 lattice.
    pub fn new(l: usize, seed: u64) -> ongpu::Result<Problem> {
        let lat = Lattice::new([l; 4])?;
        let mut r = SmallRng::seed_from_u64(seed ^ l as u64);
        let mut r2 = SmallRng::seed_from_u64(seed ^ l as u64 ^ 0x5eed);
        let mut z = || Complex::new(r.random_range(-1.0..1.0), r.random_range(-1.0..1.0));
        let links = (0..lat.volume())
            .map(|_| std::array::from_fn(|_| random_su3(&mut r2)))
            .collect();
        let psi = (0..lat.volume())
            .map(|_| ColorVector::new(std::array::from_fn(|_| z())))
            .collect();
        Ok(Problem { lat, l, links, psi })
    }

    /// The links in precision `T`, layout `L`.
    pub fn links<T: Prec, L: Layout>(&self) -> Field<[ColorMatrix<T>; 4], L>
    where
        [ColorMatrix<T>; 4]: Element,
    {
        Field::from_fn(self.lat.volume(), |i| {
            self.links[i].map(|m| ColorMatrix::new(m.m.map(|row| row.map(round))))
        })
    }

    /// The links in precision `T`, layout `L`, stored as their first two rows.
    #[cfg(feature = "cuda")]
    pub fn links12<T: Prec, L: Layout>(&self) -> Field<[[ColorVector<T>; 2]; 4], L>
    where
        [[ColorVector<T>; 2]; 4]: Element,
    {
        Field::from_fn(self.lat.volume(), |i| {
            self.links[i].map(|m| [0, 1].map(|r| ColorVector::new(m.m[r].map(round))))
        })
    }

    /// The source in precision `T`, layout `L`.
    pub fn psi<T: Prec, L: Layout>(&self) -> Field<ColorVector<T>, L>
    where
        ColorVector<T>: Element,
    {
        Field::from_fn(self.lat.volume(), |i| {
            ColorVector::new(self.psi[i].v.map(round))
        })
    }

    /// The output, NaN everywhere before a run.
    pub fn poisoned_chi<T: Prec, L: Layout>(&self) -> Field<ColorVector<T>, L>
    where
        ColorVector<T>: Element,
    {
        let nan = Complex::new(T::of(f64::NAN), T::of(f64::NAN));
        Field::filled(self.lat.volume(), ColorVector::new([nan; 3]))
    }

    /// Bytes of the no-reuse model: 8 links and 8 vectors read, one vector written, per
    /// even site.
    pub fn model_bytes<T: Prec>(&self) -> usize {
        let real = std::mem::size_of::<T>();
        self.lat.volume() / 2 * (8 * 18 + 8 * 6 + 6) * real
    }

    /// Checks every component of every even site of `chi` against the f64 hopping term of
    /// the inputs rounded to `T`, and that odd sites were not written; returns the largest
    /// error relative to max(1, |want|).
    pub fn check<T: Prec, L: Layout>(
        &self,
        who: &str,
        chi: &Field<ColorVector<T>, L>,
    ) -> BenchResult<f64>
    where
        ColorVector<T>: Element,
    {
        let got: Vec<ColorVector<f64>> = chi
            .to_vec()?
            .iter()
            .map(|v| ColorVector::new(v.v.map(widen)))
            .collect();
        let rm = |m: &ColorMatrix<f64>| {
            ColorMatrix::new(m.m.map(|row| row.map(|z| widen(round::<T>(z)))))
        };
        let rv = |v: &ColorVector<f64>| ColorVector::new(v.v.map(|z| widen(round::<T>(z))));
        let what = format!("{who}, {} {} L={}", T::NAME, L::name(), self.l);
        self.check_against(&what, &got, rm, rv, T::TOLERANCE)
    }

    /// Links as two rows of f16 (rounded from f32, as `compress` stores them).
    #[cfg(feature = "cuda")]
    pub fn links16<L: Layout>(&self) -> Field<[[ColorVector<f16>; 2]; 4], L> {
        Field::from_fn(self.lat.volume(), |i| {
            self.links[i].map(|m| [0, 1].map(|r| ColorVector::new(m.m[r]).to_f32().to_f16()))
        })
    }

    /// The source in f16 (rounded from f32).
    #[cfg(feature = "cuda")]
    pub fn psi16<L: Layout>(&self) -> Field<ColorVector<f16>, L> {
        Field::from_fn(self.lat.volume(), |i| self.psi[i].to_f32().to_f16())
    }

    /// Checks a 16-bit result like [`check`](Problem::check): against the hopping term of
    /// the 16-bit inputs (links rebuilt from their rows) in f64, to the f16 rounding of the
    /// result (2^-11 relative) and the f32 arithmetic.
    #[cfg(feature = "cuda")]
    pub fn check16<L: Layout>(
        &self,
        who: &str,
        chi: &Field<ColorVector<f16>, L>,
    ) -> BenchResult<f64> {
        let got: Vec<ColorVector<f64>> = chi.to_vec()?.iter().map(|v| v.to_f64()).collect();
        let rm = |m: &ColorMatrix<f64>| {
            let [a, b] = [0, 1].map(|r| ColorVector::new(m.m[r]).to_f32().to_f16().to_f64());
            let third = |j: usize, k: usize| (a[j] * b[k] - a[k] * b[j]).conj();
            ColorMatrix::new([a.v, b.v, [third(1, 2), third(2, 0), third(0, 1)]])
        };
        let rv = |v: &ColorVector<f64>| v.to_f32().to_f16().to_f64();
        let what = format!("{who}, f16 {} L={}", L::name(), self.l);
        self.check_against(&what, &got, rm, rv, 1e-3)
    }

    /// The checks of [`check`](Problem::check) on a result widened to f64, with the inputs
    /// as `rm` and `rv` round them.
    fn check_against(
        &self,
        what: &str,
        got: &[ColorVector<f64>],
        rm: impl Fn(&ColorMatrix<f64>) -> ColorMatrix<f64>,
        rv: impl Fn(&ColorVector<f64>) -> ColorVector<f64>,
        tolerance: f64,
    ) -> BenchResult<f64> {
        let lat = &self.lat;
        let mut worst = 0.0f64;
        for (i, g) in got.iter().enumerate() {
            if lat.parity(i) == 1 {
                if g.v.iter().any(|z| !z.re.is_nan() || !z.im.is_nan()) {
                    return Err(format!("{what}: odd site {i} was written").into());
                }
                continue;
            }
            let mut want = ColorVector::<f64>::zero();
            for mu in 0..4 {
                let (f, b) = (lat.shift(i, mu, 1), lat.shift(i, mu, -1));
                want += rm(&self.links[i][mu]) * rv(&self.psi[f])
                    - rm(&self.links[b][mu]).adj() * rv(&self.psi[b]);
            }
            for (gz, wz) in g.v.iter().zip(want.v) {
                for (gv, wv) in [(gz.re, wz.re), (gz.im, wz.im)] {
                    let e = (gv - wv).abs() / wv.abs().max(1.0);
                    if e.is_nan() || e > tolerance {
                        return Err(format!("{what}: site {i}: got {gv}, want {wv}").into());
                    }
                    worst = worst.max(e);
                }
            }
        }
        Ok(worst)
    }
}
