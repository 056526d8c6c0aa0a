/* CUDA backend: the driver API entry points, devices (count, info, list, open, references) and
 * the backend's table (src/device.h). */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"

struct wgs__cuda_driver_api wgs__cuda_drv;

static int driver_entry(const char *name, void **fn)
{
  cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
  cudaError_t e = cudaGetDriverEntryPointByVersion(name, fn, 12000, cudaEnableDefault, &q);
#else
  cudaError_t e = cudaGetDriverEntryPoint(name, fn, cudaEnableDefault, &q);
#endif
  if (e != cudaSuccess)
    return wgs__cuda_fail("cudaGetDriverEntryPoint", e);
  if (q != cudaDriverEntryPointSuccess || !*fn)
    return wgs__fail(WGS_EBACKEND, "the CUDA driver has no %s (driver API 12.0 or newer is needed)",
                     name);
  return WGS_OK;
}

int wgs__load_driver(void)
{
  if (!wgs__cuda_drv.loaded) { /* benign race: every thread stores the same pointers */
    wgs__cuda_drv.ok = driver_entry("cuLaunchKernel", (void **)&wgs__cuda_drv.launch) == WGS_OK &&
             driver_entry("cuOccupancyMaxActiveBlocksPerMultiprocessor", (void **)&wgs__cuda_drv.occupancy) == WGS_OK &&
             driver_entry("cuGetErrorName", (void **)&wgs__cuda_drv.error_name) == WGS_OK &&
             driver_entry("cuFuncGetAttribute", (void **)&wgs__cuda_drv.func_attribute) == WGS_OK;
    wgs__cuda_drv.loaded = 1;
    if (!wgs__cuda_drv.ok)
      return WGS_EBACKEND; /* the message is set */
  }
  return wgs__cuda_drv.ok ? WGS_OK : wgs__fail(WGS_EBACKEND, "the CUDA driver API entry points could not be found");
}

extern "C" int wgs_cuda_device_count(int *count)
{
  WGS__REQUIRE(count);
  *count = 0;
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();
    /* with no NVIDIA driver at all the runtime says its version is "insufficient": the driver's
     * version is 0 then, and that is what the user needs to hear */
    int driver = 0;
    if (cudaDriverGetVersion(&driver) == cudaSuccess && driver == 0)
      wgs__fail(WGS_OK, "no CUDA device: no NVIDIA driver on this machine (libcuda.so.1 was not "
                        "found)");
    else
      wgs__fail(WGS_OK, "no CUDA device: %s (%s)", cudaGetErrorName(e), cudaGetErrorString(e));
    cudaGetLastError();
    return WGS_OK;
  }
  *count = n;
  return WGS_OK;
}

/* wgs__set_device when device is not the current one already (a launch's common case: cheap). */
int wgs__use_device(int device)
{
  int cur = -1;
  if (cudaGetDevice(&cur) == cudaSuccess && cur == device)
    return WGS_OK;
  cudaGetLastError();
  return wgs__set_device(device);
}

int wgs__set_device(int device)
{
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess)
    return wgs__cuda_fail("cudaGetDeviceCount", e);
  if (device < 0 || device >= n)
    return wgs__fail(WGS_ENODEV, "CUDA device %d does not exist (%d device%s)", device, n,
                     n == 1 ? "" : "s");
  CU(cudaSetDevice(device), "cudaSetDevice");
  return WGS_OK;
}

extern "C" int wgs_cuda_device_info(int device, wgs_device_info *out)
{
  WGS__REQUIRE(out);
  int rc = wgs__set_device(device);
  if (rc != WGS_OK)
    return rc;
  cudaDeviceProp p;
  CU(cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties");
  memset(out, 0, sizeof *out);
  out->backend = WGS_BACKEND_OPENCL; /* overwritten below: see wgs_backend */
  out->platform_index = -1;
  out->device_index = device;
  snprintf(out->platform_name, sizeof out->platform_name, "CUDA");
  snprintf(out->name, sizeof out->name, "%s", p.name);
  snprintf(out->vendor, sizeof out->vendor, "NVIDIA");
  int drv = 0, rt = 0;
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  snprintf(out->driver_version, sizeof out->driver_version, "CUDA driver %d.%d, runtime %d.%d",
           drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10);
  snprintf(out->device_version, sizeof out->device_version, "sm_%d%d", p.major, p.minor);
  snprintf(out->c_version, sizeof out->c_version, "CUDA C++ (PTX memory model)");
  out->is_gpu = 1;
  out->compute_units = (unsigned)p.multiProcessorCount;
  out->max_work_group_size = (size_t)p.maxThreadsPerBlock;
  out->local_mem_bytes = p.sharedMemPerBlock;
  out->global_mem_bytes = p.totalGlobalMem;
  out->atomics = WGS_ATOMICS_PTX;
  out->has_acq_rel = out->has_scope_device = 1;
  out->has_timer = 1;
  out->backend = WGS_BACKEND_CUDA;
  return WGS_OK;
}

extern "C" uint32_t wgs_cuda_default_groups(int device, size_t local_size)
{
  int sms = 0;
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return wgs__default_groups((unsigned)sms, local_size, 1, 1);
}

void wgs__cuda_dev_retain(wgs_device_t *dev)
{
  __atomic_add_fetch(&((wgs__cuda_device *)(void *)dev)->refs, 1, __ATOMIC_RELAXED);
}
void wgs__cuda_dev_release(wgs_device_t *dev)
{
  wgs__cuda_device *d = (wgs__cuda_device *)(void *)dev;
  if (d && __atomic_sub_fetch(&d->refs, 1, __ATOMIC_ACQ_REL) == 0) {
    free(d->tools[0]); /* (they hold no reference back: plain memory) */
    free(d->tools[1]);
    free(d);
  }
}
/* ---- the backend's operations (src/device.h): a CUDA device through wgs_device_open ------ */


static int cuda_ordinal(const wgs_device_t *dev)
{
  return ((const wgs__cuda_device *)(const void *)dev)->ordinal;
}

int wgs__cuda_open_ordinal(int ordinal, const char *how, wgs_device_t **out)
{
  *out = NULL;
  int n = 0;
  int rc = wgs_cuda_device_count(&n);
  if (rc != WGS_OK)
    return rc;
  if (ordinal < 0 || ordinal >= n) {
    char why[256];
    snprintf(why, sizeof why, "%s", n == 0 ? wgs_last_error() : "");
    return wgs__fail(WGS_ENODEV, "no CUDA device matches %s: this machine has %d CUDA device%s%s%s",
                     how, n, n == 1 ? "" : "s", why[0] ? "; " : "", why);
  }
  wgs__cuda_device *d = (wgs__cuda_device *)calloc(1, sizeof *d);
  if (!d)
    return wgs__fail(WGS_ENOMEM, "wgs_device_open: out of memory");
  d->ops = &wgs__cuda_ops;
  d->ordinal = ordinal;
  d->refs = 1;
  if ((rc = wgs_cuda_device_info(d->ordinal, &d->info)) != WGS_OK) {
    free(d);
    return rc;
  }
  *out = (wgs_device_t *)(void *)d;
  return WGS_OK;
}

static int wgs__cuda_list(wgs_device_info *infos, size_t cap, size_t *count)
{
  int n = 0;
  *count = 0;
  int rc = wgs_cuda_device_count(&n);
  if (rc != WGS_OK)
    return rc;
  if (n == 0) { /* the reason count gave (copied: the message buffer is the one written) */
    char why[256];
    snprintf(why, sizeof why, "%s", wgs_last_error());
    return wgs__fail(WGS_ENODEV, "%s", why);
  }
  for (int i = 0; i < n && *count < cap; i++) {
    if ((rc = wgs_cuda_device_info(i, &infos[*count])) != WGS_OK)
      return rc;
    (*count)++;
  }
  return WGS_OK;
}

static int wgs__cuda_open(const wgs_device_select *sel, const char *how, wgs_device_t **out)
{
  return wgs__cuda_open_ordinal(sel->device, how, out);
}

/* The user's handle; states, kernels and buffers made on it keep it until they go. */
static void wgs__cuda_close(wgs_device_t *dev) { wgs__cuda_dev_release(dev); }

static uint32_t cuda_default_groups(const wgs_device_t *dev, size_t local_size)
{
  return wgs_cuda_default_groups(cuda_ordinal(dev), local_size);
}
static int cuda_max_local_mem(wgs_device_t *dev, size_t local_size, size_t *bytes)
{
  (void)local_size; /* a block's shared memory does not depend on its size on CUDA */
  return wgs_cuda_max_shared(cuda_ordinal(dev), bytes);
}
static int cuda_micro(wgs_device_t *dev, const wgs_occupancy_config *cfg, uint32_t groups,
                      wgs_discovery disc, int do_barrier, wgs_launch_result *res)
{
  return wgs__micro_run(dev, cfg, groups, disc, do_barrier, res);
}
static int cuda_mp_op(wgs_device_t *dev, const wgs_selftest_config *cfg, size_t local, uint32_t groups,
                      uint32_t rounds, wgs_launch_result *launch, uint32_t rep[8])
{
  return wgs__cuda_mp(dev, cfg, local, groups, rounds, launch, rep);
}
static int cuda_latency(wgs_device_t *dev, const wgs_latency_config *cfg, uint32_t groups,
                        uint32_t rounds, uint32_t repeats, double *us)
{
  return wgs__cuda_latency_runs(dev, cfg, groups, rounds, repeats, us);
}

extern "C" const wgs__backend_ops wgs__cuda_ops = {
    /* name */ "CUDA", wgs__cuda_open, wgs__cuda_list, wgs__cuda_close, cuda_default_groups, cuda_max_local_mem, cuda_micro,
    cuda_mp_op, cuda_latency,
    /* programs: none built (CUDA kernels come from nvcc or NVRTC: wgs_kernel_cuda[_function]),
     * only the tools' kernels as one (wgs_tools_program) */
    NULL, NULL, wgs__cuda_program_release, wgs__cuda_program_build_log, wgs__cuda_kernel_create,
    /* kernels */ wgs__cuda_kernel_release, wgs__cuda_kernel_set_arg, wgs__cuda_kernel_set_arg_buffer,
    /* kernel_run: none */ NULL, wgs__cuda_kernel_resources, wgs__cuda_tools_program,
    /* buffers */ wgs__cuda_buffer_create, wgs__cuda_buffer_release, wgs__cuda_buffer_write, wgs__cuda_buffer_read,
    /* states and launches */ wgs__cuda_state_create, wgs__cuda_state_release, &wgs__cuda_launch,
    wgs__cuda_result_words, wgs__cuda_clear_error, wgs__cuda_read_words,
};

int wgs__ordinal_device(int device, wgs__cuda_device *d)
{
  memset(d, 0, sizeof *d);
  d->ops = &wgs__cuda_ops;
  d->ordinal = device;
  d->refs = 1;
  return wgs_cuda_device_info(device, &d->info);
}

extern "C" int wgs_cuda_device_ordinal(const wgs_device_t *dev)
{
  return dev && wgs__head(dev)->ops == &wgs__cuda_ops ? cuda_ordinal(dev) : -1;
}
