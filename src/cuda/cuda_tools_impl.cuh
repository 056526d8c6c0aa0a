/*
 * The CUDA tools kernels (as device/opencl/kernels/tools.cl), compiled twice: checked and not
 * (cuda_tools_checked.cu, cuda_tools_plain.cu define WGS_CHECKED and WGS_SUFFIX).
 */
#define WGS_CHECK_MISUSE 0 /* the probes check occupancy, not the kernel (device/common/wgs_layout.h) */
#include "wgsync.cuh"

#define WGS_CAT2(a, b) a##b
#define WGS_CAT(a, b) WGS_CAT2(a, b)

/* The §5.1 microbenchmark and the message-passing self-test: their bodies are
 * device/common/wgs_tools.h's, shared with OpenCL (the scratch: dynamic shared memory here). */
#define WGS_TOOLS_ATOMIC_INC(p) atomicAdd((p), 1u)
#define WGS_TOOLS_NATIVE_GROUP blockIdx.x
#define WGS_TOOLS_LOCAL_BARRIER() __syncthreads()
#include "wgs_tools.h"

extern "C" __global__ void WGS_CAT(wgs_cuda_micro, WGS_SUFFIX)(unsigned *wgs, unsigned scratch_words,
                                                                 unsigned do_barrier, unsigned *out)
{
  extern __shared__ unsigned scratch[];
  WGS_TOOLS_MICRO_BODY(wgs, scratch, scratch_words, do_barrier, out)
}

/* Bare grid barriers (or split arrive+wait), for latency: here two loops (OpenCL's one loop
 * cannot take this form: tools.cl). */
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

extern "C" __global__ void WGS_CAT(wgs_cuda_mp, WGS_SUFFIX)(unsigned *wgs, unsigned *data, unsigned rounds,
                                                              unsigned split, unsigned *report)
{
  WGS_TOOLS_MP_BODY(wgs, data, rounds, split, report)
}
