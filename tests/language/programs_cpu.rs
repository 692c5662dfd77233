//! Every test program on the CPU backend, checked against its f64 reference.

use crate::programs;

use ongpu::{with_backend, Backend};

fn run(name: &str, program: fn() -> Vec<programs::Output>) {
    for out in with_backend(Backend::Cpu, program) {
        out.check(name);
    }
}

macro_rules! program_tests {
    ($($name:ident),*) => {$(
        #[test]
        fn $name() {
            run(stringify!($name), programs::$name);
        }
    )*};
}

programs::with_program_names!(program_tests);

/// The CPU backend runs groups of 32 sites through buffers: every site, in every layout
/// (blocks smaller and larger than a group), with the site index, a field that is only
/// written, and counts that are not a multiple of anything, must come out exact.
#[test]
fn groups_of_sites_cover_every_site_once() {
    use ongpu::prelude::*;
    fn run<L: ongpu::Layout, M: ongpu::Layout>(n: usize) {
        with_backend(Backend::Cpu, || {
            let y: Field<f32, L> = Field::from_fn(n + 5, |i| i as f32 * 0.5);
            let mut x: Field<f32, M> = Field::filled(n + 5, f32::NAN);
            let mut k: Field<ColorVector<f64>, L> =
                Field::filled(n + 5, ColorVector::new([Complex::new(1.0, -1.0); 3]));
            on_gpu!(n, |i| {
                x = y * 2.0 + (i as f32);
                k[1] *= i as f64;
            })
            .unwrap();
            let (xv, kv) = (x.to_vec().unwrap(), k.to_vec().unwrap());
            for i in 0..n + 5 {
                if i < n {
                    assert_eq!(xv[i], 2.0 * i as f32, "{} site {i}", M::name());
                    assert_eq!(kv[i][1], Complex::new(i as f64, -(i as f64)), "site {i}");
                } else {
                    assert!(xv[i].is_nan(), "site {i} past n was written");
                    assert_eq!(kv[i][1], Complex::new(1.0, -1.0), "site {i} past n");
                }
                assert_eq!(kv[i][0], Complex::new(1.0, -1.0));
            }
        });
    }
    for n in [0, 1, 31, 33, 100, 4096 + 37, 10_007] {
        run::<AoSoA<32>, AoSoA<32>>(n);
        run::<AoSoA<8>, SoA>(n);
        run::<AoSoA<64>, AoS>(n);
        run::<SoA, AoSoA<4>>(n);
        run::<AoS, AoS>(n);
    }
}

/// The CPU backend's loops are compiled for several vector widths (`ongpu::CpuVectors`), the
/// widest the host has chosen at run time: every program gives the same bits under each
/// width the host has, and a width it lacks is refused.
#[test]
fn every_vector_width_gives_the_same_bits() {
    use ongpu::CpuVectors;
    let all = [CpuVectors::Baseline, CpuVectors::Avx2, CpuVectors::Avx512];
    let best = CpuVectors::host_best();
    for (name, program) in programs::all() {
        let mut first: Option<Vec<Vec<u64>>> = None;
        for &v in all.iter().filter(|&&v| v <= best) {
            ongpu::set_cpu_vectors(v).unwrap();
            let bits: Vec<Vec<u64>> = with_backend(Backend::Cpu, program)
                .iter()
                .map(|o| o.got.iter().map(|x| x.to_bits()).collect())
                .collect();
            match &first {
                None => first = Some(bits),
                Some(want) => assert!(*want == bits, "{name}: {v:?} differs from the baseline"),
            }
        }
    }
    for &v in all.iter().filter(|&&v| v > best) {
        assert!(ongpu::set_cpu_vectors(v).is_err(), "{v:?} accepted");
    }
    ongpu::set_cpu_vectors(best).unwrap();
    assert_eq!(ongpu::cpu_vectors(), best);
    if best == CpuVectors::Baseline {
        eprintln!("note: this host has only the baseline vectors; no other width was compared");
    }
}
