//! The benchmark's inputs and checks: the fat and Naik links of a smooth random gauge field
//! (smeared by the library in f64, phases folded in) and a random source (uniform in
//! [-1, 1)), rounded to the precision run, and the HISQ hop computed on the host in f64 from
//! the rounded inputs, against which every even site of a result is checked.

use crate::BenchResult;
use ongpu::prelude::*;
use ongpu::qcd::boundary::TimeBoundary;
use ongpu::qcd::gauge::GaugeField;
use ongpu::qcd::hisq::HisqLinks;
use ongpu::qcd::SiteLayout;
use ongpu::Element;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Reals per even site with no reuse: 16 links of 18, 16 neighbour vectors of 6, one
/// output vector.
pub const MODEL_REALS: f64 = 16.0 * 18.0 + 16.0 * 6.0 + 6.0;

pub use crate::common::prec::Prec;

fn round<T: Prec>(z: Complex<f64>) -> Complex<T> {
    Complex::new(T::of(z.re), T::of(z.im))
}

type Links = Vec<[ColorMatrix<f64>; 4]>;

/// One lattice's inputs.
pub struct Problem {
    /// The lattice.
    pub lat: Lattice,
    fat: Links,
    naik: Links,
    psi: Vec<ColorVector<f64>>,
}

impl Problem {
    /// The links of a smooth random gauge field on L^4 and a random source.
    pub fn new(l: usize, seed: u64) -> ongpu::Result<Problem> {
        let lat = Lattice::new([l; 4])?;
        let u = GaugeField::smooth(lat, 0.5, seed)?;
        let links = HisqLinks::new(&u, 0.0, TimeBoundary::Antiperiodic)?;
        let mut r = SmallRng::seed_from_u64(seed ^ 0x5eed);
        let mut z = || Complex::new(r.random_range(-1.0..1.0), r.random_range(-1.0..1.0));
        let psi = (0..lat.volume())
            .map(|_| ColorVector::new(std::array::from_fn(|_| z())))
            .collect();
        Ok(Problem {
            lat,
            fat: links.fat.to_vec()?,
            naik: links.naik.to_vec()?,
            psi,
        })
    }

    fn links<T: Prec>(links: &Links) -> Field<[ColorMatrix<T>; 4], SiteLayout>
    where
        [ColorMatrix<T>; 4]: Element,
    {
        Field::from_fn(links.len(), |i| {
            links[i].map(|m| ColorMatrix::new(m.m.map(|row| row.map(round))))
        })
    }

    /// The fat links in precision `T`.
    pub fn fat<T: Prec>(&self) -> Field<[ColorMatrix<T>; 4], SiteLayout>
    where
        [ColorMatrix<T>; 4]: Element,
    {
        Self::links(&self.fat)
    }

    /// The Naik links in precision `T`.
    pub fn naik<T: Prec>(&self) -> Field<[ColorMatrix<T>; 4], SiteLayout>
    where
        [ColorMatrix<T>; 4]: Element,
    {
        Self::links(&self.naik)
    }

    /// The source in precision `T`.
    pub fn psi<T: Prec>(&self) -> Field<ColorVector<T>, SiteLayout>
    where
        ColorVector<T>: Element,
    {
        Field::from_fn(self.lat.volume(), |i| {
            ColorVector::new(self.psi[i].v.map(round))
        })
    }

    /// The output, NaN everywhere before a run.
    pub fn poisoned<T: Prec>(&self) -> Field<ColorVector<T>, SiteLayout>
    where
        ColorVector<T>: Element,
    {
        let nan = Complex::new(T::of(f64::NAN), T::of(f64::NAN));
        Field::filled(self.lat.volume(), ColorVector::new([nan; 3]))
    }

    /// The site `hops` steps from `x` along `mu`.
    fn step(&self, x: usize, mu: usize, hops: i64) -> usize {
        let mut c = self.lat.coords(x);
        let l = self.lat.extents()[mu] as i64;
        c[mu] = (c[mu] as i64 + hops).rem_euclid(l) as usize;
        self.lat.index(c)
    }

    /// The largest error of `out` at the even sites against the host's hop of the inputs
    /// rounded to `T`, relative to the largest part of the answer; an error past the
    /// precision's tolerance (or NaN).
    pub fn check<T: Prec>(
        &self,
        what: &str,
        out: &Field<ColorVector<T>, SiteLayout>,
    ) -> BenchResult<f64>
    where
        ColorVector<T>: Element,
    {
        let r = |z: Complex<f64>| Complex::new(T::of(z.re).to(), T::of(z.im).to());
        let rm = |m: &ColorMatrix<f64>| ColorMatrix::new(m.m.map(|row| row.map(r)));
        let rv = |v: &ColorVector<f64>| ColorVector::new(v.v.map(r));
        let got = out.to_vec()?;
        let (mut diff, mut scale) = (0.0f64, 0.0f64);
        for x in (0..self.lat.volume()).filter(|&x| self.lat.parity(x) == 0) {
            let mut want = ColorVector::<f64>::zero();
            for mu in 0..4 {
                for (links, d) in [(&self.fat, 1), (&self.naik, 3)] {
                    let (f, b) = (self.step(x, mu, d), self.step(x, mu, -d));
                    want += rm(&links[x][mu]) * rv(&self.psi[f])
                        - rm(&links[b][mu]).adj() * rv(&self.psi[b]);
                }
            }
            for k in 0..3 {
                let (g, w) = (got[x][k], want[k]);
                let d = (g.re.to() - w.re).abs().max((g.im.to() - w.im).abs());
                diff = if d.is_nan() {
                    f64::INFINITY
                } else {
                    diff.max(d)
                };
                scale = scale.max(w.re.abs()).max(w.im.abs());
            }
        }
        let err = diff / scale;
        if err > T::TOLERANCE {
            return Err(format!(
                "{what} ({}): off the host's hop by {err:e} (allowed {:e})",
                T::NAME,
                T::TOLERANCE
            )
            .into());
        }
        Ok(err)
    }
}
