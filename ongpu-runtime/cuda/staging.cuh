
// ---------------------------------------------------------------- staged AoS fields
// An AoS field's elements of one block's sites are one contiguous run of memory: a kernel
// over sites copies the run into shared memory with coalesced 16-byte accesses and each
// thread takes its own element there (launch/staged.rs writes the loop). `stage_in` copies
// `count` scalars from global `g` into shared `sh` (16-byte words where `g` is aligned to 16
// bytes, the rest one by one; `RO`: `g` is read-only in the kernel, so through the read-only
// cache); `stage_out` copies them back.
namespace ongpu {
// The dynamic shared memory of this launch (0: the launch could not stage, and the kernel
// reads its fields directly).
ONGPU_FN unsigned int dynamic_smem_bytes() {
  unsigned int b;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(b));
  return b;
}
template <class S, bool RO> ONGPU_FN void stage_in(S* sh, const S* g, u64 count) {
  u64 head = 0;
  if (((u64)g & 15) == 0) {
    const u64 words = count * sizeof(S) / 16;
    const uint4* g4 = reinterpret_cast<const uint4*>(g);
    uint4* s4 = reinterpret_cast<uint4*>(sh);
    for (u64 w = threadIdx.x; w < words; w += blockDim.x) s4[w] = RO ? __ldg(&g4[w]) : g4[w];
    head = words * 16 / sizeof(S);
  }
  for (u64 e = head + threadIdx.x; e < count; e += blockDim.x) sh[e] = RO ? __ldg(&g[e]) : g[e];
}
template <class S> ONGPU_FN void stage_out(S* g, const S* sh, u64 count) {
  u64 head = 0;
  if (((u64)g & 15) == 0) {
    const u64 words = count * sizeof(S) / 16;
    uint4* g4 = reinterpret_cast<uint4*>(g);
    const uint4* s4 = reinterpret_cast<const uint4*>(sh);
    for (u64 w = threadIdx.x; w < words; w += blockDim.x) g4[w] = s4[w];
    head = words * 16 / sizeof(S);
  }
  for (u64 e = head + threadIdx.x; e < count; e += blockDim.x) g[e] = sh[e];
}
}  // namespace ongpu
