//! SU(3) links stored as two rows (`ongpu::qcd::gauge::compressed`): the rows stored are the
//! links' own bits, the rebuilt matrices are the exact SU(3) links to 2 units in the last
//! place of the storage type (at entries of size 1), links off SU(3) (or not finite) are an error that leaves the
//! output as it was. On the CPU backend, and on the GPU with `--include-ignored`.

#[cfg(feature = "cuda")]
use crate::support;

use ongpu::prelude::*;
use ongpu::qcd::gauge::compressed::{compress, decompress, CompressedSite};
use ongpu::qcd::gauge::su3::random_su3;
use ongpu::qcd::SiteLayout;
use rand::SeedableRng;

type Links<T> = Field<[ColorMatrix<T>; 4], SiteLayout>;

fn host_links(lat: &Lattice, seed: u64) -> Vec<[ColorMatrix<f64>; 4]> {
    let mut r = rand::rngs::SmallRng::seed_from_u64(seed);
    (0..lat.volume())
        .map(|_| std::array::from_fn(|_| random_su3(&mut r)))
        .collect()
}

fn to_f32(m: &ColorMatrix<f64>) -> ColorMatrix<f32> {
    ColorMatrix::new(m.m.map(|row| row.map(|z| Complex::new(z.re as f32, z.im as f32))))
}

/// Largest |entry difference| between rebuilt links and the exact ones.
fn worst(got: &[[ColorMatrix<f64>; 4]], want: &[[ColorMatrix<f64>; 4]]) -> f64 {
    let mut w: f64 = 0.0;
    for (g, x) in got.iter().zip(want) {
        for mu in 0..4 {
            for r in 0..3 {
                for c in 0..3 {
                    w = w.max((g[mu][r][c] - x[mu][r][c]).norm());
                }
            }
        }
    }
    w
}

fn round_trip_f64() {
    let lat = Lattice::new([4, 4, 4, 6]).unwrap();
    let exact = host_links(&lat, 1);
    let links: Links<f64> = Field::from_vec(exact.clone());
    let mut packed: Field<CompressedSite<f64>, SiteLayout> =
        Field::filled(lat.volume(), [[ColorVector::zero(); 2]; 4]);
    compress(lat, &links, 1e-12, &mut packed).unwrap();
    for (p, x) in packed.to_vec().unwrap().iter().zip(&exact) {
        for mu in 0..4 {
            for r in 0..2 {
                for c in 0..3 {
                    assert_eq!(p[mu][r][c], x[mu][r][c], "stored rows are the links' bits");
                }
            }
        }
    }
    let mut back: Links<f64> = Field::filled(lat.volume(), [ColorMatrix::zero(); 4]);
    decompress(lat, &packed, &mut back).unwrap();
    let w = worst(&back.to_vec().unwrap(), &exact);
    assert!(
        w <= 4.0 * f64::EPSILON,
        "rebuilt off by {w:e} = {} ulp",
        w / f64::EPSILON
    );
}

fn round_trip_f32() {
    let lat = Lattice::new([4, 4, 4, 6]).unwrap();
    let exact = host_links(&lat, 2);
    let links: Links<f32> = Field::from_vec(exact.iter().map(|l| l.map(|m| to_f32(&m))).collect());
    let mut packed: Field<CompressedSite<f32>, SiteLayout> =
        Field::filled(lat.volume(), [[ColorVector::zero(); 2]; 4]);
    compress(lat, &links, 1e-6, &mut packed).unwrap();
    let mut back: Links<f32> = Field::filled(lat.volume(), [ColorMatrix::zero(); 4]);
    decompress(lat, &packed, &mut back).unwrap();
    let widened: Vec<[ColorMatrix<f64>; 4]> = back
        .to_vec()
        .unwrap()
        .iter()
        .map(|l| {
            l.map(|m| {
                ColorMatrix::new(m.m.map(|row| row.map(|z| Complex::new(z.re as f64, z.im as f64))))
            })
        })
        .collect();
    let w = worst(&widened, &exact);
    let eps = f32::EPSILON as f64;
    assert!(w <= 2.0 * eps, "rebuilt off by {w:e} = {} ulp", w / eps);
}

/// A link off SU(3) by 1e-5, and a NaN: errors, the output untouched.
fn links_off_su3_are_errors() {
    let lat = Lattice::new([4; 4]).unwrap();
    for bad in [Complex::new(1e-5, 0.0), Complex::new(f32::NAN, 0.0)] {
        let mut host: Vec<[ColorMatrix<f32>; 4]> = host_links(&lat, 3)
            .iter()
            .map(|l| l.map(|m| to_f32(&m)))
            .collect();
        host[77][2].m[2][1] += bad;
        let links: Links<f32> = Field::from_vec(host);
        let poison = [[ColorVector::new([Complex::new(7.0f32, 7.0); 3]); 2]; 4];
        let mut packed: Field<CompressedSite<f32>, SiteLayout> =
            Field::filled(lat.volume(), poison);
        let err = compress(lat, &links, 1e-6, &mut packed).unwrap_err();
        assert!(err.to_string().contains("1 link(s)"), "{err}");
        assert!(packed.to_vec().unwrap().iter().all(|s| *s == poison));
    }
}

/// Rows stored in 16 bits: the f16 and bf16 roundings of the rows (the `half` crate's
/// bits), and links rebuilt from them within the storage's precision.
fn round_trip_16_bit() {
    let lat = Lattice::new([4, 4, 4, 6]).unwrap();
    let exact = host_links(&lat, 4);
    let host: Vec<[ColorMatrix<f32>; 4]> = exact.iter().map(|l| l.map(|m| to_f32(&m))).collect();
    let links: Links<f32> = Field::from_vec(host.clone());
    let mut h: Field<CompressedSite<f16>, SiteLayout> = Field::filled(
        lat.volume(),
        [[ColorVector::new([Complex::new(f16::NAN, f16::NAN); 3]); 2]; 4],
    );
    let mut b: Field<CompressedSite<bf16>, SiteLayout> = Field::filled(
        lat.volume(),
        [[ColorVector::new([Complex::new(bf16::NAN, bf16::NAN); 3]); 2]; 4],
    );
    compress(lat, &links, 1e-6, &mut h).unwrap();
    compress(lat, &links, 1e-6, &mut b).unwrap();
    let (hv, bv) = (h.to_vec().unwrap(), b.to_vec().unwrap());
    for s in 0..lat.volume() {
        for mu in 0..4 {
            for r in 0..2 {
                for c in 0..3 {
                    let z = host[s][mu][r][c];
                    assert_eq!(hv[s][mu][r][c], z.to_f16(), "f16 rows are the rounded rows");
                    assert_eq!(
                        bv[s][mu][r][c],
                        z.to_bf16(),
                        "bf16 rows are the rounded rows"
                    );
                }
            }
        }
    }
    for (rows, eps) in [(0, 2f64.powi(-11)), (1, 2f64.powi(-8))] {
        let mut back: Links<f32> = Field::filled(lat.volume(), [ColorMatrix::zero(); 4]);
        if rows == 0 {
            decompress(lat, &h, &mut back).unwrap();
        } else {
            decompress(lat, &b, &mut back).unwrap();
        }
        let widened: Vec<[ColorMatrix<f64>; 4]> = back
            .to_vec()
            .unwrap()
            .iter()
            .map(|l| l.map(|m| m.to_f64()))
            .collect();
        // Stored entries are off by half an ulp (relative); the third row, a sum of two
        // products of them, by a few.
        let w = worst(&widened, &exact);
        assert!(w <= 4.0 * eps, "rebuilt off by {w:e} = {} ulp", w / eps);
    }
}

on_both_backends!(
    round_trip_f64,
    round_trip_f32,
    round_trip_16_bit,
    links_off_su3_are_errors
);

/// The kernels compile with the real NVRTC for Hopper and Ampere, without warnings and
/// without local memory.
#[cfg(feature = "cuda")]
#[test]
fn kernels_compile_with_nvrtc() {
    if !support::require_nvrtc() {
        return;
    }
    let kernels = support::cpu_kernel_sources(|| {
        round_trip_f64();
        round_trip_f32();
        round_trip_16_bit();
    });
    assert!(kernels.len() >= 6, "{} kernels", kernels.len());
    support::check_kernels_stay_in_registers(&kernels);
}
