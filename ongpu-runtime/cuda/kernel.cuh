// ongpu helpers of explicit kernels (#[ongpu::kernel]), after the prelude: atomics with the
// argument types of the Rust API, and array accesses with optional bounds checks.
// ONGPU_CHECK_BOUNDS (0 or 1) is defined before this file.

namespace ongpu {

template <class T> struct identity { typedef T type; };

// ---------------------------------------------------------------- atomics
// The place's type decides (the Rust API takes `&mut a[i]` and a value of its type), so a
// literal argument converts to the element type, as rustc typed it.
template <class T> ONGPU_FN T atomic_add(T* p, typename identity<T>::type v) { return atomicAdd(p, v); }
template <class T> ONGPU_FN T atomic_sub(T* p, typename identity<T>::type v) { return atomicSub(p, v); }
template <class T> ONGPU_FN T atomic_min(T* p, typename identity<T>::type v) { return atomicMin(p, v); }
template <class T> ONGPU_FN T atomic_max(T* p, typename identity<T>::type v) { return atomicMax(p, v); }
template <class T> ONGPU_FN T atomic_exch(T* p, typename identity<T>::type v) { return atomicExch(p, v); }
template <class T> ONGPU_FN T atomic_cas(T* p, typename identity<T>::type compare, typename identity<T>::type v) {
  return atomicCAS(p, compare, v);
}

// ---------------------------------------------------------------- bounds checks
// The first out-of-range index of a launch: which array (parameter index, then shared
// arrays), which dimension, the index and the length, and who did it. `scratch` is where an
// out-of-range access goes instead (reads give garbage; the launch reports an error).
struct BoundsReport {
  unsigned int hit, array, dim, pad;
  unsigned long long index, len;
  unsigned int block[3], thread[3];
  unsigned long long scratch[40];
};

// An index of any integer type as u64; a negative one becomes huge, so it is out of range.
template <class I> ONGPU_FN u64 index_u64(I i) { return (u64)(long long)i; }
ONGPU_FN u64 index_u64(unsigned long long i) { return i; }

__device__ __noinline__ void report_out_of_range(BoundsReport* r, unsigned int array, unsigned int dim,
                                                 u64 index, u64 len) {
  if (atomicCAS(&r->hit, 0u, 1u) == 0u) {
    r->array = array;
    r->dim = dim;
    r->index = index;
    r->len = len;
    r->block[0] = blockIdx.x;
    r->block[1] = blockIdx.y;
    r->block[2] = blockIdx.z;
    r->thread[0] = threadIdx.x;
    r->thread[1] = threadIdx.y;
    r->thread[2] = threadIdx.z;
  }
}

// Element `i` of an array parameter, or the scratch space (and a report) if out of range.
template <class T, class I> ONGPU_FN T& at(T* p, u64 len, I i, BoundsReport* r, unsigned int array) {
  const u64 k = index_u64(i);
  if (k < len) return p[k];
  report_out_of_range(r, array, 0, k, len);
  return *reinterpret_cast<T*>(r->scratch);
}

// Element `i...` of shared array `a`, or the scratch space (and a report) if an index is out
// of range: clamping the index instead would let the access touch another thread's element.
template <class T, unsigned long long N, class I, class... R>
ONGPU_FN auto shared_elem(T (&a)[N], BoundsReport* r, unsigned int array, unsigned int dim, I i, R... rest) {
  u64 k = index_u64(i);
  const bool in_range = k < N;
  if (!in_range) {
    report_out_of_range(r, array, dim, k, N);
    k = 0;
  }
  if constexpr (sizeof...(R) == 0) {
    return in_range ? &a[k] : nullptr;
  } else {
    auto* inner = shared_elem(a[k], r, array, dim + 1, rest...);
    return in_range ? inner : nullptr;
  }
}

template <class A, class... I> ONGPU_FN auto& shared_at(A& a, BoundsReport* r, unsigned int array, I... i) {
  auto* p = shared_elem(a, r, array, 0u, i...);
  return p ? *p : *reinterpret_cast<decltype(p)>(r->scratch);
}

// The scratch space as 4 elements of T, aligned for a vector access.
template <class T> ONGPU_FN T* scratch4(BoundsReport* r) {
  return reinterpret_cast<T*>((reinterpret_cast<unsigned long long>(r->scratch) + 31) & ~31ull);
}

// Elements 4q..4q+3 of an array parameter (the address of the first), or the scratch space
// (and a report of index 4q+3) if they are not all in range.
template <class T, class Q> ONGPU_FN T* at4(T* p, u64 len, Q q, BoundsReport* r, unsigned int array) {
  const u64 k = index_u64(q);
  if (k < len / 4) return p + 4 * k;
  report_out_of_range(r, array, 0, k > (~0ull - 3) / 4 ? ~0ull : 4 * k + 3, len);
  return scratch4<T>(r);
}

// The same for a 1-D shared array, and for row i of a 2-D one.
template <class T, unsigned long long N, class Q>
ONGPU_FN T* shared_at4(T (&a)[N], BoundsReport* r, unsigned int array, Q q) {
  const u64 k = index_u64(q);
  if (k < N / 4) return &a[4 * k];
  report_out_of_range(r, array, 0, k > (~0ull - 3) / 4 ? ~0ull : 4 * k + 3, N);
  return scratch4<T>(r);
}
template <class T, unsigned long long M, unsigned long long N, class I, class Q>
ONGPU_FN T* shared_at4(T (&a)[M][N], BoundsReport* r, unsigned int array, I i, Q q) {
  const u64 row = index_u64(i);
  if (row >= M) {
    report_out_of_range(r, array, 0, row, M);
    return scratch4<T>(r);
  }
  const u64 k = index_u64(q);
  if (k < N / 4) return &a[row][4 * k];
  report_out_of_range(r, array, 1, k > (~0ull - 3) / 4 ? ~0ull : 4 * k + 3, N);
  return scratch4<T>(r);
}

// An array passed to a device function (`&[T]`: slice<const T>, `&mut [T]`: slice<T>): the
// kernel's pointer and length, and what a bounds report names (the kernel's array), so that
// an access in the function is checked as the same access in the kernel would be. A
// writable slice is a read-only one too (its base): a `&mut [T]` passes where `&[T]` is
// taken, and a generic function's `&[T]` deduces `T` from it.
template <class T> struct slice;
template <class T> struct slice<const T> {
  const T* p;
  u64 n;
  BoundsReport* r;
  unsigned int array;
  ONGPU_FN slice(const T* p, u64 n, BoundsReport* r, unsigned int array) : p(p), n(n), r(r), array(array) {}
  template <class I> ONGPU_FN const T& operator[](I i) const {
#if ONGPU_CHECK_BOUNDS
    return at(p, n, i, r, array);
#else
    return p[i];
#endif
  }
  template <class Q> ONGPU_FN const T* vec4(Q q) const {
#if ONGPU_CHECK_BOUNDS
    return at4(p, n, q, r, array);
#else
    return p + 4 * (u64)(q);
#endif
  }
  ONGPU_FN u64 len() const { return n; }
};
template <class T> struct slice : slice<const T> {
  ONGPU_FN slice(T* p, u64 n, BoundsReport* r, unsigned int array) : slice<const T>(p, n, r, array) {}
  // The pointer came from a writable array (or the scratch space): writing through it is
  // what the `&mut [T]` allows.
  template <class I> ONGPU_FN T& operator[](I i) const { return const_cast<T&>(slice<const T>::operator[](i)); }
  template <class Q> ONGPU_FN T* vec4(Q q) const { return const_cast<T*>(slice<const T>::vec4(q)); }
};
template <class T> ONGPU_FN slice<T> slice_of(T* p, u64 n, BoundsReport* r, unsigned int array) {
  return slice<T>(p, n, r, array);
}

}  // namespace ongpu

#if ONGPU_CHECK_BOUNDS
#define ONGPU_ELEM(P, I, ARRAY) (ongpu::at(P, ongpu_len_##P, I, ongpu_bounds, ARRAY))
#define ONGPU_VEC4(P, Q, ARRAY) (ongpu::at4(P, ongpu_len_##P, Q, ongpu_bounds, ARRAY))
#define ONGPU_SHARED(PLAIN, CHECKED) (CHECKED)
#else
#define ONGPU_ELEM(P, I, ARRAY) (P[I])
#define ONGPU_VEC4(P, Q, ARRAY) (P + 4 * (ongpu::u64)(Q))
#define ONGPU_SHARED(PLAIN, CHECKED) (PLAIN)
#endif
