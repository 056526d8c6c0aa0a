/*
 * wgsync for CUDA (host API, C). Kernels include device/cuda/wgsync.cuh (installed as
 * wgsync/wgsync.cuh) and take the state as a `unsigned *` argument; launches are ordinary
 * (no cooperative launch): over-provisioned, the extra blocks leave at once.
 *
 * Statuses, wgs_strerror and wgs_last_error are those of wgsync.h. CUDA errors come back as
 * WGS_EBACKEND (or WGS_ENODEV / WGS_ELIMIT) with the CUDA error name in wgs_last_error().
 */
#ifndef WGSYNC_CUDA_H
#define WGSYNC_CUDA_H

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "wgsync.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of CUDA devices; 0 (with the reason in wgs_last_error) when there is no GPU or driver. */
int wgs_cuda_device_count(int *count);
/* The CUDA ordinal of a device opened by wgs_device_open("cuda:N") (wgsync.h: the occupancy
 * tools and defaults work on it as on an OpenCL device); -1 for any other device. */
int wgs_cuda_device_ordinal(const wgs_device_t *dev);
int wgs_cuda_device_info(int device, wgs_device_info *out);

/* The one launch API of wgsync.h runs on a CUDA device opened with wgs_device_open("cuda:N"):
 * wgs_state_create, wgs_buffer_create, wgs_kernel_set_arg[_buffer], wgs_launch[_async],
 * wgs_state_result, with a kernel handle made from your kernel here (launched on the legacy
 * default stream, arguments set by index as on OpenCL; a NULL value of `size` bytes is the
 * launch's dynamic shared memory). */
#if defined(WGS__CUDA_LIBRARY)
int wgs_kernel_cuda(wgs_device_t *dev, const void *kernel, wgs_kernel_t **out);
#endif
int wgs_kernel_cuda_function(wgs_device_t *dev, CUfunction fn, wgs_kernel_t **out);
/* A wgsync buffer's device pointer on a CUDA device (NULL for any other buffer). */
void *wgs_buffer_cuda_ptr(const wgs_buffer_t *buf);

/* Interop with your own streams, and the entry points that name a GPU by ordinal. A
 * wgs_cuda_state_t is a wgs_state_t: wgs_launch and wgs_state_result take it too. */
typedef struct wgs_state wgs_cuda_state_t;
/* A state on CUDA device `device`, which it opens for itself (closed when it is released). */
int wgs_cuda_state_create(int device, uint32_t max_groups, wgs_cuda_state_t **out);
void wgs_cuda_state_release(wgs_cuda_state_t *st);
unsigned *wgs_cuda_state_device_ptr(const wgs_cuda_state_t *st);

/* Hardware upper bound on resident blocks of local_size threads (SMs x min(32, 2048/size)):
 * the over-provisioned launch size wgs_cuda_launch uses when cfg->groups is 0. */
uint32_t wgs_cuda_default_groups(int device, size_t local_size);

/* A launch you make yourself, for kernels another compiler builds and launches (Triton: the
 * wgsync.triton module): plans a launch of fn with cfg->local_size threads per group (required)
 * and shared_bytes of dynamic shared memory (cfg->groups 0: the over-provisioned default, the
 * discovery's early close from the occupancy API for fn), writes the state's config words on
 * `stream` where they changed, records the launch, and returns in *groups how many groups to
 * launch. Launch fn next on the same stream with that grid and the state's device pointer; then
 * wgs_cuda_state_result reports it like any launch. The kernel runs the protocol over the state
 * itself (device/common/wgs_layout.h) with launch epochs and the lock-free poll; cfg->time_kernel
 * is refused (time it with your own events). Under stream capture the config write is captured
 * with the launch. */
int wgs_cuda_prepare_launch(wgs_cuda_state_t *st, CUfunction fn, size_t shared_bytes,
                            cudaStream_t stream, const wgs_launch_config *cfg, uint32_t *groups);

/* The CUDA ordinal of a state's device (-1 for a state of another backend, or NULL). */
int wgs_cuda_state_device(const wgs_cuda_state_t *st);

/* Launches kernel(args...) with cfg->groups blocks of cfg->local_size threads on stream:
 * wgs_cuda_launch_async, then wgs_cuda_state_result (waits, reports like wgs_launch). args is
 * copied, not changed: give num_args entries; the entry at state_arg may be NULL. */
#if defined(WGS__CUDA_LIBRARY)
int wgs_cuda_launch(wgs_cuda_state_t *st, const void *kernel, void **args, unsigned num_args,
                    size_t shared_bytes, cudaStream_t stream, const wgs_launch_config *cfg,
                    wgs_launch_result *res);
#endif

/* Enqueues the launch on stream and returns: one kernel launch (plus a one-block kernel that
 * writes the config words when they changed since the state's last launch; the state needs no
 * reset, device/common/wgs_layout.h). Works under stream capture: the captured graph replays
 * correctly any number of times (it always carries the config write; time_kernel is refused
 * there). Launches on one state must be ordered: one stream, or events between streams. */
#if defined(WGS__CUDA_LIBRARY)
int wgs_cuda_launch_async(wgs_cuda_state_t *st, const void *kernel, void **args,
                          unsigned num_args, size_t shared_bytes, cudaStream_t stream,
                          const wgs_launch_config *cfg);
#endif
/* The same launches for a kernel given as a driver-API handle: a CUfunction (cuModuleGetFunction
 * on a module from NVRTC, a cubin or PTX; CuPy's RawKernel `.kernel.ptr`; cuda-python), or a
 * CUkernel from a CUlibrary cast to CUfunction (cuLaunchKernel takes both). The module must be
 * loaded in the state's device's primary context (what the runtime, CuPy and cuda.core use).
 * Discovery, config words, results and stream capture are those of wgs_cuda_launch; the
 * occupancy query for the early close uses cuOccupancyMaxActiveBlocksPerMultiprocessor. */
int wgs_cuda_launch_function(wgs_cuda_state_t *st, CUfunction fn, void **args, unsigned num_args,
                             size_t shared_bytes, cudaStream_t stream, const wgs_launch_config *cfg,
                             wgs_launch_result *res);
int wgs_cuda_launch_function_async(wgs_cuda_state_t *st, CUfunction fn, void **args,
                                   unsigned num_args, size_t shared_bytes, cudaStream_t stream,
                                   const wgs_launch_config *cfg);
/* Waits for stream and reports the state's latest launch: participants, kernel_us when that
 * launch asked for it, and the first checked-build error any launch recorded since the last
 * call (which it then clears). Returns that status, as wgs_cuda_launch would have. */
int wgs_cuda_state_result(wgs_cuda_state_t *st, cudaStream_t stream, wgs_launch_result *res);

/* The occupancy tools and the self-test of wgsync.h, on CUDA device `device`: the same code
 * (src/tools.c) as the wgsync.h calls on a device from wgs_device_open("cuda:N"). Kept as
 * conveniences (not deprecated): a CUDA program names its GPU by ordinal
 * and has no device handle to open and close; everything new goes into the device API only. */
int wgs_cuda_occupancy_discover(int device, const wgs_occupancy_config *cfg, wgs_launch_result *res);
int wgs_cuda_occupancy_bound(int device, const wgs_occupancy_config *cfg, uint32_t limit,
                             void (*probe)(void *user, uint32_t groups, int ok), void *user,
                             uint32_t *bound);
/* What the CUDA occupancy API says for the microbenchmark kernel: blocks per SM x SMs. */
int wgs_cuda_occupancy_api(int device, size_t local_size, size_t shared_bytes, uint32_t *groups);
/* The most dynamic shared memory a block of the tools' kernel can take: the device's opt-in
 * limit less the kernel's static shared memory (wgs_discover's). */
int wgs_cuda_max_shared(int device, size_t *bytes);
int wgs_cuda_barrier_selftest(int device, const wgs_selftest_config *cfg, wgs_selftest_result *res);
int wgs_cuda_barrier_latency(int device, const wgs_latency_config *cfg, wgs_latency_result *res);

/* ---- a kernel given by its symbol, resolved in your program's CUDA runtime ------------------
 * wgs_kernel_cuda, wgs_cuda_launch and wgs_cuda_launch_async are inline: they turn your kernel
 * into a CUfunction with cudaGetFuncBySymbol in the CUDA runtime your program links (nvcc's
 * default static one, -cudart shared, or CMake's) on the state's device, and take the CUfunction
 * path above. The library's own runtime could not find a kernel registered with another copy of
 * the runtime (cudaErrorInvalidResourceHandle at the first launch of a program built with
 * nvcc's defaults). Where the lookup fails, the symbol goes to the library as it is
 * (wgs_cuda_*_symbol), which reports the error. */
int wgs_kernel_cuda_symbol(wgs_device_t *dev, const void *kernel, wgs_kernel_t **out);
int wgs_cuda_launch_symbol(wgs_cuda_state_t *st, const void *kernel, void **args,
                           unsigned num_args, size_t shared_bytes, cudaStream_t stream,
                           const wgs_launch_config *cfg, wgs_launch_result *res);
int wgs_cuda_launch_symbol_async(wgs_cuda_state_t *st, const void *kernel, void **args,
                                 unsigned num_args, size_t shared_bytes, cudaStream_t stream,
                                 const wgs_launch_config *cfg);
#if !defined(WGS__CUDA_LIBRARY)
/* kernel as a driver-API function of device `device` (its primary context), through the
 * caller's runtime; 0 when the runtime does not know the symbol (its error cleared). */
static inline CUfunction wgs__cuda_function_of(int device, const void *kernel)
{
  int current = -1;
  cudaFunction_t f = NULL;
  if (!kernel || device < 0 || cudaGetDevice(&current) != cudaSuccess)
    return NULL;
  if (current != device && cudaSetDevice(device) != cudaSuccess)
    f = NULL;
  else if (cudaGetFuncBySymbol(&f, kernel) != cudaSuccess)
    f = NULL;
  if (current != device)
    (void)cudaSetDevice(current);
  if (!f)
    (void)cudaGetLastError(); /* the failed lookup is not the caller's error */
  return (CUfunction)f;
}
static inline int wgs_kernel_cuda(wgs_device_t *dev, const void *kernel, wgs_kernel_t **out)
{
  CUfunction f = wgs__cuda_function_of(wgs_cuda_device_ordinal(dev), kernel);
  return f ? wgs_kernel_cuda_function(dev, f, out) : wgs_kernel_cuda_symbol(dev, kernel, out);
}
static inline int wgs_cuda_launch(wgs_cuda_state_t *st, const void *kernel, void **args,
                                  unsigned num_args, size_t shared_bytes, cudaStream_t stream,
                                  const wgs_launch_config *cfg, wgs_launch_result *res)
{
  CUfunction f = wgs__cuda_function_of(wgs_cuda_state_device(st), kernel);
  return f ? wgs_cuda_launch_function(st, f, args, num_args, shared_bytes, stream, cfg, res)
           : wgs_cuda_launch_symbol(st, kernel, args, num_args, shared_bytes, stream, cfg, res);
}
static inline int wgs_cuda_launch_async(wgs_cuda_state_t *st, const void *kernel, void **args,
                                        unsigned num_args, size_t shared_bytes,
                                        cudaStream_t stream, const wgs_launch_config *cfg)
{
  CUfunction f = wgs__cuda_function_of(wgs_cuda_state_device(st), kernel);
  return f ? wgs_cuda_launch_function_async(st, f, args, num_args, shared_bytes, stream, cfg)
           : wgs_cuda_launch_symbol_async(st, kernel, args, num_args, shared_bytes, stream, cfg);
}
#endif

#ifdef __cplusplus
}
#endif
#endif
