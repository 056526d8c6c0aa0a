/* CUDA backend: protocol state, persistent launch with an ordinary (not cooperative) launch,
 * the interop launches on the caller's streams, and the words a result is decoded from. */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"

/* Writes the config words: a kernel with the words as its argument, so that the write is
 * stream-ordered, needs no host buffer to outlive it, and is captured by value in a graph. */
struct wgs__cfg_arg {
  unsigned w[WGS_CFG_WORDS];
};
static __global__ void wgs__set_config(unsigned *state, wgs__cfg_arg c)
{
  if (threadIdx.x < WGS_CFG_WORDS)
    state[WGS_G_CONFIG + threadIdx.x] = c.w[threadIdx.x];
}

/* The table's state (src/device.h): the core checked max_groups. */
int wgs__cuda_state_create(wgs_device_t *dev, uint32_t max_groups, wgs_state_t **out)
{
  int device = ((wgs__cuda_device *)(void *)dev)->ordinal;
  int rc = wgs__set_device(device);
  if (rc != WGS_OK)
    return rc;
  unsigned *mem = NULL;
  CU(cudaMalloc((void **)&mem, (size_t)WGS_STATE_WORDS(max_groups) * sizeof(unsigned)),
     "cudaMalloc(state)");
  cuda_state *st = (cuda_state *)calloc(1, sizeof *st);
  if (!st) {
    cudaFree(mem);
    return wgs__fail(WGS_ENOMEM, "wgs_cuda_state_create: out of memory");
  }
  wgs__state_head_init((wgs__state_head *)st, &wgs__cuda_ops, dev, max_groups);
  wgs__cuda_dev_retain(dev);
  st->device = device;
  st->mem = mem;
  /* All zero (epoch 0, both halves clear), then each half's way back to the base. */
  unsigned back[2] = {WGS_HALF(max_groups, 0u), WGS_HALF(max_groups, 1u)};
  cudaError_t e = cudaMemset(mem, 0, (size_t)WGS_STATE_WORDS(max_groups) * sizeof(unsigned));
  for (int h = 0; h < 2 && e == cudaSuccess; h++)
    e = cudaMemcpy(mem + back[h], &back[h], sizeof back[h], cudaMemcpyHostToDevice);
  if (e == cudaSuccess)
    e = cudaMallocHost((void **)&st->io, GLOBAL_WORDS * sizeof(unsigned));
  if (e == cudaSuccess)
    e = cudaHostAlloc((void **)&st->mirror, WGS_MIRROR_WORDS * sizeof(unsigned), cudaHostAllocMapped);
  if (e == cudaSuccess) {
    memset((void *)st->mirror, 0, WGS_MIRROR_WORDS * sizeof(unsigned));
    e = cudaHostGetDevicePointer((void **)&st->mirror_dev, (void *)st->mirror, 0);
  }
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute(&st->max_threads, cudaDevAttrMaxThreadsPerBlock, device);
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute(&st->sms, cudaDevAttrMultiProcessorCount, device);
  snprintf(st->info.name, sizeof st->info.name, "CUDA device %d", device);
  st->info.backend = WGS_BACKEND_CUDA;
  st->info.is_gpu = st->info.has_timer = 1;
  st->info.compute_units = (unsigned)st->sms;
  st->info.max_work_group_size = (size_t)st->max_threads;
  /* Load wgsync's config kernel now: with CUDA's lazy module loading (the default since 11.7),
   * its first launch would load it, and a load waits for the kernels running on the device, so
   * a launch beside another long kernel would wait for that kernel to end (seen on the H100). */
  cudaFuncAttributes fa;
  if (e == cudaSuccess)
    e = cudaFuncGetAttributes(&fa, wgs__set_config);
  if (e == cudaSuccess)
    e = cudaEventCreate(&st->e0);
  if (e == cudaSuccess)
    e = cudaEventCreate(&st->e1);
  if (e != cudaSuccess) {
    wgs__cuda_state_release(pub(st));
    return wgs__cuda_fail("wgs_state_create: pinned buffer and events", e);
  }
  *out = pub(st);
  return WGS_OK;
}

/* A state on CUDA device `device`, which it opens for itself (and closes when released). */
extern "C" int wgs_cuda_state_create(int device, uint32_t max_groups, wgs_state_t **out)
{
  WGS__REQUIRE(out);
  *out = NULL;
  if (max_groups == 0 || max_groups > (1u << 24))
    return wgs__fail(WGS_EINVAL, "wgs_cuda_state_create: max_groups is %u (expected 1 to %u)",
                     max_groups, 1u << 24);
  char how[64];
  snprintf(how, sizeof how, "CUDA device %d", device);
  wgs_device_t *dev = NULL;
  int rc = wgs__cuda_open_ordinal(device, how, &dev);
  if (rc != WGS_OK)
    return rc;
  rc = wgs__cuda_state_create(dev, max_groups, out);
  wgs__cuda_dev_release(dev); /* the state holds it */
  return rc;
}



void wgs__cuda_state_release(wgs_state_t *pst)
{
  cuda_state *st = cs(pst);
  cudaFree(st->mem);
  if (st->io)
    cudaFreeHost(st->io);
  if (st->mirror)
    cudaFreeHost((void *)st->mirror);
  if (st->e0)
    cudaEventDestroy(st->e0);
  if (st->e1)
    cudaEventDestroy(st->e1);
  wgs__state_head_fini((wgs__state_head *)st);
  wgs__cuda_dev_release(st->dev);
  free(st);
}

extern "C" void wgs_cuda_state_release(wgs_state_t *st) { wgs_state_release(st); }

extern "C" unsigned *wgs_cuda_state_device_ptr(const wgs_state_t *st)
{
  return st && wgs__object(st)->ops == &wgs__cuda_ops ? ((const cuda_state *)(const void *)st)->mem
                                                      : NULL;
}

/* What the launch sequence asks the CUDA backend (src/launch.h). */
static int cuda_to_spin(void *ctx, double us, uint64_t *out)
{
  (void)ctx;
  *out = wgs__saturate_u64(us * 1e3); /* the device clock: nanoseconds */
  return WGS_OK;
}
/* The occupancy API's groups for the kernel, asked once per kernel and shape on a state. */
static uint32_t cuda_fits(void *ctx, size_t local)
{
  wgs__cuda_launch_args *c = (wgs__cuda_launch_args *)ctx;
  cuda_state *st = c->st;
  const void *kernel = c->kr.sym ? c->kr.sym : (const void *)c->kr.fn; /* the cache's key */
  if (st->occ_kernel != kernel || st->occ_local != local || st->occ_shared != c->shared_bytes) {
    int per_sm = 0;
    st->occ_groups = 0; /* a failed query only means no early close */
    if (c->kr.sym ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, c->kr.sym, (int)local,
                                                                  c->shared_bytes) == cudaSuccess
                  : wgs__cuda_drv.occupancy(&per_sm, c->kr.fn, (int)local, c->shared_bytes) == CUDA_SUCCESS)
      st->occ_groups = (uint32_t)(per_sm * st->sms);
    cudaGetLastError();
    st->occ_kernel = kernel;
    st->occ_local = local;
    st->occ_shared = c->shared_bytes;
  }
  return st->occ_groups;
}

/* what: a wgs__cuda_launch_args whose st is this state (it outlives the launch: the caller's, or
 * the state's own for the table's launches), so that the occupancy question can use it. */
static int cuda_describe(wgs_state_t *pst, void *what, wgs_launch_config *cfg, wgs__launch_ctx *c)
{
  wgs__cuda_launch_args *a = (wgs__cuda_launch_args *)what;
  cuda_state *st = cs(pst);
  kernel_ref kr = a->kr;
  if (!kr.sym && wgs__load_driver() != WGS_OK)
    return WGS_EBACKEND;
  if (!a->planned && cfg->state_arg >= a->num_args)
    return wgs__fail(WGS_EINVAL, "%s: state_arg is %u but the kernel has %u arguments", kr.who,
                     cfg->state_arg, a->num_args);
  int rc = wgs__use_device(st->device);
  if (rc != WGS_OK)
    return rc;
  a->st = st;
  /* checked: CUDA kernels are built by the user, checked or not, so the bound is always
   * written (an unchecked build ignores it) and a report is always decoded (it has none) */
  *c = wgs__launch_ctx{kr.who, kr.name, 0, "wgs_cuda_state_create", &st->info,
                       wgs__default_local(st->info.max_work_group_size), st->max_groups,
                       1, 1, 1, 0, cuda_to_spin, cuda_fits, a};
  return WGS_OK;
}

static int cuda_enqueue(wgs_state_t *pst, void *what, const wgs_launch_config *cfgp,
                        const wgs__launch_ctx *c, const wgs__launch_plan *pp, int *captured)
{
  wgs__cuda_launch_args *a = (wgs__cuda_launch_args *)what;
  cuda_state *st = cs(pst);
  const wgs_launch_config &cfg = *cfgp;
  kernel_ref kr = a->kr;
  void **args = a->args;
  unsigned num_args = a->num_args;
  size_t shared_bytes = a->shared_bytes;
  cudaStream_t stream = a->stream;
  int rc;
  (void)c;
  size_t local = pp->local;
  uint32_t groups = pp->groups;
  const wgs__launch_plan &plan = *pp;
  wgs__cfg_arg ca;
  memcpy(ca.w, plan.w, sizeof ca.w);
  ca.w[WGS_CFG_HOST_LO] = (unsigned)(uintptr_t)st->mirror_dev;
  ca.w[WGS_CFG_HOST_HI] = (unsigned)((uint64_t)(uintptr_t)st->mirror_dev >> 32);

  /* A synchronous launch does not ask whether the stream is being captured: its wait would end
   * the capture with an error (reported by wgs__cuda_result_words, which then forgets the
   * config words, since whatever this launch enqueued never ran). The question costs 2-5 us
   * when the host's caches are cold, as after a program's own work between launches. */
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  cudaError_t e = cudaSuccess;
  if (!wgs__state(pub(st))->in_sync && (e = cudaStreamIsCapturing(stream, &capture)) != cudaSuccess)
    return wgs__cuda_fail("cudaStreamIsCapturing", e);
  int capturing = capture != cudaStreamCaptureStatusNone;
  if (a->planned && cfg.time_kernel)
    return wgs__fail(WGS_EINVAL, "%s: time_kernel is set, but the caller launches the kernel "
                                 "(time it with the caller's own events)", kr.who);
  if (capturing && cfg.time_kernel)
    return wgs__fail(WGS_EINVAL, "%s: time_kernel is set, but the stream is being captured "
                                 "(time the graph's launch instead)", kr.who);

  void *argv_local[32];
  void **argv = argv_local;
  if (num_args > 32 && !(argv = (void **)malloc(num_args * sizeof *argv)))
    return wgs__fail(WGS_ENOMEM, "%s: out of memory", kr.who);
  memcpy(argv, args, num_args * sizeof *argv);
  unsigned *state_ptr = st->mem;
  if (!a->planned) /* (a planned launch has no arguments here) */
    argv[cfg.state_arg] = &state_ptr;

  /* A launch is the kernel alone, plus the config words when they changed (a captured graph
   * always carries them: the device's words may differ when it is replayed). */
  rc = WGS_OK;
#define STEP(call, what)                                                                     \
  if (rc == WGS_OK && (e = (call)) != cudaSuccess)                                           \
    rc = wgs__cuda_fail((what), e);
  if (capturing || !st->cfg_valid || memcmp(st->cfg, ca.w, sizeof ca.w) != 0) {
    st->cfg_valid = 0;
    wgs__set_config<<<1, 32, 0, stream>>>(st->mem, ca);
    STEP(cudaGetLastError(), "config write (kernel launch)")
    if (rc == WGS_OK && !capturing) {
      memcpy(st->cfg, ca.w, sizeof ca.w);
      st->cfg_valid = 1;
    }
  }
  if (cfg.time_kernel)
    STEP(cudaEventRecord(st->e0, stream), "cudaEventRecord")
  if (a->planned) {
    if (rc == WGS_OK)
      *a->planned = groups; /* the caller launches next on this stream */
  } else if (kr.sym) {
    STEP(cudaLaunchKernel(kr.sym, dim3(groups), dim3((unsigned)local), argv, shared_bytes, stream),
         "cudaLaunchKernel")
    if (rc == WGS_EBACKEND && e == cudaErrorInvalidDeviceFunction)
      wgs__fail_append(" (a kernel symbol is known only to the CUDA runtime that registered it: a "
                       "program using libwgsync_cuda.so must link the shared runtime, nvcc "
                       "-cudart shared; or launch it as a CUfunction, wgs_cuda_launch_function)");
  } else if (rc == WGS_OK) {
    CUresult r = wgs__cuda_drv.launch(kr.fn, groups, 1, 1, (unsigned)local, 1, 1, (unsigned)shared_bytes,
                            (CUstream)stream, argv, NULL);
    if (r != CUDA_SUCCESS)
      rc = wgs__cu_fail("cuLaunchKernel", r);
  }
  if (cfg.time_kernel)
    STEP(cudaEventRecord(st->e1, stream), "cudaEventRecord")
#undef STEP
  if (argv != argv_local)
    free(argv);
  if (rc != WGS_OK) {
    if (rc == WGS_ELIMIT)
      wgs__fail_append(" (launch of the requested groups x local size)");
    return rc;
  }
  *captured = capturing;
  st->timing = cfg.time_kernel;
  st->stream = stream;
  return WGS_OK;
}

const wgs__launch_via wgs__cuda_launch_via = {cuda_describe, cuda_enqueue};

/* The interop launches: a kernel symbol or a CUfunction with the caller's argument array and
 * stream, under the state's lock, through the core (src/api.c). */
typedef wgs__cuda_launch_args interop_launch;
static int interop(wgs_state_t *st, interop_launch *il, const wgs_launch_config *cfg, int sync,
                   wgs_launch_result *res)
{
  if (wgs__object(st)->ops != &wgs__cuda_ops)
    return wgs__fail(WGS_EINVAL, "%s: the state is not on a CUDA device", il->kr.who);
  if (il->num_args > 0 && !il->args)
    return wgs__fail(WGS_EINVAL, "%s: argument 'args' is NULL", il->kr.who);
  wgs__state_head *h = wgs__state(st);
  pthread_mutex_lock(&h->lock);
  int rc = sync ? wgs__launch_sync_locked(st, &wgs__cuda_launch_via, il, cfg, res)
                : wgs__launch_via_locked(st, &wgs__cuda_launch_via, il, cfg);
  pthread_mutex_unlock(&h->lock);
  return rc;
}

extern "C" int wgs_cuda_launch_async(wgs_state_t *st, const void *kernel, void **args,
                                     unsigned num_args, size_t shared_bytes, cudaStream_t stream,
                                     const wgs_launch_config *cfg)
{
  WGS__REQUIRE(st);
  WGS__REQUIRE(kernel);
  interop_launch il = {NULL, {kernel, NULL, "wgs_cuda_launch", NULL}, args, num_args, shared_bytes, stream, NULL};
  return interop(st, &il, cfg, 0, NULL);
}

extern "C" int wgs_cuda_launch_function_async(wgs_state_t *st, CUfunction fn, void **args,
                                              unsigned num_args, size_t shared_bytes,
                                              cudaStream_t stream, const wgs_launch_config *cfg)
{
  WGS__REQUIRE(st);
  WGS__REQUIRE(fn);
  interop_launch il = {NULL, {NULL, fn, "wgs_cuda_launch_function", NULL}, args, num_args, shared_bytes,
                       stream, NULL};
  return interop(st, &il, cfg, 0, NULL);
}

/* A launch the caller makes itself (src/launch.h's sequence without the kernel launch): planned
 * for fn, its config words written on the stream, recorded for the result. */
extern "C" int wgs_cuda_prepare_launch(wgs_state_t *st, CUfunction fn, size_t shared_bytes,
                                       cudaStream_t stream, const wgs_launch_config *cfg,
                                       uint32_t *groups)
{
  WGS__REQUIRE(st);
  WGS__REQUIRE(fn);
  WGS__REQUIRE(groups);
  *groups = 0;
  if (!cfg || cfg->local_size == 0)
    return wgs__fail(WGS_EINVAL, "wgs_cuda_prepare_launch: cfg->local_size is 0 (expected the "
                                 "threads per group the caller launches with)");
  uint32_t planned = 0;
  interop_launch il = {NULL, {NULL, fn, "wgs_cuda_prepare_launch", NULL}, NULL, 0, shared_bytes,
                       stream, &planned};
  int rc = interop(st, &il, cfg, 0, NULL);
  if (rc == WGS_OK)
    *groups = planned;
  return rc;
}

extern "C" int wgs_cuda_launch(wgs_state_t *st, const void *kernel, void **args,
                               unsigned num_args, size_t shared_bytes, cudaStream_t stream,
                               const wgs_launch_config *cfg, wgs_launch_result *res)
{
  WGS__REQUIRE(st);
  WGS__REQUIRE(kernel);
  interop_launch il = {NULL, {kernel, NULL, "wgs_cuda_launch", NULL}, args, num_args, shared_bytes, stream, NULL};
  return interop(st, &il, cfg, 1, res);
}

extern "C" int wgs_cuda_launch_function(wgs_state_t *st, CUfunction fn, void **args,
                                        unsigned num_args, size_t shared_bytes, cudaStream_t stream,
                                        const wgs_launch_config *cfg, wgs_launch_result *res)
{
  WGS__REQUIRE(st);
  WGS__REQUIRE(fn);
  interop_launch il = {NULL, {NULL, fn, "wgs_cuda_launch_function", NULL}, args, num_args, shared_bytes,
                       stream, NULL};
  return interop(st, &il, cfg, 1, res);
}

int wgs__cuda_clear_error(wgs_state_t *pst)
{
  cuda_state *st = cs(pst);
  st->mirror[WGS_MIRROR_ERROR] = 0;
  cudaError_t e = cudaMemsetAsync(st->mem + WGS_G_ERROR, 0, WGS_LINE_WORDS * sizeof(unsigned),
                                  st->stream);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(st->stream);
  return e == cudaSuccess ? WGS_OK : wgs__cuda_fail("cudaMemsetAsync(state error report)", e);
}

/* The result's words (src/device.h): after the stream of the latest launch, the result words the
 * device mirrored into mapped host memory; the state's global lines are copied back only when
 * an error was reported (its details live there). */
int wgs__cuda_result_words(wgs_state_t *pst, uint32_t *glob, double *kernel_us)
{
  cuda_state *st = cs(pst);
  /* (in a synchronous launch, the launch just made the device current on this thread) */
  int rc = wgs__state(pst)->in_sync ? WGS_OK : wgs__use_device(st->device);
  if (rc != WGS_OK)
    return rc;
  cudaError_t e = cudaStreamSynchronize(st->stream);
  if (e != cudaSuccess) {
    st->cfg_valid = 0; /* the config write may not have run: the next launch writes it */
    rc = wgs__cuda_fail("kernel execution (cudaStreamSynchronize)", e);
    if (e == cudaErrorStreamCaptureUnsupported || e == cudaErrorStreamCaptureInvalidated)
      wgs__fail_append(" (a synchronous launch waits, which ends a stream capture: capture "
                       "wgs_cuda_launch_async instead)");
    return rc;
  }
  unsigned mcode = st->mirror[WGS_MIRROR_ERROR];
  if (mcode != 0) {
    e = cudaMemcpy(st->io, st->mem, GLOBAL_WORDS * sizeof(unsigned), cudaMemcpyDeviceToHost);
    if (e != cudaSuccess)
      return wgs__cuda_fail("cudaMemcpy(state error report)", e);
  } else {
    memset(st->io, 0, GLOBAL_WORDS * sizeof(unsigned));
  }
  st->io[WGS_G_CTRL + WGS_CTRL_EPOCH] = st->mirror[WGS_MIRROR_EPOCH];
  st->io[WGS_G_CTRL + WGS_CTRL_RESULT_EPOCH] = st->mirror[WGS_MIRROR_RESULT_EPOCH];
  st->io[WGS_G_CTRL + WGS_CTRL_PARTICIPANTS] = st->mirror[WGS_MIRROR_PARTICIPANTS];
  memcpy(glob, st->io, GLOBAL_WORDS * sizeof(unsigned));
  /* a mirrored error whose report line reads clear: nothing to decode, the mirror to reset
   * (the core clears the line after a report it decoded) */
  if (mcode != 0 && glob[WGS_G_ERROR + WGS_ERR_CODE] == 0 && (rc = wgs__cuda_clear_error(pst)) != WGS_OK)
    return rc;
  if (st->timing) { /* (events not done, e.g. a result asked on another stream: no time) */
    float ms = 0;
    if (cudaEventElapsedTime(&ms, st->e0, st->e1) == cudaSuccess)
      *kernel_us = ms * 1e3;
    cudaGetLastError();
    st->timing = 0;
  }
  return WGS_OK;
}

int wgs__cuda_read_words(wgs_state_t *pst, size_t offset, size_t n, uint32_t *out)
{
  cuda_state *st = cs(pst);
  CU(cudaMemcpy(out, st->mem + offset, n * sizeof *out, cudaMemcpyDeviceToHost),
     "cudaMemcpy(state words)");
  return WGS_OK;
}

/* Waits for `stream` (where the caller launched) and reports the state's latest launch. */
extern "C" int wgs_cuda_state_result(wgs_state_t *st, cudaStream_t stream, wgs_launch_result *res)
{
  WGS__REQUIRE(st);
  if (wgs__object(st)->ops != &wgs__cuda_ops)
    return wgs__fail(WGS_EINVAL, "wgs_cuda_state_result: the state is not on a CUDA device");
  wgs__state_head *h = wgs__state(st);
  pthread_mutex_lock(&h->lock);
  cs(st)->stream = stream;
  int rc = wgs__state_result_locked(st, res);
  pthread_mutex_unlock(&h->lock);
  return rc;
}


/* The symbol entry points the header's inline wrappers fall back to (and older binaries call by
 * the old names): the symbol resolved in this library's CUDA runtime. */
extern "C" int wgs_cuda_launch_symbol(wgs_state_t *st, const void *kernel, void **args,
                                      unsigned num_args, size_t shared_bytes, cudaStream_t stream,
                                      const wgs_launch_config *cfg, wgs_launch_result *res)
{
  return wgs_cuda_launch(st, kernel, args, num_args, shared_bytes, stream, cfg, res);
}

extern "C" int wgs_cuda_launch_symbol_async(wgs_state_t *st, const void *kernel, void **args,
                                            unsigned num_args, size_t shared_bytes,
                                            cudaStream_t stream, const wgs_launch_config *cfg)
{
  return wgs_cuda_launch_async(st, kernel, args, num_args, shared_bytes, stream, cfg);
}

extern "C" int wgs_cuda_state_device(const wgs_state_t *st)
{
  return st ? wgs_cuda_device_ordinal(wgs__state((wgs_state_t *)st)->dev) : -1;
}
