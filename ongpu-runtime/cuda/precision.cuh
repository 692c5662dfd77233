
// ---------------------------------------------------------------- 16-bit storage, precisions
// Twins of ongpu-runtime/src/types/precision.rs. `f16` and `bf16` are storage scalars: a
// field of `ColorVector<f16>` holds 16-bit components, a body widens a loaded value to f32
// (`widen`, `to_f32`) and rounds a result to 16 bits to store it (`narrow`, `to_f16`). The
// conversions give the bits of the `half` crate's on the host: IEEE round to nearest even,
// and the same NaN payloads (the hardware conversion for numbers, its NaN rule by hand).
namespace ongpu {

struct f16 {
  unsigned short bits;
};
struct bf16 {
  unsigned short bits;
};
template <> struct element<f16> { typedef f16 scalar; enum { C = 1 }; };
template <> struct element<bf16> { typedef bf16 scalar; enum { C = 1 }; };
// A 16-bit complex number is one 4-byte component of field storage (as on the host), aligned
// so that it moves in one access.
template <> struct __align__(4) complex<f16> {
  f16 re, im;
};
template <> struct __align__(4) complex<bf16> {
  bf16 re, im;
};
#define ONGPU_PAIR_ELEMENTS(R)                                                            \
  template <> struct element<complex<R> > { typedef complex<R> scalar; enum { C = 1 }; };  \
  template <> struct element<ColorVector<R> > { typedef complex<R> scalar; enum { C = 3 }; }; \
  template <> struct element<ColorMatrix<R> > { typedef complex<R> scalar; enum { C = 9 }; };
ONGPU_PAIR_ELEMENTS(f16)
ONGPU_PAIR_ELEMENTS(bf16)
#undef ONGPU_PAIR_ELEMENTS

// The real of a value's components (`f16` for a `ColorVector<f16>`).
template <class V> struct real_scalar { typedef V type; };
template <class T> struct real_scalar<complex<T> > { typedef T type; };
template <class T> struct real_scalar<ColorVector<T> > { typedef T type; };
template <class T> struct real_scalar<ColorMatrix<T> > { typedef T type; };
template <class T, int N> struct real_scalar<array<T, N> > : real_scalar<T> {};

ONGPU_FN float f16_to_float(f16 h) {
  const unsigned int sign = (unsigned int)(h.bits & 0x8000u) << 16;
  const unsigned int man = h.bits & 0x03FFu;
  if ((h.bits & 0x7C00u) == 0x7C00u && man != 0)
    return __uint_as_float(sign | 0x7FC00000u | (man << 13));
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.bits));
  return f;
}
ONGPU_FN f16 float_to_f16(float x) {
  const unsigned int u = __float_as_uint(x);
  const unsigned int man = u & 0x007FFFFFu;
  if ((u & 0x7F800000u) == 0x7F800000u && man != 0)
    return f16{(unsigned short)(((u & 0x80000000u) >> 16) | 0x7C00u | 0x0200u | (man >> 13))};
  unsigned short h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(x));
  return f16{h};
}
ONGPU_FN float bf16_to_float(bf16 h) {
  const unsigned int b = h.bits;
  return __uint_as_float(((b & 0x7FFFu) > 0x7F80u ? (b | 0x0040u) : b) << 16);
}
ONGPU_FN bf16 float_to_bf16(float x) {
  const unsigned int u = __float_as_uint(x);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return bf16{(unsigned short)((u >> 16) | 0x0040u)};
  const unsigned int round_bit = 0x8000u;
  const bool up = (u & round_bit) != 0 && (u & (3 * round_bit - 1)) != 0;
  return bf16{(unsigned short)((u >> 16) + (up ? 1u : 0u))};
}

// One real converted to another: exact where it widens, rounded to nearest even where it
// narrows (f64 → f32 as `as f32`; 16 bits only from f32, as on the host).
template <class To> struct real_cast;
template <> struct real_cast<float> {
  static ONGPU_FN float from(float x) { return x; }
  static ONGPU_FN float from(double x) { return (float)x; }
  static ONGPU_FN float from(f16 x) { return f16_to_float(x); }
  static ONGPU_FN float from(bf16 x) { return bf16_to_float(x); }
};
template <> struct real_cast<double> {
  static ONGPU_FN double from(float x) { return x; }
  static ONGPU_FN double from(double x) { return x; }
  static ONGPU_FN double from(f16 x) { return f16_to_float(x); }
  static ONGPU_FN double from(bf16 x) { return bf16_to_float(x); }
};
template <> struct real_cast<f16> {
  static ONGPU_FN f16 from(float x) { return float_to_f16(x); }
  static ONGPU_FN f16 from(f16 x) { return x; }
};
template <> struct real_cast<bf16> {
  static ONGPU_FN bf16 from(float x) { return float_to_bf16(x); }
  static ONGPU_FN bf16 from(bf16 x) { return x; }
};

// The arithmetic type of a storage real: f32 for the 16-bit ones.
template <class S> struct compute_of { typedef S type; };
template <> struct compute_of<f16> { typedef float type; };
template <> struct compute_of<bf16> { typedef float type; };

// The same shape over another real (`ColorVector<f16>` → `ColorVector<float>`).
template <class V, class R> struct rebind { typedef R type; };
template <class T, class R> struct rebind<complex<T>, R> { typedef complex<R> type; };
template <class T, class R> struct rebind<ColorVector<T>, R> { typedef ColorVector<R> type; };
template <class T, class R> struct rebind<ColorMatrix<T>, R> { typedef ColorMatrix<R> type; };
template <class T, int N, class R> struct rebind<array<T, N>, R> {
  typedef array<typename rebind<T, R>::type, N> type;
};

// N reals converted one by one.
template <class S, class D> struct convert_reals {
  template <int N> static ONGPU_FN void run(const S* from, D* to) {
#pragma unroll
    for (int k = 0; k < N; k++) to[k] = real_cast<D>::from(from[k]);
  }
};
// From 16 bits to f32, the hot path of every 16-bit load: NaN is looked for once per value
// (an input h is NaN exactly when (h & 0x7FFF) + 0x3FF carries into bit 15), and only a
// value holding one pays for the payload rule; the others are one conversion per real.
template <> struct convert_reals<f16, float> {
  template <int N> static ONGPU_FN void run(const f16* from, float* to) {
    // Two reals at a time where they pair up (complex numbers): the halves of a 32-bit
    // word cannot carry into each other, as (h & 0x7FFF) + 0x3FF < 0x10000.
    unsigned int carry = 0;
    if (N % 2 == 0) {
      const unsigned int* w = reinterpret_cast<const unsigned int*>(from);
#pragma unroll
      for (int k = 0; k < N / 2; k++) carry |= (w[k] & 0x7FFF7FFFu) + 0x03FF03FFu;
    } else {
#pragma unroll
      for (int k = 0; k < N; k++) carry |= (from[k].bits & 0x7FFFu) + 0x03FFu;
    }
    if (__builtin_expect((carry & 0x80008000u) != 0, 0)) {
#pragma unroll
      for (int k = 0; k < N; k++) to[k] = f16_to_float(from[k]);
    } else {
#pragma unroll
      for (int k = 0; k < N; k++) asm("cvt.f32.f16 %0, %1;" : "=f"(to[k]) : "h"(from[k].bits));
    }
  }
};
// From f32 to 16 bits, likewise: NaN looked for once per value.
template <> struct convert_reals<float, f16> {
  template <int N> static ONGPU_FN void run(const float* from, f16* to) {
    bool nan = false;
#pragma unroll
    for (int k = 0; k < N; k++) nan |= from[k] != from[k];
    if (__builtin_expect(nan, 0)) {
#pragma unroll
      for (int k = 0; k < N; k++) to[k] = float_to_f16(from[k]);
    } else {
#pragma unroll
      for (int k = 0; k < N; k++) asm("cvt.rn.f16.f32 %0, %1;" : "=h"(to[k].bits) : "f"(from[k]));
    }
  }
};

// Every real of v converted to W's real (the two share a shape).
template <class W, class V> ONGPU_FN W convert_to(const V& v) {
  typedef typename real_scalar<V>::type S;
  typedef typename real_scalar<W>::type D;
  W w;
  convert_reals<S, D>::template run<(int)(sizeof(V) / sizeof(S))>(reinterpret_cast<const S*>(&v),
                                                                    reinterpret_cast<D*>(&w));
  return w;
}

template <class V> ONGPU_FN typename rebind<V, float>::type to_f32(const V& v) {
  return convert_to<typename rebind<V, float>::type>(v);
}
template <class V> ONGPU_FN typename rebind<V, double>::type to_f64(const V& v) {
  return convert_to<typename rebind<V, double>::type>(v);
}
template <class V> ONGPU_FN typename rebind<V, f16>::type to_f16(const V& v) {
  return convert_to<typename rebind<V, f16>::type>(v);
}
template <class V> ONGPU_FN typename rebind<V, bf16>::type to_bf16(const V& v) {
  return convert_to<typename rebind<V, bf16>::type>(v);
}
template <class V>
ONGPU_FN typename rebind<V, typename compute_of<typename real_scalar<V>::type>::type>::type widen(const V& v) {
  return convert_to<typename rebind<V, typename compute_of<typename real_scalar<V>::type>::type>::type>(v);
}

// `narrow`: the storage type comes from where the value goes (rustc inferred it there), so
// the result converts itself to whichever shape of reals it is assigned to.
template <class V> struct narrowing {
  V v;
  template <class W> ONGPU_FN operator W() const { return convert_to<W>(v); }
};
template <class V> ONGPU_FN narrowing<V> narrow(const V& v) { return narrowing<V>{v}; }
// `convert`: the same, for any conversion rustc allowed.
template <class V> ONGPU_FN narrowing<V> convert(const V& v) { return narrowing<V>{v}; }

}  // namespace ongpu
