/*
 * wgsync device library for CUDA C: occupancy discovery (Sorensen et al. 2016 §3), the participating-group
 * environment (Table 2), grid barriers among participating groups (§4), a split grid barrier,
 * and checked builds (-DWGS_CHECKED=1: every spin bounded, misuse reported, never a hang).
 * This file is the CUDA layer (atomics through PTX, ids, block barriers); the protocol itself
 * is device/common/wgs_core.h, the same code the OpenCL library runs, and the state's layout
 * device/common/wgs_layout.h.
 *
 *   __global__ void k(unsigned *wgs, ...) {
 *     wgs_env env;
 *     if (wgs_discover(wgs, &env)) { ... wgs_grid_barrier(&env); ... }
 *   }
 *
 * Memory ordering uses PTX (sm_70+) at gpu scope, each site saying why it is enough:
 * ld.acquire.gpu / st.release.gpu for flags and generations, atom.acq_rel.gpu for arrival
 * counters (an acq_rel RMW chain is a release sequence: the last arriver's RMW synchronises
 * with every earlier arriver's), __syncthreads() (bar.sync, CTA-scope ordering) around them.
 */
#ifndef WGSYNC_CUH
#define WGSYNC_CUH

#include "wgs_layout.h"

#define WGS_DEV static __device__ __forceinline__

/* One kernel source for CUDA and OpenCL C (the OpenCL library defines the same three): a kernel
 * written with them, wgsync's calls and the wgs_get_* ids compiles in both
 * (tests/kernels/portable.h). */
#define WGS_KERNEL extern "C" __global__
#define WGS_GLOBAL
typedef unsigned wgs_uint;

/* ---- atomics layer (PTX) ---------------------------------------------------------------- */
WGS_DEV unsigned wgs__ld_acq(const unsigned *p)
{
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
WGS_DEV unsigned wgs__ld_rlx(const unsigned *p)
{
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
/* The launch epoch's pair (wgs_layout.h): an aligned 64-bit access is single-copy atomic, so a
 * reader sees the epoch and the name of the launch that stored it together. */
WGS_DEV unsigned long long wgs__ld_rlx64(const unsigned *p)
{
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
WGS_DEV void wgs__st_rlx64(unsigned *p, unsigned long long v)
{
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
WGS_DEV void wgs__st_rel(unsigned *p, unsigned v)
{
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
WGS_DEV void wgs__st_rlx(unsigned *p, unsigned v)
{
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
WGS_DEV unsigned wgs__add_rlx(unsigned *p, unsigned v)
{
  unsigned old;
  asm volatile("atom.relaxed.gpu.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}
WGS_DEV unsigned wgs__add_acqrel(unsigned *p, unsigned v)
{
  unsigned old;
  asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}
WGS_DEV unsigned wgs__add_rel(unsigned *p, unsigned v)
{
  unsigned old;
  asm volatile("atom.release.gpu.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}
WGS_DEV void wgs__fence_acq_rel() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }
WGS_DEV unsigned wgs__xchg_acq(unsigned *p, unsigned v)
{
  unsigned old;
  asm volatile("atom.acquire.gpu.global.exch.b32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}
WGS_DEV unsigned wgs__or_rlx(unsigned *p, unsigned v)
{
  unsigned old;
  asm volatile("atom.relaxed.gpu.global.or.b32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}
WGS_DEV unsigned wgs__cas_rlx(unsigned *p, unsigned expected, unsigned desired)
{
  unsigned old;
  asm volatile("atom.relaxed.gpu.global.cas.b32 %0, [%1], %2, %3;"
               : "=r"(old) : "l"(p), "r"(expected), "r"(desired) : "memory");
  return old;
}
WGS_DEV unsigned long long wgs__timer_ns()
{
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
WGS_DEV unsigned wgs__gridid()
{
  unsigned long long id;
  asm volatile("mov.u64 %0, %%gridid;" : "=l"(id));
  return (unsigned)id;
}
/* The host-mapped mirror of the result words (CUDA launches give one; NULL otherwise), at the
 * config's HOST words. System scope: the host reads it after the stream's work is complete. */
WGS_DEV void wgs__mirror_put(unsigned *s, unsigned word, unsigned v)
{
  const unsigned *cfg = s - s[WGS_W_BACK] + WGS_G_CONFIG;
  unsigned *m = (unsigned *)(((unsigned long long)cfg[WGS_CFG_HOST_HI] << 32) | cfg[WGS_CFG_HOST_LO]);
  if (m)
    asm volatile("st.relaxed.sys.global.u32 [%0], %1;" ::"l"(m + word), "r"(v) : "memory");
}
/* PTX red: a release add whose result nobody waits for (the counter barrier's arrival). */
WGS_DEV void wgs__red_rel(unsigned *p, unsigned v)
{
  asm volatile("red.release.gpu.global.add.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/* ---- the rest of the layer device/common/wgs_core.h asks for (its head lists it) ---------- */
typedef unsigned *wgs_word_ptr;
typedef unsigned long long wgs__u64;
#define WGS_FN WGS_DEV
#define WGS_HAS_TIMER 1
#define WGS_HAS_GRIDID 1 /* %gridid tells a second wgs_discover from the next launch's first */
/* C++ member defaults: wgs_env starts with s == 0, so checked builds report a grid barrier that
 * runs before wgs_discover (or in a block it turned away) and leave it early. */
#define WGS__ENV_STARTS_EMPTY 1
#define WGS__INIT(v) = v
/* (device/common/wgs_core.h says why: registers) */
#define WGS__ONE_AT_A_TIME _Pragma("unroll 1")
#define WGS__FEW_AT_A_TIME _Pragma("unroll 4")
#define WGS__OPAQUE_ENV(env) asm volatile("" : "+l"((env)->s), "+r"((env)->barrier_kind))
#define wgs__group_index() ((unsigned)blockIdx.x)
#define wgs__group_count() ((unsigned)gridDim.x)
#define wgs__local_index() ((unsigned)threadIdx.x)
#define wgs__local_count() ((unsigned)blockDim.x)
#define wgs__group_barrier() __syncthreads()
/* A work-group barrier that also ORs a value over the group (bar.red.or: one barrier). */
#define wgs__group_barrier_or(env, slot, v) ((unsigned)__syncthreads_or((int)((v) != 0u)))
/* wgs_discover hands its answer to the block through 16 bytes of static shared memory in every
 * kernel that calls it: no global load after its __syncthreads (a kernel that asks for the
 * most dynamic shared memory subtracts its static size, as for any kernel with static shared
 * memory). */
#define WGS_GROUP_SHARE 1
WGS_DEV unsigned *wgs__group_share()
{
  __shared__ unsigned words[4];
  return words;
}
#define wgs__f2u(f) __float_as_uint(f)
#define wgs__u2f(u) __uint_as_float(u)
/* The grid reductions' work-group step (device/common/wgs_core.h, "grid reductions"): a tree of
 * down-shuffles in each warp (lane 0 ends with the warp's value; lanes past a partial warp's end
 * are left out), the warps' values in shared memory, the same tree in warp 0, its answer in
 * shared memory for the block: two __syncthreads, a fixed order. Reuse: the next call writes the
 * warps' words before its first __syncthreads, after warp 0 read them here before the second;
 * and the answer after its first, which every thread passes only after reading it here. */
WGS_DEV unsigned wgs__red_op(unsigned kind, unsigned a, unsigned b);
/* lanes: the warp's threads (all run the shuffles); valid: those whose x counts */
WGS_DEV unsigned wgs__warp_reduce(unsigned kind, unsigned x, unsigned lanes, unsigned valid)
{
  unsigned lane = threadIdx.x & 31u, mask = lanes >= 32u ? 0xffffffffu : (1u << lanes) - 1u;
  for (unsigned d = 16u; d > 0u; d >>= 1) {
    unsigned y = __shfl_down_sync(mask, x, d);
    if (lane + d < valid)
      x = wgs__red_op(kind, x, y);
  }
  return x;
}
WGS_DEV unsigned wgs__cuda_group_reduce(unsigned kind, unsigned x)
{
  __shared__ unsigned red[33];
  unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5, n = blockDim.x;
  unsigned warps = (n + 31u) >> 5, here = n - (warp << 5) < 32u ? n - (warp << 5) : 32u;
  x = wgs__warp_reduce(kind, x, here, here);
  if (lane == 0u)
    red[warp] = x;
  __syncthreads();
  if (warp == 0u) {
    x = wgs__warp_reduce(kind, lane < warps ? red[lane] : 0u, here, warps);
    if (lane == 0u)
      red[32] = x;
  }
  __syncthreads();
  return red[32];
}
#define wgs__group_reduce(env, phase, kind, x) wgs__cuda_group_reduce((kind), (x))
#define WGS__GROUP_REDUCE_ORDERED 1
/* The join between a grid barrier's phases: the XF barrier's B2 is __syncthreads (block-uniform
 * condition); the counter barrier needs only the combiner's first warp (S, R <= 32 lanes poll
 * and publish), __syncwarp, which orders at CTA scope what the lanes acquired before the
 * replicas' release. Every other block runs no block barrier there: the counter barrier is two
 * __syncthreads per instance (the OpenCL library, for PoCL, runs three). */
#define WGS__JOIN(env, part, full)                                  \
  do {                                                              \
    if (full)                                                       \
      __syncthreads();                                              \
    else if ((part) && wgs__combiner(env) && threadIdx.x < 32u)     \
      __syncwarp();                                                 \
  } while (0)
#define wgs__log2(x) (31u - __clz(x))
#define wgs__pause_ns(ns) __nanosleep(ns)
/* The grid barrier is inlined. WGS_BARRIER_CALL=1 makes it a call instead: then the barrier's
 * values need not stay live across the caller's loop (the apps' persistent kernels took 32-36
 * registers instead of 36-54; ptxas, sm_90), but the call cost 0.04-0.65 us per barrier on the
 * H200 (bench_shards.cu built both ways). A kernel near
 * a register boundary does better with __launch_bounds__ (as apps/cuda/apps_cuda.cu). */
#ifndef WGS_BARRIER_CALL
#define WGS_BARRIER_CALL 0
#endif
#if WGS_BARRIER_CALL
#define WGS_BARRIER_FN static __device__ __noinline__
#else
#define WGS_BARRIER_FN WGS_DEV
#endif

#define WGS_PHASE_CALLS 0

#include "wgs_core.h"

/*
 * What the counter barrier's shapes measured on the H200 (docs/results.md): small launches, one hop after the last arrival, 0.85 us at
 * 132 x 256 (grid.sync 0.97); middle launches with the acq_rel arrival, 1.13 us at 528 x 256
 * against 1.56 with the release add (grid.sync 1.24); sharded at 1056 x 256, 1.70 us against
 * 2.15 for a published instance written by the last arriver of one acq_rel count (the default
 * before). Measured and kept out: backed-off polls and a sleep per missing arrival
 * (bench/common/bench_variants.h), polling the one count at >= 1056 groups
 * (1.4-1.9x slower), a two-level tree (one more dependent round trip), fence.acq_rel instead of
 * acquire/release operations (0.3-0.6 us slower), Hopper clusters as the first level; and, to
 * shorten the sharded shape's path after the last arrival, the wait's acquire as a fence after
 * the poll (1 us slower back to back; design 4 of bench/common/bench_variants.h) or the combiner
 * polling with acquire loads (0.15-0.2 us slower; a patch beside its measurements, since the
 * library has no hook for it).
 */

#endif
