//! The physics library's bodies on the CPU backend: the stencils a lattice user runs are
//! lowered lane-major, and the bodies that fall back are pinned here with their reasons, so
//! that the list only shrinks (a body that falls back anew fails the test; one that no
//! longer does must leave the list). Its own binary, so that the calls that ran are exactly
//! these.

use ongpu::prelude::*;
use ongpu::qcd::boundary::TimeBoundary;
use ongpu::qcd::flow::WilsonFlow;
use ongpu::qcd::gauge::GaugeField;
use ongpu::qcd::hisq::Hisq;
use ongpu::qcd::staggered::{random_vector, Fermion, Staggered};
use ongpu::qcd::wilson::{random_spinors, Clover, SpinorField, Wilson};
use ongpu::{Backend, Lowering};
use std::collections::BTreeSet;

/// The library's bodies that fall back, by file and reason: none (HISQ's paths, whose
/// directions are captured, and the Wilson lines, of a captured length, gather their shifts
/// with the values the call site reads).
const FALLBACKS: &[(&str, &str)] = &[];

/// Runs a sample of the library on `lat`: the staggered, HISQ and Wilson-clover operators,
/// the plaquette and Polyakov loop, and a step of the Wilson flow.
fn run_library(lat: Lattice) -> ongpu::Result<()> {
    let u = GaugeField::random(lat, 11)?;
    u.plaquette()?;
    u.polyakov_loop()?;
    let psi = Fermion::from_vec(random_vector(&lat, 12));
    let mut out = Fermion::zeros(lat.volume());
    Staggered::new(&u, 0.1)?.dslash(&psi, &mut out)?;
    Hisq::new(&u, 0.1, 0.0, TimeBoundary::Antiperiodic)?.dslash(&psi, &mut out)?;
    let spinors = SpinorField::from_vec(random_spinors(&lat, 13));
    let mut spinor_out = SpinorField::zeros(lat.volume());
    let clover = Clover::new(&u, 0.12, 1.0)?;
    Wilson::new(&u, 0.12).apply(&spinors, &mut spinor_out)?;
    Wilson::new(&u, 0.12)
        .with_clover(&clover)?
        .apply(&spinors, &mut spinor_out)?;
    let mut flowed = GaugeField::random(lat, 11)?;
    let mut flow = WilsonFlow::new(lat, 0.01)?;
    flow.step(&mut flowed)?;
    flow.measure(&flowed)?;
    Ok(())
}

#[test]
fn library_stencils_are_lane_major_and_the_fallbacks_are_pinned() {
    // Three-deep halos are not needed: one lattice, whole groups (8^4: 2048 even sites).
    let lat = Lattice::new([8, 8, 8, 8]).unwrap();
    ongpu::with_backend(Backend::Cpu, || run_library(lat)).unwrap();
    let ran = ongpu::cpu_lowerings();
    let library: Vec<_> = ran
        .iter()
        .filter(|(at, _)| at.file.contains("ongpu-qcd"))
        .collect();
    assert!(library.len() > 10, "{library:?}");
    let fallbacks: BTreeSet<(String, &str)> = library
        .iter()
        .filter_map(|(at, l)| match l {
            Lowering::Fallback(why) => Some((file_name(at.file), *why)),
            Lowering::LaneMajor | Lowering::Runs(_) => None,
        })
        .collect();
    let pinned: BTreeSet<(String, &str)> =
        FALLBACKS.iter().map(|(f, w)| (f.to_string(), *w)).collect();
    assert_eq!(
        fallbacks, pinned,
        "the library's bodies that fall back (file, reason) changed: update FALLBACKS"
    );
    // The staggered and HISQ Dslash (its Naik term's three steps gathered too) and the
    // plaquette are lane-major (a long body in runs).
    for file in [
        "staggered/passes.rs",
        "staggered/operator.rs",
        "hisq/operator.rs",
        "gauge/observables.rs",
    ] {
        let sites: Vec<_> = library
            .iter()
            .filter(|(at, _)| at.file.ends_with(file))
            .collect();
        assert!(!sites.is_empty(), "no call of {file} ran");
        for (at, l) in sites {
            assert!(
                matches!(l, Lowering::LaneMajor | Lowering::Runs(_)),
                "{}:{} {l:?}",
                at.file,
                at.line
            );
        }
    }
    // The Wilson hop, eight neighbours in statements of their own, runs in runs.
    assert!(
        library
            .iter()
            .any(|(at, l)| at.file.ends_with("wilson/operator.rs")
                && matches!(l, Lowering::Runs(n) if *n >= 2)),
        "the Wilson hop did not run in runs: {library:?}"
    );
}

/// `staggered/passes.rs` of `.../ongpu-qcd/src/staggered/passes.rs`.
fn file_name(path: &str) -> String {
    path.rsplit_once("src/")
        .map_or(path, |(_, f)| f)
        .to_string()
}
