//! Lattice programs: calls over a lattice and its parities, element arrays (gauge links,
//! spinors) in every layout, and stencils with neighbour shifts.

use super::{matrix, matrix_reals, rng, to_f32, to_f64, Kind, Output};
use ongpu::prelude::*;
use rand::Rng;

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

/// Random SU(3)-like links are not needed for these identities: any matrices do.
fn random_links(lat: &Lattice, seed: u64) -> Vec<[ColorMatrix<f64>; 4]> {
    let mut r = rng(seed);
    (0..lat.volume())
        .map(|_| std::array::from_fn(|_| matrix(&mut r)))
        .collect()
}

/// Shifts in every direction and distance, chained shifts and a shifted element-array
/// entry, against host neighbours computed from coordinates (not from `Lattice::shift`).
pub fn lattice_shifts() -> Vec<Output> {
    let dims = [4, 6, 2, 4];
    let lat = Lattice::new(dims).unwrap();
    let v = lat.volume();
    let mut r = rng(43);
    let a_host: Vec<f64> = (0..v).map(|_| r.random_range(-1.0..1.0)).collect();
    let links = random_links(&lat, 44);
    let a: Field<f64, SoA> = Field::from_vec(a_host.clone());
    let u: Field<[ColorMatrix<f64>; 4]> = Field::from_vec(links.clone());
    let mut s: Field<f64> = Field::filled(v, f64::NAN);
    let mut d: Field<f64> = Field::filled(v, f64::NAN);
    let mut w: Field<ColorMatrix<f64>, AoS> = Field::filled(v, ColorMatrix::zero());
    on_gpu!(lat, |i| {
        let mut t = 0.0;
        for mu in 0..4 {
            t += a.shift(mu, 1) - 2.0 * a.shift(mu, -1) + 0.25 * a.shift(mu, 3);
        }
        s = t + 0.5 * a.shift(2, -5);
        d = a.shift(0, 1).shift(1, -1) * 10.0 + a;
        w = u.shift(3, -1)[3] * u[1].adj() + u.shift(1, 1).shift(0, 2)[0];
    })
    .unwrap();
    let nb = |i: usize, mu: usize, k: i64| {
        let mut c = lat.coords(i);
        c[mu] = (c[mu] as i64 + k).rem_euclid(dims[mu] as i64) as usize;
        lat.index(c)
    };
    let mut want_s = Vec::new();
    let mut want_d = Vec::new();
    let mut want_w = Vec::new();
    for i in 0..v {
        let mut t = 0.0;
        for mu in 0..4 {
            t += a_host[nb(i, mu, 1)] - 2.0 * a_host[nb(i, mu, -1)] + 0.25 * a_host[nb(i, mu, 3)];
        }
        want_s.push(t + 0.5 * a_host[nb(i, 2, -5)]);
        want_d.push(a_host[nb(nb(i, 0, 1), 1, -1)] * 10.0 + a_host[i]);
        let m = links[nb(i, 3, -1)][3] * links[i][1].adj() + links[nb(nb(i, 1, 1), 0, 2)][0];
        want_w.extend(matrix_reals(&m));
    }
    vec![
        Output {
            name: "s",
            got: s.to_vec().unwrap(),
            want: want_s,
            kind: Kind::Rel(1e-14),
        },
        Output {
            name: "d",
            got: d.to_vec().unwrap(),
            want: want_d,
            kind: Kind::Rel(1e-14),
        },
        Output {
            name: "w",
            got: w.to_vec().unwrap().iter().flat_map(matrix_reals).collect(),
            want: want_w,
            kind: Kind::Rel(1e-14),
        },
    ]
}

/// The plaquette: 1 for unit links exactly, and unchanged (to rounding) by a random gauge
/// transformation U_mu(x) -> g(x) U_mu(x) g(x+mu)^dagger with unitary g.
pub fn lattice_plaquette() -> Vec<Output> {
    let lat = Lattice::new([4, 4, 4, 6]).unwrap();
    let v = lat.volume();
    let plaquette = |u: &Field<[ColorMatrix<f64>; 4]>| -> f64 {
        let s: f64 = on_gpu!(sum: lat, {
            let mut p = 0.0;
            for mu in 0..4 {
                for nu in mu + 1..4 {
                    p += (u[mu] * u.shift(mu, 1)[nu] * u.shift(nu, 1)[mu].adj() * u[nu].adj())
                        .trace()
                        .re;
                }
            }
            p
        })
        .unwrap();
        s / (6.0 * 3.0 * v as f64)
    };
    let unit: Field<[ColorMatrix<f64>; 4]> = Field::filled(v, [ColorMatrix::identity(); 4]);
    let links = random_links(&lat, 45);
    let u: Field<[ColorMatrix<f64>; 4]> = Field::from_vec(links.clone());
    let g = random_gauge(v, 46);
    let transformed: Field<[ColorMatrix<f64>; 4]> = Field::from_fn(v, |i| {
        std::array::from_fn(|mu| g[i] * links[i][mu] * g[lat.shift(i, mu, 1)].adj())
    });
    let (p1, pu, pg) = (plaquette(&unit), plaquette(&u), plaquette(&transformed));
    vec![
        Output {
            name: "unit",
            got: vec![p1],
            want: vec![1.0],
            kind: Kind::Rel(1e-15),
        },
        Output {
            name: "gauge invariance",
            got: vec![pg],
            want: vec![pu],
            kind: Kind::Rel(1e-12),
        },
    ]
}

/// A random colour vector per site (parts uniform in [-1, 1)).
fn random_vectors(v: usize, seed: u64) -> Vec<ColorVector<f64>> {
    let mut r = rng(seed);
    (0..v)
        .map(|_| ColorVector::new(std::array::from_fn(|_| super::cplx(&mut r))))
        .collect()
}

/// A random unitary matrix per site (a rotation in the 0-1 plane times phases).
fn random_gauge(v: usize, seed: u64) -> Vec<ColorMatrix<f64>> {
    let mut r = rng(seed);
    (0..v)
        .map(|_| {
            let (t, p): (f64, f64) = (
                r.random_range(0.0..std::f64::consts::TAU),
                r.random_range(0.0..std::f64::consts::TAU),
            );
            let mut m = ColorMatrix::zero();
            m[0][0] = Complex::new(t.cos(), 0.0);
            m[0][1] = Complex::new(-t.sin(), 0.0);
            m[1][0] = Complex::from_polar(t.sin(), p);
            m[1][1] = Complex::from_polar(t.cos(), p);
            m[2][2] = Complex::from_polar(1.0, -p);
            m
        })
        .collect()
}

/// Gauge covariance of the hopping term: with U_mu(x) -> g(x) U_mu(x) g(x+mu)^dagger and
/// psi(x) -> g(x) psi(x), the result at every even site becomes g(x) chi(x).
pub fn hopping_gauge_covariance() -> Vec<Output> {
    let lat = Lattice::new([4, 6, 2, 4]).unwrap();
    let v = lat.volume();
    let links = random_links(&lat, 49);
    let g = random_gauge(v, 50);
    let psi_host = random_vectors(v, 51);
    let hopping = |u: &Field<[ColorMatrix<f64>; 4], SoA>, psi: &Field<ColorVector<f64>>| {
        let mut chi: Field<ColorVector<f64>> = Field::zeros(v);
        on_gpu!(lat.even(), {
            let mut r = ColorVector::zero();
            for mu in 0..4 {
                r += u[mu] * psi.shift(mu, 1) - u.shift(mu, -1)[mu].adj() * psi.shift(mu, -1);
            }
            chi = r;
        })
        .unwrap();
        chi.to_vec().unwrap()
    };
    let chi = hopping(
        &Field::from_vec(links.clone()),
        &Field::from_vec(psi_host.clone()),
    );
    let u_g: Field<[ColorMatrix<f64>; 4], SoA> = Field::from_fn(v, |i| {
        std::array::from_fn(|mu| g[i] * links[i][mu] * g[lat.shift(i, mu, 1)].adj())
    });
    let psi_g: Field<ColorVector<f64>> = Field::from_fn(v, |i| g[i] * psi_host[i]);
    let chi_g = hopping(&u_g, &psi_g);
    let reals = |x: &ColorVector<f64>| x.v.iter().flat_map(|z| [z.re, z.im]).collect::<Vec<_>>();
    let even = (0..v).filter(|&i| lat.parity(i) == 0);
    vec![Output {
        name: "g chi",
        got: even.clone().flat_map(|i| reals(&chi_g[i])).collect(),
        want: even.flat_map(|i| reals(&(g[i] * chi[i]))).collect(),
        kind: Kind::Rel(1e-13),
    }]
}

/// The naive staggered hopping term of the lattice contract (phases folded into the links)
/// on the even sites, in f32, against an f64 host reference; odd sites stay poisoned.
pub fn staggered_dslash() -> Vec<Output> {
    let dims = [4, 4, 6, 4];
    let lat = Lattice::new(dims).unwrap();
    let v = lat.volume();
    let links = random_links(&lat, 47);
    let psi_host = random_vectors(v, 48);
    let u: Field<[ColorMatrix<f32>; 4]> = Field::from_fn(v, |i| links[i].map(|m| to_f32(&m)));
    let psi: Field<ColorVector<f32>> = Field::from_fn(v, |i| {
        ColorVector::new(
            psi_host[i]
                .v
                .map(|z| Complex::new(z.re as f32, z.im as f32)),
        )
    });
    let nan = Complex::new(f32::NAN, f32::NAN);
    let mut chi: Field<ColorVector<f32>> = Field::filled(v, ColorVector::new([nan; 3]));
    on_gpu!(lat.even(), |i| {
        let mut r = ColorVector::zero();
        for mu in 0..4 {
            r += u[mu] * psi.shift(mu, 1) - u.shift(mu, -1)[mu].adj() * psi.shift(mu, -1);
        }
        chi = r;
    })
    .unwrap();
    let round = |m: &ColorMatrix<f64>| to_f64(&to_f32(m));
    let round_v = |x: &ColorVector<f64>| {
        ColorVector::new(x.v.map(|z| Complex::new(z.re as f32 as f64, z.im as f32 as f64)))
    };
    let mut want = Vec::new();
    for i in 0..v {
        if lat.parity(i) == 1 {
            want.extend([f64::NAN; 6]);
            continue;
        }
        let mut acc = ColorVector::<f64>::zero();
        for (mu, link) in links[i].iter().enumerate() {
            let f = lat.shift(i, mu, 1);
            let b = lat.shift(i, mu, -1);
            acc += round(link) * round_v(&psi_host[f])
                - round(&links[b][mu]).adj() * round_v(&psi_host[b]);
        }
        want.extend(acc.v.iter().flat_map(|z| [z.re, z.im]));
    }
    vec![Output {
        name: "chi",
        got: chi
            .to_vec()
            .unwrap()
            .iter()
            .flat_map(|x| {
                x.v.iter()
                    .flat_map(|z| [z.re as f64, z.im as f64])
                    .collect::<Vec<_>>()
            })
            .collect(),
        want,
        kind: Kind::Rel(1e-6),
    }]
}

/// Wilson spinors `[ColorVector<f32>; 4]` (four spins of a colour vector): a whole-array local
/// from a neighbour, entries recombined and written whole, with an f64 host reference.
pub fn wilson_spinor_arrays() -> Vec<Output> {
    let lat = Lattice::new([4, 2, 4, 2]).unwrap();
    let v = lat.volume();
    let spins = random_vectors(4 * v, 52);
    let host: Vec<[ColorVector<f64>; 4]> = (0..v)
        .map(|i| std::array::from_fn(|spin| spins[4 * i + spin]))
        .collect();
    let links = random_links(&lat, 53);
    let narrow = |x: &ColorVector<f64>| {
        ColorVector::new(x.v.map(|z| Complex::new(z.re as f32, z.im as f32)))
    };
    let widen = |x: &ColorVector<f32>| {
        ColorVector::new(x.v.map(|z| Complex::new(z.re as f64, z.im as f64)))
    };
    let psi: Field<[ColorVector<f32>; 4], SoA> = Field::from_fn(v, |i| host[i].map(|s| narrow(&s)));
    let u: Field<[ColorMatrix<f32>; 4]> = Field::from_fn(v, |i| links[i].map(|m| to_f32(&m)));
    let mut chi: Field<[ColorVector<f32>; 4]> = Field::zeros(v);
    on_gpu!(lat, {
        let s = psi.shift(2, -1);
        let mut out = s;
        for spin in 0..4 {
            out[spin] = u[2] * s[3 - spin] + s[spin];
        }
        out[1] = out[1] - s[0];
        chi = out;
    })
    .unwrap();
    let mut want = Vec::new();
    for i in 0..v {
        let s = host[lat.shift(i, 2, -1)].map(|x| widen(&narrow(&x)));
        let m = to_f64(&to_f32(&links[i][2]));
        let mut out: [ColorVector<f64>; 4] = std::array::from_fn(|spin| m * s[3 - spin] + s[spin]);
        out[1] = out[1] - s[0];
        want.extend(
            out.iter()
                .flat_map(|x| x.v.iter().flat_map(|z| [z.re, z.im]).collect::<Vec<_>>()),
        );
    }
    vec![Output {
        name: "chi",
        got: chi
            .to_vec()
            .unwrap()
            .iter()
            .flat_map(|a| {
                a.iter()
                    .flat_map(|x| {
                        widen(x)
                            .v
                            .iter()
                            .flat_map(|z| [z.re, z.im])
                            .collect::<Vec<_>>()
                    })
                    .collect::<Vec<_>>()
            })
            .collect(),
        want,
        kind: Kind::Rel(1e-6),
    }]
}

/// Many right-hand sides in one call: `out[r] = D psi[r]` for the first `n` of eight colour
/// vectors per site (a count the body reads at run time), on the even sites, in two layouts.
/// `out` is only assigned entry by entry and `acc` only read and compounded entry by entry,
/// so the GPU reads and stores each entry in the field (`ONGPU_SITE_ENTRY`,
/// `ONGPU_SITE_STORE`) without holding the element: entries from `n` on and the odd sites
/// keep what they held (NaN in `out`), which the reference checks exactly.
pub fn multi_rhs_entry_stores() -> Vec<Output> {
    const RHS: usize = 8;
    let lat = Lattice::new([4, 2, 4, 6]).unwrap();
    let v = lat.volume();
    let n = 6usize;
    let links = random_links(&lat, 54);
    let host = random_vectors(RHS * v, 55);
    let narrow = |x: &ColorVector<f64>| {
        ColorVector::new(x.v.map(|z| Complex::new(z.re as f32, z.im as f32)))
    };
    let widen = |x: &ColorVector<f32>| {
        ColorVector::new(x.v.map(|z| Complex::new(z.re as f64, z.im as f64)))
    };
    let u: Field<[ColorMatrix<f32>; 4]> = Field::from_fn(v, |i| links[i].map(|m| to_f32(&m)));
    let psi: Field<[ColorVector<f32>; RHS]> =
        Field::from_fn(v, |i| std::array::from_fn(|r| narrow(&host[RHS * i + r])));
    let nan = ColorVector::new([Complex::new(f32::NAN, f32::NAN); 3]);
    let mut out: Field<[ColorVector<f32>; RHS]> = Field::filled(v, [nan; RHS]);
    let mut out_aos: Field<[ColorVector<f32>; RHS], AoS> = Field::filled(v, [nan; RHS]);
    let acc_host = random_vectors(RHS * v, 56);
    let mut acc: Field<[ColorVector<f32>; RHS], SoA> = Field::from_fn(v, |i| {
        std::array::from_fn(|r| narrow(&acc_host[RHS * i + r]))
    });
    on_gpu!(lat.even(), {
        for r in 0..n {
            let mut h = ColorVector::zero();
            for mu in 0..4 {
                h += u[mu] * psi.shift(mu, 1)[r] - u.shift(mu, -1)[mu].adj() * psi.shift(mu, -1)[r];
            }
            out[r] = h;
            out_aos[r] = h + psi[r];
            acc[r] += h;
            acc[r] -= acc[r] * 0.5;
        }
    })
    .unwrap();
    let round = |m: &ColorMatrix<f64>| to_f64(&to_f32(m));
    let psi_at = |i: usize, r: usize| widen(&narrow(&host[RHS * i + r]));
    let (mut want, mut want_aos, mut want_acc) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..v {
        for r in 0..RHS {
            let acc_old = widen(&narrow(&acc_host[RHS * i + r]));
            if lat.parity(i) == 1 || r >= n {
                want.extend([f64::NAN; 6]);
                want_aos.extend([f64::NAN; 6]);
                want_acc.extend(acc_old.v.iter().flat_map(|z| [z.re, z.im]));
                continue;
            }
            let mut acc = ColorVector::<f64>::zero();
            for (mu, link) in links[i].iter().enumerate() {
                let (f, b) = (lat.shift(i, mu, 1), lat.shift(i, mu, -1));
                acc += round(link) * psi_at(f, r) - round(&links[b][mu]).adj() * psi_at(b, r);
            }
            want.extend(acc.v.iter().flat_map(|z| [z.re, z.im]));
            let with_psi = acc + psi_at(i, r);
            want_aos.extend(with_psi.v.iter().flat_map(|z| [z.re, z.im]));
            let sum = acc_old + acc;
            let halved = sum - sum * 0.5;
            want_acc.extend(halved.v.iter().flat_map(|z| [z.re, z.im]));
        }
    }
    let reals = |a: &[ColorVector<f32>; RHS]| {
        a.iter()
            .flat_map(|x| {
                widen(x)
                    .v
                    .iter()
                    .flat_map(|z| [z.re, z.im])
                    .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>()
    };
    vec![
        Output {
            name: "out",
            got: out.to_vec().unwrap().iter().flat_map(reals).collect(),
            want,
            kind: Kind::Rel(1e-6),
        },
        Output {
            name: "out_aos",
            got: out_aos.to_vec().unwrap().iter().flat_map(reals).collect(),
            want: want_aos,
            kind: Kind::Rel(1e-6),
        },
        Output {
            name: "acc",
            got: acc.to_vec().unwrap().iter().flat_map(reals).collect(),
            want: want_acc,
            kind: Kind::Rel(1e-6),
        },
    ]
}
