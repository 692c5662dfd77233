//! Spinor helpers of the Wilson tests: comparisons, poisoned fields, sources, and the
//! dense solve of the host operator.

#![allow(dead_code)] // each test program uses its own part

use super::dense;
use ongpu::prelude::*;
use ongpu::qcd::wilson::{random_spinors, HostSpinor, SpinorField};
use ongpu_reference::wilson::HostWilson;

pub fn c(re: f64, im: f64) -> Complex<f64> {
    Complex::new(re, im)
}

/// The largest |part| of `a − b`, and of `b`.
pub fn max_diff(a: &[HostSpinor], b: &[HostSpinor]) -> (f64, f64) {
    let parts = |s: &HostSpinor| -> Vec<f64> {
        s.iter()
            .flat_map(|v| (0..3).flat_map(move |k| [v[k].re, v[k].im]))
            .collect()
    };
    let mut diff: f64 = 0.0;
    let mut scale: f64 = 0.0;
    for (x, y) in a.iter().zip(b) {
        for (p, q) in parts(x).into_iter().zip(parts(y)) {
            diff = diff.max((p - q).abs());
            scale = scale.max(q.abs());
        }
    }
    (diff, scale)
}

/// `Σ_x ⟨a(x), b(x)⟩`.
pub fn dot(a: &[HostSpinor], b: &[HostSpinor]) -> Complex<f64> {
    a.iter()
        .zip(b)
        .flat_map(|(x, y)| (0..4).map(move |s| x[s].dot(y[s])))
        .sum()
}

/// A spinor field full of NaN: what the device must overwrite.
pub fn poisoned(lat: &Lattice) -> SpinorField {
    let nan = ColorVector::new([c(f64::NAN, f64::NAN); 3]);
    SpinorField::from_vec(vec![[nan; 4]; lat.volume()])
}

/// A random spinor on the even sites and zero on the odd ones: a source of the even-odd
/// system.
pub fn even_source(lat: &Lattice, seed: u64) -> Vec<HostSpinor> {
    random_spinors(lat, seed)
        .into_iter()
        .enumerate()
        .map(|(x, s)| {
            if lat.parity(x) == 0 {
                s
            } else {
                [ColorVector::zero(); 4]
            }
        })
        .collect()
}

/// The spinors as one vector of complex numbers, index `12 · site + 3 · spin + colour`.
pub fn flat(v: &[HostSpinor]) -> Vec<Complex<f64>> {
    v.iter()
        .flat_map(|s| s.iter().flat_map(|c| (0..3).map(move |k| c[k])))
        .collect()
}

/// The solution of `D x = b` (flattened) by Gaussian elimination on the dense matrix of the
/// host operator, built column by column.
pub fn dense_solution(host: &HostWilson, b: &[HostSpinor]) -> Vec<Complex<f64>> {
    let volume = b.len();
    let columns: Vec<Vec<Complex<f64>>> = (0..volume * 12)
        .map(|col| {
            let mut e = vec![[ColorVector::zero(); 4]; volume];
            e[col / 12][(col % 12) / 3][col % 3] = c(1.0, 0.0);
            flat(&host.apply(&e))
        })
        .collect();
    let a: Vec<Vec<Complex<f64>>> = (0..volume * 12)
        .map(|row| columns.iter().map(|col| col[row]).collect())
        .collect();
    dense::solve(a, flat(b))
}
