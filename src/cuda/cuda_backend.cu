/*
 * CUDA backend: device info, protocol state, persistent launch with an ordinary (not
 * cooperative) launch, the report of a checked build, and the occupancy tools.
 * The protocol and its state are those of the OpenCL backend (device/common/wgs_layout.h).
 */
#include <cuda.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../device.h"
#include "../launch.h"
#include "wgsync_cuda.h"

extern "C" __global__ void wgs_cuda_micro_checked(unsigned *, unsigned, unsigned, unsigned *);
extern "C" __global__ void wgs_cuda_micro_plain(unsigned *, unsigned, unsigned, unsigned *);
extern "C" __global__ void wgs_cuda_mp_checked(unsigned *, unsigned *, unsigned, unsigned, unsigned *);
extern "C" __global__ void wgs_cuda_mp_plain(unsigned *, unsigned *, unsigned, unsigned, unsigned *);

#define GLOBAL_WORDS (WGS_G_LINES * WGS_LINE_WORDS)
#define CU(call, what)                                                                       \
  do {                                                                                       \
    cudaError_t e_ = (call);                                                                 \
    if (e_ != cudaSuccess)                                                                   \
      return cuda_fail((what), e_);                                                          \
  } while (0)

static int cuda_fail(const char *what, cudaError_t e)
{
  int status = WGS_EBACKEND;
  if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver || e == cudaErrorInvalidDevice)
    status = WGS_ENODEV;
  else if (e == cudaErrorInvalidConfiguration || e == cudaErrorLaunchOutOfResources ||
           e == cudaErrorCooperativeLaunchTooLarge || e == cudaErrorMemoryAllocation)
    status = WGS_ELIMIT;
  cudaGetLastError(); /* clear a sticky launch error so the next call starts clean */
  return wgs__fail(status, "%s failed: %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
}

/* The driver API, for kernels given as CUfunction / CUkernel handles (modules loaded by NVRTC
 * programs, CuPy, cuda-python, Numba, Triton). Reached through the runtime's entry-point query,
 * so libwgsync_cuda needs no link to libcuda and any runtime copy in the process can launch. */
typedef CUresult (*wgs__cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                                        unsigned, unsigned, unsigned, CUstream, void **, void **);
typedef CUresult (*wgs__cuOccupancy)(int *, CUfunction, int, size_t);
typedef CUresult (*wgs__cuGetErrorName)(CUresult, const char **);
static struct {
  int loaded, ok;
  wgs__cuLaunchKernel launch;
  wgs__cuOccupancy occupancy;
  wgs__cuGetErrorName error_name;
} drv;

static int driver_entry(const char *name, void **fn)
{
  cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
  cudaError_t e = cudaGetDriverEntryPointByVersion(name, fn, 12000, cudaEnableDefault, &q);
#else
  cudaError_t e = cudaGetDriverEntryPoint(name, fn, cudaEnableDefault, &q);
#endif
  if (e != cudaSuccess)
    return cuda_fail("cudaGetDriverEntryPoint", e);
  if (q != cudaDriverEntryPointSuccess || !*fn)
    return wgs__fail(WGS_EBACKEND, "the CUDA driver has no %s (driver API 12.0 or newer is needed)",
                     name);
  return WGS_OK;
}

static int load_driver(void)
{
  if (!drv.loaded) { /* benign race: every thread stores the same pointers */
    drv.ok = driver_entry("cuLaunchKernel", (void **)&drv.launch) == WGS_OK &&
             driver_entry("cuOccupancyMaxActiveBlocksPerMultiprocessor", (void **)&drv.occupancy) == WGS_OK &&
             driver_entry("cuGetErrorName", (void **)&drv.error_name) == WGS_OK;
    drv.loaded = 1;
    if (!drv.ok)
      return WGS_EBACKEND; /* the message is set */
  }
  return drv.ok ? WGS_OK : wgs__fail(WGS_EBACKEND, "the CUDA driver API entry points could not be found");
}

static int cu_fail(const char *what, CUresult r)
{
  const char *name = NULL;
  if (drv.error_name)
    drv.error_name(r, &name);
  int status = r == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES || r == CUDA_ERROR_INVALID_VALUE
                   ? WGS_ELIMIT : WGS_EBACKEND;
  return wgs__fail(status, "%s failed: %s (%d)%s", what, name ? name : "CUresult", (int)r,
                   r == CUDA_ERROR_INVALID_HANDLE || r == CUDA_ERROR_INVALID_CONTEXT
                       ? " (is the function from a module loaded on this state's device?)" : "");
}

/* What is launched: a runtime-API symbol, or a driver-API function handle. */
typedef struct {
  const void *sym;
  CUfunction fn;
  const char *who;
  const char *name; /* for messages, NULL when unknown */
} kernel_ref;

/* A state on a CUDA device (the public wgs_state_t, and cuda_state, point at one). */
struct wgs_cuda_state {
  WGS__STATE_HEAD;       /* ops, device, capacity, launch log and lock (src/device.h) */
  int device;
  unsigned *mem;
  unsigned *io;          /* pinned: the global lines of the state, read back for a result */
  volatile unsigned *mirror; /* pinned, mapped: the result words the device mirrors (WGS_MIRROR_*) */
  unsigned *mirror_dev;  /* its device address */
  int max_threads, sms;  /* device attributes, asked once */
  wgs_device_info info;  /* what the launch sequence reads (src/launch.h), from those */
  cudaEvent_t e0, e1;    /* kernel time (when asked), made once per state */
  int timing;            /* the latest launch recorded e0, e1 */
  uint32_t cfg[WGS_CFG_WORDS]; /* the config words on the device, when cfg_valid */
  int cfg_valid;
  cudaStream_t stream;   /* the latest launch's stream: a result waits for it */
  /* The occupancy API's answer for the last kernel launched on this state (the early close's
   * "enough"): asked once per kernel and shape, not on every launch of a loop. */
  const void *occ_kernel;
  size_t occ_local, occ_shared;
  uint32_t occ_groups;
};
typedef struct wgs_cuda_state cuda_state;
static inline cuda_state *cs(wgs_state_t *st) { return (cuda_state *)(void *)st; }
static inline wgs_state_t *pub(cuda_state *st) { return (wgs_state_t *)(void *)st; }
extern "C" const wgs__backend_ops wgs__cuda_ops;
/* A CUDA device behind a wgs_device_t (src/device.h): the head, the ordinal, and the references
 * of the user's handle and of every state, kernel and buffer made on it. */
struct wgs__cuda_device {
  WGS__DEVICE_HEAD;
  int ordinal;
  int refs;
};
static void cuda_dev_retain(wgs_device_t *dev)
{
  __atomic_add_fetch(&((wgs__cuda_device *)(void *)dev)->refs, 1, __ATOMIC_RELAXED);
}
static void cuda_dev_release(wgs_device_t *dev)
{
  if (dev && __atomic_sub_fetch(&((wgs__cuda_device *)(void *)dev)->refs, 1, __ATOMIC_ACQ_REL) == 0)
    free(dev);
}
static int cuda_open_ordinal(int ordinal, const char *how, wgs_device_t **out);

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

extern "C" int wgs_cuda_device_count(int *count)
{
  WGS__REQUIRE(count);
  *count = 0;
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();
    wgs__fail(WGS_OK, "no CUDA device: %s (%s)", cudaGetErrorName(e), cudaGetErrorString(e));
    return WGS_OK;
  }
  *count = n;
  return WGS_OK;
}

/* set_device when device is not the current one already (a launch's common case: cheap). */
static int set_device(int device);
static int use_device(int device)
{
  int cur = -1;
  if (cudaGetDevice(&cur) == cudaSuccess && cur == device)
    return WGS_OK;
  cudaGetLastError();
  return set_device(device);
}

static int set_device(int device)
{
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess)
    return cuda_fail("cudaGetDeviceCount", e);
  if (device < 0 || device >= n)
    return wgs__fail(WGS_ENODEV, "CUDA device %d does not exist (%d device%s)", device, n,
                     n == 1 ? "" : "s");
  CU(cudaSetDevice(device), "cudaSetDevice");
  return WGS_OK;
}

extern "C" int wgs_cuda_device_info(int device, wgs_device_info *out)
{
  WGS__REQUIRE(out);
  int rc = set_device(device);
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

static void cuda_state_release(wgs_state_t *st);
/* The table's state (src/device.h): the core checked max_groups. */
static int cuda_state_create(wgs_device_t *dev, uint32_t max_groups, wgs_state_t **out)
{
  int device = ((wgs__cuda_device *)(void *)dev)->ordinal;
  int rc = set_device(device);
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
  cuda_dev_retain(dev);
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
    cuda_state_release(pub(st));
    return cuda_fail("wgs_state_create: pinned buffer and events", e);
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
  int rc = cuda_open_ordinal(device, how, &dev);
  if (rc != WGS_OK)
    return rc;
  rc = wgs_state_create(dev, max_groups, out);
  cuda_dev_release(dev); /* the state holds it */
  return rc;
}



static void cuda_state_release(wgs_state_t *pst)
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
  cuda_dev_release(st->dev);
  free(st);
}

extern "C" void wgs_cuda_state_release(wgs_state_t *st) { wgs_state_release(st); }

extern "C" unsigned *wgs_cuda_state_device_ptr(const wgs_state_t *st)
{
  return st && wgs__object(st)->ops == &wgs__cuda_ops ? ((const cuda_state *)(const void *)st)->mem
                                                      : NULL;
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

/* What the launch sequence asks the CUDA backend (src/launch.h). */
typedef struct {
  cuda_state *st;
  kernel_ref kr;
  size_t shared_bytes;
} cuda_launch_ctx;
static int cuda_to_spin(void *ctx, double us, uint64_t *out)
{
  (void)ctx;
  *out = wgs__saturate_u64(us * 1e3); /* the device clock: nanoseconds */
  return WGS_OK;
}
/* The occupancy API's groups for the kernel, asked once per kernel and shape on a state. */
static uint32_t cuda_fits(void *ctx, size_t local)
{
  cuda_launch_ctx *c = (cuda_launch_ctx *)ctx;
  cuda_state *st = c->st;
  const void *kernel = c->kr.sym ? c->kr.sym : (const void *)c->kr.fn; /* the cache's key */
  if (st->occ_kernel != kernel || st->occ_local != local || st->occ_shared != c->shared_bytes) {
    int per_sm = 0;
    st->occ_groups = 0; /* a failed query only means no early close */
    if (c->kr.sym ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, c->kr.sym, (int)local,
                                                                  c->shared_bytes) == cudaSuccess
                  : drv.occupancy(&per_sm, c->kr.fn, (int)local, c->shared_bytes) == CUDA_SUCCESS)
      st->occ_groups = (uint32_t)(per_sm * st->sms);
    cudaGetLastError();
    st->occ_kernel = kernel;
    st->occ_local = local;
    st->occ_shared = c->shared_bytes;
  }
  return st->occ_groups;
}

static int launch_async(cuda_state *st, kernel_ref kr, void **args, unsigned num_args,
                        size_t shared_bytes, cudaStream_t stream, const wgs_launch_config *cfg_in)
{
  if (!kr.sym && load_driver() != WGS_OK)
    return WGS_EBACKEND;
  wgs_launch_config cfg;
  if (cfg_in)
    cfg = *cfg_in;
  else
    wgs_launch_config_init(&cfg);
  if (cfg.state_arg >= num_args)
    return wgs__fail(WGS_EINVAL, "%s: state_arg is %u but the kernel has %u arguments", kr.who,
                     cfg.state_arg, num_args);
  int rc = use_device(st->device);
  if (rc != WGS_OK)
    return rc;
  cuda_launch_ctx lctx = {st, kr, shared_bytes};
  wgs__launch_ctx c = {kr.who, "wgs_cuda_state_create", &st->info, WGS__DEFAULT_LOCAL_SIZE,
                       st->max_groups, 1, 1, 1, 0, cuda_to_spin, cuda_fits, &lctx};
  /* checked: CUDA kernels are built by the user, checked or not, so the bound is always
   * written (an unchecked build ignores it) and a report is always decoded (it has none) */
  wgs__launch_plan plan;
  if ((rc = wgs__plan_launch(&c, &cfg, &plan)) != WGS_OK)
    return rc;
  size_t local = plan.local;
  uint32_t groups = plan.groups;
  wgs__cfg_arg ca;
  memcpy(ca.w, plan.w, sizeof ca.w);
  ca.w[WGS_CFG_HOST_LO] = (unsigned)(uintptr_t)st->mirror_dev;
  ca.w[WGS_CFG_HOST_HI] = (unsigned)((uint64_t)(uintptr_t)st->mirror_dev >> 32);

  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  cudaError_t e = cudaStreamIsCapturing(stream, &capture);
  if (e != cudaSuccess)
    return cuda_fail("cudaStreamIsCapturing", e);
  int capturing = capture != cudaStreamCaptureStatusNone;
  if (capturing && cfg.time_kernel)
    return wgs__fail(WGS_EINVAL, "%s: time_kernel is set, but the stream is being captured "
                                 "(time the graph's launch instead)", kr.who);

  void *argv_local[32];
  void **argv = argv_local;
  if (num_args > 32 && !(argv = (void **)malloc(num_args * sizeof *argv)))
    return wgs__fail(WGS_ENOMEM, "%s: out of memory", kr.who);
  memcpy(argv, args, num_args * sizeof *argv);
  unsigned *state_ptr = st->mem;
  argv[cfg.state_arg] = &state_ptr;

  /* A launch is the kernel alone, plus the config words when they changed (a captured graph
   * always carries them: the device's words may differ when it is replayed). */
  rc = WGS_OK;
#define STEP(call, what)                                                                     \
  if (rc == WGS_OK && (e = (call)) != cudaSuccess)                                           \
    rc = cuda_fail((what), e);
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
  if (kr.sym) {
    STEP(cudaLaunchKernel(kr.sym, dim3(groups), dim3((unsigned)local), argv, shared_bytes, stream),
         "cudaLaunchKernel")
    if (rc == WGS_EBACKEND && e == cudaErrorInvalidDeviceFunction)
      wgs__fail_append(" (a kernel symbol is known only to the CUDA runtime that registered it: a "
                       "program using libwgsync_cuda.so must link the shared runtime, nvcc "
                       "-cudart shared; or launch it as a CUfunction, wgs_cuda_launch_function)");
  } else if (rc == WGS_OK) {
    CUresult r = drv.launch(kr.fn, groups, 1, 1, (unsigned)local, 1, 1, (unsigned)shared_bytes,
                            (CUstream)stream, argv, NULL);
    if (r != CUDA_SUCCESS)
      rc = cu_fail("cuLaunchKernel", r);
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
  wgs__log_plan(&st->log, kr.name, &plan, &cfg, &c, capturing);
  st->timing = cfg.time_kernel;
  st->stream = stream;
  return WGS_OK;
}

/* The interop launches: a kernel symbol or a CUfunction with the caller's argument array and
 * stream, under the state's lock; the synchronous ones through the core (src/api.c). */
typedef struct {
  kernel_ref kr;
  void **args;
  unsigned num_args;
  size_t shared_bytes;
  cudaStream_t stream;
} interop_launch;
static int enqueue_interop(wgs_state_t *st, void *what, const wgs_launch_config *cfg)
{
  interop_launch *il = (interop_launch *)what;
  return launch_async(cs(st), il->kr, il->args, il->num_args, il->shared_bytes, il->stream, cfg);
}
static int interop(wgs_state_t *st, interop_launch *il, const wgs_launch_config *cfg, int sync,
                   wgs_launch_result *res)
{
  if (wgs__object(st)->ops != &wgs__cuda_ops)
    return wgs__fail(WGS_EINVAL, "%s: the state is not on a CUDA device", il->kr.who);
  if (il->num_args > 0 && !il->args)
    return wgs__fail(WGS_EINVAL, "%s: argument 'args' is NULL", il->kr.who);
  wgs__state_head *h = wgs__state(st);
  pthread_mutex_lock(&h->lock);
  int rc = sync ? wgs__launch_sync_locked(st, NULL, cfg, res, enqueue_interop, il)
                : enqueue_interop(st, il, cfg);
  pthread_mutex_unlock(&h->lock);
  return rc;
}

extern "C" int wgs_cuda_launch_async(wgs_state_t *st, const void *kernel, void **args,
                                     unsigned num_args, size_t shared_bytes, cudaStream_t stream,
                                     const wgs_launch_config *cfg)
{
  WGS__REQUIRE(st);
  WGS__REQUIRE(kernel);
  interop_launch il = {{kernel, NULL, "wgs_cuda_launch", NULL}, args, num_args, shared_bytes, stream};
  return interop(st, &il, cfg, 0, NULL);
}

extern "C" int wgs_cuda_launch_function_async(wgs_state_t *st, CUfunction fn, void **args,
                                              unsigned num_args, size_t shared_bytes,
                                              cudaStream_t stream, const wgs_launch_config *cfg)
{
  WGS__REQUIRE(st);
  WGS__REQUIRE(fn);
  interop_launch il = {{NULL, fn, "wgs_cuda_launch_function", NULL}, args, num_args, shared_bytes,
                       stream};
  return interop(st, &il, cfg, 0, NULL);
}

extern "C" int wgs_cuda_launch(wgs_state_t *st, const void *kernel, void **args,
                               unsigned num_args, size_t shared_bytes, cudaStream_t stream,
                               const wgs_launch_config *cfg, wgs_launch_result *res)
{
  WGS__REQUIRE(st);
  WGS__REQUIRE(kernel);
  interop_launch il = {{kernel, NULL, "wgs_cuda_launch", NULL}, args, num_args, shared_bytes, stream};
  return interop(st, &il, cfg, 1, res);
}

extern "C" int wgs_cuda_launch_function(wgs_state_t *st, CUfunction fn, void **args,
                                        unsigned num_args, size_t shared_bytes, cudaStream_t stream,
                                        const wgs_launch_config *cfg, wgs_launch_result *res)
{
  WGS__REQUIRE(st);
  WGS__REQUIRE(fn);
  interop_launch il = {{NULL, fn, "wgs_cuda_launch_function", NULL}, args, num_args, shared_bytes,
                       stream};
  return interop(st, &il, cfg, 1, res);
}

static int cuda_clear_error(wgs_state_t *pst)
{
  cuda_state *st = cs(pst);
  st->mirror[WGS_MIRROR_ERROR] = 0;
  cudaError_t e = cudaMemsetAsync(st->mem + WGS_G_ERROR, 0, WGS_LINE_WORDS * sizeof(unsigned),
                                  st->stream);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(st->stream);
  return e == cudaSuccess ? WGS_OK : cuda_fail("cudaMemsetAsync(state error report)", e);
}

/* The result's words (src/device.h): after the stream of the latest launch, the result words the
 * device mirrored into mapped host memory; the state's global lines are copied back only when
 * an error was reported (its details live there). */
static int cuda_result_words(wgs_state_t *pst, uint32_t *glob, double *kernel_us)
{
  cuda_state *st = cs(pst);
  int rc = use_device(st->device);
  if (rc != WGS_OK)
    return rc;
  cudaError_t e = cudaStreamSynchronize(st->stream);
  if (e != cudaSuccess)
    return cuda_fail("kernel execution (cudaStreamSynchronize)", e);
  unsigned mcode = st->mirror[WGS_MIRROR_ERROR];
  if (mcode != 0) {
    e = cudaMemcpy(st->io, st->mem, GLOBAL_WORDS * sizeof(unsigned), cudaMemcpyDeviceToHost);
    if (e != cudaSuccess)
      return cuda_fail("cudaMemcpy(state error report)", e);
  } else {
    memset(st->io, 0, GLOBAL_WORDS * sizeof(unsigned));
  }
  st->io[WGS_G_CTRL + WGS_CTRL_EPOCH] = st->mirror[WGS_MIRROR_EPOCH];
  st->io[WGS_G_CTRL + WGS_CTRL_RESULT_EPOCH] = st->mirror[WGS_MIRROR_RESULT_EPOCH];
  st->io[WGS_G_CTRL + WGS_CTRL_PARTICIPANTS] = st->mirror[WGS_MIRROR_PARTICIPANTS];
  memcpy(glob, st->io, GLOBAL_WORDS * sizeof(unsigned));
  /* a mirrored error whose report line reads clear: nothing to decode, the mirror to reset
   * (the core clears the line after a report it decoded) */
  if (mcode != 0 && glob[WGS_G_ERROR + WGS_ERR_CODE] == 0 && (rc = cuda_clear_error(pst)) != WGS_OK)
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

static int cuda_read_words(wgs_state_t *pst, size_t offset, size_t n, uint32_t *out)
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

/* ---- occupancy tools -------------------------------------------------------------------- */


static int micro_run(int device, const wgs_occupancy_config *cfg, uint32_t groups,
                     wgs_discovery disc, int do_barrier, wgs_launch_result *res)
{
  wgs_state_t *st = NULL;
  unsigned *out = NULL;
  int rc = wgs_cuda_state_create(device, groups, &st);
  if (rc != WGS_OK)
    return rc;
  cudaError_t e = cudaMalloc((void **)&out, (size_t)groups * 2 * sizeof(unsigned));
  if (e != cudaSuccess) {
    wgs_cuda_state_release(st);
    return cuda_fail("cudaMalloc(out)", e);
  }
  size_t smem = cfg->local_mem_bytes ? cfg->local_mem_bytes : 1;
  const void *k = (const void *)wgs_cuda_micro_checked;
  if (smem > 48 * 1024 &&
      (e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem)) != cudaSuccess) {
    cudaFree(out);
    wgs_cuda_state_release(st);
    return cuda_fail("cudaFuncSetAttribute(MaxDynamicSharedMemorySize)", e);
  }
  unsigned words = (unsigned)(smem / sizeof(unsigned)), barrier = do_barrier ? 1u : 0u;
  void *args[4] = {NULL, &words, &barrier, &out};
  wgs_launch_config lc;
  wgs__occ_launch_config(cfg, groups, disc, &lc);
  rc = wgs_cuda_launch(st, k, args, 4, smem, 0, &lc, res);
  cudaFree(out);
  wgs_cuda_state_release(st);
  return rc;
}

extern "C" int wgs_cuda_max_shared(int device, size_t *bytes)
{
  WGS__REQUIRE(bytes);
  int rc = set_device(device);
  if (rc != WGS_OK)
    return rc;
  int optin = 0;
  CU(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
     "cudaDeviceGetAttribute(MaxSharedMemoryPerBlockOptin)");
  *bytes = (size_t)optin;
  return WGS_OK;
}

extern "C" int wgs_cuda_occupancy_api(int device, size_t local_size, size_t shared_bytes, uint32_t *groups)
{
  WGS__REQUIRE(groups);
  int rc = set_device(device);
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
static int ordinal_device(int device, wgs__cuda_device *d);

extern "C" int wgs_cuda_occupancy_discover(int device, const wgs_occupancy_config *cfg, wgs_launch_result *res)
{
  WGS__REQUIRE(cfg);
  WGS__REQUIRE(res);
  wgs__cuda_device d;
  int rc = ordinal_device(device, &d);
  return rc != WGS_OK ? rc : wgs__tool_discover((wgs_device_t *)(void *)&d, cfg, res);
}

extern "C" int wgs_cuda_occupancy_bound(int device, const wgs_occupancy_config *cfg, uint32_t limit,
                                        void (*cb)(void *, uint32_t, int), void *user, uint32_t *bound)
{
  WGS__REQUIRE(cfg);
  WGS__REQUIRE(bound);
  *bound = 0;
  wgs__cuda_device d;
  int rc = ordinal_device(device, &d);
  return rc != WGS_OK ? rc : wgs__tool_bound((wgs_device_t *)(void *)&d, cfg, limit, cb, user, bound);
}

extern "C" int wgs_cuda_barrier_selftest(int device, const wgs_selftest_config *cfg, wgs_selftest_result *res)
{
  WGS__REQUIRE(cfg);
  WGS__REQUIRE(res);
  memset(res, 0, sizeof *res);
  wgs__cuda_device d;
  int rc = ordinal_device(device, &d);
  return rc != WGS_OK ? rc : wgs__tool_selftest((wgs_device_t *)(void *)&d, cfg, res);
}

extern "C" int wgs_cuda_barrier_latency(int device, const wgs_latency_config *cfg, wgs_latency_result *res)
{
  WGS__REQUIRE(cfg);
  WGS__REQUIRE(res);
  memset(res, 0, sizeof *res);
  wgs__cuda_device d;
  int rc = ordinal_device(device, &d);
  return rc != WGS_OK ? rc : wgs__tool_latency((wgs_device_t *)(void *)&d, cfg, res);
}

/* The self-test's launch (the core's wgs__tool_selftest decides sizes and decodes the report). */
static int cuda_mp(int device, const wgs_selftest_config *cfg, size_t local, uint32_t groups,
                   uint32_t rounds, wgs_launch_result *launch, uint32_t rep_out[8])
{
  unsigned split = cfg->split ? 1u : 0u;
  wgs_state_t *st = NULL;
  unsigned *data = NULL, *report = NULL;
  int rc = wgs_cuda_state_create(device, groups, &st);
  if (rc != WGS_OK)
    return rc;
  cudaError_t e;
  if ((e = cudaMalloc((void **)&data, 2 * (size_t)groups * local * 4 * sizeof(unsigned))) != cudaSuccess ||
      (e = cudaMalloc((void **)&report, 16 * sizeof(unsigned))) != cudaSuccess ||
      (e = cudaMemset(report, 0, 16 * sizeof(unsigned))) != cudaSuccess) {
    rc = cuda_fail("cudaMalloc(self-test buffers)", e);
  } else {
    void *args[5] = {NULL, &data, &rounds, &split, &report};
    wgs_launch_config lc;
    wgs__selftest_launch_config(cfg, local, groups, &lc);
    const void *k = cfg->unchecked ? (const void *)wgs_cuda_mp_plain : (const void *)wgs_cuda_mp_checked;
    rc = wgs_cuda_launch(st, k, args, 5, 0, 0, &lc, launch);
    unsigned rep[16];
    if (rc == WGS_OK && (e = cudaMemcpy(rep, report, sizeof rep, cudaMemcpyDeviceToHost)) != cudaSuccess)
      rc = cuda_fail("cudaMemcpy(report)", e);
    if (rc == WGS_OK)
      memcpy(rep_out, rep, 8 * sizeof *rep_out);
  }
  cudaFree(data);
  cudaFree(report);
  wgs_cuda_state_release(st);
  return rc;
}

extern "C" __global__ void wgs_cuda_latency_checked(unsigned *, unsigned, unsigned, unsigned *);
extern "C" __global__ void wgs_cuda_latency_plain(unsigned *, unsigned, unsigned, unsigned *);

/* The latency runs (the core's wgs__tool_latency decides the defaults and the statistics). */
static int cuda_latency_runs(int device, const wgs_latency_config *cfg, uint32_t groups, uint32_t rounds,
                             uint32_t repeats, double *us)
{
  unsigned split = cfg->split ? 1u : 0u;
  wgs_state_t *st = NULL;
  unsigned *sink = NULL;
  int rc = wgs_cuda_state_create(device, groups, &st);
  cudaError_t e;
  if (rc == WGS_OK && (e = cudaMalloc((void **)&sink, 16)) != cudaSuccess)
    rc = cuda_fail("cudaMalloc(sink)", e);
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
  wgs_cuda_state_release(st);
  return rc;
}

/* ---- the backend's operations (src/device.h): a CUDA device through wgs_device_open ------ */


static int cuda_ordinal(const wgs_device_t *dev)
{
  return ((const wgs__cuda_device *)(const void *)dev)->ordinal;
}

static int cuda_open_ordinal(int ordinal, const char *how, wgs_device_t **out)
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

static int cuda_list(wgs_device_info *infos, size_t cap, size_t *count)
{
  int n = 0;
  *count = 0;
  int rc = wgs_cuda_device_count(&n);
  if (rc != WGS_OK)
    return rc;
  if (n == 0)
    return wgs__fail(WGS_ENODEV, "%s", wgs_last_error()); /* (the reason count gave) */
  for (int i = 0; i < n && *count < cap; i++) {
    if ((rc = wgs_cuda_device_info(i, &infos[*count])) != WGS_OK)
      return rc;
    (*count)++;
  }
  return WGS_OK;
}

static int cuda_open(const wgs_device_select *sel, const char *how, wgs_device_t **out)
{
  return cuda_open_ordinal(sel->device, how, out);
}

/* The user's handle; states, kernels and buffers made on it keep it until they go. */
static void cuda_close(wgs_device_t *dev) { cuda_dev_release(dev); }

/* ---- kernels and buffers of the one API (wgsync.h) on a CUDA device ------------------------ */

#define CUDA_MAX_ARGS 64
/* A kernel symbol or a CUfunction, with the arguments wgs_kernel_set_arg gave (copies), so that
 * wgs_launch passes them as cudaLaunchKernel / cuLaunchKernel take them. */
typedef struct {
  WGS__OBJECT_HEAD;
  kernel_ref kr;
  unsigned nargs;                      /* 1 + the highest index set */
  unsigned char *value[CUDA_MAX_ARGS]; /* NULL: not set */
  size_t shared_bytes;                 /* dynamic shared memory (a NULL value's size) */
} cuda_kernel;
typedef struct {
  WGS__OBJECT_HEAD;
  void *ptr;
  size_t bytes;
} cuda_buffer;

static int kernel_wrap(wgs_device_t *dev, const void *sym, CUfunction fn, const char *who,
                       wgs_kernel_t **out)
{
  if (wgs__head(dev)->ops != &wgs__cuda_ops)
    return wgs__fail(WGS_EINVAL, "%s: the device is not a CUDA device (open \"cuda:N\")", who);
  cuda_kernel *k = (cuda_kernel *)calloc(1, sizeof *k);
  if (!k)
    return wgs__fail(WGS_ENOMEM, "%s: out of memory", who);
  k->ops = &wgs__cuda_ops;
  k->dev = dev;
  cuda_dev_retain(dev);
  k->kr.sym = sym;
  k->kr.fn = fn;
  k->kr.who = "wgs_launch";
  k->kr.name = NULL;
  *out = (wgs_kernel_t *)(void *)k;
  return WGS_OK;
}

extern "C" int wgs_kernel_cuda(wgs_device_t *dev, const void *kernel, wgs_kernel_t **out)
{
  WGS__REQUIRE(out);
  *out = NULL;
  WGS__REQUIRE(dev);
  WGS__REQUIRE(kernel);
  return kernel_wrap(dev, kernel, NULL, "wgs_kernel_cuda", out);
}

extern "C" int wgs_kernel_cuda_function(wgs_device_t *dev, CUfunction fn, wgs_kernel_t **out)
{
  WGS__REQUIRE(out);
  *out = NULL;
  WGS__REQUIRE(dev);
  WGS__REQUIRE(fn);
  if (load_driver() != WGS_OK)
    return WGS_EBACKEND;
  return kernel_wrap(dev, NULL, fn, "wgs_kernel_cuda_function", out);
}

static void cuda_kernel_release(wgs_kernel_t *pk)
{
  cuda_kernel *k = (cuda_kernel *)(void *)pk;
  for (unsigned i = 0; i < CUDA_MAX_ARGS; i++)
    free(k->value[i]);
  cuda_dev_release(k->dev);
  free(k);
}

static int cuda_kernel_set_arg(wgs_kernel_t *pk, unsigned index, size_t size, const void *value)
{
  cuda_kernel *k = (cuda_kernel *)(void *)pk;
  if (index >= CUDA_MAX_ARGS)
    return wgs__fail(WGS_ELIMIT, "wgs_kernel_set_arg: index %u (CUDA kernels take at most %u "
                                 "arguments through wgsync)", index, CUDA_MAX_ARGS);
  if (!value) { /* as OpenCL's __local argument: the launch's dynamic shared memory */
    const wgs_device_info *in = &wgs__head(k->dev)->info;
    if (size > in->local_mem_bytes)
      return wgs__fail(WGS_ELIMIT, "argument %u: %zu bytes of dynamic shared memory, but '%s' "
                                   "has %llu per block", index, size, in->name,
                       (unsigned long long)in->local_mem_bytes);
    k->shared_bytes = size;
    return WGS_OK;
  }
  if (size == 0 || size > 4096)
    return wgs__fail(WGS_EINVAL, "wgs_kernel_set_arg: argument %u of %zu bytes (expected 1 to "
                                 "4096, the kernel parameter's size)", index, size);
  unsigned char *v = (unsigned char *)malloc(size);
  if (!v)
    return wgs__fail(WGS_ENOMEM, "wgs_kernel_set_arg: out of memory");
  memcpy(v, value, size);
  free(k->value[index]);
  k->value[index] = v;
  if (index + 1 > k->nargs)
    k->nargs = index + 1;
  return WGS_OK;
}

static int cuda_kernel_set_arg_buffer(wgs_kernel_t *k, unsigned index, wgs_buffer_t *pb)
{
  cuda_buffer *b = (cuda_buffer *)(void *)pb;
  if (((wgs__cuda_device *)(void *)b->dev)->ordinal !=
      ((wgs__cuda_device *)(void *)wgs__object(k)->dev)->ordinal)
    return wgs__fail(WGS_EINVAL, "argument %u: the buffer is on another CUDA device than the "
                                 "kernel", index);
  return cuda_kernel_set_arg(k, index, sizeof b->ptr, &b->ptr);
}

/* The table's launch (src/device.h): the core checked the devices and holds the lock. On the
 * legacy default stream; launches on a stream of your own: wgs_cuda_launch. */
static int cuda_launch(wgs_state_t *st, wgs_kernel_t *pk, const wgs_launch_config *cfg)
{
  cuda_kernel *k = (cuda_kernel *)(void *)pk;
  unsigned state_arg = cfg ? cfg->state_arg : 0;
  unsigned n = k->nargs > state_arg ? k->nargs : state_arg + 1;
  void *argv[CUDA_MAX_ARGS + 1];
  for (unsigned i = 0; i < n; i++) {
    if (i != state_arg && !k->value[i])
      return wgs__fail(WGS_EINVAL, "wgs_launch: kernel argument %u was never set "
                                   "(wgs_kernel_set_arg; argument %u is the state)", i, state_arg);
    argv[i] = k->value[i];
  }
  return launch_async(cs(st), k->kr, argv, n, k->shared_bytes, 0, cfg);
}

static int cuda_buffer_create(wgs_device_t *dev, size_t bytes, wgs_buffer_t **out)
{
  int rc = use_device(((wgs__cuda_device *)(void *)dev)->ordinal);
  if (rc != WGS_OK)
    return rc;
  void *ptr = NULL;
  CU(cudaMalloc(&ptr, bytes), "cudaMalloc(buffer)");
  cuda_buffer *b = (cuda_buffer *)calloc(1, sizeof *b);
  if (!b) {
    cudaFree(ptr);
    return wgs__fail(WGS_ENOMEM, "wgs_buffer_create: out of memory");
  }
  b->ops = &wgs__cuda_ops;
  b->dev = dev;
  cuda_dev_retain(dev);
  b->ptr = ptr;
  b->bytes = bytes;
  *out = (wgs_buffer_t *)(void *)b;
  return WGS_OK;
}

static void cuda_buffer_release(wgs_buffer_t *pb)
{
  cuda_buffer *b = (cuda_buffer *)(void *)pb;
  cudaFree(b->ptr);
  cuda_dev_release(b->dev);
  free(b);
}

static int cuda_buffer_copy(wgs_buffer_t *pb, size_t off, size_t bytes, void *host, int to_device)
{
  cuda_buffer *b = (cuda_buffer *)(void *)pb;
  const char *fn = to_device ? "wgs_buffer_write" : "wgs_buffer_read";
  if (off > b->bytes || bytes > b->bytes - off)
    return wgs__fail(WGS_EINVAL, "%s: %zu bytes at offset %zu reach past the buffer of %zu bytes",
                     fn, bytes, off, b->bytes);
  int rc = use_device(((wgs__cuda_device *)(void *)b->dev)->ordinal);
  if (rc != WGS_OK)
    return rc;
  /* (the legacy default stream: ordered after the launches wgs_launch made) */
  CU(to_device ? cudaMemcpy((char *)b->ptr + off, host, bytes, cudaMemcpyHostToDevice)
               : cudaMemcpy(host, (char *)b->ptr + off, bytes, cudaMemcpyDeviceToHost),
     to_device ? "cudaMemcpy(buffer write)" : "cudaMemcpy(buffer read)");
  return WGS_OK;
}
static int cuda_buffer_write(wgs_buffer_t *b, size_t off, size_t bytes, const void *src)
{
  return cuda_buffer_copy(b, off, bytes, (void *)src, 1);
}
static int cuda_buffer_read(wgs_buffer_t *b, size_t off, size_t bytes, void *dst)
{
  return cuda_buffer_copy(b, off, bytes, dst, 0);
}

extern "C" void *wgs_buffer_cuda_ptr(const wgs_buffer_t *b)
{
  return b && wgs__object(b)->ops == &wgs__cuda_ops ? ((const cuda_buffer *)(const void *)b)->ptr
                                                    : NULL;
}

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
  return micro_run(cuda_ordinal(dev), cfg, groups, disc, do_barrier, res);
}
static int cuda_mp_op(wgs_device_t *dev, const wgs_selftest_config *cfg, size_t local, uint32_t groups,
                      uint32_t rounds, wgs_launch_result *launch, uint32_t rep[8])
{
  return cuda_mp(cuda_ordinal(dev), cfg, local, groups, rounds, launch, rep);
}
static int cuda_latency(wgs_device_t *dev, const wgs_latency_config *cfg, uint32_t groups,
                        uint32_t rounds, uint32_t repeats, double *us)
{
  return cuda_latency_runs(cuda_ordinal(dev), cfg, groups, rounds, repeats, us);
}

extern "C" const wgs__backend_ops wgs__cuda_ops = {
    /* name */ "CUDA", cuda_open, cuda_list, cuda_close, cuda_default_groups, cuda_max_local_mem, cuda_micro,
    cuda_mp_op, cuda_latency,
    /* programs: none (CUDA kernels come from nvcc or NVRTC: wgs_kernel_cuda[_function]) */
    NULL, NULL, NULL, NULL, NULL,
    /* kernels */ cuda_kernel_release, cuda_kernel_set_arg, cuda_kernel_set_arg_buffer,
    /* kernel_run: none */ NULL,
    /* buffers */ cuda_buffer_create, cuda_buffer_release, cuda_buffer_write, cuda_buffer_read,
    /* states and launches */ cuda_state_create, cuda_state_release, cuda_launch,
    cuda_result_words, cuda_clear_error, cuda_read_words,
};

static int ordinal_device(int device, wgs__cuda_device *d)
{
  memset(d, 0, sizeof *d);
  d->ops = &wgs__cuda_ops;
  d->ordinal = device;
  return wgs_cuda_device_info(device, &d->info);
}

extern "C" int wgs_cuda_device_ordinal(const wgs_device_t *dev)
{
  return dev && wgs__head(dev)->ops == &wgs__cuda_ops ? cuda_ordinal(dev) : -1;
}
