//! `ln` and `cos(2πt)` written with basic operations only (each correctly rounded by IEEE 754
//! on the host and, as `__dadd_rn`/`__dmul_rn`/`__ddiv_rn`, in CUDA, where they are never
//! contracted into fused multiply-adds), so that normal deviates are the same bits on both
//! backends. The maths libraries of the two sides differ in the last bit now and then.
//! The CUDA twins are `ongpu::portable_ln` and `ongpu::portable_cos_2pi` in `cuda/random.cuh`:
//! change both together.

const LN2: f64 = std::f64::consts::LN_2;
const SQRT2: f64 = std::f64::consts::SQRT_2;
const FRAC_PI_2: f64 = std::f64::consts::FRAC_PI_2;

/// Natural logarithm of a positive, finite, normal `x`, within a few ulp.
///
/// `x = m·2^e` with `m` in `[√½, √2)`; `ln m = 2 atanh s` with `s = (m−1)/(m+1)`, so
/// `|s| ≤ 0.172` and twelve odd terms of the series reach double precision.
pub fn ln(x: f64) -> f64 {
    let bits = x.to_bits();
    let mut e = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mut m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | (1023u64 << 52));
    if m > SQRT2 {
        m *= 0.5;
        e += 1;
    }
    let s = (m - 1.0) / (m + 1.0);
    let z = s * s;
    let ln_m = 2.0 * s * horner(&ATANH_SERIES, z);
    e as f64 * LN2 + ln_m
}

/// `cos(2πt)` for `t` in `[0, 1)`, within a few ulp.
///
/// The quarter turn and its remainder come out of `4t` exactly; the remaining angle is
/// folded into `[0, π/4]`, where Taylor series of `sin` and `cos` of nine terms suffice.
pub fn cos_2pi(t: f64) -> f64 {
    let t4 = t * 4.0;
    let quarter = t4.floor();
    let mut r = t4 - quarter; // exact: both in the same binade or r tiny
                              // cos(π/2 (q + r)) for q = 0, 1, 2, 3: cos a, −sin a, −cos a, sin a, a = πr/2.
    let q = quarter as i64 & 3;
    let mut use_sin = q == 1 || q == 3;
    let negate = q == 1 || q == 2;
    if r > 0.5 {
        // cos(π/2 (1 − r')) = sin(π r'/2): fold into [0, π/4].
        r = 1.0 - r;
        use_sin = !use_sin;
    }
    let a = r * FRAC_PI_2;
    let v = if use_sin { sin_small(a) } else { cos_small(a) };
    if negate {
        -v
    } else {
        v
    }
}

/// `1/(2k+1)`, k = 0..=11: `atanh s = s Σ_k (s²)^k/(2k+1)`.
const ATANH_SERIES: [f64; 12] = [
    1.0,
    0.3333333333333333,
    0.2,
    0.14285714285714285,
    0.1111111111111111,
    0.09090909090909091,
    0.07692307692307693,
    0.06666666666666667,
    0.058823529411764705,
    0.05263157894736842,
    0.047619047619047616,
    0.043478260869565216,
];

/// `(−1)^k/(2k+1)!`, k = 0..=8: `sin a = a Σ_k (a²)^k (−1)^k/(2k+1)!`.
const SIN_SERIES: [f64; 9] = [
    1.0,
    -0.16666666666666666,
    0.008333333333333333,
    -0.0001984126984126984,
    2.7557319223985893e-06,
    -2.505210838544172e-08,
    1.6059043836821613e-10,
    -7.647163731819816e-13,
    2.8114572543455206e-15,
];

/// `(−1)^k/(2k)!`, k = 0..=9: `cos a = Σ_k (a²)^k (−1)^k/(2k)!`.
const COS_SERIES: [f64; 10] = [
    1.0,
    -0.5,
    0.041666666666666664,
    -0.001388888888888889,
    2.48015873015873e-05,
    -2.755731922398589e-07,
    2.08767569878681e-09,
    -1.1470745597729725e-11,
    4.779477332387385e-14,
    -1.5619206968586225e-16,
];

/// `Σ_k c[k] z^k` by Horner's rule from the highest term (the CUDA twin uses the same
/// order).
#[inline(always)]
fn horner(c: &[f64], z: f64) -> f64 {
    c.iter().rev().fold(0.0, |s, &ck| s * z + ck)
}

/// `sin a` for `a` in `[0, π/4]`.
fn sin_small(a: f64) -> f64 {
    a * horner(&SIN_SERIES, a * a)
}

/// `cos a` for `a` in `[0, π/4]`.
fn cos_small(a: f64) -> f64 {
    horner(&COS_SERIES, a * a)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ulps(a: f64, b: f64) -> f64 {
        ((a - b) / b.abs().max(f64::MIN_POSITIVE)).abs() / f64::EPSILON
    }

    /// The tables hold what their comments say, to the last bit.
    #[test]
    fn series_tables() {
        let factorial = |n: usize| (1..=n).fold(1.0, |f, k| f * k as f64);
        let sign = |k: usize| if k % 2 == 0 { 1.0 } else { -1.0 };
        for (k, &c) in ATANH_SERIES.iter().enumerate() {
            assert_eq!(c, 1.0 / (2 * k + 1) as f64);
        }
        for (k, &c) in SIN_SERIES.iter().enumerate() {
            assert_eq!(c, sign(k) / factorial(2 * k + 1));
        }
        for (k, &c) in COS_SERIES.iter().enumerate() {
            assert_eq!(c, sign(k) / factorial(2 * k));
        }
    }

    #[test]
    fn ln_agrees_with_the_library() {
        let mut worst: f64 = 0.0;
        for k in 1..200_000u64 {
            let x = k as f64 / 200_000.0;
            let (ours, lib) = (ln(x), x.ln());
            if lib != 0.0 {
                worst = worst.max(((ours - lib) / lib).abs());
            }
        }
        assert!(worst < 4.0 * f64::EPSILON, "worst relative error {worst:e}");
        assert_eq!(ln(1.0), 0.0);
        assert!(ulps(ln(f64::MIN_POSITIVE), f64::MIN_POSITIVE.ln()) < 4.0);
        assert!(ulps(ln(1e-300), 1e-300f64.ln()) < 4.0);
    }

    #[test]
    fn cos_2pi_agrees_with_the_library() {
        let mut worst: f64 = 0.0;
        for k in 0..400_000u64 {
            let t = k as f64 / 400_000.0;
            let (ours, lib) = (cos_2pi(t), (std::f64::consts::TAU * t).cos());
            worst = worst.max((ours - lib).abs());
        }
        // Absolute error: near the zeros of cos the library's own argument 2πt is rounded.
        assert!(worst < 4.0 * f64::EPSILON, "worst absolute error {worst:e}");
        assert_eq!(cos_2pi(0.0), 1.0);
        assert_eq!(cos_2pi(0.5), -1.0);
        assert_eq!(cos_2pi(0.25), 0.0);
    }
}
