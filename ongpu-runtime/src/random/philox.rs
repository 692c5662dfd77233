//! The Philox-4x32-10 block function (Salmon, Moraes, Dror, Shaw, "Parallel random numbers:
//! as easy as 1, 2, 3", SC'11): a keyed bijection of 128-bit counters, so that any draw is
//! computed from its coordinates alone, with no state carried between sites or calls.

const M0: u32 = 0xD251_1F53;
const M1: u32 = 0xCD9E_8D57;
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

#[inline(always)]
fn mul_hi_lo(a: u32, b: u32) -> (u32, u32) {
    let p = a as u64 * b as u64;
    ((p >> 32) as u32, p as u32)
}

/// Ten rounds of Philox-4x32 on `ctr` with `key` (the CUDA twin is `ongpu::philox` in
/// `cuda/random.cuh`).
#[inline]
pub fn philox4x32_10(mut ctr: [u32; 4], mut key: [u32; 2]) -> [u32; 4] {
    for round in 0..10 {
        if round > 0 {
            key[0] = key[0].wrapping_add(W0);
            key[1] = key[1].wrapping_add(W1);
        }
        let (hi0, lo0) = mul_hi_lo(M0, ctr[0]);
        let (hi1, lo1) = mul_hi_lo(M1, ctr[2]);
        ctr = [hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0];
    }
    ctr
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The known-answer vectors of Random123 (`kat_vectors`, philox4x32 with 10 rounds).
    #[test]
    fn known_answers() {
        assert_eq!(
            philox4x32_10([0; 4], [0; 2]),
            [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
        );
        assert_eq!(
            philox4x32_10([u32::MAX; 4], [u32::MAX; 2]),
            [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]
        );
        assert_eq!(
            philox4x32_10(
                [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
                [0xa4093822, 0x299f31d0]
            ),
            [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]
        );
    }
}
