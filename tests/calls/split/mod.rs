//! Lattice programs written once and run over a whole lattice and over the same lattice
//! split into parts: every output must be the same bits (element-wise results) or agree to
//! rounding (reductions, whose combination order follows the parts).

#![allow(dead_code)]

use ongpu::prelude::*;
use ongpu::{Element, Layout, Space, SpaceField};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// The values of a field of `lat`, in the whole lattice's site order.
pub fn values_of<S: Space, T: Element, L: Layout>(_lat: &S, f: &S::Field<T, L>) -> Vec<T> {
    f.values().unwrap()
}

pub fn rng(seed: u64) -> SmallRng {
    SmallRng::seed_from_u64(seed)
}

pub fn matrix(r: &mut SmallRng) -> ColorMatrix<f64> {
    let mut m = ColorMatrix::zero();
    for i in 0..3 {
        for j in 0..3 {
            m[i][j] = Complex::new(r.random_range(-1.0..1.0), r.random_range(-1.0..1.0));
        }
    }
    m
}

pub fn vector(r: &mut SmallRng) -> ColorVector<f64> {
    let mut v = ColorVector::zero();
    for i in 0..3 {
        v[i] = Complex::new(r.random_range(-1.0..1.0), r.random_range(-1.0..1.0));
    }
    v
}

/// Components of colour vectors, for bitwise comparison.
pub fn bits_of_vectors(v: &[ColorVector<f64>]) -> Vec<u64> {
    v.iter()
        .flat_map(|x| (0..3).flat_map(move |c| [x[c].re.to_bits(), x[c].im.to_bits()]))
        .collect()
}

/// The staggered hopping term on the odd sites then on the even ones (the second call
/// shifts the field the first wrote, so it reads halos refreshed after a call), with
/// phases from the lattice's coordinates; returns both results.
macro_rules! staggered_twice {
    ($lat:expr, $layout:ty) => {{
        let lat = $lat;
        let whole = lat.whole();
        let mut r = rng(7);
        let links: Vec<[ColorMatrix<f64>; 4]> = (0..whole.volume())
            .map(|_| std::array::from_fn(|_| matrix(&mut r)))
            .collect();
        let src: Vec<ColorVector<f64>> = (0..whole.volume()).map(|_| vector(&mut r)).collect();
        let u = lat
            .field_from_fn::<[ColorMatrix<f64>; 4], $layout>(|i| links[i])
            .unwrap();
        let psi = lat
            .field_from_fn::<ColorVector<f64>, $layout>(|i| src[i])
            .unwrap();
        let nan = ColorVector::new([Complex::new(f64::NAN, f64::NAN); 3]);
        let mut chi = lat
            .field_from_fn::<ColorVector<f64>, $layout>(|_| nan)
            .unwrap();
        let mut eta = lat
            .field_from_fn::<ColorVector<f64>, $layout>(|_| nan)
            .unwrap();
        on_gpu!(lat.odd(), |i| {
            let mut r = ColorVector::zero();
            let mut sum = 0;
            for mu in 0..4 {
                let phase = if sum % 2 == 0 { 0.5 } else { -0.5 };
                r += phase
                    * (u[mu] * psi.shift(mu, 1) - u.shift(mu, -1)[mu].adj() * psi.shift(mu, -1));
                sum += lat.coord(i, mu);
            }
            chi = r;
        })
        .unwrap();
        on_gpu!(lat.even(), |i| {
            let mut r = ColorVector::zero();
            let mut sum = 0;
            for mu in 0..4 {
                let phase = if sum % 2 == 0 { 0.5 } else { -0.5 };
                r += phase
                    * (u[mu] * chi.shift(mu, 1) - u.shift(mu, -1)[mu].adj() * chi.shift(mu, -1));
                sum += lat.coord(i, mu);
            }
            eta = r;
        })
        .unwrap();
        (values_of(&lat, &chi), values_of(&lat, &eta))
    }};
}
pub(crate) use staggered_twice;

/// Chained (diagonal) shifts, a shift by two in a direction that is not split, and a
/// shifted element-array entry, written into every site.
macro_rules! diagonal_shifts {
    ($lat:expr, $far:expr) => {{
        let lat = $lat;
        let whole = lat.whole();
        let mut r = rng(11);
        let a_host: Vec<f64> = (0..whole.volume())
            .map(|_| r.random_range(-1.0..1.0))
            .collect();
        let a = lat.field_from_fn::<f64, SoA>(|i| a_host[i]).unwrap();
        let far: usize = $far;
        let mut out = lat.field_from_fn::<f64, SoA>(|_| f64::NAN).unwrap();
        on_gpu!(lat, |i| {
            let mut s = 0.0;
            for mu in 0..4 {
                for nu in 0..4 {
                    s = s * 1.25 + a.shift(mu, 1).shift(nu, -1);
                }
            }
            out = s + 0.5 * a.shift(far, 2) + lat.parity(i) as f64;
        })
        .unwrap();
        // A field written over both parities, read shifted at both: every halo refreshed.
        let mut next = lat.field_from_fn::<f64, SoA>(|_| f64::NAN).unwrap();
        on_gpu!(lat, {
            let mut s = 0.0;
            for mu in 0..4 {
                s = s * 1.5 + out.shift(mu, 1) - 0.25 * out.shift(mu, -1);
            }
            next = s;
        })
        .unwrap();
        let mut values = values_of(&lat, &out);
        values.extend(values_of(&lat, &next));
        values
    }};
}
pub(crate) use diagonal_shifts;

/// The plaquette sum and a sum of squares of a written field, as reductions.
macro_rules! plaquette_sum {
    ($lat:expr) => {{
        let lat = $lat;
        let whole = lat.whole();
        let mut r = rng(13);
        let links: Vec<[ColorMatrix<f64>; 4]> = (0..whole.volume())
            .map(|_| std::array::from_fn(|_| matrix(&mut r)))
            .collect();
        let u = lat.field_from_fn::<[ColorMatrix<f64>; 4], AoS>(|i| links[i]).unwrap();
        let mut t = lat.field_from_fn::<f64, AoS>(|_| f64::NAN).unwrap();
        let plaq = on_gpu!(sum: lat, |i| {
            let mut p = 0.0;
            for mu in 0..4 {
                for nu in (mu + 1)..4 {
                    p += (u[mu] * u.shift(mu, 1)[nu] * u.shift(nu, 1)[mu].adj() * u[nu].adj())
                        .trace()
                        .re;
                }
            }
            t = p;
            p
        })
        .unwrap();
        let odd = on_gpu!(sum: lat.odd(), |i| { t * t + i as f64 * 0.0 }).unwrap();
        (plaq, odd, values_of(&lat, &t))
    }};
}
pub(crate) use plaquette_sum;

/// Reductions whose result does not depend on the order of combination: an integer sum of
/// whole-lattice coordinates and the largest and smallest written value. Every split must
/// give the whole lattice's bits.
macro_rules! exact_reductions {
    ($lat:expr, $t:expr) => {{
        let lat = $lat;
        let t = $t;
        let coords: u64 = on_gpu!(sum: lat, |i| {
            let mut c = 0u32;
            for mu in 0..4 {
                c = c * 16 + lat.coord(i, mu) as u32;
            }
            c
        })
        .unwrap();
        let hi: f64 = on_gpu!(max: lat, { t }).unwrap();
        let lo: f64 = on_gpu!(min: lat.even(), { t }).unwrap();
        (coords, hi.to_bits(), lo.to_bits())
    }};
}
pub(crate) use exact_reductions;

/// The value at site `i` of the field `exact_reductions!` reduces: integers and halves spread
/// over ±500, so that its maximum and minimum are the same whatever the order of combination.
pub fn spread_value(i: usize) -> f64 {
    ((i * 7919) % 1013) as f64 - 500.5
}

/// Reals as bits, for bitwise comparison.
pub fn bits_of(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// What a split must reproduce bit for bit: the whole lattice's staggered hops (twice),
/// diagonal shifts, plaquette sum (to rounding: its order follows the parts) and written
/// plaquette field.
pub struct Whole {
    pub chi: Vec<ColorVector<f64>>,
    pub eta: Vec<ColorVector<f64>>,
    pub far: Vec<f64>,
    pub plaq: f64,
    pub t: Vec<f64>,
}

/// The [`Whole`] results of the lattice `$lat` (fields of layout `$layout` for the hops).
/// (Not every test file that includes this module uses the two macros below.)
#[allow(unused_macros)]
macro_rules! whole_results {
    ($lat:expr, $layout:ty) => {{
        let lat = $lat;
        let (chi, eta) = staggered_twice!(lat, $layout);
        let far = diagonal_shifts!(lat, 0);
        let (plaq, _, t) = plaquette_sum!(lat);
        Whole {
            chi,
            eta,
            far,
            plaq,
            t,
        }
    }};
}
#[allow(unused_imports)]
pub(crate) use whole_results;

/// Panics unless the split `$split` gives the [`Whole`] results `$whole` (`$what` names the
/// case in the message).
#[allow(unused_macros)]
macro_rules! assert_split_gives {
    ($split:expr, $layout:ty, $whole:expr, $what:expr) => {{
        let split = $split;
        let whole: &Whole = $whole;
        let what = $what;
        let (c, e) = staggered_twice!(split, $layout);
        assert_eq!(bits_of_vectors(&c), bits_of_vectors(&whole.chi), "{what}");
        assert_eq!(bits_of_vectors(&e), bits_of_vectors(&whole.eta), "{what}");
        assert_eq!(
            bits_of(&diagonal_shifts!(split, 0)),
            bits_of(&whole.far),
            "{what}"
        );
        let (p, _, ts) = plaquette_sum!(split);
        assert!(
            (p - whole.plaq).abs() <= 1e-12 * whole.plaq.abs(),
            "{what}: {p} vs {}",
            whole.plaq
        );
        assert_eq!(bits_of(&ts), bits_of(&whole.t), "{what}");
    }};
}
#[allow(unused_imports)]
pub(crate) use assert_split_gives;

/// Halos are exchanged only where a call shifts a field written since its last exchange,
/// counted per field and (`lat.halo_refreshes()`, when the test owns the lattice's
/// geometry) per space: calls that shift nothing exchange nothing, a shifted field whose
/// halos are current exchanges nothing, a field written twice on one parity is exchanged
/// once, on that parity, however many directions and calls shift it, and a shifting
/// reduction refreshes too. `cut`: whether the space has halos (more than one part or rank).
/// Returns the values the shifted reads gave, to compare with the whole lattice's.
macro_rules! exchange_counts {
    ($lat:expr, $cut:expr, $own_lattice:expr) => {{
        let lat = $lat;
        let cut: bool = $cut;
        let want = |even: u64, odd: u64| {
            if cut {
                ongpu::HaloRefreshes { even, odd }
            } else {
                ongpu::HaloRefreshes::default()
            }
        };
        let none = ongpu::HaloRefreshes::default();
        let start = lat.halo_refreshes();
        let mut x = lat.field_from_fn::<f64, AoS>(|i| i as f64).unwrap();
        let mut y = lat.zeros::<f64, AoS>().unwrap();
        // A write, a read and a reduction: no shift, no exchange.
        on_gpu!(lat, |i| { x *= 2.0; }).unwrap();
        on_gpu!(lat.even(), |i| { y = x + 1.0; }).unwrap();
        let sum = on_gpu!(sum: lat, |i| { x }).unwrap();
        assert_eq!(x.halo_refreshes(), none, "no shift, no exchange");
        // Shifts of a field whose halos are current (as made): no exchange.
        let f = lat.field_from_fn::<f64, AoS>(|i| (i % 7) as f64).unwrap();
        on_gpu!(lat.even(), |i| { y = f.shift(3, 1) - f.shift(3, -1); }).unwrap();
        assert_eq!(f.halo_refreshes(), none, "current halos");
        // Written twice on the odd sites, then shifted by two calls along every direction:
        // the odd halos once.
        let mut z = lat.zeros::<f64, AoS>().unwrap();
        on_gpu!(lat.odd(), |i| { z = x; }).unwrap();
        on_gpu!(lat.odd(), |i| { z += f; }).unwrap();
        let mut v = Vec::new();
        for _ in 0..2 {
            on_gpu!(lat.even(), |i| {
                let mut s = 0.0;
                for mu in 0..4 {
                    s = s * 1.5 + z.shift(mu, 1) - 0.25 * z.shift(mu, -1);
                }
                y = s;
            })
            .unwrap();
            v.extend(values_of(&lat, &y));
        }
        assert_eq!(z.halo_refreshes(), want(0, 1), "odd writes, shifted twice");
        // Written on every site, then shifted by a reduction over the even sites: both
        // parities' halos, once.
        on_gpu!(lat, |i| { z = x - f; }).unwrap();
        let shifted = on_gpu!(sum: lat.even(), |i| { z.shift(0, 1) * z.shift(3, -1) }).unwrap();
        assert_eq!(z.halo_refreshes(), want(1, 2), "a shifting reduction");
        if $own_lattice {
            assert_eq!(lat.halo_refreshes().since(start), want(1, 2), "{lat}");
        }
        v.push(sum);
        v.push(shifted);
        v
    }};
}
pub(crate) use exchange_counts;
