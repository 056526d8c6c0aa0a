/* The launch case's kernel for the CUDA backend (tests/test_backends.c, t_launch): the same
 * work as its OpenCL source there, wrapped as a wgsync kernel handle. */
#include "wgsync.cuh"
#include "wgsync_cuda.h"

__global__ void wgs_test_count(unsigned *wgs, unsigned *out, unsigned rounds)
{
  wgs_env e;
  if (wgs_discover(wgs, &e)) {
    for (unsigned r = 0u; r < rounds; ++r) {
      if (e.local_id == 0u)
        atomicAdd(&out[0], 1u);
      wgs_grid_barrier(&e);
    }
    if (e.local_id == 0u && e.group_id == 0u)
      out[1] = e.num_groups;
  }
}

extern "C" int wgs_test_cuda_count_kernel(wgs_device_t *dev, wgs_kernel_t **k)
{
  return wgs_kernel_cuda(dev, (const void *)wgs_test_count, k);
}
