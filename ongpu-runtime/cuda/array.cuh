
// ---------------------------------------------------------------- arrays
namespace ongpu {

// `[T; N]`: N elements in a row (a gauge field's four links, a Wilson spinor's four spins, a
// kernel's register tile). A value like Rust's arrays: copied whole, indexed with checks
// under ONGPU_CHECK_BOUNDS. Indexed with constants (loops over constant ranges are unrolled),
// a local one is kept in registers.
template <class T, int N> struct array {
  T v[N];
  template <class I> ONGPU_FN T& operator[](I i) { return v[ONGPU_INDEX(i, N)]; }
  template <class I> ONGPU_FN const T& operator[](I i) const { return v[ONGPU_INDEX(i, N)]; }
};
template <class T, int N> struct element<array<T, N> > {
  typedef typename element<T>::scalar scalar;
  enum { C = N * element<T>::C };
};

// A colour matrix on each colour vector of an array (a Wilson half spinor's two spins).
template <class T, int N> ONGPU_FN array<ColorVector<T>, N> operator*(const ColorMatrix<T>& u, const array<ColorVector<T>, N>& h) {
  array<ColorVector<T>, N> r;
#pragma unroll
  for (int k = 0; k < N; k++) r.v[k] = u * h.v[k];
  return r;
}

// `[v; N]`.
template <int N, class T> ONGPU_FN array<T, N> fill(const T& v) {
  array<T, N> a;
#pragma unroll
  for (int k = 0; k < N; k++) a.v[k] = v;
  return a;
}

// `[a, b, c]`: the entries converted to the first one's type (rustc has checked that they
// all have it; unsuffixed literals may still be spelled in another).
template <class T, class... R> ONGPU_FN array<T, 1 + sizeof...(R)> array_of(const T& first, const R&... rest) {
  return array<T, 1 + sizeof...(R)>{{first, T(rest)...}};
}

// Four consecutive elements at p (16-byte aligned: 32 for double) in one vector access.
ONGPU_FN array<float, 4> load4(const float* p) {
  const float4 v = *reinterpret_cast<const float4*>(p);
  return array<float, 4>{{v.x, v.y, v.z, v.w}};
}
ONGPU_FN array<int, 4> load4(const int* p) {
  const int4 v = *reinterpret_cast<const int4*>(p);
  return array<int, 4>{{v.x, v.y, v.z, v.w}};
}
ONGPU_FN array<unsigned int, 4> load4(const unsigned int* p) {
  const uint4 v = *reinterpret_cast<const uint4*>(p);
  return array<unsigned int, 4>{{v.x, v.y, v.z, v.w}};
}
ONGPU_FN array<double, 4> load4(const double* p) {
  const double2 a = reinterpret_cast<const double2*>(p)[0];
  const double2 b = reinterpret_cast<const double2*>(p)[1];
  return array<double, 4>{{a.x, a.y, b.x, b.y}};
}
ONGPU_FN void store4(float* p, const array<float, 4>& v) {
  *reinterpret_cast<float4*>(p) = make_float4(v.v[0], v.v[1], v.v[2], v.v[3]);
}
ONGPU_FN void store4(int* p, const array<int, 4>& v) {
  *reinterpret_cast<int4*>(p) = make_int4(v.v[0], v.v[1], v.v[2], v.v[3]);
}
ONGPU_FN void store4(unsigned int* p, const array<unsigned int, 4>& v) {
  *reinterpret_cast<uint4*>(p) = make_uint4(v.v[0], v.v[1], v.v[2], v.v[3]);
}
ONGPU_FN void store4(double* p, const array<double, 4>& v) {
  reinterpret_cast<double2*>(p)[0] = make_double2(v.v[0], v.v[1]);
  reinterpret_cast<double2*>(p)[1] = make_double2(v.v[2], v.v[3]);
}

}  // namespace ongpu
