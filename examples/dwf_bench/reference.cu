// The domain-wall Dslash of the benchmark, written by hand in CUDA C++ on the fields'
// AoSoA<32> layout, after the Wilson reference of wilson_bench (whose `hop` it calls; this
// file is compiled appended to that one): out(x, s) = H psi(x, s) for every even x and every
// s, one thread per 5-D site. A block is 32 sites by 8 slices: its warps take the same 32
// sites at 8 values of s, so that each link is loaded from memory once and read by the other
// warps through L1. A 5-D spinor field holds 24 Ls reals per 4-D site, component
// 24 s + 6 spin + 2 colour (+1 imaginary).

template <typename T>
__device__ __forceinline__ void dwf_dslash_even(T* __restrict__ out, const T* __restrict__ u,
                                                const T* __restrict__ psi, Geom g, unsigned ls) {
  const unsigned n = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned s = blockIdx.y * blockDim.y + threadIdx.y;
  if (n >= g.H || s >= ls) return;
  int c[4];
  coords(g, n, c);
  cplx<T> acc[4][3];
#pragma unroll
  for (int sp = 0; sp < 4; sp++)
#pragma unroll
    for (int k = 0; k < 3; k++) acc[sp][k] = {0, 0};
  unsigned f[4], b[4];
#pragma unroll
  for (int mu = 0; mu < 4; mu++) {
    int cf[4] = {c[0], c[1], c[2], c[3]};
    cf[mu] = cf[mu] + 1 == g.L[mu] ? 0 : cf[mu] + 1;
    int cb[4] = {c[0], c[1], c[2], c[3]};
    cb[mu] = cb[mu] == 0 ? g.L[mu] - 1 : cb[mu] - 1;
    f[mu] = eo_index(g, cf);
    b[mu] = eo_index(g, cb);
  }
  const unsigned cs = 24 * ls, off = 24 * s;
  hop<0, -1, false>(acc, u, n, psi, f[0], off, cs);
  hop<0, +1, true>(acc, u, b[0], psi, b[0], off, cs);
  hop<1, -1, false>(acc, u, n, psi, f[1], off, cs);
  hop<1, +1, true>(acc, u, b[1], psi, b[1], off, cs);
  hop<2, -1, false>(acc, u, n, psi, f[2], off, cs);
  hop<2, +1, true>(acc, u, b[2], psi, b[2], off, cs);
  hop<3, -1, false>(acc, u, n, psi, f[3], off, cs);
  hop<3, +1, true>(acc, u, b[3], psi, b[3], off, cs);
#pragma unroll
  for (int sp = 0; sp < 4; sp++)
#pragma unroll
    for (int k = 0; k < 3; k++) {
      out[component_of(n, off + 6 * sp + 2 * k, cs)] = acc[sp][k].re;
      out[component_of(n, off + 6 * sp + 2 * k + 1, cs)] = acc[sp][k].im;
    }
}

#define DWF_KERNELS(T)                                                                       \
  extern "C" __global__ void dwf_##T(T* __restrict__ out, const T* __restrict__ u,            \
                                     const T* __restrict__ psi, Geom g, unsigned ls) {        \
    dwf_dslash_even<T>(out, u, psi, g, ls);                                                  \
  }
DWF_KERNELS(float)
DWF_KERNELS(double)
