
// ---------------------------------------------------------------- printing
// `println!` in a body or kernel (compiled in with ONGPU_PRINTS): `print_record` appends a
// record to the module's buffer, which the host reads after the launch, decodes into the
// arguments' Rust types and formats with Rust's formatting (print/records.rs gives the
// layout). A record is its length in words, the print's number, the site or thread (two
// words) and each argument as a tag and its words.
#ifndef ONGPU_PRINTS
#define ONGPU_PRINTS 0
#endif
#if ONGPU_PRINTS
#define ONGPU_PRINT_WORDS (1u << 22)
namespace ongpu {
struct PrintBuffer {
  unsigned int used, dropped;
  unsigned int words[ONGPU_PRINT_WORDS];
};
}  // namespace ongpu
extern "C" {
__device__ ongpu::PrintBuffer ongpu_print_buffer;
}
namespace ongpu {
// Tag and words of each printable type (print/value.rs decodes them).
template <class T> struct print_arg {
  static_assert(sizeof(T) == 0,
                "ongpu: println! in a GPU body prints bool, integers, f32, f64, Complex, ColorVector "
                "and ColorMatrix values");
};
template <class T, unsigned TAG> struct print_word {
  enum { tag = TAG, words = 1 };
  static ONGPU_FN void put(unsigned int* w, T x) { w[0] = (unsigned int)x; }
};
template <class T, unsigned TAG> struct print_wide {
  enum { tag = TAG, words = 2 };
  static ONGPU_FN void put(unsigned int* w, T x) {
    const u64 b = (u64)x;
    w[0] = (unsigned int)b;
    w[1] = (unsigned int)(b >> 32);
  }
};
template <> struct print_arg<bool> : print_word<bool, 0> {};
template <> struct print_arg<signed char> : print_word<int, 1> {};
template <> struct print_arg<short> : print_word<int, 2> {};
template <> struct print_arg<int> : print_word<int, 3> {};
template <> struct print_arg<long long> : print_wide<long long, 4> {};
template <> struct print_arg<long> : print_wide<long long, 4> {};
template <> struct print_arg<unsigned char> : print_word<unsigned int, 5> {};
template <> struct print_arg<unsigned short> : print_word<unsigned int, 6> {};
template <> struct print_arg<unsigned int> : print_word<unsigned int, 7> {};
template <> struct print_arg<unsigned long long> : print_wide<unsigned long long, 8> {};
template <> struct print_arg<unsigned long> : print_wide<unsigned long long, 8> {};
// Reals by their bits, `n` of them from `x`.
ONGPU_FN void put_reals(unsigned int* w, const float* x, int n) {
  for (int k = 0; k < n; k++) w[k] = __float_as_uint(x[k]);
}
ONGPU_FN void put_reals(unsigned int* w, const double* x, int n) {
  for (int k = 0; k < n; k++) {
    const u64 b = (u64)__double_as_longlong(x[k]);
    w[2 * k] = (unsigned int)b;
    w[2 * k + 1] = (unsigned int)(b >> 32);
  }
}
template <class T, class R, int N, unsigned TAG32, unsigned TAG64> struct print_reals {
  enum { tag = sizeof(R) == 4 ? TAG32 : TAG64, words = N * (int)(sizeof(R) / 4) };
  static ONGPU_FN void put(unsigned int* w, const T& x) {
    put_reals(w, reinterpret_cast<const R*>(&x), N);
  }
};
template <> struct print_arg<float> : print_reals<float, float, 1, 9, 0> {};
template <> struct print_arg<double> : print_reals<double, double, 1, 0, 10> {};
template <class R> struct print_arg<complex<R> > : print_reals<complex<R>, R, 2, 11, 12> {};
template <class R> struct print_arg<ColorVector<R> > : print_reals<ColorVector<R>, R, 6, 13, 14> {};
template <class R> struct print_arg<ColorMatrix<R> > : print_reals<ColorMatrix<R>, R, 18, 15, 16> {};
template <class T> struct print_arg<const T> : print_arg<T> {};

template <class... A> struct print_size;
template <> struct print_size<> { enum { words = 0 }; };
template <class T, class... A> struct print_size<T, A...> {
  enum { words = 1 + print_arg<T>::words + print_size<A...>::words };
};

ONGPU_FN void print_put(unsigned int*) {}
template <class T, class... A> ONGPU_FN void print_put(unsigned int* w, const T& x, const A&... rest) {
  w[0] = print_arg<T>::tag;
  print_arg<T>::put(w + 1, x);
  print_put(w + 1 + print_arg<T>::words, rest...);
}

// Appends print `id` of site or thread `key` with its arguments. Out of line: a print's
// code stays off the path of the sites that do not print.
template <class... A> __device__ __noinline__ void print_record(u64 key, unsigned int id, A... args) {
  const unsigned int len = 4 + print_size<A...>::words;
  PrintBuffer* b = &ongpu_print_buffer;
  const unsigned int at = atomicAdd(&b->used, len);
  if (at + (u64)len > ONGPU_PRINT_WORDS) {
    if (at < ONGPU_PRINT_WORDS) b->words[at] = 0;
    atomicAdd(&b->dropped, 1u);
    return;
  }
  unsigned int* w = b->words + at;
  w[1] = id;
  w[2] = (unsigned int)key;
  w[3] = (unsigned int)(key >> 32);
  print_put(w + 4, args...);
  w[0] = len;
}
// The global thread index of a kernel's thread: blocks in x, y, z order, threads within a
// block likewise (the CPU backend's `ThreadCtx::thread_key`).
ONGPU_FN u64 print_thread_key() {
  const u64 block = ((u64)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  const u64 thread = ((u64)threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  return block * ((u64)blockDim.x * blockDim.y * blockDim.z) + thread;
}
}  // namespace ongpu
#endif
