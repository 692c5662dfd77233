//! Exact sums of floating-point values: every `f64` is a multiple of 2^-1074 below 2^1024,
//! so a fixed-point number of 2144 bits holds any sum of fewer than 2^32 of them without
//! rounding. Adding into it is integer arithmetic, which does not depend on the order of
//! the additions: a sum over a lattice cut over ranks is the same bits however the lattice
//! is cut, and it is the correctly rounded sum (one rounding, at the end).
//!
//! The number is kept as 32-bit digits in `i64` slots whose carries are propagated lazily
//! (every slot has room for 2^31 additions before a normalisation).

/// Bits below 2^0 (the least significant bit of the number is 2^-1074).
const FRACTION_BITS: i64 = 1074;
/// 32-bit digits: 67 × 32 = 2144 bits, past 2^1024 · 2^32 (the largest sum of fewer than
/// 2^32 finite values) and a sign.
const DIGITS: usize = 67;
/// Additions after which the digits are normalised.
const NORMALISE_AFTER: u64 = 1 << 30;

/// An exact sum of `f64` values (NaN and infinities are remembered apart, as IEEE addition
/// would treat them).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExactSum {
    digits: [i64; DIGITS],
    /// Bit 0: a NaN was added (or +∞ and −∞); bit 1: +∞; bit 2: −∞.
    special: u64,
    /// Additions since the last normalisation.
    pending: u64,
}

// SAFETY: `repr(C)` with only `i64`/`u64` fields: no padding, every bit pattern valid.
unsafe impl bytemuck::Zeroable for ExactSum {}
// SAFETY: as above.
unsafe impl bytemuck::Pod for ExactSum {}

impl Default for ExactSum {
    fn default() -> Self {
        ExactSum::ZERO
    }
}

impl ExactSum {
    /// The empty sum.
    pub const ZERO: ExactSum = ExactSum {
        digits: [0; DIGITS],
        special: 0,
        pending: 0,
    };

    /// `self + x`, exactly.
    #[inline]
    pub fn plus(mut self, x: f64) -> ExactSum {
        if !x.is_finite() {
            self.special |= if x.is_nan() {
                1
            } else if x > 0.0 {
                2
            } else {
                4
            };
            return self;
        }
        let bits = x.to_bits();
        let exponent = ((bits >> 52) & 0x7ff) as i64;
        let fraction = bits & ((1u64 << 52) - 1);
        // x = ±mantissa · 2^(shift - 1074).
        let (mantissa, shift) = if exponent == 0 {
            (fraction, 0)
        } else {
            (fraction | (1u64 << 52), exponent - 1)
        };
        if mantissa == 0 {
            return self;
        }
        let negative = bits >> 63 == 1;
        let (digit, offset) = ((shift / 32) as usize, (shift % 32) as u32);
        let wide = (mantissa as u128) << offset;
        for k in 0..3 {
            let part = ((wide >> (32 * k)) & 0xffff_ffff) as i64;
            if part != 0 {
                let slot = &mut self.digits[digit + k];
                *slot = if negative { *slot - part } else { *slot + part };
            }
        }
        self.pending += 1;
        if self.pending >= NORMALISE_AFTER {
            self.normalise();
        }
        self
    }

    /// `self + other`, exactly.
    pub fn merge(mut self, mut other: ExactSum) -> ExactSum {
        self.normalise();
        other.normalise();
        for (a, b) in self.digits.iter_mut().zip(other.digits) {
            *a += b;
        }
        self.special |= other.special;
        self.pending = 1;
        self.normalise();
        self
    }

    /// Carries propagated: every digit but the last in `0..2^32`, the last signed.
    fn normalise(&mut self) {
        let mut carry = 0i64;
        for d in &mut self.digits[..DIGITS - 1] {
            let v = *d + carry;
            *d = v & 0xffff_ffff;
            carry = v >> 32; // arithmetic shift: floor division
        }
        self.digits[DIGITS - 1] += carry;
        self.pending = 0;
    }

    /// The sum rounded to the nearest `f64` (ties to even): `±∞` past the largest, NaN if
    /// a NaN, or both infinities, were added.
    pub fn value(&self) -> f64 {
        match self.special {
            0 => {}
            2 => return f64::INFINITY,
            4 => return f64::NEG_INFINITY,
            _ => return f64::NAN,
        }
        let mut n = *self;
        n.normalise();
        let negative = n.digits[DIGITS - 1] < 0;
        if negative {
            // Two's complement of the whole number, digit by digit.
            let mut carry = 1i64;
            for d in &mut n.digits[..DIGITS - 1] {
                let v = (!*d & 0xffff_ffff) + carry;
                *d = v & 0xffff_ffff;
                carry = v >> 32;
            }
            n.digits[DIGITS - 1] = -n.digits[DIGITS - 1] - 1 + carry;
        }
        let magnitude = n.rounded_magnitude();
        if negative {
            -magnitude
        } else {
            magnitude
        }
    }

    /// The non-negative number (digits normalised) rounded to `f64`.
    fn rounded_magnitude(&self) -> f64 {
        let Some(top) = self.digits.iter().rposition(|&d| d != 0) else {
            return 0.0;
        };
        // Bit length of the whole number.
        let top_bits = 64 - (self.digits[top] as u64).leading_zeros() as i64;
        let length = 32 * top as i64 + top_bits;
        let bit = |i: i64| -> u64 {
            let (d, o) = ((i / 32) as usize, i % 32);
            ((self.digits[d] as u64) >> o) & 1
        };
        if length <= 53 {
            let m = (0..length).fold(0u64, |m, i| m | (bit(i) << i));
            return scale(m as f64, -FRACTION_BITS);
        }
        // The top 53 bits, the next one (half) and whether any below it is set (sticky).
        let low = length - 53;
        let mut mantissa = (low..length).fold(0u64, |m, i| m | (bit(i) << (i - low)));
        let half = bit(low - 1) == 1;
        let sticky = (0..low - 1).any(|i| bit(i) == 1);
        if half && (sticky || mantissa & 1 == 1) {
            mantissa += 1;
        }
        scale(mantissa as f64, low - FRACTION_BITS)
    }
}

/// `x · 2^e` for an `x` below 2^54, without intermediate under- or overflow.
fn scale(mut x: f64, mut e: i64) -> f64 {
    let pow2 = |k: i64| f64::from_bits(((k + 1023) as u64) << 52);
    while e > 1000 {
        x *= pow2(1000);
        e -= 1000;
    }
    while e < -1000 {
        x *= pow2(-1000);
        e += 1000;
    }
    x * pow2(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exact(xs: &[f64]) -> f64 {
        xs.iter().fold(ExactSum::ZERO, |s, &x| s.plus(x)).value()
    }

    #[test]
    fn sums_that_rounding_loses_come_out_exact() {
        assert_eq!(exact(&[1e16, 1.0, -1e16]), 1.0);
        assert_eq!(exact(&[1.0, 1e-300, -1.0]), 1e-300);
        assert_eq!(exact(&[f64::MAX, f64::MAX, -f64::MAX]), f64::MAX);
        assert_eq!(
            exact(&[f64::MIN_POSITIVE / 4.0; 3]),
            0.75 * f64::MIN_POSITIVE
        );
        assert_eq!(exact(&[5e-324, 5e-324]), 1e-323);
        assert_eq!(exact(&[]), 0.0);
        assert_eq!(exact(&[-2.5, 0.5]), -2.0);
        assert_eq!(exact(&[f64::MAX, f64::MAX]), f64::INFINITY);
        assert!(exact(&[f64::INFINITY, f64::NEG_INFINITY]).is_nan());
        assert_eq!(exact(&[1.0, f64::NEG_INFINITY]), f64::NEG_INFINITY);
    }

    #[test]
    fn rounding_is_to_nearest_even() {
        // 1 + 2^-53 is a tie: to even (1); with a little more it rounds up.
        let e = 2f64.powi(-53);
        assert_eq!(exact(&[1.0, e]), 1.0);
        assert_eq!(exact(&[1.0, e, e * e]), 1.0 + 2.0 * e);
        assert_eq!(exact(&[1.0 + 2.0 * e, e]), 1.0 + 4.0 * e);
    }

    #[test]
    fn the_order_and_the_grouping_do_not_matter() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let xs: Vec<f64> = (0..5000)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let m = (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
                m * 2f64.powi((state % 80) as i32 - 40)
            })
            .collect();
        let forward = exact(&xs);
        let mut reversed = xs.clone();
        reversed.reverse();
        assert_eq!(exact(&reversed).to_bits(), forward.to_bits());
        let halves = xs[..1234]
            .iter()
            .fold(ExactSum::ZERO, |s, &x| s.plus(x))
            .merge(xs[1234..].iter().fold(ExactSum::ZERO, |s, &x| s.plus(x)));
        assert_eq!(halves.value().to_bits(), forward.to_bits());
        // Against a sum in a wider type: the pairs of doubles of a two-sum.
        let (mut hi, mut lo) = (0.0f64, 0.0f64);
        for &x in &xs {
            let s = hi + x;
            let t = s - hi;
            lo += (hi - (s - t)) + (x - t);
            hi = s;
        }
        assert!((forward - (hi + lo)).abs() <= forward.abs() * 1e-15);
    }
}
