/* CUDA backend: the occupancy tools' launches (the core decides sizes and searches,
 * src/tools.c), on the tools' kernels (cuda_tools_impl.cuh). */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tools.h"
#include "cuda_internal.h"

extern "C" __global__ void wgs_cuda_micro_checked(unsigned *, unsigned, unsigned, unsigned *);
extern "C" __global__ void wgs_cuda_micro_plain(unsigned *, unsigned, unsigned, unsigned *);
extern "C" __global__ void wgs_cuda_mp_checked(unsigned *, unsigned *, unsigned, unsigned, unsigned *);
extern "C" __global__ void wgs_cuda_mp_plain(unsigned *, unsigned *, unsigned, unsigned, unsigned *);
extern "C" __global__ void wgs_cuda_latency_checked(unsigned *, unsigned, unsigned, unsigned *);
extern "C" __global__ void wgs_cuda_latency_plain(unsigned *, unsigned, unsigned, unsigned *);

const void *wgs__cuda_tools_kernel(const char *name, int checked, const char **names)
{
  static const struct {
    const char *name;
    const void *plain, *checked;
  } kernels[] = {
      {"wgs_micro", (const void *)wgs_cuda_micro_plain, (const void *)wgs_cuda_micro_checked},
      {"wgs_mp", (const void *)wgs_cuda_mp_plain, (const void *)wgs_cuda_mp_checked},
      {"wgs_latency", (const void *)wgs_cuda_latency_plain, (const void *)wgs_cuda_latency_checked},
  };
  *names = "wgs_micro, wgs_mp, wgs_latency";
  for (unsigned i = 0; i < sizeof kernels / sizeof *kernels; i++)
    if (!strcmp(kernels[i].name, name))
      return checked ? kernels[i].checked : kernels[i].plain;
  return NULL;
}



int wgs__micro_run(wgs_device_t *dev, const wgs_occupancy_config *cfg, uint32_t groups,
                     wgs_discovery disc, int do_barrier, wgs_launch_result *res)
{
  wgs_state_t *st = NULL;
  unsigned *out = NULL;
  int rc = wgs__cuda_state_create(dev, groups, &st); /* on the caller's device: none opened */
  if (rc != WGS_OK)
    return rc;
  cudaError_t e = cudaMalloc((void **)&out, (size_t)groups * 2 * sizeof(unsigned));
  if (e != cudaSuccess) {
    wgs_state_release(st);
    return wgs__cuda_fail("cudaMalloc(out)", e);
  }
  size_t smem = cfg->local_mem_bytes ? cfg->local_mem_bytes : 1;
  const void *k = (const void *)wgs_cuda_micro_checked;
  if (smem > 48 * 1024 &&
      (e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem)) != cudaSuccess) {
    cudaFree(out);
    wgs_state_release(st);
    return wgs__cuda_fail("cudaFuncSetAttribute(MaxDynamicSharedMemorySize)", e);
  }
  unsigned words = (unsigned)(smem / sizeof(unsigned)), barrier = do_barrier ? 1u : 0u;
  void *args[4] = {NULL, &words, &barrier, &out};
  wgs_launch_config lc;
  wgs__occ_launch_config(cfg, groups, disc, &lc);
  rc = wgs_cuda_launch(st, k, args, 4, smem, 0, &lc, res);
  cudaFree(out);
  wgs_state_release(st);
  return rc;
}

extern "C" int wgs_cuda_max_shared(int device, size_t *bytes)
{
  WGS__REQUIRE(bytes);
  int rc = wgs__set_device(device);
  if (rc != WGS_OK)
    return rc;
  int optin = 0;
  CU(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
     "cudaDeviceGetAttribute(MaxSharedMemoryPerBlockOptin)");
  /* what the tools' kernel can ask for beside its static shared memory (wgs_discover's) */
  cudaFuncAttributes fa;
  CU(cudaFuncGetAttributes(&fa, (const void *)wgs_cuda_micro_checked), "cudaFuncGetAttributes");
  *bytes = (size_t)optin > fa.sharedSizeBytes ? (size_t)optin - fa.sharedSizeBytes : 0;
  return WGS_OK;
}

extern "C" int wgs_cuda_occupancy_api(int device, size_t local_size, size_t shared_bytes, uint32_t *groups)
{
  WGS__REQUIRE(groups);
  int rc = wgs__set_device(device);
  if (rc != WGS_OK)
    return rc;
  const void *k = (const void *)wgs_cuda_micro_checked;
  if (shared_bytes > 48 * 1024)
    CU(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared_bytes),
       "cudaFuncSetAttribute");
  int per = 0, sms = 0;
  CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k, (int)local_size, shared_bytes),
     "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  CU(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  *groups = (uint32_t)(per * sms);
  return WGS_OK;
}

/* A device record for ordinal `device`, for the public ordinal-based tools below: they run the
 * core's tools (src/tools.c) as wgs_device_open("cuda:N") does. */

extern "C" int wgs_cuda_occupancy_discover(int device, const wgs_occupancy_config *cfg, wgs_launch_result *res)
{
  WGS__REQUIRE(cfg);
  WGS__REQUIRE(res);
  wgs__cuda_device d;
  int rc = wgs__ordinal_device(device, &d);
  return rc != WGS_OK ? rc : wgs__tool_discover((wgs_device_t *)(void *)&d, cfg, res);
}

extern "C" int wgs_cuda_occupancy_bound(int device, const wgs_occupancy_config *cfg, uint32_t limit,
                                        void (*cb)(void *, uint32_t, int), void *user, uint32_t *bound)
{
  WGS__REQUIRE(cfg);
  WGS__REQUIRE(bound);
  *bound = 0;
  wgs__cuda_device d;
  int rc = wgs__ordinal_device(device, &d);
  return rc != WGS_OK ? rc : wgs__tool_bound((wgs_device_t *)(void *)&d, cfg, limit, cb, user, bound);
}

extern "C" int wgs_cuda_barrier_selftest(int device, const wgs_selftest_config *cfg, wgs_selftest_result *res)
{
  WGS__REQUIRE(cfg);
  WGS__REQUIRE(res);
  memset(res, 0, sizeof *res);
  wgs__cuda_device d;
  int rc = wgs__ordinal_device(device, &d);
  return rc != WGS_OK ? rc : wgs__tool_selftest((wgs_device_t *)(void *)&d, cfg, res);
}

extern "C" int wgs_cuda_barrier_latency(int device, const wgs_latency_config *cfg, wgs_latency_result *res)
{
  WGS__REQUIRE(cfg);
  WGS__REQUIRE(res);
  memset(res, 0, sizeof *res);
  wgs__cuda_device d;
  int rc = wgs__ordinal_device(device, &d);
  return rc != WGS_OK ? rc : wgs__tool_latency((wgs_device_t *)(void *)&d, cfg, res);
}

/* The self-test's launch (the core's wgs__tool_selftest decides sizes and decodes the report). */
int wgs__cuda_mp(wgs_device_t *dev, const wgs_selftest_config *cfg, size_t local, uint32_t groups,
                   uint32_t rounds, wgs_launch_result *launch, uint32_t rep_out[8])
{
  unsigned split = cfg->split ? 1u : 0u;
  wgs_state_t *st = NULL;
  unsigned *data = NULL, *report = NULL;
  int rc = wgs__cuda_state_create(dev, groups, &st); /* on the caller's device: none opened */
  if (rc != WGS_OK)
    return rc;
  cudaError_t e;
  if ((e = cudaMalloc((void **)&data, 2 * (size_t)groups * local * 4 * sizeof(unsigned))) != cudaSuccess ||
      (e = cudaMalloc((void **)&report, 16 * sizeof(unsigned))) != cudaSuccess ||
      (e = cudaMemset(report, 0, 16 * sizeof(unsigned))) != cudaSuccess) {
    rc = wgs__cuda_fail("cudaMalloc(self-test buffers)", e);
  } else {
    void *args[5] = {NULL, &data, &rounds, &split, &report};
    wgs_launch_config lc;
    wgs__selftest_launch_config(cfg, local, groups, &lc);
    const void *k = cfg->unchecked ? (const void *)wgs_cuda_mp_plain : (const void *)wgs_cuda_mp_checked;
    rc = wgs_cuda_launch(st, k, args, 5, 0, 0, &lc, launch);
    unsigned rep[16];
    if (rc == WGS_OK && (e = cudaMemcpy(rep, report, sizeof rep, cudaMemcpyDeviceToHost)) != cudaSuccess)
      rc = wgs__cuda_fail("cudaMemcpy(report)", e);
    if (rc == WGS_OK)
      memcpy(rep_out, rep, 8 * sizeof *rep_out);
  }
  cudaFree(data);
  cudaFree(report);
  wgs_state_release(st);
  return rc;
}


/* The latency runs (the core's wgs__tool_latency decides the defaults and the statistics). */
int wgs__cuda_latency_runs(wgs_device_t *dev, const wgs_latency_config *cfg, uint32_t groups, uint32_t rounds,
                             uint32_t repeats, double *us)
{
  unsigned split = cfg->split ? 1u : 0u;
  wgs_state_t *st = NULL;
  unsigned *sink = NULL;
  int rc = wgs__cuda_state_create(dev, groups, &st); /* on the caller's device: none opened */
  cudaError_t e;
  if (rc == WGS_OK && (e = cudaMalloc((void **)&sink, 16)) != cudaSuccess)
    rc = wgs__cuda_fail("cudaMalloc(sink)", e);
  for (int checked = 1; checked >= 0 && rc == WGS_OK; checked--) {
    unsigned n = checked ? 10u : rounds;
    void *args[4] = {NULL, &n, &split, &sink};
    wgs_launch_config lc;
    wgs__latency_launch_config(cfg, groups, &lc);
    const void *k = checked ? (const void *)wgs_cuda_latency_checked : (const void *)wgs_cuda_latency_plain;
    /* checked: one probe run; unchecked: a warm-up, then the timed repeats */
    for (uint32_t r = 0; r < (checked ? 1u : repeats + 1u) && rc == WGS_OK; r++) {
      wgs_launch_result lr = {}; /* filled by the launch; initialised for the compiler */
      rc = wgs_cuda_launch(st, k, args, 4, 0, 0, &lc, &lr);
      if (rc == WGS_OK && !checked && r > 0)
        us[r - 1] = lr.kernel_us / rounds;
    }
  }
  cudaFree(sink);
  wgs_state_release(st);
  return rc;
}

