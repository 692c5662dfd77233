//! The inputs of a solve, made on the host from a seed: SU(3) gauge links (random, or near
//! the identity), random colour-vector sources, random gauge transformations, and the
//! staggered phases folded into the links that the device operator reads.

use ongpu::prelude::*;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Gauge links on the host, `links[site][mu] = U_mu(x)`, in the lattice's site order.
pub type HostLinks = Vec<[ColorMatrix<f64>; 4]>;

/// A colour vector per site on the host, in the lattice's site order.
pub type HostVector = Vec<ColorVector<f64>>;

/// How far from the identity the links of a smooth gauge field are (before projection).
pub const SMOOTH_SPREAD: f64 = 0.2;

/// Which gauge field to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GaugeKind {
    /// Every link an independent random SU(3) matrix (the hardest case for CG).
    Random,
    /// Links the SU(3) projection of `1 + SMOOTH_SPREAD · X`, X random: close to a free field.
    Smooth,
}

/// A random complex number with parts uniform in [-1, 1).
fn complex(r: &mut SmallRng) -> Complex<f64> {
    Complex::new(r.random_range(-1.0..1.0), r.random_range(-1.0..1.0))
}

/// A random complex 3x3 matrix with parts uniform in [-1, 1).
fn random_matrix(r: &mut SmallRng) -> ColorMatrix<f64> {
    ColorMatrix::new(std::array::from_fn(|_| std::array::from_fn(|_| complex(r))))
}

/// The SU(3) matrix of `m`'s first two rows: Gram-Schmidt makes them orthonormal, and the
/// third row is the conjugate of their cross product, which makes the determinant 1.
pub fn project_su3(m: &ColorMatrix<f64>) -> ColorMatrix<f64> {
    let dot = |a: &[Complex<f64>; 3], b: &[Complex<f64>; 3]| -> Complex<f64> {
        (0..3).map(|k| a[k].conj() * b[k]).sum()
    };
    let normalise = |a: [Complex<f64>; 3]| {
        let n = dot(&a, &a).re.sqrt();
        a.map(|z| z / n)
    };
    let r0 = normalise(m.m[0]);
    let o = dot(&r0, &m.m[1]);
    let r1 = normalise(std::array::from_fn(|k| m.m[1][k] - o * r0[k]));
    let r2 = [
        (r0[1] * r1[2] - r0[2] * r1[1]).conj(),
        (r0[2] * r1[0] - r0[0] * r1[2]).conj(),
        (r0[0] * r1[1] - r0[1] * r1[0]).conj(),
    ];
    ColorMatrix::new([r0, r1, r2])
}

/// A random SU(3) matrix (Gram-Schmidt of a random complex matrix).
pub fn random_su3(r: &mut SmallRng) -> ColorMatrix<f64> {
    project_su3(&random_matrix(r))
}

/// The links of `kind` on `lat`, from `seed`.
pub fn links(lat: &Lattice, kind: GaugeKind, seed: u64) -> HostLinks {
    let mut r = SmallRng::seed_from_u64(seed);
    (0..lat.volume())
        .map(|_| {
            std::array::from_fn(|_| match kind {
                GaugeKind::Random => random_su3(&mut r),
                GaugeKind::Smooth => {
                    project_su3(&(ColorMatrix::identity() + random_matrix(&mut r) * SMOOTH_SPREAD))
                }
            })
        })
        .collect()
}

/// A random colour vector at every site, parts uniform in [-1, 1).
pub fn random_vector(lat: &Lattice, seed: u64) -> HostVector {
    let mut r = SmallRng::seed_from_u64(seed);
    (0..lat.volume())
        .map(|_| ColorVector::new(std::array::from_fn(|_| complex(&mut r))))
        .collect()
}

/// `v` on the even sites and zero on the odd ones (a source of the even-odd system).
pub fn even_part(lat: &Lattice, v: &[ColorVector<f64>]) -> HostVector {
    v.iter()
        .enumerate()
        .map(|(i, x)| {
            if lat.parity(i) == 0 {
                *x
            } else {
                ColorVector::zero()
            }
        })
        .collect()
}

/// The staggered phase `η_mu(x) = (−1)^(x_0 + … + x_{mu−1})` at coordinates `c`.
pub fn staggered_phase(c: [usize; 4], mu: usize) -> f64 {
    if c[..mu].iter().sum::<usize>() % 2 == 0 {
        1.0
    } else {
        -1.0
    }
}

/// The links the device operator reads: `η_mu(x) U_mu(x) / 2`. Folding the phases and the
/// 1/2 in once at set-up keeps them out of every pass (no coordinates, no sign, no scale
/// per site), and it is exact because `η_mu(x − mû) = η_mu(x)`: the backward term
/// `η_mu(x) U_mu(x−mû)†` reads the folded link of its own neighbour. The operator's body is
/// then the plain hopping term of the lattice contract.
pub fn device_links(
    lat: &Lattice,
    links: &[[ColorMatrix<f64>; 4]],
) -> Field<[ColorMatrix<f64>; 4]> {
    Field::from_fn(lat.volume(), |i| {
        let c = lat.coords(i);
        std::array::from_fn(|mu| links[i][mu] * (0.5 * staggered_phase(c, mu)))
    })
}
