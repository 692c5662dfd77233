// The benchmark's reference: the even-odd naive staggered Dslash, written by hand in CUDA C++
// (no ongpu prelude) on the fields' own layouts. Compiled by NVRTC in the benchmark's process
// and given the fields' device addresses.
//
//   chi(x) = sum_mu [ U_mu(x) psi(x+mu) - U_mu(x-mu)^dagger psi(x-mu) ]   for every even x
//
// Sites are in even-odd order (site = parity * V/2 + lex / 2, lex with x fastest). The links
// are one field of 4 matrices per site: component c = 18 * mu + 2 * (3 * a + b) (+1 for the
// imaginary part) of 72; psi and chi have 6 components (2 * a, +1). Component c of site s of
// a field with C components per site is at
//   AoS        s * C + c
//   SoA        c * stride + s                 (stride = the field's padded length)
//   AoSoA<V>   (s / V) * C * V + c * V + s % V
// Loads are read-only (__ldg) and coalesced in SoA and AoSoA (consecutive threads read
// consecutive sites of one component); one thread per even site.
typedef unsigned long long u64;

enum Layout { AOS, SOA, AOSOA };

template <int L, int V, int C>
__device__ __forceinline__ u64 component(u64 s, int c, u64 stride) {
  if (L == AOS) return s * C + c;
  if (L == SOA) return (u64)c * stride + s;
  return (s / V) * (u64)(C * V) + (u64)c * V + s % V;
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

// The neighbours of even site s along mu: by index arithmetic (nbr == nullptr), or from a
// table nbr[(2 * mu) * H + s] (forward) and nbr[(2 * mu + 1) * H + s] (backward), to
// measure one against the other.
template <typename T, int L, int V>
__device__ __forceinline__ void dslash_even(T* __restrict__ chi, const T* __restrict__ u,
                                            const T* __restrict__ psi, Geom g, u64 stride,
                                            const unsigned* __restrict__ nbr) {
  const unsigned s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= g.H) return;
  int c[4];
  if (!nbr) coords(g, s, c);
  T acc[6];
#pragma unroll
  for (int k = 0; k < 6; k++) acc[k] = 0;
#pragma unroll
  for (int mu = 0; mu < 4; mu++) {
    unsigned sf, sb;
    if (nbr) {
      sf = __ldg(&nbr[(2 * mu) * g.H + s]);
      sb = __ldg(&nbr[(2 * mu + 1) * g.H + s]);
    } else {
      int f[4] = {c[0], c[1], c[2], c[3]};
      f[mu] = f[mu] + 1 == g.L[mu] ? 0 : f[mu] + 1;
      int b[4] = {c[0], c[1], c[2], c[3]};
      b[mu] = b[mu] == 0 ? g.L[mu] - 1 : b[mu] - 1;
      sf = eo_index(g, f);
      sb = eo_index(g, b);
    }
    T pf[6], pb[6];
#pragma unroll
    for (int k = 0; k < 6; k++) {
      pf[k] = __ldg(&psi[component<L, V, 6>(sf, k, stride)]);
      pb[k] = __ldg(&psi[component<L, V, 6>(sb, k, stride)]);
    }
#pragma unroll
    for (int a = 0; a < 3; a++) {
#pragma unroll
      for (int k = 0; k < 3; k++) {
        // U_mu(x)[a][k] psi(x+mu)[k]
        const T ur = __ldg(&u[component<L, V, 72>(s, 18 * mu + 2 * (3 * a + k), stride)]);
        const T ui = __ldg(&u[component<L, V, 72>(s, 18 * mu + 2 * (3 * a + k) + 1, stride)]);
        // U_mu(x-mu)^dagger[a][k] psi(x-mu)[k] = conj(U_mu(x-mu)[k][a]) psi(x-mu)[k]
        const T br = __ldg(&u[component<L, V, 72>(sb, 18 * mu + 2 * (3 * k + a), stride)]);
        const T bi = __ldg(&u[component<L, V, 72>(sb, 18 * mu + 2 * (3 * k + a) + 1, stride)]);
        acc[2 * a] += ur * pf[2 * k] - ui * pf[2 * k + 1] - (br * pb[2 * k] + bi * pb[2 * k + 1]);
        acc[2 * a + 1] += ur * pf[2 * k + 1] + ui * pf[2 * k] - (br * pb[2 * k + 1] - bi * pb[2 * k]);
      }
    }
  }
#pragma unroll
  for (int k = 0; k < 6; k++) chi[component<L, V, 6>(s, k, stride)] = acc[k];
}

#define DSLASH_KERNEL(NAME, T, L, V)                                                      \
  extern "C" __global__ void NAME(T* __restrict__ chi, const T* __restrict__ u,           \
                                  const T* __restrict__ psi, Geom g, u64 stride) {        \
    dslash_even<T, L, V>(chi, u, psi, g, stride, nullptr);                                \
  }                                                                                       \
  extern "C" __global__ void NAME##_table(T* __restrict__ chi, const T* __restrict__ u,   \
                                          const T* __restrict__ psi, Geom g, u64 stride,  \
                                          const unsigned* __restrict__ nbr) {             \
    dslash_even<T, L, V>(chi, u, psi, g, stride, nbr);                                    \
  }
DSLASH_KERNEL(dslash_f32_aos, float, AOS, 1)
DSLASH_KERNEL(dslash_f32_soa, float, SOA, 1)
DSLASH_KERNEL(dslash_f32_aosoa32, float, AOSOA, 32)
DSLASH_KERNEL(dslash_f64_aos, double, AOS, 1)
DSLASH_KERNEL(dslash_f64_soa, double, SOA, 1)
DSLASH_KERNEL(dslash_f64_aosoa32, double, AOSOA, 32)
