//! Spin algebra in bodies and kernels: the DeGrand–Rossi `γ_mu` on a Dirac spinor, and the
//! projection `(1 ± γ_mu) ψ` onto a half spinor and its reconstruction, as device functions
//! (the same code on both backends, f32 and f64, any layout of the fields read). Every one
//! costs no multiplication: each row of a `γ` matrix has one entry, `±1` or `±i`, so a row
//! is a copy, a sign or a swap of real and imaginary parts ([`TimesI`]).
//!
//! A half spinor is the upper two spin rows of `(1 ± γ_mu) ψ`; the lower two are `±1` or
//! `±i` times them, so a hop multiplies the link into the half spinor only (two SU(3)
//! products instead of four) and rebuilds the four rows after (a program over the facade;
//! `tests/quarks/wilson.rs` runs the same calls on both backends, every direction and sign, f32 and
//! f64, three layouts):
//!
//! ```ignore
//! use ongpu::prelude::*;
//! use ongpu::qcd::wilson::spin::{project, reconstruct};
//!
//! let n = 64;
//! let psi: Field<[ColorVector<f64>; 4]> = Field::from_fn(n, |s| {
//!     std::array::from_fn(|k| ColorVector::new(std::array::from_fn(|c| {
//!         Complex::new((s + k) as f64, c as f64 - k as f64)
//!     })))
//! });
//! let u: Field<ColorMatrix<f64>> = Field::from_fn(n, |_| ColorMatrix::identity() * 0.5);
//! let mut out: Field<[ColorVector<f64>; 4]> = Field::zeros(n);
//! on_gpu!(n, {
//!     let p = psi;
//!     let h = u * project(1, -1, p); // (1 − γ_y) ψ: two rows, two SU(3) products
//!     out = reconstruct(1, -1, h);
//! })?;
//! let (o, p) = (out.to_vec()?, psi.to_vec()?);
//! // (1 − γ_y) ψ = (ψ0 + ψ3, ψ1 − ψ2, ψ2 − ψ1, ψ3 + ψ0), here times u = 1/2.
//! assert_eq!(o[5][2], (p[5][2] - p[5][1]) * 0.5);
//! ```
//!
//! [`gamma`](super::gamma) holds the same matrices as plain complex 4×4 matrices on the host,
//! written separately: the tests check these functions against them.

use ongpu::prelude::*;

/// The two colour vectors of a spin projection `(1 ± γ_mu) ψ` (its upper two rows).
pub type HalfSpinor<T = f64> = [ColorVector<T>; 2];

/// `γ_mu ψ` for `mu` in `0..4` (x, y, z, t) and `γ_5 ψ` for `mu == 4`, DeGrand–Rossi basis
/// (`γ_5 = diag(1, 1, −1, −1)`); any other `mu` gives zero (a kernel cannot panic).
#[ongpu::device]
pub fn gamma_times<T: Real>(mu: usize, psi: [ColorVector<T>; 4]) -> [ColorVector<T>; 4] {
    let mut r = [ColorVector::zero(); 4];
    if mu == 0 {
        r[0] = psi[3].times_i();
        r[1] = psi[2].times_i();
        r[2] = psi[1].times_minus_i();
        r[3] = psi[0].times_minus_i();
    } else if mu == 1 {
        r[0] = -psi[3];
        r[1] = psi[2];
        r[2] = psi[1];
        r[3] = -psi[0];
    } else if mu == 2 {
        r[0] = psi[2].times_i();
        r[1] = psi[3].times_minus_i();
        r[2] = psi[0].times_minus_i();
        r[3] = psi[1].times_i();
    } else if mu == 3 {
        r[0] = psi[2];
        r[1] = psi[3];
        r[2] = psi[0];
        r[3] = psi[1];
    } else if mu == 4 {
        r[0] = psi[0];
        r[1] = psi[1];
        r[2] = -psi[2];
        r[3] = -psi[3];
    }
    r
}

/// The upper two rows of `(1 + sign γ_mu) ψ` (`sign` +1 or −1; `mu` in `0..4`; the
/// forward hop of the Wilson operator projects with `1 − γ_mu`, the backward one with
/// `1 + γ_mu`). Zero for any other `mu` or `sign`.
#[ongpu::device]
pub fn project<T: Real>(mu: usize, sign: i32, psi: [ColorVector<T>; 4]) -> [ColorVector<T>; 2] {
    let mut h = [ColorVector::zero(); 2];
    if sign == -1 {
        if mu == 0 {
            h[0] = psi[0] - psi[3].times_i();
            h[1] = psi[1] - psi[2].times_i();
        } else if mu == 1 {
            h[0] = psi[0] + psi[3];
            h[1] = psi[1] - psi[2];
        } else if mu == 2 {
            h[0] = psi[0] - psi[2].times_i();
            h[1] = psi[1] + psi[3].times_i();
        } else if mu == 3 {
            h[0] = psi[0] - psi[2];
            h[1] = psi[1] - psi[3];
        }
    } else if sign == 1 {
        if mu == 0 {
            h[0] = psi[0] + psi[3].times_i();
            h[1] = psi[1] + psi[2].times_i();
        } else if mu == 1 {
            h[0] = psi[0] - psi[3];
            h[1] = psi[1] + psi[2];
        } else if mu == 2 {
            h[0] = psi[0] + psi[2].times_i();
            h[1] = psi[1] - psi[3].times_i();
        } else if mu == 3 {
            h[0] = psi[0] + psi[2];
            h[1] = psi[1] + psi[3];
        }
    }
    h
}

/// The four rows of `(1 + sign γ_mu) ψ` from its projection `h` ([`project`]): the upper
/// two are `h`, the lower two `±h` or `±i h` in the order the matrix gives. Zero for any
/// other `mu` or `sign`.
#[ongpu::device]
pub fn reconstruct<T: Real>(mu: usize, sign: i32, h: [ColorVector<T>; 2]) -> [ColorVector<T>; 4] {
    let mut r = [ColorVector::zero(); 4];
    if (sign == -1 || sign == 1) && mu < 4 {
        r[0] = h[0];
        r[1] = h[1];
    }
    if sign == -1 {
        if mu == 0 {
            r[2] = h[1].times_i();
            r[3] = h[0].times_i();
        } else if mu == 1 {
            r[2] = -h[1];
            r[3] = h[0];
        } else if mu == 2 {
            r[2] = h[0].times_i();
            r[3] = h[1].times_minus_i();
        } else if mu == 3 {
            r[2] = -h[0];
            r[3] = -h[1];
        }
    } else if sign == 1 {
        if mu == 0 {
            r[2] = h[1].times_minus_i();
            r[3] = h[0].times_minus_i();
        } else if mu == 1 {
            r[2] = h[1];
            r[3] = -h[0];
        } else if mu == 2 {
            r[2] = h[0].times_minus_i();
            r[3] = h[1].times_i();
        } else if mu == 3 {
            r[2] = h[0];
            r[3] = h[1];
        }
    }
    r
}
