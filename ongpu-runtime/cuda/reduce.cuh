// ongpu CUDA reductions, appended to the prelude in reduction kernels: the accumulator
// arithmetic of sum, min and max (twins of ongpu-runtime/src/reduce/ops.rs), warp and block
// reductions in a fixed order, and the pass in which the last block to finish combines the
// blocks' partial results. No floating-point atomics: a result depends only on the data and
// the launch shape, so it is the same bit for bit from run to run.
namespace ongpu {
namespace red {

// A site's value in the accumulator's type (sums widen: float to double, int to long long).
template <class A, class V> struct lifter {
  static ONGPU_FN A run(V v) { return (A)v; }
};
template <class T> struct lifter<complex<double>, complex<T> > {
  static ONGPU_FN complex<double> run(complex<T> v) { return complex<double>{(double)v.re, (double)v.im}; }
};
template <class A, class V> ONGPU_FN A lift(V v) { return lifter<A, V>::run(v); }

// Sums: floating point in double, integers wrapping in 64 bits (as the host's wrapping_add).
struct Sum {
  static ONGPU_FN double combine(double a, double b) { return a + b; }
  static ONGPU_FN long long combine(long long a, long long b) {
    return (long long)((unsigned long long)a + (unsigned long long)b);
  }
  static ONGPU_FN unsigned long long combine(unsigned long long a, unsigned long long b) { return a + b; }
  static ONGPU_FN complex<double> combine(complex<double> a, complex<double> b) {
    return complex<double>{a.re + b.re, a.im + b.im};
  }
};

// min and max skip NaN and order -0.0 below +0.0: associative and commutative, so the
// result does not depend on the order of the sites.
struct Min {
  static ONGPU_FN float combine(float a, float b) {
    if (a != a || b < a) return b;
    if (b != b || a < b) return a;
    return __uint_as_float(__float_as_uint(a) | __float_as_uint(b));
  }
  static ONGPU_FN double combine(double a, double b) {
    if (a != a || b < a) return b;
    if (b != b || a < b) return a;
    return __longlong_as_double(__double_as_longlong(a) | __double_as_longlong(b));
  }
  static ONGPU_FN int combine(int a, int b) { return b < a ? b : a; }
  static ONGPU_FN unsigned int combine(unsigned int a, unsigned int b) { return b < a ? b : a; }
};
struct Max {
  static ONGPU_FN float combine(float a, float b) {
    if (a != a || b > a) return b;
    if (b != b || a > b) return a;
    return __uint_as_float(__float_as_uint(a) & __float_as_uint(b));
  }
  static ONGPU_FN double combine(double a, double b) {
    if (a != a || b > a) return b;
    if (b != b || a > b) return a;
    return __longlong_as_double(__double_as_longlong(a) & __double_as_longlong(b));
  }
  static ONGPU_FN int combine(int a, int b) { return b > a ? b : a; }
  static ONGPU_FN unsigned int combine(unsigned int a, unsigned int b) { return b > a ? b : a; }
};

template <class A> ONGPU_FN A shfl_down(unsigned mask, A v, unsigned d) { return __shfl_down_sync(mask, v, d); }
ONGPU_FN complex<double> shfl_down(unsigned mask, complex<double> v, unsigned d) {
  return complex<double>{__shfl_down_sync(mask, v.re, d), __shfl_down_sync(mask, v.im, d)};
}

// Loads through L2 only: partial results written by other blocks of the same launch.
template <class A> ONGPU_FN A load_cg(const A* p) { return __ldcg(p); }
ONGPU_FN complex<double> load_cg(const complex<double>* p) {
  const double2 t = __ldcg(reinterpret_cast<const double2*>(p));
  return complex<double>{t.x, t.y};
}

// Combines the values of the first `count` lanes of a warp into lane 0, in a fixed tree.
template <class Op, class A> ONGPU_FN A warp_reduce(A v, unsigned lane, unsigned count) {
  const unsigned mask = count >= 32 ? 0xffffffffu : ((1u << count) - 1u);
#pragma unroll
  for (unsigned d = 16; d > 0; d >>= 1) {
    const A other = shfl_down(mask, v, d);
    if (lane + d < count) v = Op::combine(v, other);
  }
  return v;
}

// Combines the values of a block's threads into thread 0, in a fixed tree. Every thread of
// the block calls it.
template <class Op, class A> ONGPU_FN A block_reduce(A v, A identity) {
  __shared__ A warp_results[32];
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  const unsigned warps = (blockDim.x + 31u) >> 5;
  const unsigned here = blockDim.x - warp * 32u;
  v = warp_reduce<Op>(v, lane, here < 32u ? here : 32u);
  if (lane == 0) warp_results[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < warps ? warp_results[lane] : identity;
    v = warp_reduce<Op>(v, lane, blockDim.x < 32u ? blockDim.x : 32u);
  }
  return v;
}

// The end of a reduction kernel: each block stores its partial result; the last block to
// finish (counted with an integer atomic, which wraps back to 0 for the next launch)
// combines them in block order and writes the result to `result` (mapped host memory).
template <class Op, class A>
ONGPU_FN void finish(A v, A identity, A* partials, unsigned int* ticket, A* result) {
  __shared__ bool last;
  v = block_reduce<Op>(v, identity);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = v;
    __threadfence();
    last = atomicInc(ticket, gridDim.x - 1u) == gridDim.x - 1u;
  }
  __syncthreads();
  if (!last) return;
  A acc = identity;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) acc = Op::combine(acc, load_cg(partials + b));
  acc = block_reduce<Op>(acc, identity);
  if (threadIdx.x == 0) *result = acc;
}


}  // namespace red

// Σ |c|² over an element's real components, in double (Field::norm2).
template <class T> ONGPU_FN double norm2_wide(const T& x) {
  typedef typename element<T>::scalar S;
  const S* c = reinterpret_cast<const S*>(&x);
  double acc = 0.0;
#pragma unroll
  for (int k = 0; k < element<T>::C; k++) acc += (double)c[k] * (double)c[k];
  return acc;
}

// Σ conj(x_k) y_k over an element's complex components, in double (Field::dot).
template <class T> ONGPU_FN complex<double> dot_wide(const T& x, const T& y) {
  typedef typename element<T>::scalar S;
  const S* a = reinterpret_cast<const S*>(&x);
  const S* b = reinterpret_cast<const S*>(&y);
  double re = 0.0, im = 0.0;
#pragma unroll
  for (int k = 0; k < element<T>::C; k += 2) {
    re += (double)a[k] * (double)b[k] + (double)a[k + 1] * (double)b[k + 1];
    im += (double)a[k] * (double)b[k + 1] - (double)a[k + 1] * (double)b[k];
  }
  return complex<double>{re, im};
}
ONGPU_FN double dot_wide(const float& x, const float& y) { return (double)x * (double)y; }
ONGPU_FN double dot_wide(const double& x, const double& y) { return x * y; }

}  // namespace ongpu
