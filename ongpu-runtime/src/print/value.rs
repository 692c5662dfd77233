//! [`PrintValue`]: an argument of a print as the GPU recorded it (a type tag and its bits),
//! decoded into the Rust type the body's argument has, so that it formats as that type does
//! on the CPU.

use crate::types::{ColorMatrix, ColorVector};
use num_complex::Complex;
use std::fmt;

/// One decoded argument: the value, as the Rust type of the body's expression (`isize` and
/// `usize` arrive as `I64` and `U64`, which print alike). Its `Debug` is the value's.
#[derive(Clone, Copy, PartialEq)]
#[allow(missing_docs)]
pub enum PrintValue {
    Bool(bool),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    F32(f32),
    F64(f64),
    C32(Complex<f32>),
    C64(Complex<f64>),
    V32(ColorVector<f32>),
    V64(ColorVector<f64>),
    M32(ColorMatrix<f32>),
    M64(ColorMatrix<f64>),
}

/// The 32-bit words of `n` reals of 32 (`wide == false`) or 64 bits, in order.
fn reals<const N: usize>(words: &[u32], wide: bool) -> [f64; N] {
    std::array::from_fn(|k| {
        if wide {
            f64::from_bits(u64::from(words[2 * k]) | (u64::from(words[2 * k + 1]) << 32))
        } else {
            f64::from(f32::from_bits(words[k]))
        }
    })
}

fn complexes<T: Copy, const N: usize>(r: &[f64], cast: fn(f64) -> T) -> [Complex<T>; N] {
    std::array::from_fn(|k| Complex::new(cast(r[2 * k]), cast(r[2 * k + 1])))
}

impl PrintValue {
    /// The number of 32-bit words the value of `tag` takes in a record (the prelude's
    /// `print_arg<T>::words`), or `None` for an unknown tag.
    pub fn words(tag: u32) -> Option<usize> {
        Some(match tag {
            0..=3 | 5..=7 | 9 => 1,
            4 | 8 | 10 | 11 => 2,
            12 => 4,
            13 => 6,
            14 => 12,
            15 => 18,
            16 => 36,
            _ => return None,
        })
    }

    /// Decodes a value of `tag` from its words (`words(tag)` of them); `None` for an
    /// unknown tag or too few words.
    pub fn decode(tag: u32, words: &[u32]) -> Option<Self> {
        let n = Self::words(tag)?;
        let w = words.get(..n)?;
        let wide = || u64::from(w[0]) | (u64::from(w[1]) << 32);
        let f32_of = |x: f64| x as f32;
        let f64_of = |x: f64| x;
        Some(match tag {
            0 => PrintValue::Bool(w[0] != 0),
            1 => PrintValue::I8(w[0] as i8),
            2 => PrintValue::I16(w[0] as i16),
            3 => PrintValue::I32(w[0] as i32),
            4 => PrintValue::I64(wide() as i64),
            5 => PrintValue::U8(w[0] as u8),
            6 => PrintValue::U16(w[0] as u16),
            7 => PrintValue::U32(w[0]),
            8 => PrintValue::U64(wide()),
            9 => PrintValue::F32(f32::from_bits(w[0])),
            10 => PrintValue::F64(f64::from_bits(wide())),
            11 => PrintValue::C32(complexes::<f32, 1>(&reals::<2>(w, false), f32_of)[0]),
            12 => PrintValue::C64(complexes::<f64, 1>(&reals::<2>(w, true), f64_of)[0]),
            13 => PrintValue::V32(ColorVector::new(complexes(&reals::<6>(w, false), f32_of))),
            14 => PrintValue::V64(ColorVector::new(complexes(&reals::<6>(w, true), f64_of))),
            15 => {
                let z: [Complex<f32>; 9] = complexes(&reals::<18>(w, false), f32_of);
                PrintValue::M32(ColorMatrix::new([
                    [z[0], z[1], z[2]],
                    [z[3], z[4], z[5]],
                    [z[6], z[7], z[8]],
                ]))
            }
            16 => {
                let z: [Complex<f64>; 9] = complexes(&reals::<18>(w, true), f64_of);
                PrintValue::M64(ColorMatrix::new([
                    [z[0], z[1], z[2]],
                    [z[3], z[4], z[5]],
                    [z[6], z[7], z[8]],
                ]))
            }
            _ => return None,
        })
    }
}

/// `fmt::$trait` of the value, for the variants whose type has it; the others answer
/// `fmt::Error` (never reached: rustc checks each print's format against the arguments'
/// real types in the CPU form of the body).
macro_rules! forward {
    ($trait:ident: all) => {
        forward!($trait: Bool, I8, I16, I32, I64, U8, U16, U32, U64, F32, F64, C32, C64, V32,
            V64, M32, M64; complete);
    };
    ($trait:ident: $($variant:ident),*; complete) => {
        impl fmt::$trait for PrintValue {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    $(PrintValue::$variant(v) => fmt::$trait::fmt(v, f),)*
                }
            }
        }
    };
    ($trait:ident: $($variant:ident),*) => {
        impl fmt::$trait for PrintValue {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    $(PrintValue::$variant(v) => fmt::$trait::fmt(v, f),)*
                    _ => Err(fmt::Error),
                }
            }
        }
    };
}

forward!(Display: all);
forward!(Debug: all);
forward!(LowerExp: I8, I16, I32, I64, U8, U16, U32, U64, F32, F64, C32, C64, V32, V64, M32, M64);
forward!(UpperExp: I8, I16, I32, I64, U8, U16, U32, U64, F32, F64, C32, C64, V32, V64, M32, M64);
forward!(LowerHex: I8, I16, I32, I64, U8, U16, U32, U64);
forward!(UpperHex: I8, I16, I32, I64, U8, U16, U32, U64);
forward!(Octal: I8, I16, I32, I64, U8, U16, U32, U64);
forward!(Binary: I8, I16, I32, I64, U8, U16, U32, U64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoded_values_format_as_their_types() {
        let x = -1.5e-7f32;
        let v = PrintValue::decode(9, &[x.to_bits()]).unwrap();
        assert_eq!(format!("{v} {v:?} {v:.3e}"), format!("{x} {x:?} {x:.3e}"));
        let y = std::f64::consts::PI;
        let bits = y.to_bits();
        let w = [bits as u32, (bits >> 32) as u32];
        assert_eq!(
            format!("{:.12}", PrintValue::decode(10, &w).unwrap()),
            format!("{y:.12}")
        );
        assert_eq!(
            format!("{:x}", PrintValue::decode(3, &[(-2i32) as u32]).unwrap()),
            "fffffffe"
        );
        assert_eq!(
            format!("{}", PrintValue::decode(1, &[(-3i8) as u8 as u32]).unwrap()),
            "-3"
        );
        let z = Complex::new(1.25f32, -2.0);
        let c = PrintValue::decode(11, &[z.re.to_bits(), z.im.to_bits()]).unwrap();
        assert_eq!(format!("{c}"), format!("{z}"));
        let m = ColorMatrix::<f32>::identity();
        let words: Vec<u32> = bytemuck::cast_slice::<_, u32>(&[m]).to_vec();
        assert_eq!(PrintValue::decode(15, &words), Some(PrintValue::M32(m)));
        assert_eq!(PrintValue::decode(99, &[0]), None);
        assert_eq!(PrintValue::decode(16, &[0; 35]), None);
    }
}
