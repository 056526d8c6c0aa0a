/*
 * The CUDA tools kernels (as device/opencl/kernels/tools.cl), compiled twice: checked and not
 * (cuda_tools_checked.cu, cuda_tools_plain.cu define WGS_CHECKED and WGS_SUFFIX).
 */
#define WGS_CHECK_MISUSE 0 /* the probes check occupancy, not the kernel (device/common/wgs_layout.h) */
#include "wgsync.cuh"

#define WGS_CAT2(a, b) a##b
#define WGS_CAT(a, b) WGS_CAT2(a, b)

/* §5.1 microbenchmark: discovery, then (optionally) one grid barrier; dynamic shared memory is
 * the resource knob. out[2p], out[2p+1]: native block id and count seen, per participating id. */
extern "C" __global__ void WGS_CAT(wgs_cuda_micro, WGS_SUFFIX)(unsigned *wgs, unsigned scratch_words,
                                                                 unsigned do_barrier, unsigned *out)
{
  extern __shared__ unsigned scratch[];
  wgs_env env;
  if (wgs_discover(wgs, &env)) {
    for (unsigned i = env.local_id; i < scratch_words; i += env.local_size)
      scratch[i] = i;
    __syncthreads();
    if (env.local_id == 0u) {
      out[2u * env.group_id] = blockIdx.x;
      out[2u * env.group_id + 1u] = wgs_get_num_groups(&env) + (scratch_words ? scratch[0] : 0u);
    }
    if (do_barrier)
      wgs_grid_barrier(&env);
  }
}

/* Bare grid barriers (or split arrive+wait), for latency. */
extern "C" __global__ void WGS_CAT(wgs_cuda_latency, WGS_SUFFIX)(unsigned *wgs, unsigned rounds,
                                                                   unsigned split, unsigned *sink)
{
  wgs_env env;
  if (wgs_discover(wgs, &env)) {
    /* Two loops, each what a kernel with only that barrier runs (one loop with the branch inside
     * measured 0.3 us more per counter barrier at 1056 x 256 on the H200, the code layout
     * alone). */
    if (split) {
      for (unsigned r = 0u; r < rounds; ++r) {
        wgs_grid_arrive(&env);
        wgs_grid_wait(&env);
      }
    } else {
      for (unsigned r = 0u; r < rounds; ++r)
        wgs_grid_barrier(&env);
    }
    if (env.local_id == 0u && env.group_id == 0u)
      sink[0] = env.instance;
  }
}

/* Message passing across grid barriers (full or split), as wgs_mp in tools.cl. With split,
 * each round does arrive; (independent work: a checksum of its own values); wait. */
static __device__ __forceinline__ unsigned wgs__mp_value(unsigned round, unsigned gid, unsigned w)
{
  unsigned x = round * 0x9E3779B1u ^ gid * 0x85EBCA77u ^ (w + 1u) * 0xC2B2AE3Du;
  x ^= x >> 15;
  x *= 0x2C1B3C6Du;
  x ^= x >> 12;
  return x;
}
extern "C" __global__ void WGS_CAT(wgs_cuda_mp, WGS_SUFFIX)(unsigned *wgs, unsigned *data, unsigned rounds,
                                                              unsigned split, unsigned *report)
{
  wgs_env env;
  if (wgs_discover(wgs, &env)) {
    unsigned n = wgs_get_num_groups(&env), L = env.local_size;
    unsigned gid = (unsigned)wgs_get_global_id(&env), gsize = (unsigned)wgs_get_global_size(&env);
    unsigned own = 0u;
    for (unsigned r = 0u; r < rounds; ++r) {
      unsigned *buf = data + (size_t)(r & 1u) * gsize * 4u;
      for (unsigned w = 0u; w < 4u; ++w)
        buf[(size_t)gid * 4u + w] = wgs__mp_value(r, gid, w);
      if (split) {
        wgs_grid_arrive(&env);
        for (unsigned w = 0u; w < 4u; ++w) /* work that needs no other group's data */
          own += buf[(size_t)gid * 4u + w];
        wgs_grid_wait(&env);
      } else {
        wgs_grid_barrier(&env);
      }
      unsigned other = n > 1u ? (env.group_id + 1u + r % (n - 1u)) % n : 0u;
      unsigned src = other * L + (env.local_id + r) % L;
      for (unsigned w = 0u; w < 4u; ++w) {
        unsigned got = buf[(size_t)src * 4u + w], want = wgs__mp_value(r, src, w);
        if (got != want && atomicAdd(&report[0], 1u) == 0u) {
          report[1] = r;
          report[2] = gid;
          report[3] = src;
          report[4] = w;
          report[5] = want;
          report[6] = got;
        }
      }
    }
    if (env.local_id == 0u)
      atomicAdd(&report[7], 1u);
    if (own == 0xFFFFFFFFu)
      report[8] = own; /* keeps the overlapped work live */
  }
}
