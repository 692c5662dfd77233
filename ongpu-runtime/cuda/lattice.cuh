
// ---------------------------------------------------------------- lattices and entries of element arrays
namespace ongpu {

// The twin of the runtime's `Lattice` (same fields, same order): a periodic 4-D lattice in
// even-odd order. Site i of parity p = (i >= half) has lexicographic index lex (storage
// order: the directions in order with `slow` last, the first of them fastest) with
// i = p * half + lex / 2. A part of a split lattice has an origin in the whole lattice, its
// extents, and halos along the directions of the mask `halo`. Site arithmetic is 32-bit (the
// runtime keeps volumes below 2^32), so the divisions that decompose a site stay cheap; a
// body's shifts of one site share the decomposition once the compiler inlines them.
struct Lattice {
  u64 dims[4];
  u64 strides[4];
  u64 half;
  u64 sdims[4];
  u64 slow;
  u64 origin[4];
  u64 global[4];
  u64 halo;
  u64 origin_parity;

  // Position of direction mu in storage order.
  ONGPU_FN unsigned position(unsigned mu) const {
    const unsigned s = (unsigned)slow;
    return mu == s ? 3u : (mu > s ? mu - 1u : mu);
  }
  // Parity, lexicographic index and local coordinates (per direction) of site s.
  ONGPU_FN void decompose(u64 s, unsigned& p, unsigned& lex, unsigned c[4]) const {
    const unsigned h = (unsigned)half;
    const unsigned si = (unsigned)s;
    p = si >= h;
    const unsigned even_lex = 2u * (si - p * h);
    unsigned r = even_lex, d[4];
    d[0] = r % (unsigned)sdims[0]; r /= (unsigned)sdims[0];
    d[1] = r % (unsigned)sdims[1]; r /= (unsigned)sdims[1];
    d[2] = r % (unsigned)sdims[2]; r /= (unsigned)sdims[2];
    d[3] = r;
    const unsigned odd = (p + (unsigned)origin_parity + d[0] + d[1] + d[2] + d[3]) & 1u;
    d[0] += odd;
    lex = even_lex + odd;
    // Selects, not an indexed read, so that the coordinates stay in registers.
#pragma unroll
    for (unsigned mu = 0; mu < 4; mu++) {
      const unsigned q = position(mu);
      c[mu] = q == 0 ? d[0] : q == 1 ? d[1] : q == 2 ? d[2] : d[3];
    }
  }
  ONGPU_FN u64 coord(u64 s, u64 mu) const {
    unsigned p, lex, c[4];
    decompose(s, p, lex, c);
    const unsigned g = (unsigned)global[mu];
    const unsigned x = c[mu] + (unsigned)origin[mu];
    return x >= g ? x - g : x;
  }
  ONGPU_FN u64 parity(u64 s) const { return s >= half ? 1 : 0; }
  // The index of site s in the whole lattice's even-odd order (s itself for a whole
  // lattice): what keys a site's random numbers, so that a part draws what the whole does.
  ONGPU_FN u64 whole_index(u64 s) const {
    unsigned p, lex, c[4];
    decompose(s, p, lex, c);
    unsigned l = 0, stride = 1;
#pragma unroll
    for (unsigned mu = 0; mu < 4; mu++) {
      const unsigned g = (unsigned)global[mu];
      const unsigned x = c[mu] + (unsigned)origin[mu];
      l += (x >= g ? x - g : x) * stride;
      stride *= g;
    }
    return (u64)p * (stride / 2u) + l / 2u;
  }
  // This lattice's index of site j of `box`, a block of its sites with its own extents,
  // origin and even-odd order (same whole lattice): how a call over part of a lattice cut
  // over ranks counts its sites. The site's parity is the same in both.
  ONGPU_FN u64 site_in(const Lattice& box, u64 j) const {
    unsigned p, lex, c[4];
    box.decompose(j, p, lex, c);
    unsigned l = 0;
#pragma unroll
    for (unsigned mu = 0; mu < 4; mu++) {
      const unsigned g = (unsigned)global[mu];
      unsigned x = c[mu] + (unsigned)box.origin[mu] + g - (unsigned)origin[mu];
      x = x >= g ? x - g : x;
      x = x >= g ? x - g : x;
      l += x * (unsigned)strides[mu];
    }
    return (u64)p * half + l / 2;
  }
  // Site j of a launch over `box` and, when `pair.half` is non-zero, a second box of the
  // same shape: the first half of the launch's n indices from `begin` count `box`'s sites,
  // the second half `pair`'s (the same indices less n / 2). Two calls, not a selected
  // reference, so that the boxes stay in the parameter space.
  ONGPU_FN u64 site_in_pair(const Lattice& box, const Lattice& pair, u64 j, u64 begin,
                            u64 n) const {
    if (pair.half && j >= begin + n / 2) return site_in(pair, j - n / 2);
    return site_in(box, j);
  }
  // A step that wraps around direction mu: in a part of a split lattice or a rank's block it
  // would leave the halo, which a bounds-checked kernel reports (`ONGPU_INDEX` with length
  // 0, the mark the runtime reads as a shift beyond the halo along direction mu).
  ONGPU_FN void wrapped(int mu, unsigned l) const {
    (void)l;
    if ((halo >> mu) & 1u) (void)ONGPU_INDEX((u64)mu, 0u);
  }
  // The site k steps from s along mu, periodically (k = +-1: no division).
  template <class M, class K> ONGPU_FN u64 shift(u64 s, M mu_, K k_) const {
    const int mu = (int)mu_;
    const long long k = (long long)k_;
    unsigned p, lex, c[4];
    decompose(s, p, lex, c);
    const unsigned l = (unsigned)dims[mu];
    const unsigned x = c[mu];
    unsigned y;
    if (k == 1) {
      if (x + 1 == l) { wrapped(mu, l); y = 0; } else y = x + 1;
    } else if (k == -1) {
      if (x == 0) { wrapped(mu, l); y = l - 1; } else y = x - 1;
    } else {
      long long t = (long long)x + k;
      if (t < 0 || t >= (long long)l) wrapped(mu, l);
      t %= (long long)l;
      y = (unsigned)(t < 0 ? t + l : t);
    }
    const unsigned nlex = lex + (y - x) * (unsigned)strides[mu];
    const unsigned np = (p + (unsigned)(k & 1)) & 1u;
    return (u64)np * half + nlex / 2;
  }
};

// Entry e of the element array at site s: only that entry's components are read.
template <class L, class A> struct entry_loader;
template <class L, class T, int N> struct entry_loader<L, array<T, N> > {
  static ONGPU_FN T run(const typename element<T>::scalar* p, u64 s, u64 e, u64 stride) {
    typedef typename element<T>::scalar S;
    enum { CT = element<T>::C, CA = N * element<T>::C };
    T v;
    S* c = reinterpret_cast<S*>(&v);
    e = ONGPU_INDEX(e, N);
#pragma unroll
    for (int k = 0; k < CT; k++) c[k] = p[L::template index<CA>(s, (int)(e * CT + k), stride)];
    return v;
  }
};
template <class L, class A>
ONGPU_FN auto load_entry(const typename element<A>::scalar* p, u64 s, u64 e, u64 stride)
    -> decltype(entry_loader<L, A>::run(p, s, e, stride)) {
  return entry_loader<L, A>::run(p, s, e, stride);
}

// Entry e of the element array at site s set to v: only that entry's components are
// written (a body's `x[k] = v` of a field it uses in no other way).
template <class L, class A> struct entry_storer;
template <class L, class T, int N> struct entry_storer<L, array<T, N> > {
  static ONGPU_FN void run(typename element<T>::scalar* p, u64 s, u64 e, u64 stride, const T& v) {
    typedef typename element<T>::scalar S;
    enum { CT = element<T>::C, CA = N * element<T>::C };
    const S* c = reinterpret_cast<const S*>(&v);
    e = ONGPU_INDEX(e, N);
#pragma unroll
    for (int k = 0; k < CT; k++) p[L::template index<CA>(s, (int)(e * CT + k), stride)] = c[k];
  }
};
template <class L, class A, class V>
ONGPU_FN void store_entry(typename element<A>::scalar* p, u64 s, u64 e, u64 stride, const V& v) {
  entry_storer<L, A>::run(p, s, e, stride, v);
}

}  // namespace ongpu

// The element of captured field NAME at site J, and entry E of its element array there:
// what shifts in a body become (`ongpu_L_NAME` and `ongpu_T_NAME` are the field's layout
// and element type, declared with the kernel).
#define ONGPU_AT(NAME, J) ongpu::load<ongpu_L_##NAME, ongpu_T_##NAME>(ongpu_p_##NAME, (J), ongpu_s_##NAME)
#define ONGPU_ENTRY_AT(NAME, J, E) \
  ongpu::load_entry<ongpu_L_##NAME, ongpu_T_##NAME>(ongpu_p_##NAME, (J), (E), ongpu_s_##NAME)
// Entry E of a read-only capture NAME at the kernel's site: `ONGPU_SE_NAME`, which the kernel
// defines per capture (an entry load for a field of element arrays, else `NAME[E]`).
#define ONGPU_SITE_ENTRY(NAME, E) ONGPU_SE_##NAME(E)
// `NAME[E] = V` of a capture the body only assigns entry by entry: `ONGPU_SS_NAME`, which the
// kernel defines per capture (an entry store for a field of element arrays, else the
// assignment to the site's loaded element).
#define ONGPU_SITE_STORE(NAME, E, V) ONGPU_SS_##NAME(E, V)

namespace ongpu {
// `lat.coord(i, mu)` and `lat.parity(i)` of a captured lattice.
template <class I, class M> ONGPU_FN u64 coord(const Lattice& l, I i, M mu) { return l.coord((u64)i, (u64)mu); }
template <class I> ONGPU_FN u64 parity(const Lattice& l, I i) { return l.parity((u64)i); }
template <class I> ONGPU_FN u64 whole_index(const Lattice& l, I i) { return l.whole_index((u64)i); }
}  // namespace ongpu
