// Counter-based random numbers: the twin of ongpu-runtime/src/random/ (Philox-4x32-10 and the
// portable ln / cos(2πt) of normal deviates). Every operation here is exact or correctly
// rounded and never contracted (the __d*_rn intrinsics), so draws are the host's bits.
namespace ongpu {

struct Philox {
  unsigned int key0, key1, stream, pad;
};

struct Block4 {
  unsigned int w[4];
};

ONGPU_FN Block4 philox(unsigned int c0, unsigned int c1, unsigned int c2, unsigned int c3,
                       unsigned int k0, unsigned int k1) {
#pragma unroll
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    unsigned int hi0 = __umulhi(0xD2511F53u, c0), lo0 = 0xD2511F53u * c0;
    unsigned int hi1 = __umulhi(0xCD9E8D57u, c2), lo1 = 0xCD9E8D57u * c2;
    unsigned int n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
    c0 = n0;
    c1 = lo1;
    c2 = n2;
    c3 = lo0;
  }
  Block4 b = {{c0, c1, c2, c3}};
  return b;
}

template <class I, class D> ONGPU_FN Block4 block(const Philox& r, I site, D draw) {
  u64 s = (u64)site;
  return philox((unsigned int)draw, (unsigned int)s, (unsigned int)(s >> 32), r.stream, r.key0,
                r.key1);
}

ONGPU_FN double uniform_from_words(unsigned int hi, unsigned int lo) {
  u64 k = ((u64)hi << 20) | ((u64)lo >> 12);
  return __dmul_rn(__dadd_rn((double)k, 0.5), 1.0 / 4503599627370496.0);
}

__device__ __forceinline__ double horner(const double* c, int n, double z) {
  double s = 0.0;
#pragma unroll
  for (int k = n - 1; k >= 0; --k) s = __dadd_rn(__dmul_rn(s, z), c[k]);
  return s;
}

ONGPU_FN double portable_ln(double x) {
  const double atanh_series[12] = {1.0,
                                   0.3333333333333333,
                                   0.2,
                                   0.14285714285714285,
                                   0.1111111111111111,
                                   0.09090909090909091,
                                   0.07692307692307693,
                                   0.06666666666666667,
                                   0.058823529411764705,
                                   0.05263157894736842,
                                   0.047619047619047616,
                                   0.043478260869565216};
  long long bits = __double_as_longlong(x);
  long long e = ((bits >> 52) & 0x7ff) - 1023;
  double m = __longlong_as_double((bits & 0x000fffffffffffffll) | (1023ll << 52));
  if (m > 1.4142135623730951) {
    m = __dmul_rn(m, 0.5);
    e += 1;
  }
  double s = __ddiv_rn(__dadd_rn(m, -1.0), __dadd_rn(m, 1.0));
  double z = __dmul_rn(s, s);
  double ln_m = __dmul_rn(__dmul_rn(2.0, s), horner(atanh_series, 12, z));
  return __dadd_rn(__dmul_rn((double)e, 0.6931471805599453), ln_m);
}

ONGPU_FN double portable_cos_2pi(double t) {
  const double sin_series[9] = {1.0,
                                -0.16666666666666666,
                                0.008333333333333333,
                                -0.0001984126984126984,
                                2.7557319223985893e-06,
                                -2.505210838544172e-08,
                                1.6059043836821613e-10,
                                -7.647163731819816e-13,
                                2.8114572543455206e-15};
  const double cos_series[10] = {1.0,
                                 -0.5,
                                 0.041666666666666664,
                                 -0.001388888888888889,
                                 2.48015873015873e-05,
                                 -2.755731922398589e-07,
                                 2.08767569878681e-09,
                                 -1.1470745597729725e-11,
                                 4.779477332387385e-14,
                                 -1.5619206968586225e-16};
  double t4 = __dmul_rn(t, 4.0);
  double quarter = floor(t4);
  double r = __dadd_rn(t4, -quarter);
  long long q = (long long)quarter & 3;
  bool use_sin = q == 1 || q == 3;
  bool negate = q == 1 || q == 2;
  if (r > 0.5) {
    r = __dadd_rn(1.0, -r);
    use_sin = !use_sin;
  }
  double a = __dmul_rn(r, 1.5707963267948966);
  double z = __dmul_rn(a, a);
  double v = use_sin ? __dmul_rn(a, horner(sin_series, 9, z)) : horner(cos_series, 10, z);
  return negate ? -v : v;
}

// `rng.bits(i, k)`, `rng.uniform_f32(i, k)`, ... of a captured generator.
template <class I, class D> ONGPU_FN unsigned int bits(const Philox& r, I site, D draw) {
  return block(r, site, draw).w[0];
}
template <class I, class D> ONGPU_FN float uniform_f32(const Philox& r, I site, D draw) {
  return __fmul_rn(__fadd_rn((float)(block(r, site, draw).w[0] >> 9), 0.5f),
                   1.0f / 8388608.0f);
}
template <class I, class D> ONGPU_FN double uniform_f64(const Philox& r, I site, D draw) {
  Block4 b = block(r, site, draw);
  return uniform_from_words(b.w[0], b.w[1]);
}
template <class I, class D> ONGPU_FN double normal_f64(const Philox& r, I site, D draw) {
  Block4 b = block(r, site, draw);
  double u1 = uniform_from_words(b.w[0], b.w[1]), u2 = uniform_from_words(b.w[2], b.w[3]);
  return __dmul_rn(__dsqrt_rn(__dmul_rn(-2.0, portable_ln(u1))), portable_cos_2pi(u2));
}
template <class I, class D> ONGPU_FN float normal_f32(const Philox& r, I site, D draw) {
  return (float)normal_f64(r, site, draw);
}

}  // namespace ongpu
