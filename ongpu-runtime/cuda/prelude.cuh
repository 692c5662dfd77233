// ongpu CUDA prelude: the device twins of ongpu's Rust types (complex numbers, colour vectors
// and matrices, with the same operators and the same order of operations), the field layouts,
// and the helpers that give translated Rust its Rust semantics (casts, %, shifts, !).
#define ONGPU_FN __device__ __forceinline__
#ifndef ONGPU_CHECK_BOUNDS
#define ONGPU_CHECK_BOUNDS 0
#endif

namespace ongpu {

typedef unsigned long long u64;

// ---------------------------------------------------------------- checked indices
// With ONGPU_CHECK_BOUNDS, an index of a colour vector or matrix or of an element array
// that is out of range is recorded in `ongpu_index_report` (the first of a launch: index,
// length, thread and, in kernels over sites, the site) and the access goes to entry 0
// instead; the host reads the record after the launch and returns an error. Without it an
// index is used as it is: the unchecked mode's fast path.
struct IndexReport {
  unsigned int hit, len;  // hit: 0 none, 1 being written, 2 written
  u64 index, thread, site;
};
}  // namespace ongpu

#if ONGPU_CHECK_BOUNDS
extern "C" {
__device__ ongpu::IndexReport ongpu_index_report;
}
namespace ongpu {
ONGPU_FN u64 global_thread() { return (u64)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __noinline__ void index_out_of_range(u64 index, unsigned int len) {
  IndexReport* r = &ongpu_index_report;
  if (atomicCAS(&r->hit, 0u, 1u) == 0u) {
    r->index = index;
    r->len = len;
    r->thread = global_thread();
    r->site = ~0ull;
    __threadfence();
    atomicExch(&r->hit, 2u);
  }
}
// An index of any integer type as u64 (a negative one becomes huge, so out of range).
template <class I> ONGPU_FN u64 checked_index(I i, unsigned int len) {
  const u64 k = (u64)(long long)i;
  if (k < len) return k;
  index_out_of_range(k, len);
  return 0;
}
ONGPU_FN u64 checked_index(u64 i, unsigned int len) {
  if (i < len) return i;
  index_out_of_range(i, len);
  return 0;
}
// After a site's body: if this thread's index was the one recorded, the site it ran.
ONGPU_FN void leave_site(u64 site) {
  volatile IndexReport* r = &ongpu_index_report;
  if (r->hit == 2u && r->site == ~0ull && r->thread == global_thread()) r->site = site;
}
}  // namespace ongpu
#define ONGPU_INDEX(I, N) ongpu::checked_index((I), (N))
#define ONGPU_LEAVE_SITE(S) ongpu::leave_site(S)
#else
#define ONGPU_INDEX(I, N) (I)
#define ONGPU_LEAVE_SITE(S) ((void)0)
#endif

namespace ongpu {

// ---------------------------------------------------------------- integers and casts
// Rust's `as` from float to integer saturates and maps NaN to 0. The rz conversion
// intrinsics saturate (a C++ cast would be undefined out of range); the 64-bit ones turn
// NaN into the minimum, so NaN is tested first.
template <class To, class From> struct caster {
  static constexpr ONGPU_FN To run(From x) { return (To)x; }
};
#define ONGPU_SAT_CAST(TO, FROM, FN) \
  template <> struct caster<TO, FROM> { static ONGPU_FN TO run(FROM x) { return x != x ? (TO)0 : FN(x); } };
ONGPU_SAT_CAST(int, float, __float2int_rz)
ONGPU_SAT_CAST(unsigned int, float, __float2uint_rz)
ONGPU_SAT_CAST(long long, float, __float2ll_rz)
ONGPU_SAT_CAST(unsigned long long, float, __float2ull_rz)
ONGPU_SAT_CAST(int, double, __double2int_rz)
ONGPU_SAT_CAST(unsigned int, double, __double2uint_rz)
ONGPU_SAT_CAST(long long, double, __double2ll_rz)
ONGPU_SAT_CAST(unsigned long long, double, __double2ull_rz)
#undef ONGPU_SAT_CAST
template <class To, class From, long long LO, long long HI> struct narrow_caster {
  static ONGPU_FN To run(From x) {
    long long v = caster<long long, From>::run(x);
    return (To)(v < LO ? LO : (v > HI ? HI : v));
  }
};
template <> struct caster<signed char, float> : narrow_caster<signed char, float, -128, 127> {};
template <> struct caster<signed char, double> : narrow_caster<signed char, double, -128, 127> {};
template <> struct caster<unsigned char, float> : narrow_caster<unsigned char, float, 0, 255> {};
template <> struct caster<unsigned char, double> : narrow_caster<unsigned char, double, 0, 255> {};
template <> struct caster<short, float> : narrow_caster<short, float, -32768, 32767> {};
template <> struct caster<short, double> : narrow_caster<short, double, -32768, 32767> {};
template <> struct caster<unsigned short, float> : narrow_caster<unsigned short, float, 0, 65535> {};
template <> struct caster<unsigned short, double> : narrow_caster<unsigned short, double, 0, 65535> {};
// constexpr where the conversion is (integers): casts spell constants too (`[x; N as usize]`).
template <class To, class From> constexpr ONGPU_FN To cast(From x) { return caster<To, From>::run(x); }

// `%`: truncated remainder for integers (as C++), fmod for floats (C++ has no float %).
template <class A, class B> ONGPU_FN A rem(A a, B b) { return a % b; }
ONGPU_FN float rem(float a, float b) { return fmodf(a, b); }
ONGPU_FN double rem(double a, double b) { return fmod(a, b); }

// Shifts: the amount is masked to the operand's width, as Rust does without overflow checks.
template <class A, class B> ONGPU_FN A shl(A a, B b) {
  return (A)(a << ((unsigned long long)b & (8 * sizeof(A) - 1)));
}
template <class A, class B> ONGPU_FN A shr(A a, B b) {
  return (A)(a >> ((unsigned long long)b & (8 * sizeof(A) - 1)));
}

// `!`: logical on bool, bitwise on integers.
ONGPU_FN bool not_(bool b) { return !b; }
template <class A> ONGPU_FN A not_(A a) { return ~a; }

// ---------------------------------------------------------------- real maths
// The names of Rust's f32/f64 methods (`ln` is the natural logarithm).
#define ONGPU_UNARY(NAME, F32, F64) \
  ONGPU_FN float NAME(float x) { return F32(x); } \
  ONGPU_FN double NAME(double x) { return F64(x); }
ONGPU_UNARY(sqrt, ::sqrtf, ::sqrt)
ONGPU_UNARY(exp, ::expf, ::exp)
ONGPU_UNARY(ln, ::logf, ::log)
ONGPU_UNARY(log10, ::log10f, ::log10)
ONGPU_UNARY(log2, ::log2f, ::log2)
ONGPU_UNARY(sin, ::sinf, ::sin)
ONGPU_UNARY(cos, ::cosf, ::cos)
ONGPU_UNARY(tan, ::tanf, ::tan)
ONGPU_UNARY(floor, ::floorf, ::floor)
ONGPU_UNARY(ceil, ::ceilf, ::ceil)
ONGPU_UNARY(round, ::roundf, ::round)
ONGPU_UNARY(trunc, ::truncf, ::trunc)
#undef ONGPU_UNARY
ONGPU_FN float abs(float x) { return fabsf(x); }
ONGPU_FN double abs(double x) { return fabs(x); }
// Integer abs wraps at the minimum (Rust's wrapping_abs).
ONGPU_FN int abs(int x) { return (int)(x < 0 ? 0u - (unsigned)x : (unsigned)x); }
ONGPU_FN long long abs(long long x) {
  return (long long)(x < 0 ? 0ull - (unsigned long long)x : (unsigned long long)x);
}
ONGPU_FN unsigned int abs(unsigned int x) { return x; }
ONGPU_FN unsigned long long abs(unsigned long long x) { return x; }
// min/max: a NaN argument yields the other one (Rust's f32::min, C's fminf).
ONGPU_FN float min(float a, float b) { return fminf(a, b); }
ONGPU_FN double min(double a, double b) { return fmin(a, b); }
ONGPU_FN float max(float a, float b) { return fmaxf(a, b); }
ONGPU_FN double max(double a, double b) { return fmax(a, b); }
template <class A> ONGPU_FN A min(A a, A b) { return b < a ? b : a; }
template <class A> ONGPU_FN A max(A a, A b) { return a < b ? b : a; }
ONGPU_FN float powf(float x, float y) { return ::powf(x, y); }
ONGPU_FN double powf(double x, double y) { return ::pow(x, y); }
// powi: repeated squaring in the order of the CPU's runtime routine (__powisf2).
template <class T> ONGPU_FN T powi(T a, int b) {
  const bool recip = b < 0;
  T r = T(1);
  while (true) {
    if (b & 1) r *= a;
    b /= 2;
    if (b == 0) break;
    a *= a;
  }
  return recip ? T(1) / r : r;
}
ONGPU_FN float atan2(float y, float x) { return ::atan2f(y, x); }
ONGPU_FN double atan2(double y, double x) { return ::atan2(y, x); }
ONGPU_FN float hypot(float x, float y) { return ::hypotf(x, y); }
ONGPU_FN double hypot(double x, double y) { return ::hypot(x, y); }
ONGPU_FN float mul_add(float x, float a, float b) { return fmaf(x, a, b); }
ONGPU_FN double mul_add(double x, double a, double b) { return fma(x, a, b); }
ONGPU_FN float norm2(float x) { return x * x; }
ONGPU_FN double norm2(double x) { return x * x; }

// ---------------------------------------------------------------- complex
// Layout and arithmetic of num_complex::Complex<T>: { re, im }, same formulas.
// The conversions of the three types to the other precision serve bodies that mix f32 and
// f64: the kernel has one real type (`ongpu_real`) for the constructors it spells out, while
// Rust inferred each value's precision from where it goes (an f32 field, a typed `let`).
template <class T> struct complex {
  T re, im;
  template <class U> ONGPU_FN operator complex<U>() const { return complex<U>{U(re), U(im)}; }
};
template <class T> ONGPU_FN complex<T> make_complex(T re, T im) { return complex<T>{re, im}; }
template <class T, class U> ONGPU_FN complex<T> make_complex(T re, U im) { return complex<T>{re, (T)im}; }
template <class T> ONGPU_FN complex<T> operator+(complex<T> a, complex<T> b) { return {a.re + b.re, a.im + b.im}; }
template <class T> ONGPU_FN complex<T> operator-(complex<T> a, complex<T> b) { return {a.re - b.re, a.im - b.im}; }
template <class T> ONGPU_FN complex<T> operator-(complex<T> a) { return {-a.re, -a.im}; }
template <class T> ONGPU_FN complex<T> operator*(complex<T> a, complex<T> b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
template <class T> ONGPU_FN complex<T> operator/(complex<T> a, complex<T> b) {
  T n = b.re * b.re + b.im * b.im;
  T re = a.re * b.re + a.im * b.im;
  T im = a.im * b.re - a.re * b.im;
  return {re / n, im / n};
}
template <class T> ONGPU_FN complex<T> operator+(complex<T> a, T k) { return {a.re + k, a.im}; }
template <class T> ONGPU_FN complex<T> operator+(T k, complex<T> a) { return {k + a.re, a.im}; }
template <class T> ONGPU_FN complex<T> operator-(complex<T> a, T k) { return {a.re - k, a.im}; }
template <class T> ONGPU_FN complex<T> operator-(T k, complex<T> a) { return {k - a.re, -a.im}; }
template <class T> ONGPU_FN complex<T> operator*(complex<T> a, T k) { return {a.re * k, a.im * k}; }
template <class T> ONGPU_FN complex<T> operator*(T k, complex<T> a) { return {k * a.re, k * a.im}; }
template <class T> ONGPU_FN complex<T> operator/(complex<T> a, T k) { return {a.re / k, a.im / k}; }
template <class T> ONGPU_FN bool operator==(complex<T> a, complex<T> b) { return a.re == b.re && a.im == b.im; }
template <class T> ONGPU_FN bool operator!=(complex<T> a, complex<T> b) { return !(a == b); }
template <class T, class B> ONGPU_FN complex<T>& operator+=(complex<T>& a, B b) { return a = a + b; }
template <class T, class B> ONGPU_FN complex<T>& operator-=(complex<T>& a, B b) { return a = a - b; }
template <class T, class B> ONGPU_FN complex<T>& operator*=(complex<T>& a, B b) { return a = a * b; }
template <class T, class B> ONGPU_FN complex<T>& operator/=(complex<T>& a, B b) { return a = a / b; }
template <class T> ONGPU_FN complex<T> conj(complex<T> a) { return {a.re, -a.im}; }
// i·a and −i·a: a swap and a sign, no multiplication (ongpu-runtime/src/types/times_i.rs).
template <class T> ONGPU_FN complex<T> times_i(complex<T> a) { return {-a.im, a.re}; }
template <class T> ONGPU_FN complex<T> times_minus_i(complex<T> a) { return {a.im, -a.re}; }
template <class T> ONGPU_FN T norm_sqr(complex<T> a) { return a.re * a.re + a.im * a.im; }
template <class T> ONGPU_FN T norm2(complex<T> a) { return a.re * a.re + a.im * a.im; }
template <class T> ONGPU_FN T norm(complex<T> a) { return hypot(a.re, a.im); }
template <class T> ONGPU_FN T arg(complex<T> a) { return atan2(a.im, a.re); }
template <class T> ONGPU_FN complex<T> scale(complex<T> a, T k) { return {a.re * k, a.im * k}; }
template <class T> ONGPU_FN complex<T> unscale(complex<T> a, T k) { return {a.re / k, a.im / k}; }

// ---------------------------------------------------------------- colour vectors
template <class T> struct ColorVector {
  complex<T> v[3];
  template <class U> ONGPU_FN operator ColorVector<U>() const {
    ColorVector<U> r;
#pragma unroll
    for (int i = 0; i < 3; i++) r.v[i] = v[i];
    return r;
  }
  ONGPU_FN complex<T>& operator[](u64 i) { return v[ONGPU_INDEX(i, 3)]; }
  ONGPU_FN const complex<T>& operator[](u64 i) const { return v[ONGPU_INDEX(i, 3)]; }
  static ONGPU_FN ColorVector zero() {
    ColorVector r;
#pragma unroll
    for (int i = 0; i < 3; i++) r.v[i] = complex<T>{T(0), T(0)};
    return r;
  }
};
// ColorVector::new([a, b, c]).
template <class T> ONGPU_FN ColorVector<T> make_color_vector(complex<T> a, complex<T> b, complex<T> c) {
  return ColorVector<T>{{a, b, c}};
}
template <class T, class F> ONGPU_FN ColorVector<T> map(ColorVector<T> a, F f) {
  ColorVector<T> r;
#pragma unroll
  for (int i = 0; i < 3; i++) r.v[i] = f(a.v[i]);
  return r;
}
template <class T> ONGPU_FN ColorVector<T> operator+(ColorVector<T> a, ColorVector<T> b) {
  ColorVector<T> r;
#pragma unroll
  for (int i = 0; i < 3; i++) r.v[i] = a.v[i] + b.v[i];
  return r;
}
template <class T> ONGPU_FN ColorVector<T> operator-(ColorVector<T> a, ColorVector<T> b) {
  ColorVector<T> r;
#pragma unroll
  for (int i = 0; i < 3; i++) r.v[i] = a.v[i] - b.v[i];
  return r;
}
template <class T> ONGPU_FN ColorVector<T> operator-(ColorVector<T> a) {
  return map(a, [](complex<T> z) { return -z; });
}
template <class T> ONGPU_FN ColorVector<T> operator*(ColorVector<T> a, T k) {
  return map(a, [k](complex<T> z) { return z * k; });
}
template <class T> ONGPU_FN ColorVector<T> operator*(T k, ColorVector<T> a) { return a * k; }
template <class T> ONGPU_FN ColorVector<T> operator*(ColorVector<T> a, complex<T> k) {
  return map(a, [k](complex<T> z) { return z * k; });
}
template <class T> ONGPU_FN ColorVector<T> operator*(complex<T> k, ColorVector<T> a) { return a * k; }
template <class T> ONGPU_FN ColorVector<T> operator/(ColorVector<T> a, T k) {
  return map(a, [k](complex<T> z) { return z / k; });
}
template <class T> ONGPU_FN bool operator==(ColorVector<T> a, ColorVector<T> b) {
  return a.v[0] == b.v[0] && a.v[1] == b.v[1] && a.v[2] == b.v[2];
}
template <class T> ONGPU_FN bool operator!=(ColorVector<T> a, ColorVector<T> b) { return !(a == b); }
template <class T, class B> ONGPU_FN ColorVector<T>& operator+=(ColorVector<T>& a, B b) { return a = a + b; }
template <class T, class B> ONGPU_FN ColorVector<T>& operator-=(ColorVector<T>& a, B b) { return a = a - b; }
template <class T, class B> ONGPU_FN ColorVector<T>& operator*=(ColorVector<T>& a, B b) { return a = a * b; }
template <class T, class B> ONGPU_FN ColorVector<T>& operator/=(ColorVector<T>& a, B b) { return a = a / b; }
template <class T> ONGPU_FN ColorVector<T> conj(ColorVector<T> a) {
  return map(a, [](complex<T> z) { return conj(z); });
}
template <class T> ONGPU_FN ColorVector<T> times_i(ColorVector<T> a) {
  return map(a, [](complex<T> z) { return times_i(z); });
}
template <class T> ONGPU_FN ColorVector<T> times_minus_i(ColorVector<T> a) {
  return map(a, [](complex<T> z) { return times_minus_i(z); });
}
template <class T> ONGPU_FN T norm2(ColorVector<T> a) {
  return norm2(a.v[0]) + norm2(a.v[1]) + norm2(a.v[2]);
}
template <class T> ONGPU_FN complex<T> dot(ColorVector<T> a, ColorVector<T> b) {
  complex<T> acc{T(0), T(0)};
#pragma unroll
  for (int i = 0; i < 3; i++) acc = acc + conj(a.v[i]) * b.v[i];
  return acc;
}

// ---------------------------------------------------------------- colour matrices
template <class T> struct ColorMatrix {
  complex<T> m[3][3];
  template <class U> ONGPU_FN operator ColorMatrix<U>() const {
    ColorMatrix<U> r;
#pragma unroll
    for (int i = 0; i < 3; i++)
#pragma unroll
      for (int j = 0; j < 3; j++) r.m[i][j] = m[i][j];
    return r;
  }
#if ONGPU_CHECK_BOUNDS
  // A row whose entries are checked too.
  template <class C> struct Row {
    C* p;
    ONGPU_FN C& operator[](u64 j) const { return p[ONGPU_INDEX(j, 3)]; }
  };
  ONGPU_FN Row<complex<T> > operator[](u64 i) { return {m[ONGPU_INDEX(i, 3)]}; }
  ONGPU_FN Row<const complex<T> > operator[](u64 i) const { return {m[ONGPU_INDEX(i, 3)]}; }
#else
  ONGPU_FN complex<T>* operator[](u64 i) { return m[i]; }
  ONGPU_FN const complex<T>* operator[](u64 i) const { return m[i]; }
#endif
  static ONGPU_FN ColorMatrix zero() {
    ColorMatrix r;
#pragma unroll
    for (int i = 0; i < 3; i++)
#pragma unroll
      for (int j = 0; j < 3; j++) r.m[i][j] = complex<T>{T(0), T(0)};
    return r;
  }
  static ONGPU_FN ColorMatrix identity() {
    ColorMatrix r = zero();
#pragma unroll
    for (int i = 0; i < 3; i++) r.m[i][i] = complex<T>{T(1), T(0)};
    return r;
  }
};
// ColorMatrix::new([[a00, a01, a02], [a10, a11, a12], [a20, a21, a22]]) (row-major).
template <class T>
ONGPU_FN ColorMatrix<T> make_color_matrix(complex<T> a00, complex<T> a01, complex<T> a02, complex<T> a10,
                                          complex<T> a11, complex<T> a12, complex<T> a20, complex<T> a21,
                                          complex<T> a22) {
  return ColorMatrix<T>{{{a00, a01, a02}, {a10, a11, a12}, {a20, a21, a22}}};
}
template <class T, class F> ONGPU_FN ColorMatrix<T> map(ColorMatrix<T> a, F f) {
  ColorMatrix<T> r;
#pragma unroll
  for (int i = 0; i < 3; i++)
#pragma unroll
    for (int j = 0; j < 3; j++) r.m[i][j] = f(a.m[i][j]);
  return r;
}
template <class T> ONGPU_FN ColorMatrix<T> operator+(ColorMatrix<T> a, ColorMatrix<T> b) {
  ColorMatrix<T> r;
#pragma unroll
  for (int i = 0; i < 3; i++)
#pragma unroll
    for (int j = 0; j < 3; j++) r.m[i][j] = a.m[i][j] + b.m[i][j];
  return r;
}
template <class T> ONGPU_FN ColorMatrix<T> operator-(ColorMatrix<T> a, ColorMatrix<T> b) {
  ColorMatrix<T> r;
#pragma unroll
  for (int i = 0; i < 3; i++)
#pragma unroll
    for (int j = 0; j < 3; j++) r.m[i][j] = a.m[i][j] - b.m[i][j];
  return r;
}
template <class T> ONGPU_FN ColorMatrix<T> operator-(ColorMatrix<T> a) {
  return map(a, [](complex<T> z) { return -z; });
}
// Each entry sums k = 0, 1, 2 in that order, as the Rust type does.
template <class T> ONGPU_FN ColorMatrix<T> operator*(ColorMatrix<T> a, ColorMatrix<T> b) {
  ColorMatrix<T> r;
#pragma unroll
  for (int i = 0; i < 3; i++)
#pragma unroll
    for (int j = 0; j < 3; j++) {
      complex<T> acc = a.m[i][0] * b.m[0][j];
      acc = acc + a.m[i][1] * b.m[1][j];
      acc = acc + a.m[i][2] * b.m[2][j];
      r.m[i][j] = acc;
    }
  return r;
}
template <class T> ONGPU_FN ColorVector<T> operator*(ColorMatrix<T> a, ColorVector<T> v) {
  ColorVector<T> r;
#pragma unroll
  for (int i = 0; i < 3; i++) {
    complex<T> acc = a.m[i][0] * v.v[0];
    acc = acc + a.m[i][1] * v.v[1];
    acc = acc + a.m[i][2] * v.v[2];
    r.v[i] = acc;
  }
  return r;
}
template <class T> ONGPU_FN ColorMatrix<T> operator*(ColorMatrix<T> a, T k) {
  return map(a, [k](complex<T> z) { return z * k; });
}
template <class T> ONGPU_FN ColorMatrix<T> operator*(T k, ColorMatrix<T> a) { return a * k; }
template <class T> ONGPU_FN ColorMatrix<T> operator/(ColorMatrix<T> a, T k) {
  return map(a, [k](complex<T> z) { return z / k; });
}
template <class T> ONGPU_FN ColorMatrix<T> operator*(ColorMatrix<T> a, complex<T> k) {
  return map(a, [k](complex<T> z) { return z * k; });
}
template <class T> ONGPU_FN ColorMatrix<T> operator*(complex<T> k, ColorMatrix<T> a) {
  return map(a, [k](complex<T> z) { return k * z; });
}
template <class T> ONGPU_FN bool operator==(ColorMatrix<T> a, ColorMatrix<T> b) {
  bool eq = true;
#pragma unroll
  for (int i = 0; i < 3; i++)
#pragma unroll
    for (int j = 0; j < 3; j++) eq = eq && a.m[i][j] == b.m[i][j];
  return eq;
}
template <class T> ONGPU_FN bool operator!=(ColorMatrix<T> a, ColorMatrix<T> b) { return !(a == b); }
template <class T, class B> ONGPU_FN ColorMatrix<T>& operator+=(ColorMatrix<T>& a, B b) { return a = a + b; }
template <class T, class B> ONGPU_FN ColorMatrix<T>& operator-=(ColorMatrix<T>& a, B b) { return a = a - b; }
template <class T, class B> ONGPU_FN ColorMatrix<T>& operator*=(ColorMatrix<T>& a, B b) { return a = a * b; }
template <class T, class B> ONGPU_FN ColorMatrix<T>& operator/=(ColorMatrix<T>& a, B b) { return a = a / b; }
template <class T> ONGPU_FN ColorMatrix<T> adj(ColorMatrix<T> a) {
  ColorMatrix<T> r;
#pragma unroll
  for (int i = 0; i < 3; i++)
#pragma unroll
    for (int j = 0; j < 3; j++) r.m[i][j] = conj(a.m[j][i]);
  return r;
}
template <class T> ONGPU_FN ColorMatrix<T> transpose(ColorMatrix<T> a) {
  ColorMatrix<T> r;
#pragma unroll
  for (int i = 0; i < 3; i++)
#pragma unroll
    for (int j = 0; j < 3; j++) r.m[i][j] = a.m[j][i];
  return r;
}
template <class T> ONGPU_FN ColorMatrix<T> conj(ColorMatrix<T> a) {
  return map(a, [](complex<T> z) { return conj(z); });
}
template <class T> ONGPU_FN ColorMatrix<T> times_i(ColorMatrix<T> a) {
  return map(a, [](complex<T> z) { return times_i(z); });
}
template <class T> ONGPU_FN ColorMatrix<T> times_minus_i(ColorMatrix<T> a) {
  return map(a, [](complex<T> z) { return times_minus_i(z); });
}
template <class T> ONGPU_FN complex<T> trace(ColorMatrix<T> a) { return a.m[0][0] + a.m[1][1] + a.m[2][2]; }
template <class T> ONGPU_FN T norm2(ColorMatrix<T> a) {
  T acc = T(0);
#pragma unroll
  for (int i = 0; i < 3; i++)
#pragma unroll
    for (int j = 0; j < 3; j++) acc += norm2(a.m[i][j]);
  return acc;
}

// ---------------------------------------------------------------- unsuffixed float literals
// Rust gives `2.0` the type of the operand it meets (`x * 2.0` with x: f32 is an f32
// product). The translation passes that operand's type T, and `lit<T, D>(2.0f, 2.0)` is the
// float or double spelling of the literal that matches T's real type (D when T has none),
// so the literal is rounded once, from its decimal digits, as rustc does.
struct no_real {};
template <class T> struct real_of { typedef no_real type; };
template <class T> struct real_of<const T> : real_of<T> {};
template <class T> struct real_of<T&> : real_of<T> {};
template <> struct real_of<float> { typedef float type; };
template <> struct real_of<double> { typedef double type; };
template <class T> struct real_of<complex<T> > { typedef T type; };
template <class T> struct real_of<ColorVector<T> > { typedef T type; };
template <class T> struct real_of<ColorMatrix<T> > { typedef T type; };
template <class R, class D> struct pick_real { typedef R type; };
template <class D> struct pick_real<no_real, D> { typedef D type; };
template <class R> struct lit_value;
template <> struct lit_value<float> { static ONGPU_FN float get(float f, double) { return f; } };
template <> struct lit_value<double> { static ONGPU_FN double get(float, double d) { return d; } };
template <class T, class D>
ONGPU_FN typename pick_real<typename real_of<T>::type, D>::type lit(float f, double d) {
  return lit_value<typename pick_real<typename real_of<T>::type, D>::type>::get(f, d);
}

// ---------------------------------------------------------------- generic device functions
// A generic `#[ongpu::device] fn f<T: Real>` is a function template. Its type parameter is
// deduced from one parameter (an array's element type when it takes an array); every other
// parameter that mentions it is `nondeduced<T>`, so that an argument converts to it (a
// literal, as rustc typed it) instead of contradicting the deduction.
template <class T> struct type_is { typedef T type; };
template <class T> using nondeduced = typename type_is<T>::type;

// ---------------------------------------------------------------- unsuffixed integer literals
// Rust gives `1` in `let t: u64 = 1 << 40;` the type u64. The translation passes the type T
// of what the literal meets, and `lit_int<T>(1)` is the literal converted to T when T is an
// integer type (unchanged otherwise: a method's receiver of another type, say).
template <class T, class V> struct lit_int_t { typedef V type; };
template <class T, class V> struct lit_int_t<const T, V> : lit_int_t<T, V> {};
template <class T, class V> struct lit_int_t<T&, V> : lit_int_t<T, V> {};
#define ONGPU_LIT_INT(T) \
  template <class V> struct lit_int_t<T, V> { typedef T type; };
ONGPU_LIT_INT(signed char)
ONGPU_LIT_INT(short)
ONGPU_LIT_INT(int)
ONGPU_LIT_INT(long)
ONGPU_LIT_INT(long long)
ONGPU_LIT_INT(unsigned char)
ONGPU_LIT_INT(unsigned short)
ONGPU_LIT_INT(unsigned int)
ONGPU_LIT_INT(unsigned long)
ONGPU_LIT_INT(unsigned long long)
#undef ONGPU_LIT_INT
// constexpr: it spells constants too (a local array's size).
template <class T, class V> constexpr ONGPU_FN typename lit_int_t<T, V>::type lit_int(V v) {
  return (typename lit_int_t<T, V>::type)v;
}
// The type of a local bound to an untyped integer whose first typed use has type T.
template <class T> using int_type = typename lit_int_t<T, int>::type;

// ---------------------------------------------------------------- layouts and site access
// Component c of site s of a field with `stride` padded sites and C components per element.
struct AoS {
  template <int C> static ONGPU_FN u64 index(u64 s, int c, u64) { return s * C + c; }
};
struct SoA {
  template <int C> static ONGPU_FN u64 index(u64 s, int c, u64 stride) { return (u64)c * stride + s; }
};
template <int V> struct AoSoA {
  template <int C> static ONGPU_FN u64 index(u64 s, int c, u64) {
    return (s / V) * (u64)(C * V) + (u64)c * V + s % V;
  }
};

// The storage scalar and component count of each element type.
template <class T> struct element;
template <> struct element<float> { typedef float scalar; enum { C = 1 }; };
template <> struct element<double> { typedef double scalar; enum { C = 1 }; };
template <> struct element<int> { typedef int scalar; enum { C = 1 }; };
template <> struct element<unsigned int> { typedef unsigned int scalar; enum { C = 1 }; };
template <class T> struct element<complex<T> > { typedef T scalar; enum { C = 2 }; };
template <class T> struct element<ColorVector<T> > { typedef T scalar; enum { C = 6 }; };
template <class T> struct element<ColorMatrix<T> > { typedef T scalar; enum { C = 18 }; };

// Gathers the element of site s (its components viewed as an array of scalars).
template <class L, class T> ONGPU_FN T load(const typename element<T>::scalar* p, u64 s, u64 stride) {
  typedef typename element<T>::scalar S;
  T v;
  S* c = reinterpret_cast<S*>(&v);
#pragma unroll
  for (int k = 0; k < element<T>::C; k++) c[k] = p[L::template index<element<T>::C>(s, k, stride)];
  return v;
}

// Scatters v into site s.
template <class L, class T> ONGPU_FN void store(typename element<T>::scalar* p, u64 s, u64 stride, const T& v) {
  typedef typename element<T>::scalar S;
  const S* c = reinterpret_cast<const S*>(&v);
#pragma unroll
  for (int k = 0; k < element<T>::C; k++) p[L::template index<element<T>::C>(s, k, stride)] = c[k];
}

}  // namespace ongpu
