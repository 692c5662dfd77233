// ongpu CUDA exact sums, appended after reduce.cuh in the exact-sum kernels of reductions
// over MPI ranks (and only there: the ordinary reductions use no atomics on their values).
namespace ongpu {
namespace red {

// Exact sums (twin of ongpu-runtime/src/reduce/exact.rs): every double is a signed integer
// of 32-bit digits times 2^-1074, added digit by digit into the block's integer slots in
// shared memory. Integer addition does not depend on order, so the result is the same bits
// for every cut of a lattice and every launch shape: what sums over MPI ranks need.
namespace exact {
#define ONGPU_EXACT_DIGITS 67
// Words of one sum as the host's ExactSum lays it out: the digits, the special flags (bit 0
// NaN, bit 1 +inf, bit 2 -inf) and the additions since the digits were normalised.
#define ONGPU_EXACT_WORDS 69
// Words of one sum in a launch's accumulator: the digits and the special flags.
#define ONGPU_EXACT_PARTIAL 68

// The block's sums (at most two: the real and imaginary parts of a complex sum).
struct block_sums {
  long long digits[2 * ONGPU_EXACT_DIGITS];
  unsigned long long special[2];
};

ONGPU_FN void clear(block_sums& s) {
  for (unsigned t = threadIdx.x; t < 2 * ONGPU_EXACT_DIGITS; t += blockDim.x) s.digits[t] = 0;
  if (threadIdx.x < 2) s.special[threadIdx.x] = 0;
  __syncthreads();
}

// x = (p0 + p1·2^32 + p2·2^64)·2^(32·digit − 1074), the parts negated for a negative x;
// digit −1 for zeros and non-finite values (which set `special`).
struct split {
  int digit;
  long long p0, p1, p2;
  unsigned long long special;
};

ONGPU_FN split split_of(double x) {
  split s{-1, 0, 0, 0, 0};
  const unsigned long long bits = (unsigned long long)__double_as_longlong(x);
  const int e = (int)((bits >> 52) & 0x7ff);
  const unsigned long long f = bits & ((1ull << 52) - 1ull);
  const bool negative = (bits >> 63) != 0;
  if (e == 0x7ff) {
    s.special = f ? 1ull : (negative ? 4ull : 2ull);
    return s;
  }
  const unsigned long long m = e == 0 ? f : (f | (1ull << 52));
  if (m == 0) return s;
  const int shift = e == 0 ? 0 : e - 1;
  const int offset = shift & 31;
  s.digit = shift >> 5;
  const unsigned long long lo = m << offset;
  const unsigned long long hi = offset ? (m >> (64 - offset)) : 0ull;
  s.p0 = (long long)(lo & 0xffffffffull);
  s.p1 = (long long)(lo >> 32);
  s.p2 = (long long)hi;
  if (negative) {
    s.p0 = -s.p0;
    s.p1 = -s.p1;
    s.p2 = -s.p2;
  }
  return s;
}

ONGPU_FN void add_digits(long long* d, int digit, long long a, long long b, long long c) {
  atomicAdd(reinterpret_cast<unsigned long long*>(d + digit), (unsigned long long)a);
  atomicAdd(reinterpret_cast<unsigned long long*>(d + digit + 1), (unsigned long long)b);
  if (c != 0) atomicAdd(reinterpret_cast<unsigned long long*>(d + digit + 2), (unsigned long long)c);
}

// Adds x to sum `part`. Every thread of the block calls it the same number of times (a
// thread without a site adds 0). A full warp first adds the parts of its lanes that share
// a digit with shuffles (32 values below 2^32 each fit a long long) and lets one lane add
// them to shared memory, so that the slots see one atomic per warp and digit.
ONGPU_FN void add_part(block_sums& s, int part, double x) {
  const split v = split_of(x);
  if (v.special) atomicOr(&s.special[part], v.special);
  long long* d = s.digits + part * ONGPU_EXACT_DIGITS;
  const bool full_warp = (threadIdx.x | 31u) < blockDim.x;
  if (!full_warp) {
    if (v.digit >= 0) add_digits(d, v.digit, v.p0, v.p1, v.p2);
    return;
  }
  const unsigned all = 0xffffffffu;
  const int lane = (int)(threadIdx.x & 31u);
  unsigned todo = __ballot_sync(all, v.digit >= 0);
  while (todo) {
    const int leader = __ffs(todo) - 1;
    const int digit = __shfl_sync(all, v.digit, leader);
    const bool mine = v.digit == digit;
    long long a = mine ? v.p0 : 0, b = mine ? v.p1 : 0, c = mine ? v.p2 : 0;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
      a += __shfl_xor_sync(all, a, o);
      b += __shfl_xor_sync(all, b, o);
      c += __shfl_xor_sync(all, c, o);
    }
    if (lane == leader) add_digits(d, digit, a, b, c);
    todo &= ~__ballot_sync(all, mine);
  }
}

ONGPU_FN void add(block_sums& s, double x) { add_part(s, 0, x); }
ONGPU_FN void add(block_sums& s, float x) { add_part(s, 0, (double)x); }
template <class T> ONGPU_FN void add(block_sums& s, complex<T> z) {
  add_part(s, 0, (double)z.re);
  add_part(s, 1, (double)z.im);
}

// The end of an exact reduction: each block propagates the carries of its P sums (so that
// the digits of many blocks can be added without overflow: each is below 2^32, and a grid
// has far fewer than 2^31 blocks) and adds them to the launch's accumulator in global
// memory with 64-bit integer atomics (order-free, like every addition here); the last block
// to finish writes the P sums in the host's layout to `result` (their digits not normalised:
// `pending` counts the blocks added) and zeroes the accumulator for the next launch. One
// block per resident slot of the device, and none reads the others' partials one by one.
template <int P>
ONGPU_FN void finish(block_sums& s, long long* acc, unsigned int* ticket, long long* result) {
  __shared__ bool last;
  __syncthreads();
  if (threadIdx.x < P) {
    long long* d = s.digits + threadIdx.x * ONGPU_EXACT_DIGITS;
    long long carry = 0;
    for (int k = 0; k < ONGPU_EXACT_DIGITS - 1; k++) {
      const long long v = d[k] + carry;
      d[k] = v & 0xffffffffll;
      carry = v >> 32;
    }
    d[ONGPU_EXACT_DIGITS - 1] += carry;
  }
  __syncthreads();
  for (unsigned t = threadIdx.x; t < P * ONGPU_EXACT_PARTIAL; t += blockDim.x) {
    const unsigned part = t / ONGPU_EXACT_PARTIAL, k = t % ONGPU_EXACT_PARTIAL;
    unsigned long long* a = reinterpret_cast<unsigned long long*>(acc + t);
    if (k < ONGPU_EXACT_DIGITS) {
      const long long v = s.digits[part * ONGPU_EXACT_DIGITS + k];
      if (v != 0) atomicAdd(a, (unsigned long long)v);
    } else if (s.special[part] != 0) {
      atomicOr(a, s.special[part]);
    }
  }
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last = atomicInc(ticket, gridDim.x - 1u) == gridDim.x - 1u;
  __syncthreads();
  if (!last) return;
  __threadfence();  // acquire: the other blocks' additions before the reads below
  for (unsigned t = threadIdx.x; t < P * ONGPU_EXACT_PARTIAL; t += blockDim.x) {
    const unsigned part = t / ONGPU_EXACT_PARTIAL, k = t % ONGPU_EXACT_PARTIAL;
    result[part * ONGPU_EXACT_WORDS + k] = __ldcg(acc + t);
    acc[t] = 0;
    if (k == ONGPU_EXACT_DIGITS) result[part * ONGPU_EXACT_WORDS + k + 1] = (long long)gridDim.x;
  }
}
}  // namespace exact

}  // namespace red
}  // namespace ongpu
