//! The arbitrary-precision reals the Remez exchange runs in ([`dashu_float`], pure Rust).
//!
//! The minimax rational function of degree `n` on a spectral range `[a, b]` with `b/a` of
//! 10⁴ to 10⁸ has coefficients that span many decades, and its linear systems at the
//! reference points are conditioned like `(b/a)ⁿ`: f64 loses every digit there (AlgRemez,
//! which MILC, Chroma and Grid use, runs in GMP floats for the same reason). `dashu-float`
//! needs no C library, unlike GMP through `rug`, so the default build stays pure Rust.

use dashu_float::ops::{Abs, SquareRoot};
use dashu_float::round::mode::HalfEven;
use dashu_float::FBig;

/// Bits of every number in the exchange: about 96 decimal digits.
pub const PRECISION_BITS: usize = 320;

/// A real number of [`PRECISION_BITS`] bits, rounded to nearest.
pub type Big = FBig<HalfEven>;

/// `x` at the working precision.
pub fn big(x: f64) -> Big {
    Big::try_from(x)
        .expect("a finite f64")
        .with_precision(PRECISION_BITS)
        .value()
}

/// The f64 nearest to `x`.
pub fn to_f64(x: &Big) -> f64 {
    x.to_f64().value()
}

/// `√x`.
pub fn sqrt(x: &Big) -> Big {
    x.sqrt()
}

/// `|x|`.
pub fn abs(x: &Big) -> Big {
    x.clone().abs()
}

/// `x^(numerator / 2^halvings)` for `x > 0`: square roots taken `halvings` times, then the
/// integer power (its reciprocal for a negative `numerator`).
pub fn root_power(x: &Big, numerator: i32, halvings: u32) -> Big {
    let mut root = x.clone();
    for _ in 0..halvings {
        root = sqrt(&root);
    }
    let mut power = big(1.0);
    for _ in 0..numerator.unsigned_abs() {
        power = &power * &root;
    }
    if numerator < 0 {
        big(1.0) / power
    } else {
        power
    }
}

/// `Σ c_k x^k` (Horner).
pub fn polynomial(c: &[Big], x: &Big) -> Big {
    let mut acc = big(0.0);
    for ck in c.iter().rev() {
        acc = acc * x + ck;
    }
    acc
}

/// `(p(x), p'(x))` of `p = Σ c_k x^k`.
pub fn polynomial_and_derivative(c: &[Big], x: &Big) -> (Big, Big) {
    let mut p = big(0.0);
    let mut dp = big(0.0);
    for ck in c.iter().rev() {
        dp = dp * x + &p;
        p = p * x + ck;
    }
    (p, dp)
}

/// The solution of `m x = rhs` by Gaussian elimination with partial pivoting, or `None`
/// for a singular `m`.
pub fn solve(mut m: Vec<Vec<Big>>, mut rhs: Vec<Big>) -> Option<Vec<Big>> {
    let n = rhs.len();
    for col in 0..n {
        let pivot = (col..n).max_by(|&i, &j| {
            abs(&m[i][col])
                .partial_cmp(&abs(&m[j][col]))
                .expect("finite entries")
        })?;
        if m[pivot][col] == big(0.0) {
            return None;
        }
        m.swap(col, pivot);
        rhs.swap(col, pivot);
        let (above, below) = m.split_at_mut(col + 1);
        let pivot_row = &above[col];
        for (offset, row) in below.iter_mut().enumerate() {
            let factor = &row[col] / &pivot_row[col];
            for (entry, p) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                *entry -= &factor * p;
            }
            let delta = &factor * &rhs[col];
            rhs[col + 1 + offset] -= delta;
        }
    }
    let mut x = vec![big(0.0); n];
    for row in (0..n).rev() {
        let mut acc = rhs[row].clone();
        for k in row + 1..n {
            acc -= &m[row][k] * &x[k];
        }
        x[row] = acc / &m[row][row];
    }
    Some(x)
}
