//! Lattice programs: calls over a lattice and its parities, element arrays (gauge links,
//! spinors) in every layout, and stencils with neighbour shifts.

// Loops over directions index element arrays, as lattice code does.
#![allow(clippy::needless_range_loop)]

use super::{matrix, matrix_reals, rng, to_f32, to_f64, Kind, Output};
use ongpu::prelude::*;

/// A parity call over element arrays: per even site, t = Σ_mu Re tr(u_mu u_mu†) and one
/// entry of `u` rewritten; odd sites keep their poison (NaN) and their links.
pub fn lattice_parity_arrays() -> Vec<Output> {
    let lat = Lattice::new([4, 6, 2, 4]).unwrap();
    let v = lat.volume();
    let mut r = rng(41);
    let links: Vec<[ColorMatrix<f64>; 4]> = (0..v)
        .map(|_| std::array::from_fn(|_| matrix(&mut r)))
        .collect();
    let mut u: Field<[ColorMatrix<f32>; 4]> = Field::from_fn(v, |i| links[i].map(|m| to_f32(&m)));
    let mut t: Field<f32, SoA> = Field::filled(v, f32::NAN);
    on_gpu!(lat.even(), {
        let mut s = 0.0;
        for mu in 0..4 {
            s += (u[mu] * u[mu].adj()).trace().re;
        }
        t = s;
        u[3] = u[0] * u[1];
    })
    .unwrap();
    let mut want_t = vec![f64::NAN; v];
    let mut want_u = Vec::new();
    for (i, l) in links.iter().enumerate() {
        let l32 = l.map(|m| to_f64(&to_f32(&m)));
        let mut out = l32;
        if lat.parity(i) == 0 {
            want_t[i] = l32.iter().map(|m| (*m * m.adj()).trace().re).sum();
            out[3] = l32[0] * l32[1];
        }
        want_u.extend(out.iter().flat_map(matrix_reals));
    }
    let got_t: Vec<f64> = t.to_vec().unwrap().into_iter().map(f64::from).collect();
    // NaN outside the subset is expected there; compare those sites exactly.
    vec![
        Output {
            name: "t",
            got: got_t,
            want: want_t,
            kind: Kind::Rel(1e-6),
        },
        Output {
            name: "u",
            got: u
                .to_vec()
                .unwrap()
                .iter()
                .flat_map(|a| a.iter().flat_map(matrix_reals).collect::<Vec<_>>())
                .collect(),
            want: want_u,
            kind: Kind::Rel(1e-6),
        },
    ]
}
