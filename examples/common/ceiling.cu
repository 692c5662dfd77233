// The device's bandwidth ceilings: what a tuned kernel moves, as a CUDA programmer would
// write it. Both use 16-byte words and a grid-stride loop; the caller picks the best grid.
typedef unsigned long long u64;

// A copy: 16-byte loads (read-only path) and stores.
extern "C" __global__ void copy16(const uint4* __restrict__ in, uint4* __restrict__ out, u64 n) {
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x)
    out[i] = __ldg(&in[i]);
}

// A reader: every 16-byte word of `p`, four loads in flight per thread, summed into a value
// that is stored only if it hits an impossible value, so that the loads stay.
extern "C" __global__ void read16(const float4* __restrict__ p, u64 n, float* __restrict__ out) {
  const u64 step = (u64)gridDim.x * blockDim.x;
  u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (; i + 3 * step < n; i += 4 * step) {
    const float4 a = p[i], b = p[i + step], c = p[i + 2 * step], d = p[i + 3 * step];
    acc += (a.x + a.y + a.z + a.w) + (b.x + b.y + b.z + b.w) + (c.x + c.y + c.z + c.w) +
           (d.x + d.y + d.z + d.w);
  }
  for (; i < n; i += step) {
    const float4 a = p[i];
    acc += a.x + a.y + a.z + a.w;
  }
  if (acc == -1.25e-38f) out[0] = acc;
}
