//! The kernels of the `histogram` example (the tests compile and check them too): counts of
//! the 256 byte values of a byte array, stored as little-endian `u32` words (4 bytes each).
//! Each kernel is a grid-stride loop, so any grid covers any length.

/// Number of bins: one per byte value.
pub const BINS: usize = 256;
/// Copies of the histogram in [`histogram_lanes`]: one per lane of a warp.
pub const LANES: usize = 32;

/// One atomic add on the global histogram per byte (the lecture's first GPU version): 256
/// counters that every thread of the grid contends for.
#[ongpu::kernel]
pub fn histogram_global(words: &[u32], bins: &mut [u32]) {
    let stride = (grid_dim().x * block_dim().x) as usize;
    let mut i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    while i < words.len() {
        let w = words[i];
        atomic_add(&mut bins[w & 255], 1);
        atomic_add(&mut bins[(w >> 8) & 255], 1);
        atomic_add(&mut bins[(w >> 16) & 255], 1);
        atomic_add(&mut bins[w >> 24], 1);
        i += stride;
    }
}

/// A histogram per block in shared memory (the lecture's second version): the block counts
/// its bytes with shared-memory atomics, then adds its 256 counts to the global histogram.
#[ongpu::kernel]
pub fn histogram_shared(words: &[u32], bins: &mut [u32]) {
    let local = shared!([u32; BINS]);
    let t = thread_idx().x as usize;
    let threads = block_dim().x as usize;
    let mut b = t;
    while b < BINS {
        local[b] = 0;
        b += threads;
    }
    sync_threads();
    let stride = grid_dim().x as usize * threads;
    let mut i = block_idx().x as usize * threads + t;
    while i < words.len() {
        let w = words[i];
        atomic_add(&mut local[w & 255], 1);
        atomic_add(&mut local[(w >> 8) & 255], 1);
        atomic_add(&mut local[(w >> 16) & 255], 1);
        atomic_add(&mut local[w >> 24], 1);
        i += stride;
    }
    sync_threads();
    let mut b = t;
    while b < BINS {
        let count = local[b];
        if count > 0 {
            atomic_add(&mut bins[b], count);
        }
        b += threads;
    }
}

/// A shared-memory histogram per block with one copy per warp lane: `local[bin][lane]`
/// lies in bank `lane`, so the 32 lanes of a warp never conflict, whatever their bytes.
/// Each thread loads 4 words (each load coalesced across the warp) before counting them, to
/// keep enough reads in flight. The copies are summed with a rotated lane order, so that the
/// lanes of a warp again read 32 different banks.
#[ongpu::kernel]
pub fn histogram_lanes(words: &[u32], bins: &mut [u32]) {
    let local = shared!([[u32; LANES]; BINS]);
    let t = thread_idx().x as usize;
    let threads = block_dim().x as usize;
    let lane = t % LANES;
    let mut z = t;
    while z < BINS * LANES {
        local[z / LANES][z % LANES] = 0;
        z += threads;
    }
    sync_threads();
    let n = words.len();
    let stride = grid_dim().x as usize * threads;
    let mut i = block_idx().x as usize * threads + t;
    while i + 3 * stride < n {
        let w0 = words[i];
        let w1 = words[i + stride];
        let w2 = words[i + 2 * stride];
        let w3 = words[i + 3 * stride];
        for byte in 0..4u32 {
            let s = 8 * byte;
            atomic_add(&mut local[(w0 >> s) & 255][lane], 1);
            atomic_add(&mut local[(w1 >> s) & 255][lane], 1);
            atomic_add(&mut local[(w2 >> s) & 255][lane], 1);
            atomic_add(&mut local[(w3 >> s) & 255][lane], 1);
        }
        i += 4 * stride;
    }
    while i < n {
        let w = words[i];
        for byte in 0..4u32 {
            atomic_add(&mut local[(w >> (8 * byte)) & 255][lane], 1);
        }
        i += stride;
    }
    sync_threads();
    let mut b = t;
    while b < BINS {
        let mut count = 0u32;
        for c in 0..LANES {
            count += local[b][(b + c) % LANES];
        }
        if count > 0 {
            atomic_add(&mut bins[b], count);
        }
        b += threads;
    }
}

/// Reads every word once and nothing else (each thread XORs its words and writes one word):
/// the read bandwidth the histograms are measured against.
#[ongpu::kernel]
pub fn read_words(words: &[u32], sink: &mut [u32]) {
    let n = words.len();
    let stride = (grid_dim().x * block_dim().x) as usize;
    let first = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    let mut i = first;
    let mut acc = 0u32;
    while i + 3 * stride < n {
        acc ^= words[i] ^ words[i + stride] ^ words[i + 2 * stride] ^ words[i + 3 * stride];
        i += 4 * stride;
    }
    while i < n {
        acc ^= words[i];
        i += stride;
    }
    sink[first] = acc;
}

/// The bytes of `words`, counted on the host.
pub fn reference(words: &[u32]) -> Vec<u64> {
    let mut h = vec![0u64; BINS];
    for w in words {
        for byte in w.to_le_bytes() {
            h[byte as usize] += 1;
        }
    }
    h
}
