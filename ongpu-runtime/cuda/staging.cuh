
// ---------------------------------------------------------------- staged AoS fields
// An AoS field's elements of a warp's sites are one contiguous run of memory: a kernel over
// sites copies the run into the warp's own part of shared memory with coalesced 16-byte
// accesses and each thread takes its own element there (launch/staged.rs writes the loop).
// A warp stages for itself and waits only for itself (`__syncwarp`): no block barrier, so
// one warp's copies overlap the others' arithmetic. `stage_in` copies `count` scalars from
// global `g` into shared `sh`, `lanes` threads of the warp (lane `lane`) sharing the work
// (16-byte words where `g` is aligned to 16 bytes, the rest one by one; `RO`: `g` is
// read-only in the kernel, so through the read-only cache); `stage_out` copies them back.
namespace ongpu {
// The dynamic shared memory of this launch (0: the launch could not stage, and the kernel
// reads its fields directly).
ONGPU_FN unsigned int dynamic_smem_bytes() {
  unsigned int b;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(b));
  return b;
}
// The mask of a warp's `lanes` threads (the last warp of a block may be partial).
ONGPU_FN unsigned int lanes_mask(unsigned int lanes) {
  return lanes >= 32 ? 0xffffffffu : (1u << lanes) - 1u;
}
// The copies with a stride of `STRIDE` lanes (0: `lanes`, known only at run time). A
// constant stride lets the compiler keep several of a thread's loads in flight, which is
// what makes staging fast (on an H200 f64 AoS `x += y * z` runs at 3916 GB/s with it and
// 2408 without).
template <class S, bool RO, unsigned int STRIDE>
ONGPU_FN void stage_in_by(S* sh, const S* g, u64 count, unsigned int lane, unsigned int lanes) {
  const unsigned int stride = STRIDE ? STRIDE : lanes;
  u64 head = 0;
  if (((u64)g & 15) == 0) {
    const u64 words = count * sizeof(S) / 16;
    const uint4* g4 = reinterpret_cast<const uint4*>(g);
    uint4* s4 = reinterpret_cast<uint4*>(sh);
    for (u64 w = lane; w < words; w += stride) s4[w] = RO ? __ldg(&g4[w]) : g4[w];
    head = words * 16 / sizeof(S);
  }
  for (u64 e = head + lane; e < count; e += stride) sh[e] = RO ? __ldg(&g[e]) : g[e];
}
template <class S, unsigned int STRIDE>
ONGPU_FN void stage_out_by(S* g, const S* sh, u64 count, unsigned int lane, unsigned int lanes) {
  const unsigned int stride = STRIDE ? STRIDE : lanes;
  u64 head = 0;
  if (((u64)g & 15) == 0) {
    const u64 words = count * sizeof(S) / 16;
    uint4* g4 = reinterpret_cast<uint4*>(g);
    const uint4* s4 = reinterpret_cast<const uint4*>(sh);
    for (u64 w = lane; w < words; w += stride) g4[w] = s4[w];
    head = words * 16 / sizeof(S);
  }
  for (u64 e = head + lane; e < count; e += stride) g[e] = sh[e];
}
template <class S, bool RO>
ONGPU_FN void stage_in(S* sh, const S* g, u64 count, unsigned int lane, unsigned int lanes) {
  if (lanes == 32) stage_in_by<S, RO, 32>(sh, g, count, lane, lanes);
  else stage_in_by<S, RO, 0>(sh, g, count, lane, lanes);
}
template <class S>
ONGPU_FN void stage_out(S* g, const S* sh, u64 count, unsigned int lane, unsigned int lanes) {
  if (lanes == 32) stage_out_by<S, 32>(g, sh, count, lane, lanes);
  else stage_out_by<S, 0>(g, sh, count, lane, lanes);
}
}  // namespace ongpu
