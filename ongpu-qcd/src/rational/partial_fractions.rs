//! `N(t)/D(t) = c + Σₖ ρₖ/(t + τₖ)`: the form a multi-shift solver applies, from the
//! polynomials of the Remez exchange.
//!
//! The poles of the minimax approximations of `tˢ` on a positive range are real and
//! negative (they interlace with the zeros). Newton's iteration started right of every root
//! of a polynomial with only real roots falls monotonically onto the largest one; each root
//! found is divided out and the next search starts from it, and every root is then polished
//! on the undivided polynomial. A root that is not found, or not negative, is an error.

use super::big::{big, polynomial, polynomial_and_derivative, to_f64, Big};

/// `(c, [(ρₖ, τₖ)])` of `N/D`, both of degree `n`.
pub(crate) fn partial_fractions(
    numerator: &[Big],
    denominator: &[Big],
) -> Result<(f64, Vec<(f64, f64)>), String> {
    let n = denominator.len() - 1;
    let roots = real_roots(denominator)?;
    let constant = to_f64(&(&numerator[n] / &denominator[n]));
    let mut terms = Vec::with_capacity(n);
    for root in roots {
        let (_, slope) = polynomial_and_derivative(denominator, &root);
        let residue = polynomial(numerator, &root) / slope;
        let tau = -to_f64(&root);
        if tau <= 0.0 {
            return Err(format!("a pole at t = {:.6e} is not negative", -tau));
        }
        terms.push((to_f64(&residue), tau));
    }
    Ok((constant, terms))
}

/// The `n` real roots of `p` (degree `n`), largest first.
fn real_roots(p: &[Big]) -> Result<Vec<Big>, String> {
    let n = p.len() - 1;
    let mut rest = p.to_vec();
    let mut roots = Vec::with_capacity(n);
    // Right of every root: the Cauchy bound 1 + max |pₖ/pₙ|.
    let lead = &p[n];
    let mut start = big(1.0);
    for c in &p[..n] {
        let r = to_f64(&(c / lead)).abs();
        start = big(to_f64(&start).max(1.0 + r));
    }
    let tolerance = big(1e-80);
    for found in 0..n {
        let mut t = start.clone();
        let mut converged = false;
        for _ in 0..2000 {
            let (value, slope) = polynomial_and_derivative(&rest, &t);
            if slope == big(0.0) {
                break;
            }
            let step = value / slope;
            t -= &step;
            let size = if step < big(0.0) { -step } else { step };
            let scale = if t < big(0.0) { -t.clone() } else { t.clone() };
            if size <= &tolerance * (scale + big(1e-300)) {
                converged = true;
                break;
            }
        }
        if !converged {
            return Err(format!(
                "root {} of {} of the denominator was not found (a complex pair?)",
                found + 1,
                n
            ));
        }
        // Polish on the whole polynomial.
        for _ in 0..3 {
            let (value, slope) = polynomial_and_derivative(p, &t);
            if slope != big(0.0) {
                t -= value / slope;
            }
        }
        rest = deflate(&rest, &t);
        start = t.clone();
        roots.push(t);
    }
    Ok(roots)
}

/// `p(t)/(t − r)` (the remainder dropped) by synthetic division.
fn deflate(p: &[Big], r: &Big) -> Vec<Big> {
    let n = p.len() - 1;
    let mut q = vec![big(0.0); n];
    let mut carry = big(0.0);
    for k in (1..=n).rev() {
        carry = &carry * r + &p[k];
        q[k - 1] = carry.clone();
    }
    q
}
