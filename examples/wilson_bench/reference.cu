// The benchmark's reference: the Wilson hopping term on the even sites, and the same followed
// by the packed clover blocks at the site, written by hand in CUDA C++ (no ongpu prelude) on
// the fields' AoSoA<32> layout. Compiled by NVRTC in the benchmark's process and given the
// fields' device addresses.
//
//   out(x) = A(x) sum_mu [ (1 - g_mu) U_mu(x) psi(x+mu) + (1 + g_mu) U_mu(x-mu)^dagger psi(x-mu) ]
//
// for every even x (A = 1 for the Wilson kernel), DeGrand-Rossi gamma matrices, spin
// projection: each hop multiplies a half spinor (2 colour vectors), not the full one.
// Sites are in even-odd order (site = parity * V/2 + lex / 2, lex with x fastest). Component
// c of site s of a field with C reals per site is at (s / 32) * C * 32 + c * 32 + s % 32:
// links C = 72 (18 * mu + 2 * (3 * row + col), +1 imaginary), spinors C = 24
// (6 * spin + 2 * colour), clover blocks C = 72 (6 * vector + 2 * colour; the packing of
// ongpu-qcd's clover_algebra: per block the rows of Q, the real diagonals of P and R as one
// vector, the lower triangles of P and of R). Loads are read-only (__ldg) and coalesced; one
// thread per even site.
typedef unsigned long long u64;

struct Geom { int L[4]; unsigned V, H; };

template <int C>
__device__ __forceinline__ u64 component(u64 s, int c) {
  return (s / 32) * (u64)(C * 32) + (u64)c * 32 + s % 32;
}
// The same for a field of `cs` reals per site (a 5-D spinor field: 24 Ls).
__device__ __forceinline__ u64 component_of(u64 s, unsigned c, unsigned cs) {
  return (s / 32) * (u64)cs * 32 + (u64)c * 32 + s % 32;
}

template <typename T> struct cplx { T re, im; };

template <typename T>
__device__ __forceinline__ cplx<T> cmul(cplx<T> a, cplx<T> b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
template <typename T>
__device__ __forceinline__ cplx<T> cmulconj(cplx<T> a, cplx<T> b) {  // conj(a) * b
  return {a.re * b.re + a.im * b.im, a.re * b.im - a.im * b.re};
}
template <typename T>
__device__ __forceinline__ cplx<T> cadd(cplx<T> a, cplx<T> b) { return {a.re + b.re, a.im + b.im}; }

// c * z for the constants c = 1, i, -1, -i (k = 0, 1, 2, 3): a swap and signs, no multiply.
template <int k, typename T>
__device__ __forceinline__ cplx<T> unit_times(cplx<T> z) {
  if (k == 0) return z;
  if (k == 1) return {-z.im, z.re};
  if (k == 2) return {-z.re, -z.im};
  return {z.im, -z.re};
}

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

// The structure of gamma_mu in the DeGrand-Rossi basis: row r has one entry, at column
// col(mu, r), the unit unit_of(mu, r) (0: 1, 1: i, 2: -1, 3: -i).
__host__ __device__ constexpr int col(int mu, int r) { return mu < 2 ? 3 - r : r ^ 2; }
__host__ __device__ constexpr int unit_of(int mu, int r) {
  return mu == 0 ? (r < 2 ? 1 : 3)
       : mu == 1 ? ((r == 0 || r == 3) ? 2 : 0)
       : mu == 2 ? ((r == 0 || r == 3) ? 1 : 3)
       : 0;
}

// One hop: (1 + s gamma_mu) W psi(n), W = U_mu(x) (s = -1, forward) or U_mu(x-mu)^dagger
// (s = +1, backward, `dagger`), added to acc; psi's spinor starts at component `off` of the
// `cs` reals of its site (0 and 24 for a 4-D spinor field). With the projector's rows 2 and 3 multiples of
// rows 0 and 1: h_r = psi_r + s g_r psi_{col(r)} for r = 0, 1; acc_r += (W h)_r;
// acc_r += s g_r (W h)_{col(r)} for r = 2, 3.
template <int mu, int s, bool dagger, typename T>
__device__ __forceinline__ void hop(cplx<T> acc[4][3], const T* __restrict__ u, u64 link_site,
                                    const T* __restrict__ psi, u64 n, unsigned off = 0,
                                    unsigned cs = 24) {
  // s g: the unit unit_of for s = +1, its negative (k + 2 mod 4) for s = -1.
  constexpr int flip = s < 0 ? 2 : 0;
  constexpr int k0 = (unit_of(mu, 0) + flip) % 4, k1 = (unit_of(mu, 1) + flip) % 4;
  constexpr int k2 = (unit_of(mu, 2) + flip) % 4, k3 = (unit_of(mu, 3) + flip) % 4;
  constexpr int q0 = col(mu, 0), q1 = col(mu, 1), q2 = col(mu, 2), q3 = col(mu, 3);
  cplx<T> h[2][3];
#pragma unroll
  for (int c = 0; c < 3; c++) {
    cplx<T> p0 = {__ldg(&psi[component_of(n, off + 2 * c, cs)]), __ldg(&psi[component_of(n, off + 2 * c + 1, cs)])};
    cplx<T> p1 = {__ldg(&psi[component_of(n, off + 6 + 2 * c, cs)]), __ldg(&psi[component_of(n, off + 6 + 2 * c + 1, cs)])};
    cplx<T> a = {__ldg(&psi[component_of(n, off + 6 * q0 + 2 * c, cs)]), __ldg(&psi[component_of(n, off + 6 * q0 + 2 * c + 1, cs)])};
    cplx<T> b = {__ldg(&psi[component_of(n, off + 6 * q1 + 2 * c, cs)]), __ldg(&psi[component_of(n, off + 6 * q1 + 2 * c + 1, cs)])};
    h[0][c] = cadd(p0, unit_times<k0>(a));
    h[1][c] = cadd(p1, unit_times<k1>(b));
  }
  cplx<T> w[2][3];
#pragma unroll
  for (int r = 0; r < 3; r++) {
    w[0][r] = {0, 0};
    w[1][r] = {0, 0};
#pragma unroll
    for (int c = 0; c < 3; c++) {
      // W[r][c] = U[r][c], or conj(U[c][r]) for the adjoint.
      const int e = dagger ? 3 * c + r : 3 * r + c;
      cplx<T> m = {__ldg(&u[component<72>(link_site, 18 * mu + 2 * e)]),
                   __ldg(&u[component<72>(link_site, 18 * mu + 2 * e + 1)])};
      if (dagger) {
        w[0][r] = cadd(w[0][r], cmulconj(m, h[0][c]));
        w[1][r] = cadd(w[1][r], cmulconj(m, h[1][c]));
      } else {
        w[0][r] = cadd(w[0][r], cmul(m, h[0][c]));
        w[1][r] = cadd(w[1][r], cmul(m, h[1][c]));
      }
    }
  }
#pragma unroll
  for (int r = 0; r < 3; r++) {
    acc[0][r] = cadd(acc[0][r], w[0][r]);
    acc[1][r] = cadd(acc[1][r], w[1][r]);
    acc[2][r] = cadd(acc[2][r], unit_times<k2>(w[q2][r]));
    acc[3][r] = cadd(acc[3][r], unit_times<k3>(w[q3][r]));
  }
}

// (P a + Q b, Q^dagger a + R b) for the packed block starting at vector `v0` of site s.
template <typename T>
__device__ __forceinline__ void clover_block(const T* __restrict__ cl, u64 s, int v0,
                                             const cplx<T> a[3], const cplx<T> b[3],
                                             cplx<T> top[3], cplx<T> bottom[3]) {
  auto load = [&](int v, int c) {
    return cplx<T>{__ldg(&cl[component<72>(s, 6 * (v0 + v) + 2 * c)]),
                   __ldg(&cl[component<72>(s, 6 * (v0 + v) + 2 * c + 1)])};
  };
#pragma unroll
  for (int r = 0; r < 3; r++) {
    cplx<T> d = load(3, r);
    top[r] = {d.re * a[r].re, d.re * a[r].im};
    bottom[r] = {d.im * b[r].re, d.im * b[r].im};
  }
  // Lower triangles: entry (1,0), (2,0), (2,1) at vector 4 (P) and 5 (R), colours 0, 1, 2.
  const int rows[3] = {1, 2, 2}, cols[3] = {0, 0, 1};
#pragma unroll
  for (int k = 0; k < 3; k++) {
    const int r = rows[k], c = cols[k];
    cplx<T> p = load(4, k), q = load(5, k);
    top[r] = cadd(top[r], cmul(p, a[c]));
    top[c] = cadd(top[c], cmulconj(p, a[r]));
    bottom[r] = cadd(bottom[r], cmul(q, b[c]));
    bottom[c] = cadd(bottom[c], cmulconj(q, b[r]));
  }
#pragma unroll
  for (int r = 0; r < 3; r++) {
#pragma unroll
    for (int c = 0; c < 3; c++) {
      cplx<T> q = load(r, c);  // Q[r][c]
      top[r] = cadd(top[r], cmul(q, b[c]));
      bottom[c] = cadd(bottom[c], cmulconj(q, a[r]));
    }
  }
}

template <typename T, bool CLOVER>
__device__ __forceinline__ void dslash_even(T* __restrict__ out, const T* __restrict__ u,
                                            const T* __restrict__ psi, const T* __restrict__ cl,
                                            Geom g) {
  const unsigned s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= g.H) return;
  int c[4];
  coords(g, s, c);
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
  hop<0, -1, false>(acc, u, s, psi, f[0]);
  hop<0, +1, true>(acc, u, b[0], psi, b[0]);
  hop<1, -1, false>(acc, u, s, psi, f[1]);
  hop<1, +1, true>(acc, u, b[1], psi, b[1]);
  hop<2, -1, false>(acc, u, s, psi, f[2]);
  hop<2, +1, true>(acc, u, b[2], psi, b[2]);
  hop<3, -1, false>(acc, u, s, psi, f[3]);
  hop<3, +1, true>(acc, u, b[3], psi, b[3]);
  if (CLOVER) {
    cplx<T> r[4][3];
    clover_block(cl, s, 0, acc[0], acc[1], r[0], r[1]);
    clover_block(cl, s, 6, acc[2], acc[3], r[2], r[3]);
#pragma unroll
    for (int sp = 0; sp < 4; sp++)
#pragma unroll
      for (int k = 0; k < 3; k++) acc[sp][k] = r[sp][k];
  }
#pragma unroll
  for (int sp = 0; sp < 4; sp++)
#pragma unroll
    for (int k = 0; k < 3; k++) {
      out[component<24>(s, 6 * sp + 2 * k)] = acc[sp][k].re;
      out[component<24>(s, 6 * sp + 2 * k + 1)] = acc[sp][k].im;
    }
}

#define WILSON_KERNELS(T)                                                                    \
  extern "C" __global__ void wilson_##T(T* __restrict__ out, const T* __restrict__ u,         \
                                        const T* __restrict__ psi, Geom g) {                 \
    dslash_even<T, false>(out, u, psi, nullptr, g);                                          \
  }                                                                                          \
  extern "C" __global__ void clover_##T(T* __restrict__ out, const T* __restrict__ u,         \
                                        const T* __restrict__ psi, const T* __restrict__ cl, \
                                        Geom g) {                                            \
    dslash_even<T, true>(out, u, psi, cl, g);                                                \
  }
WILSON_KERNELS(float)
WILSON_KERNELS(double)
