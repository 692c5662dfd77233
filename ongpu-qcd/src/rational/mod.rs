//! Rational approximations of `x^s` on a spectral range, the way RHMC roots the fermion
//! determinant (Clark and Kennedy, Phys. Rev. Lett. 98 (2007) 051601):
//!
//! `x^s ≈ r(x) = α₀ + Σₖ αₖ / (x + βₖ)`, `a ≤ x ≤ b`,
//!
//! the minimax approximation in relative error of degree `(n, n)`, found by Remez's second
//! algorithm in arbitrary precision (320-bit floats of the pure-Rust `dashu-float`)
//! and turned into the partial fractions a multi-shift solver applies (every `βₖ > 0`).
//! Its largest relative error on the range, [`RationalApproximation::error`], is measured
//! at the extrema of the final exchange. An approximation is computed once per process for
//! each exponent, degree and range, and shared ([`Arc`]).
//!
//! Outside its range the approximation is worthless, so a user of one asks
//! [`RationalApproximation::check_spectrum`] with bounds of the operator's spectrum: an
//! `Error`, not a silently wrong action, when they do not fit.

mod big;
mod partial_fractions;
mod remez;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// The exponent `s = numerator / root` of `x^s`, `root` a power of two (up to 64): the
/// powers of the fermion determinant that rooting needs (`±1/2`, `±1/4`, `±1/8`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Exponent {
    numerator: i32,
    halvings: u32,
}

impl Exponent {
    /// `numerator / root`, an error unless `root` is a power of two up to 64 and the
    /// exponent is not zero.
    pub fn new(numerator: i32, root: u32) -> ongpu::Result<Exponent> {
        if !(root.is_power_of_two() && root <= 64) || numerator == 0 {
            return Err(ongpu::Error::InvalidArgument(format!(
                "a rational approximation needs x^(p/q) with p ≠ 0 and q a power of two up \
                 to 64, not x^({numerator}/{root})"
            )));
        }
        let (mut numerator, mut halvings) = (numerator, root.trailing_zeros());
        while halvings > 0 && numerator % 2 == 0 {
            numerator /= 2;
            halvings -= 1;
        }
        Ok(Exponent {
            numerator,
            halvings,
        })
    }

    /// The exponent as a number.
    pub fn value(&self) -> f64 {
        self.numerator as f64 / (1u64 << self.halvings) as f64
    }
}

impl std::fmt::Display for Exponent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.numerator, 1u64 << self.halvings)
    }
}

/// `x^s ≈ α₀ + Σₖ αₖ/(x + βₖ)` on `[a, b]`, with its largest relative error there.
#[derive(Debug, Clone, PartialEq)]
pub struct RationalApproximation {
    exponent: Exponent,
    range: (f64, f64),
    constant: f64,
    terms: Vec<(f64, f64)>,
    error: f64,
}

/// The largest degree tried.
pub const MAX_DEGREE: usize = 40;

type CacheKey = (Exponent, usize, u64, u64);

fn cache() -> &'static Mutex<HashMap<CacheKey, Arc<RationalApproximation>>> {
    static CACHE: OnceLock<Mutex<HashMap<CacheKey, Arc<RationalApproximation>>>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

impl RationalApproximation {
    /// The minimax approximation of `x^s` of degree `(degree, degree)` on `[lo, hi]`
    /// (`0 < lo < hi`, `1 ≤ degree ≤ 40`), computed once per process.
    pub fn new(
        exponent: Exponent,
        degree: usize,
        lo: f64,
        hi: f64,
    ) -> ongpu::Result<Arc<RationalApproximation>> {
        if !(lo > 0.0 && hi > lo && hi.is_finite()) {
            return Err(ongpu::Error::InvalidArgument(format!(
                "a rational approximation needs a range 0 < lo < hi, not [{lo}, {hi}]"
            )));
        }
        if !(1..=MAX_DEGREE).contains(&degree) {
            return Err(ongpu::Error::InvalidArgument(format!(
                "the degree of a rational approximation must be 1 to {MAX_DEGREE}, not {degree}"
            )));
        }
        let key = (exponent, degree, lo.to_bits(), hi.to_bits());
        if let Some(found) = cache().lock().expect("the cache").get(&key) {
            return Ok(found.clone());
        }
        let computed = Arc::new(Self::compute(exponent, degree, lo, hi)?);
        cache()
            .lock()
            .expect("the cache")
            .insert(key, computed.clone());
        Ok(computed)
    }

    /// The approximation of least degree whose relative error on `[lo, hi]` is at most
    /// `tolerance`.
    pub fn with_error(
        exponent: Exponent,
        lo: f64,
        hi: f64,
        tolerance: f64,
    ) -> ongpu::Result<Arc<RationalApproximation>> {
        if tolerance.is_nan() || tolerance <= 0.0 {
            return Err(ongpu::Error::InvalidArgument(format!(
                "the tolerance of a rational approximation must be positive, not {tolerance}"
            )));
        }
        // The error falls about as exp(−π² n / ln(4 hi/lo)) (Zolotarev's for x^(−1/2)):
        // start a little below the degree that predicts.
        let per_degree = std::f64::consts::PI.powi(2) / (4.0 * hi / lo).ln();
        let guess = ((4.0 / tolerance).ln() / per_degree).floor() as usize;
        let mut degree = (guess / 2).clamp(1, MAX_DEGREE);
        loop {
            let r = Self::new(exponent, degree, lo, hi)?;
            if r.error <= tolerance {
                // The least such degree: one less must miss the tolerance.
                let mut best = r;
                while best.degree() > 1 {
                    let less = Self::new(exponent, best.degree() - 1, lo, hi)?;
                    if less.error > tolerance {
                        break;
                    }
                    best = less;
                }
                return Ok(best);
            }
            if degree == MAX_DEGREE {
                return Err(ongpu::Error::InvalidArgument(format!(
                    "x^({exponent}) on [{lo:e}, {hi:e}] needs a degree above {MAX_DEGREE} for a \
                     relative error of {tolerance:e} (degree {MAX_DEGREE} gives {:e})",
                    r.error
                )));
            }
            degree += 1;
        }
    }

    fn compute(
        exponent: Exponent,
        degree: usize,
        lo: f64,
        hi: f64,
    ) -> ongpu::Result<RationalApproximation> {
        let failed = |why: String| {
            ongpu::Error::InvalidArgument(format!(
                "no rational approximation of x^({exponent}) of degree {degree} on \
                 [{lo:e}, {hi:e}]: {why}"
            ))
        };
        let target = remez::Target {
            numerator: exponent.numerator,
            halvings: exponent.halvings,
        };
        let minimax = remez::minimax(target, degree, lo / hi).map_err(failed)?;
        let (c, terms) =
            partial_fractions::partial_fractions(&minimax.numerator, &minimax.denominator)
                .map_err(failed)?;
        // x^s = hi^s t^s with t = x/hi, and ρ/(t + τ) = hi ρ/(x + hi τ).
        let scale = hi.powf(exponent.value());
        Ok(RationalApproximation {
            exponent,
            range: (lo, hi),
            constant: scale * c,
            terms: terms
                .into_iter()
                .map(|(rho, tau)| (scale * hi * rho, hi * tau))
                .collect(),
            error: minimax.error,
        })
    }

    /// `s` of `x^s`.
    pub fn exponent(&self) -> Exponent {
        self.exponent
    }

    /// `[a, b]`, where the error bound holds.
    pub fn range(&self) -> (f64, f64) {
        self.range
    }

    /// The degree `n` (the number of partial fractions).
    pub fn degree(&self) -> usize {
        self.terms.len()
    }

    /// The largest relative error `|r(x)/x^s − 1|` on the range.
    pub fn error(&self) -> f64 {
        self.error
    }

    /// `α₀`.
    pub fn constant(&self) -> f64 {
        self.constant
    }

    /// `(αₖ, βₖ)` of each partial fraction `αₖ/(x + βₖ)`.
    pub fn terms(&self) -> &[(f64, f64)] {
        &self.terms
    }

    /// The shifts `βₖ` a multi-shift solver needs.
    pub fn shifts(&self) -> Vec<f64> {
        self.terms.iter().map(|t| t.1).collect()
    }

    /// `r(x)`.
    pub fn value(&self, x: f64) -> f64 {
        self.constant + self.terms.iter().map(|(a, b)| a / (x + b)).sum::<f64>()
    }

    /// An error unless the spectrum bounds `[lo, hi]` of the operator it will be applied to
    /// lie inside the range.
    pub fn check_spectrum(&self, lo: f64, hi: f64) -> ongpu::Result<()> {
        let (a, b) = self.range;
        if lo >= a && hi <= b {
            Ok(())
        } else {
            Err(ongpu::Error::InvalidArgument(format!(
                "the spectrum [{lo:e}, {hi:e}] leaves the range [{a:e}, {b:e}] of the rational \
                 approximation of x^({}): widen the range",
                self.exponent
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The relative error on a fine grid in ln x, against x^s in f64.
    fn grid_error(r: &RationalApproximation) -> f64 {
        let (a, b) = r.range();
        let s = r.exponent().value();
        (0..=4000)
            .map(|i| {
                let x = (a.ln() + (b / a).ln() * i as f64 / 4000.0).exp();
                (r.value(x) / x.powf(s) - 1.0).abs()
            })
            .fold(0.0, f64::max)
    }

    #[test]
    fn inverse_square_root_is_within_its_bound_and_poles_are_shifts() {
        let r = RationalApproximation::new(Exponent::new(-1, 2).unwrap(), 8, 1e-4, 10.0).unwrap();
        assert!(r.error() > 0.0 && r.error() < 1e-4, "error {}", r.error());
        let e = grid_error(&r);
        assert!(
            e <= r.error() * 1.001 + 1e-14,
            "grid {e} bound {}",
            r.error()
        );
        // The bound is attained (it is the minimax error, not a loose bound).
        assert!(e >= r.error() * 0.99, "grid {e} bound {}", r.error());
        for &(alpha, beta) in r.terms() {
            assert!(alpha > 0.0 && beta > 0.0, "({alpha}, {beta})");
        }
    }

    /// A production-size approximation (light quarks at `m = 0.002`, `m² = 4e−6`): the
    /// exchange reaches the range by continuation and the bound holds on the grid.
    #[test]
    fn a_wide_range_of_high_degree_is_within_its_bound() {
        let r = RationalApproximation::new(Exponent::new(-1, 4).unwrap(), 16, 4e-6, 64.0).unwrap();
        let e = grid_error(&r);
        assert!(r.error() < 1e-6, "error {}", r.error());
        assert!(
            e <= r.error() * 1.001 + 1e-14,
            "grid {e} bound {}",
            r.error()
        );
    }

    #[test]
    fn the_powers_of_rooting_are_within_their_bounds() {
        for (p, q) in [(1, 4), (-1, 4), (1, 8), (-1, 8), (1, 2), (-3, 8)] {
            let r = RationalApproximation::new(Exponent::new(p, q).unwrap(), 6, 1e-3, 4.0).unwrap();
            let e = grid_error(&r);
            assert!(
                e <= r.error() * 1.001 + 1e-14,
                "x^({p}/{q}): grid {e} bound {}",
                r.error()
            );
            assert!(r.shifts().iter().all(|&b| b > 0.0));
        }
    }

    #[test]
    fn the_least_degree_for_a_tolerance_meets_it_and_one_less_does_not() {
        let s = Exponent::new(-1, 4).unwrap();
        let r = RationalApproximation::with_error(s, 1e-3, 10.0, 1e-7).unwrap();
        assert!(r.error() <= 1e-7);
        let less = RationalApproximation::new(s, r.degree() - 1, 1e-3, 10.0).unwrap();
        assert!(less.error() > 1e-7);
    }

    #[test]
    fn bad_requests_and_spectra_outside_the_range_are_errors() {
        assert!(Exponent::new(1, 3).is_err());
        assert!(Exponent::new(0, 4).is_err());
        let s = Exponent::new(-1, 2).unwrap();
        assert!(RationalApproximation::new(s, 4, 0.0, 1.0).is_err());
        assert!(RationalApproximation::new(s, 0, 0.1, 1.0).is_err());
        let r = RationalApproximation::new(s, 4, 0.1, 1.0).unwrap();
        assert!(r.check_spectrum(0.2, 0.9).is_ok());
        assert!(r.check_spectrum(0.05, 0.9).is_err());
        assert!(r.check_spectrum(0.2, 1.5).is_err());
    }
}
