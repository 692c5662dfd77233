//! The NERSC checksum: the sum, modulo 2^32, of the stored data read as 32-bit unsigned
//! words, after conversion from the file's byte order to the values' own: a single real is
//! one word (its bits), a double two (the low and high halves of its bits).
//!
//! Checked against three readers, which agree: Grid (`Grid/parallelIO/BinaryIO.h`,
//! `NerscChecksum` over the file objects after `be64toh_v`/`be32toh_v`), MILC
//! (`generic/io_lat4.c`, `r_serial_arch`: after `byterevn64`, both words of each double)
//! and QDP++ (`lib/qdp_scalar_specific.cc`, `readArchiv`). All sum what is stored: the two
//! rows of a `4D_SU3_GAUGE` file, not the rebuilt third, in the file's precision. Since
//! the sum is over values, a file has one checksum whatever its byte order.

use super::format::{ByteOrder, Precision};

/// The checksum contribution of `bytes`, stored reals of the given precision and order.
pub(super) fn word_sum(bytes: &[u8], precision: Precision, order: ByteOrder) -> u32 {
    let mut sum = 0u32;
    match precision {
        Precision::Double => {
            for b in bytes.chunks_exact(8) {
                let mut a = [0u8; 8];
                a.copy_from_slice(b);
                let bits = match order {
                    ByteOrder::Big => u64::from_be_bytes(a),
                    ByteOrder::Little => u64::from_le_bytes(a),
                };
                sum = sum
                    .wrapping_add(bits as u32)
                    .wrapping_add((bits >> 32) as u32);
            }
        }
        Precision::Single => {
            for b in bytes.chunks_exact(4) {
                let mut a = [0u8; 4];
                a.copy_from_slice(b);
                let word = match order {
                    ByteOrder::Big => u32::from_be_bytes(a),
                    ByteOrder::Little => u32::from_le_bytes(a),
                };
                sum = sum.wrapping_add(word);
            }
        }
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_double_adds_both_halves_of_its_bits() {
        let x = -1.5f64; // bits 0xbff8000000000000
        let y = 1.0f64 + f64::EPSILON; // bits 0x3ff0000000000001
        let mut be = x.to_be_bytes().to_vec();
        be.extend(y.to_be_bytes());
        let want = 0xbff8_0000u32
            .wrapping_add(0)
            .wrapping_add(0x3ff0_0000)
            .wrapping_add(1);
        assert_eq!(word_sum(&be, Precision::Double, ByteOrder::Big), want);
        let mut le = x.to_le_bytes().to_vec();
        le.extend(y.to_le_bytes());
        assert_eq!(word_sum(&le, Precision::Double, ByteOrder::Little), want);
    }

    #[test]
    fn a_single_is_one_word_and_the_sum_wraps() {
        let bytes: Vec<u8> = [1.0f32, 1.0, 1.0, 1.0]
            .iter()
            .flat_map(|x| x.to_be_bytes())
            .collect();
        // 4 * 0x3f800000 = 0xfe000000; one more wraps.
        assert_eq!(
            word_sum(&bytes, Precision::Single, ByteOrder::Big),
            0xfe00_0000
        );
        let five: Vec<u8> = [1.0f32; 5].iter().flat_map(|x| x.to_be_bytes()).collect();
        assert_eq!(
            word_sum(&five, Precision::Single, ByteOrder::Big),
            0xfe00_0000u32.wrapping_add(0x3f80_0000)
        );
    }
}
