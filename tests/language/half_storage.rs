//! 16-bit storage (`f16`, `bf16`) and the conversions of bodies (`widen`, `narrow`,
//! `to_f16`, `to_bf16`, `to_f32`, `to_f64`): on both backends the stored bits are the `half`
//! crate's, for every kind of value (ties, subnormals, overflow, infinities, NaN payloads),
//! widening is exact, and 16-bit fields are read shifted and by array entry like any other.
//! On the CPU backend, and on the GPU with `--include-ignored`.

#[cfg(feature = "cuda")]
use crate::support;

use ongpu::prelude::*;
use rand::{Rng, SeedableRng};

/// f32 values that exercise every path of a 16-bit rounding, then random ones of every
/// magnitude and sign.
fn awkward_f32s(n: usize) -> Vec<f32> {
    let special: Vec<f32> = [
        0x0000_0000u32,
        0x8000_0000,
        0x3f80_0000, // 1
        0x3f80_1000, // 1 + 2^-11: an f16 tie, to even (1)
        0x3f80_3000, // 1 + 3·2^-11: a tie, to even (upwards)
        0x3f80_1001, // just above a tie
        0x3f80_8000, // a bf16 tie
        0x3f81_8000, // a bf16 tie, upwards
        0x477f_e000, // 65504, the largest f16
        0x477f_efff, // rounds to 65504
        0x477f_f000, // 65520: a tie that overflows to infinity
        0x3380_0000, // 2^-24, the smallest f16 subnormal
        0x3300_0000, // 2^-25: a tie, to zero
        0x3340_0000, // 1.5·2^-25: to 2^-24
        0x3880_0000, // 2^-14, the smallest f16 normal
        0x387f_c000, // just below: subnormal
        0x0000_0001, // the smallest f32 subnormal
        0x7f7f_ffff, // the largest f32
        0x7f80_0000, // +inf
        0xff80_0000, // -inf
        0x7fc0_0000, // quiet NaN
        0x7f80_0001, // signalling NaN, payload in the low bits
        0xffa0_1234, // negative signalling NaN with a payload
        0x7fff_ffff, // NaN, every payload bit
    ]
    .iter()
    .map(|&b| f32::from_bits(b))
    .collect();
    let mut r = rand::rngs::SmallRng::seed_from_u64(5);
    let mut v = special;
    while v.len() < n {
        let e: i32 = r.random_range(-30..20);
        let sign = if r.random::<bool>() { 1.0 } else { -1.0 };
        v.push(sign * r.random::<f32>() * 2f32.powi(e));
    }
    v
}

fn vectors(values: &[f32]) -> Vec<ColorVector<f32>> {
    values
        .chunks(6)
        .map(|c| {
            ColorVector::new(std::array::from_fn(|k| {
                Complex::new(c[2 * k], c[2 * k + 1])
            }))
        })
        .collect()
}

fn bits_f32(v: &ColorVector<f32>) -> [u32; 6] {
    std::array::from_fn(|k| {
        let z = v[k / 2];
        if k % 2 == 0 { z.re } else { z.im }.to_bits()
    })
}

/// Narrowing in a body gives the `half` crate's bits, and widening them back gives the
/// crate's `to_f32`, NaN payloads included.
fn storage_bits_are_the_half_crates() {
    let host = vectors(&awkward_f32s(6 * 4096));
    let n = host.len();
    let x: Field<ColorVector<f32>> = Field::from_vec(host.clone());
    let poison16 = ColorVector::new([Complex::new(f16::from_bits(0x5555), f16::NAN); 3]);
    let poisonb = ColorVector::new([Complex::new(bf16::from_bits(0x5555), bf16::NAN); 3]);
    let mut h: Field<ColorVector<f16>> = Field::filled(n, poison16);
    let mut b: Field<ColorVector<bf16>> = Field::filled(n, poisonb);
    on_gpu!({
        h = x.narrow();
        b = x.to_bf16();
    })
    .unwrap();
    let mut from_h: Field<ColorVector<f32>> = Field::filled(n, ColorVector::zero());
    let mut from_b: Field<ColorVector<f32>> = Field::filled(n, ColorVector::zero());
    let mut wide: Field<ColorVector<f64>> = Field::filled(n, ColorVector::zero());
    on_gpu!({
        from_h = h.widen();
        from_b = b.to_f32();
        wide = h.to_f64();
    })
    .unwrap();
    let (h, b) = (h.to_vec().unwrap(), b.to_vec().unwrap());
    let (from_h, from_b, wide) = (
        from_h.to_vec().unwrap(),
        from_b.to_vec().unwrap(),
        wide.to_vec().unwrap(),
    );
    for s in 0..n {
        let want_h = host[s].to_f16();
        let want_b = host[s].map_reals(bf16::from_f32);
        for c in 0..3 {
            for (got, want) in [(h[s][c].re, want_h[c].re), (h[s][c].im, want_h[c].im)] {
                assert_eq!(
                    got.to_bits(),
                    want.to_bits(),
                    "f16 of site {s}: {host:?}",
                    host = host[s]
                );
            }
            for (got, want) in [(b[s][c].re, want_b[c].re), (b[s][c].im, want_b[c].im)] {
                assert_eq!(got.to_bits(), want.to_bits(), "bf16 of site {s}");
            }
        }
        assert_eq!(
            bits_f32(&from_h[s]),
            bits_f32(&want_h.map_reals(f16::to_f32)),
            "site {s}"
        );
        assert_eq!(
            bits_f32(&from_b[s]),
            bits_f32(&want_b.map_reals(bf16::to_f32)),
            "site {s}"
        );
        for c in 0..3 {
            let w = want_h[c].map_reals(f16::to_f64);
            assert_eq!(wide[s][c].re.to_bits(), w.re.to_bits(), "site {s}");
            assert_eq!(wide[s][c].im.to_bits(), w.im.to_bits(), "site {s}");
        }
    }
}

/// A body over 16-bit links and vectors: loads widened, `U ψ(x+1) + U(x−1)† ψ(x−1)` in f32,
/// the result rounded to 16 bits; against the same on the host in f64 (the rounding of the
/// result dominates: half an f16 ulp of the largest entry).
fn a_stencil_over_16_bit_fields() {
    let lat = Lattice::new([4, 4, 6, 8]).unwrap();
    let v = lat.volume();
    let mut r = rand::rngs::SmallRng::seed_from_u64(9);
    let mut z = || Complex::new(r.random_range(-1.0f32..1.0), r.random_range(-1.0f32..1.0));
    let links: Vec<[ColorMatrix<f16>; 4]> = (0..v)
        .map(|_| {
            std::array::from_fn(|_| {
                ColorMatrix::new(std::array::from_fn(|_| std::array::from_fn(|_| z()))).to_f16()
            })
        })
        .collect();
    let psi: Vec<ColorVector<f16>> = (0..v)
        .map(|_| ColorVector::new(std::array::from_fn(|_| z())).to_f16())
        .collect();
    let u16: Field<[ColorMatrix<f16>; 4]> = Field::from_vec(links.clone());
    let p16: Field<ColorVector<f16>> = Field::from_vec(psi.clone());
    let poison = ColorVector::new([Complex::new(f16::NAN, f16::NAN); 3]);
    let mut out: Field<ColorVector<f16>> = Field::filled(v, poison);
    on_gpu!(lat.even(), {
        let mut acc = ColorVector::zero();
        for mu in 0..4 {
            acc += u16[mu].widen() * p16.shift(mu, 1).widen()
                + u16.shift(mu, -1)[mu].widen().adj() * p16.shift(mu, -1).widen();
        }
        out = acc.narrow();
    })
    .unwrap();
    let got = out.to_vec().unwrap();
    let wide_m = |m: &ColorMatrix<f16>| m.to_f64();
    for s in 0..v {
        if lat.parity(s) == 1 {
            assert!(
                got[s] == poison || got[s][0].re.is_nan(),
                "odd sites untouched"
            );
            continue;
        }
        let mut want = ColorVector::<f64>::zero();
        for (mu, link) in links[s].iter().enumerate() {
            let (up, down) = (lat.shift(s, mu, 1), lat.shift(s, mu, -1));
            want += wide_m(link) * psi[up].to_f64()
                + wide_m(&links[down][mu]).adj() * psi[down].to_f64();
        }
        for c in 0..3 {
            for (g, w) in [(got[s][c].re, want[c].re), (got[s][c].im, want[c].im)] {
                let g = g.to_f64();
                // 24 products of entries below 1: f32 arithmetic adds ~1e-6, the f16
                // rounding of the result at most half an ulp (2^-11 relative).
                let tol = w.abs() * 2f64.powi(-11) + 1e-5;
                assert!((g - w).abs() <= tol, "site {s}: {g} vs {w}");
            }
        }
    }
}

/// Entry reads of a 16-bit array field (`u[mu]` reads only that entry's components) and
/// scalar 16-bit fields.
fn entries_and_scalars() {
    let n = 1000;
    let rows: Vec<[[ColorVector<bf16>; 2]; 4]> = (0..n)
        .map(|i| {
            std::array::from_fn(|mu| {
                std::array::from_fn(|k| {
                    ColorVector::new([Complex::new((i + 10 * mu + 100 * k) as f32, 0.5); 3])
                        .to_bf16()
                })
            })
        })
        .collect();
    let a: Field<[[ColorVector<bf16>; 2]; 4]> = Field::from_vec(rows.clone());
    let mut s: Field<f16> = Field::filled(n, f16::NAN);
    on_gpu!(n, |i| {
        let e = a[i % 4];
        s = (e[1][2].re.to_f32() + e[0][0].im.to_f32()).to_f16();
    })
    .unwrap();
    for (i, got) in s.to_vec().unwrap().iter().enumerate() {
        let e = rows[i][i % 4];
        let want = f16::from_f32(e[1][2].re.to_f32() + e[0][0].im.to_f32());
        assert_eq!(got.to_bits(), want.to_bits(), "site {i}");
    }
}

/// `convert` converts between any two storages in one generic body: f64 → f32 → bf16 → f64
/// gives the chain of the host's conversions.
fn casts_between_storages() {
    let n = 777;
    let host: Vec<ColorMatrix<f64>> = (0..n)
        .map(|i| {
            ColorMatrix::new(std::array::from_fn(|r| {
                std::array::from_fn(|c| {
                    Complex::new((i * 9 + r * 3 + c) as f64 / 7.0, -1.0 / (i + 1) as f64)
                })
            }))
        })
        .collect();
    let hi: Field<ColorMatrix<f64>> = Field::from_vec(host.clone());
    let mut single: Field<ColorMatrix<f32>> = Field::zeros(n);
    let mut b: Field<ColorMatrix<bf16>> = Field::filled(
        n,
        ColorMatrix::new([[Complex::new(bf16::NAN, bf16::NAN); 3]; 3]),
    );
    let mut back: Field<ColorMatrix<f64>> = Field::zeros(n);
    convert(&hi, &mut single);
    convert(&single, &mut b);
    convert(&b, &mut back);
    for (i, got) in back.to_vec().unwrap().iter().enumerate() {
        let want: ColorMatrix<f64> = host[i].to_f32().to_bf16().to_f64();
        assert_eq!(*got, want, "site {i}");
    }
}

/// `dst = src` in `dst`'s storage, on the device.
fn convert<A, B>(src: &Field<A>, dst: &mut Field<B>)
where
    A: ongpu::Element + Precision<With<B::Real> = B>,
    B: ongpu::Element + Precision,
    A::Real: ongpu::CastReal<B::Real>,
{
    on_gpu!({
        dst = src.convert();
    })
    .unwrap();
}

on_both_backends!(
    casts_between_storages,
    storage_bits_are_the_half_crates,
    a_stencil_over_16_bit_fields,
    entries_and_scalars
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
        casts_between_storages();
        storage_bits_are_the_half_crates();
        a_stencil_over_16_bit_fields();
        entries_and_scalars();
    });
    assert!(kernels.len() >= 4, "{} kernels", kernels.len());
    support::check_kernels_stay_in_registers(&kernels);
}
