// The dot product of the lecture: each thread sums a[i] * b[i] over a grid-stride loop, each
// block reduces its threads' sums in shared memory, and one thread per block adds the
// block's sum to the result with an atomic (double atomicAdd: compute capability 6.0+).
// blockDim.x must be a power of two; dynamic shared memory: blockDim.x doubles.
extern "C" __global__ void dot(const double* __restrict__ a, const double* __restrict__ b,
                               double* __restrict__ result, unsigned long long n) {
  extern __shared__ double cache[];
  double t = 0.0;
  const unsigned long long step = (unsigned long long)blockDim.x * gridDim.x;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += step) {
    t += a[i] * b[i];
  }
  cache[threadIdx.x] = t;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) cache[threadIdx.x] += cache[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(result, cache[0]);
}
