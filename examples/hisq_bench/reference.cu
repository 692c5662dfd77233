// The benchmark's reference: the even-odd HISQ Dslash, written by hand in CUDA C++ (no
// ongpu prelude) on the fields' own layout (AoSoA<32>, the library's). Compiled by NVRTC in
// the benchmark's process and given the fields' device addresses.
//
//   chi(x) = sum_mu [ F_mu(x) psi(x+mu) - F_mu(x-mu)^dagger psi(x-mu)
//                   + N_mu(x) psi(x+3mu) - N_mu(x-3mu)^dagger psi(x-3mu) ]   for every even x
//
// Sites are in even-odd order (site = parity * V/2 + lex / 2, lex with x fastest). Each link
// field holds 4 matrices per site: component c = 18 * mu + 2 * (3 * a + b) (+1 for the
// imaginary part) of 72; psi and chi have 6 components (2 * a, +1). Component c of site s
// is at (s / 32) * C * 32 + c * 32 + s % 32. Loads are read-only (__ldg) and coalesced
// (consecutive threads read consecutive sites of one component); one thread per even site,
// the neighbours found by index arithmetic.
typedef unsigned long long u64;

__device__ __forceinline__ u64 component(u64 s, int c, int C) {
  return (s >> 5) * (u64)(C * 32) + (u64)c * 32 + (s & 31);
}

struct Geom { int L[4]; unsigned V, H; };

__device__ __forceinline__ unsigned eo_index(const Geom& g, const int c[4]) {
  unsigned lex = c[0] + g.L[0] * (c[1] + g.L[1] * (c[2] + g.L[2] * c[3]));
  unsigned p = (c[0] + c[1] + c[2] + c[3]) & 1;
  return p * g.H + lex / 2;
}

__device__ __forceinline__ void coords(const Geom& g, unsigned eo, int c[4]) {
  unsigned p = eo >= g.H;
  unsigned r = 2 * (eo - p * g.H);
  c[0] = r % g.L[0]; r /= g.L[0];
  c[1] = r % g.L[1]; r /= g.L[1];
  c[2] = r % g.L[2]; r /= g.L[2];
  c[3] = r;
  if (((c[0] + c[1] + c[2] + c[3]) & 1) != p) c[0] += 1;
}

// acc += U(s) pf - U(sb)^dagger pb for the links u of direction mu.
template <typename T>
__device__ __forceinline__ void hop(T acc[6], const T* __restrict__ u, int mu, unsigned s,
                                    unsigned sb, const T pf[6], const T pb[6]) {
#pragma unroll
  for (int a = 0; a < 3; a++) {
#pragma unroll
    for (int k = 0; k < 3; k++) {
      const T ur = __ldg(&u[component(s, 18 * mu + 2 * (3 * a + k), 72)]);
      const T ui = __ldg(&u[component(s, 18 * mu + 2 * (3 * a + k) + 1, 72)]);
      const T br = __ldg(&u[component(sb, 18 * mu + 2 * (3 * k + a), 72)]);
      const T bi = __ldg(&u[component(sb, 18 * mu + 2 * (3 * k + a) + 1, 72)]);
      acc[2 * a] += ur * pf[2 * k] - ui * pf[2 * k + 1] - (br * pb[2 * k] + bi * pb[2 * k + 1]);
      acc[2 * a + 1] += ur * pf[2 * k + 1] + ui * pf[2 * k] - (br * pb[2 * k + 1] - bi * pb[2 * k]);
    }
  }
}

template <typename T>
__device__ __forceinline__ void hisq_even(T* __restrict__ chi, const T* __restrict__ fat,
                                          const T* __restrict__ naik,
                                          const T* __restrict__ psi, Geom g) {
  const unsigned s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= g.H) return;
  int c[4];
  coords(g, s, c);
  T acc[6];
#pragma unroll
  for (int k = 0; k < 6; k++) acc[k] = 0;
#pragma unroll
  for (int mu = 0; mu < 4; mu++) {
#pragma unroll
    for (int d = 1; d <= 3; d += 2) {
      int f[4] = {c[0], c[1], c[2], c[3]};
      f[mu] = (f[mu] + d) % g.L[mu];
      int b[4] = {c[0], c[1], c[2], c[3]};
      b[mu] = (b[mu] + g.L[mu] - d) % g.L[mu];
      const unsigned sf = eo_index(g, f), sb = eo_index(g, b);
      T pf[6], pb[6];
#pragma unroll
      for (int k = 0; k < 6; k++) {
        pf[k] = __ldg(&psi[component(sf, k, 6)]);
        pb[k] = __ldg(&psi[component(sb, k, 6)]);
      }
      hop(acc, d == 1 ? fat : naik, mu, s, sb, pf, pb);
    }
  }
#pragma unroll
  for (int k = 0; k < 6; k++) chi[component(s, k, 6)] = acc[k];
}

extern "C" __global__ void hisq_f32(float* __restrict__ chi, const float* __restrict__ fat,
                                    const float* __restrict__ naik,
                                    const float* __restrict__ psi, Geom g) {
  hisq_even<float>(chi, fat, naik, psi, g);
}

extern "C" __global__ void hisq_f64(double* __restrict__ chi, const double* __restrict__ fat,
                                    const double* __restrict__ naik,
                                    const double* __restrict__ psi, Geom g) {
  hisq_even<double>(chi, fat, naik, psi, g);
}
