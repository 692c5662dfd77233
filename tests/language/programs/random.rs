//! Counter-based random numbers in bodies: every kind of draw, at every site, against the
//! host's draws of the same (seed, stream, site, draw), which must be equal bit for bit.

use super::{Kind, Output};
use ongpu::prelude::*;

/// A device function that takes the generator: draws pass through calls unchanged.
#[ongpu::device]
fn shifted_normal(rng: Philox, site: usize, draw: u32, mean: f64) -> f64 {
    mean + rng.normal_f64(site, draw)
}

pub fn random_draws() -> Vec<Output> {
    let n = 10_007;
    let rng = Philox::new(0x5eed_2026_1123).stream(41);
    let mut bits: Field<u32> = Field::filled(n, 0xdead_beef);
    let mut u32s: Field<f32> = Field::filled(n, f32::NAN);
    let mut u64s: Field<f64> = Field::filled(n, f64::NAN);
    let mut n32s: Field<f32> = Field::filled(n, f32::NAN);
    let mut n64s: Field<[f64; 3]> = Field::filled(n, [f64::NAN; 3]);
    on_gpu!(n, |i| {
        bits = rng.bits(i, 7);
        u32s = rng.uniform_f32(i, 0);
        u64s = rng.uniform_f64(i, 1);
        n32s = rng.normal_f32(i, 2);
        for k in 0..2 {
            n64s[k] = rng.normal_f64(i, 3 + k as u32);
        }
        n64s[2] = shifted_normal(rng, i, 9, 10.0);
    })
    .unwrap();
    let exact = |name, got: Vec<f64>, want: Vec<f64>| Output {
        name,
        got,
        want,
        kind: Kind::Exact,
    };
    let n64 = n64s.to_vec().unwrap();
    vec![
        exact(
            "bits",
            bits.to_vec().unwrap().iter().map(|&b| b as f64).collect(),
            (0..n).map(|i| rng.bits(i, 7) as f64).collect(),
        ),
        exact(
            "uniform_f32",
            u32s.to_vec().unwrap().iter().map(|&u| u as f64).collect(),
            (0..n).map(|i| rng.uniform_f32(i, 0) as f64).collect(),
        ),
        exact(
            "uniform_f64",
            u64s.to_vec().unwrap(),
            (0..n).map(|i| rng.uniform_f64(i, 1)).collect(),
        ),
        exact(
            "normal_f32",
            n32s.to_vec().unwrap().iter().map(|&u| u as f64).collect(),
            (0..n).map(|i| rng.normal_f32(i, 2) as f64).collect(),
        ),
        exact(
            "normal_f64",
            n64.iter().flatten().copied().collect(),
            (0..n)
                .flat_map(|i| {
                    [
                        rng.normal_f64(i, 3),
                        rng.normal_f64(i, 4),
                        10.0 + rng.normal_f64(i, 9),
                    ]
                })
                .collect(),
        ),
    ]
}
