//! Many right-hand sides of Wilson quarks (`ongpu::qcd::wilson::{hop_many,
//! hop_clover_many}`): one call over `N` spinors per site gives each spinor the result of a
//! single-spinor `hop` or `hop_clover` call, in f64 and f32, on the whole lattice and on one
//! parity, and leaves the sites outside the call as they were: the same bits on the CPU
//! backend; on the GPU, where the one- and N-spinor kernels are compiled separately and may
//! fuse multiplies and adds differently, the same to a few units of the last place. Both backends
//! (`cargo test --test quarks wilson_many_rhs:: -- --include-ignored` on a GPU).

use ongpu::prelude::*;
use ongpu::qcd::gauge::{GaugeField, LinksOf};
use ongpu::qcd::wilson::{
    hop, hop_clover, hop_clover_many, hop_many, random_spinors, Clover, CloverFieldOf, CloverSite,
    HostSpinor, Spinor, SpinorFieldOf, Spinors, SpinorsOf,
};
use ongpu::Element;

/// The right-hand sides of the tests.
const N: usize = 3;

fn narrow_vector<T: Real>(v: ColorVector<f64>, narrow: impl Fn(f64) -> T) -> ColorVector<T> {
    ColorVector::new(v.v.map(|z| Complex::new(narrow(z.re), narrow(z.im))))
}

fn bits<T: Real>(v: &ColorVector<T>) -> [(u64, u64); 3] {
    v.v.map(|z| {
        (
            z.re.to_f64().unwrap().to_bits(),
            z.im.to_f64().unwrap().to_bits(),
        )
    })
}

/// `hop_many` (and `hop_clover_many` with `clover`) over each subset against `N` calls of
/// the single-spinor pass, bit for bit, in the precision `T`.
fn matches_single_calls_in<T: Real>(narrow: impl Fn(f64) -> T + Copy, clover: bool)
where
    ColorVector<T>: Element,
    ColorMatrix<T>: Element,
    [ColorMatrix<T>; 4]: Element,
    Spinor<T>: Element,
    CloverSite<T>: Element,
    Spinors<T, N>: Element + ongpu::ElementArray<Entry = ColorVector<T>>,
{
    let lat = Lattice::new([4, 2, 4, 6]).unwrap();
    let u = GaugeField::random(lat, 31).unwrap();
    let host_links = u.links().to_vec().unwrap();
    let links: LinksOf<Lattice, T> = Field::from_fn(lat.volume(), |i| {
        host_links[i].map(|m| {
            ColorMatrix::new(m.m.map(|row| row.map(|z| Complex::new(narrow(z.re), narrow(z.im)))))
        })
    });
    let host_blocks = Clover::new(&u, 0.13, 1.7)
        .unwrap()
        .inverses()
        .to_vec()
        .unwrap();
    let blocks: CloverFieldOf<Lattice, T> = Field::from_fn(lat.volume(), |i| {
        host_blocks[i].map(|v| narrow_vector(v, narrow))
    });
    let spinors: Vec<Vec<HostSpinor>> = (0..N)
        .map(|k| random_spinors(&lat, 40 + k as u64))
        .collect();
    let psi: SpinorsOf<Lattice, N, T> = Field::from_fn(lat.volume(), |i| {
        Spinors(std::array::from_fn(|k| {
            spinors[k][i].map(|v| narrow_vector(v, narrow))
        }))
    });
    let nan = ColorVector::new([Complex::new(narrow(f64::NAN), narrow(f64::NAN)); 3]);
    let on_cpu = ongpu::backend().unwrap() == ongpu::Backend::Cpu;
    // A few units of the last place of T, relative to the result.
    let ulps = 16.0 * T::epsilon().to_f64().unwrap();
    for parity in [None, Some(0), Some(1)] {
        let mut many: SpinorsOf<Lattice, N, T> =
            Field::filled(lat.volume(), Spinors([[nan; 4]; N]));
        macro_rules! on {
            ($call:ident, $($arg:expr),*) => {
                match parity {
                    None => $call(lat.all(), $($arg),*),
                    Some(0) => $call(lat.even(), $($arg),*),
                    Some(_) => $call(lat.odd(), $($arg),*),
                }
                .unwrap()
            };
        }
        if clover {
            on!(hop_clover_many, &links, &blocks, &psi, &mut many);
        } else {
            on!(hop_many, &links, &psi, &mut many);
        }
        let many = many.to_vec().unwrap();
        for (k, spinor) in spinors.iter().enumerate() {
            let one: SpinorFieldOf<Lattice, T> = Field::from_fn(lat.volume(), |i| {
                spinor[i].map(|v| narrow_vector(v, narrow))
            });
            let mut out: SpinorFieldOf<Lattice, T> = Field::filled(lat.volume(), [nan; 4]);
            if clover {
                on!(hop_clover, &links, &blocks, &one, &mut out);
            } else {
                on!(hop, &links, &one, &mut out);
            }
            for (i, want) in out.to_vec().unwrap().iter().enumerate() {
                for spin in 0..4 {
                    let got = many[i][4 * k + spin];
                    if parity.map_or(true, |p| lat.parity(i) == p) {
                        let what = || {
                            format!("clover {clover}, spinor {k}, site {i}, spin {spin}, parity {parity:?}")
                        };
                        if on_cpu {
                            assert_eq!(bits(&got), bits(&want[spin]), "{}", what());
                        } else {
                            let d = (got - want[spin]).norm2().to_f64().unwrap().sqrt();
                            let w = want[spin].norm2().to_f64().unwrap().sqrt();
                            assert!(d <= ulps * w.max(1.0), "{}: off by {d:e} of {w:e}", what());
                        }
                    } else {
                        assert!(
                            got.v.iter().all(|z| z.re.to_f64().unwrap().is_nan()),
                            "site {i} written outside the call"
                        );
                    }
                }
            }
        }
    }
}

fn wilson_hop_many_matches_single_calls() {
    for clover in [false, true] {
        matches_single_calls_in::<f64>(|x| x, clover);
        matches_single_calls_in::<f32>(|x| x as f32, clover);
    }
}

on_both_backends!(wilson_hop_many_matches_single_calls);

/// The Wilson kernels of many right-hand sides (with and without clover, f32 and f64)
/// compile for sm_90 and keep the `N` spinors of a site out of local memory; for sm_80
/// they compile without warnings (the f64 hop, which holds a site's eight links in
/// registers through the loop over the spinors, spills 4 bytes there).
#[cfg(feature = "cuda")]
#[test]
fn wilson_many_rhs_kernels_compile_without_local_memory() {
    if !crate::support::require_nvrtc() {
        return;
    }
    let kernels = crate::support::cpu_kernel_sources(wilson_hop_many_matches_single_calls);
    assert!(
        kernels.len() >= 8,
        "only {} distinct kernels",
        kernels.len()
    );
    crate::support::check_kernels_stay_in_registers_on(&kernels, &["sm_90"]);
}
