/*
 * OpenCL backend: finding, describing, opening and wrapping devices, and choosing how
 * cross-group ordering is built on each (the atomics layer of device/opencl/wgs_atomics.cl).
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_internal.h"
#include "../tuning.h"

#define MAX_PLATFORMS 16
#define MAX_DEVICES 64

/* One reference (the user's) and the lock for what is made on first use (recursive: the
 * calibration builds the tools program). */
static void init_refs(wgs_device_t *dev)
{
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&dev->lazy, &a);
  pthread_mutexattr_destroy(&a);
  pthread_mutex_init(&dev->clock_mu, NULL);
  pthread_cond_init(&dev->clock_cv, NULL);
  dev->refs = 1;
}

static void get_str(cl_device_id d, cl_device_info what, char *buf, size_t cap)
{
  buf[0] = '\0';
  if (clGetDeviceInfo(d, what, cap, buf, NULL) != CL_SUCCESS)
    buf[0] = '\0';
  buf[cap - 1] = '\0';
}

static int version_at_least(const char *v, int major, int minor)
{
  int ma = 0, mi = 0;
  const char *p = v;
  while (*p && !isdigit((unsigned char)*p))
    p++;
  if (sscanf(p, "%d.%d", &ma, &mi) != 2)
    return 0;
  return ma > major || (ma == major && mi >= minor);
}

static int contains_ci(const char *hay, const char *needle)
{
  size_t n = strlen(needle);
  for (; *hay; hay++) {
    size_t i = 0;
    while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
      i++;
    if (i == n)
      return 1;
  }
  return n == 0;
}

/* Highest OpenCL C version and the C11-atomics features the device reports. */
static void probe_c_features(cl_device_id d, wgs_device_info *info)
{
  char cver[64];
  get_str(d, CL_DEVICE_OPENCL_C_VERSION, cver, sizeof cver);
  int major = 1, minor = 0;
  const char *p = cver;
  while (*p && !isdigit((unsigned char)*p))
    p++;
  sscanf(p, "%d.%d", &major, &minor);
  int best = major * 10 + minor;

  if (version_at_least(info->device_version, 3, 0)) {
    size_t bytes = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_OPENCL_C_ALL_VERSIONS, 0, NULL, &bytes) == CL_SUCCESS &&
        bytes > 0) {
      cl_name_version *v = malloc(bytes);
      if (v && clGetDeviceInfo(d, CL_DEVICE_OPENCL_C_ALL_VERSIONS, bytes, v, NULL) == CL_SUCCESS) {
        for (size_t i = 0; i < bytes / sizeof *v; i++) {
          int ver = (int)CL_VERSION_MAJOR(v[i].version) * 10 + (int)CL_VERSION_MINOR(v[i].version);
          if (ver > best)
            best = ver;
        }
      }
      free(v);
    }
    bytes = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_OPENCL_C_FEATURES, 0, NULL, &bytes) == CL_SUCCESS &&
        bytes > 0) {
      cl_name_version *v = malloc(bytes);
      if (v && clGetDeviceInfo(d, CL_DEVICE_OPENCL_C_FEATURES, bytes, v, NULL) == CL_SUCCESS) {
        for (size_t i = 0; i < bytes / sizeof *v; i++) {
          if (!strcmp(v[i].name, "__opencl_c_atomic_order_acq_rel"))
            info->has_acq_rel = 1;
          if (!strcmp(v[i].name, "__opencl_c_atomic_scope_device"))
            info->has_scope_device = 1;
        }
      }
      free(v);
    }
  }
  if (best >= 20 && best < 30) { /* OpenCL C 2.x has both unconditionally */
    info->has_acq_rel = 1;
    info->has_scope_device = 1;
  }
  snprintf(info->c_version, sizeof info->c_version, "OpenCL C %d.%d", best / 10, best % 10);
}

static int describe(cl_platform_id plat, cl_device_id d, int pi, int di, wgs_device_info *info)
{
  memset(info, 0, sizeof *info);
  info->backend = WGS_BACKEND_OPENCL;
  info->platform_index = pi;
  info->device_index = di;
  if (clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof info->platform_name, info->platform_name,
                        NULL) != CL_SUCCESS)
    info->platform_name[0] = '\0';
  info->platform_name[sizeof info->platform_name - 1] = '\0';
  get_str(d, CL_DEVICE_NAME, info->name, sizeof info->name);
  get_str(d, CL_DEVICE_VENDOR, info->vendor, sizeof info->vendor);
  get_str(d, CL_DRIVER_VERSION, info->driver_version, sizeof info->driver_version);
  get_str(d, CL_DEVICE_VERSION, info->device_version, sizeof info->device_version);

  cl_device_type type = 0;
  cl_uint cu = 0;
  size_t wg = 0;
  cl_ulong lmem = 0, gmem = 0;
  WGS__CL(clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, NULL), "clGetDeviceInfo(TYPE)");
  WGS__CL(clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL),
          "clGetDeviceInfo(MAX_COMPUTE_UNITS)");
  WGS__CL(clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL),
          "clGetDeviceInfo(MAX_WORK_GROUP_SIZE)");
  WGS__CL(clGetDeviceInfo(d, CL_DEVICE_LOCAL_MEM_SIZE, sizeof lmem, &lmem, NULL),
          "clGetDeviceInfo(LOCAL_MEM_SIZE)");
  WGS__CL(clGetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof gmem, &gmem, NULL),
          "clGetDeviceInfo(GLOBAL_MEM_SIZE)");
  info->is_gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
  info->is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
  info->compute_units = cu;
  info->max_work_group_size = wg;
  info->local_mem_bytes = lmem;
  info->global_mem_bytes = gmem;

  size_t ext_bytes = 0;
  if (clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, 0, NULL, &ext_bytes) == CL_SUCCESS && ext_bytes) {
    char *ext = malloc(ext_bytes + 1);
    if (ext && clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, ext_bytes, ext, NULL) == CL_SUCCESS) {
      ext[ext_bytes] = '\0';
      info->has_split_barrier = strstr(ext, "cl_intel_split_work_group_barrier") != NULL;
    }
    free(ext);
  }
  probe_c_features(d, info);

  int nvidia = contains_ci(info->vendor, "nvidia");
  if (info->has_acq_rel && info->has_scope_device)
    info->atomics = WGS_ATOMICS_C11;
  else if (nvidia)
    info->atomics = WGS_ATOMICS_PTX;
  else
    info->atomics = WGS_ATOMICS_FENCE;

  /* Forced layer (src/tuning.h; the tests run the fence layer on PoCL this way). */
  const char *force = wgs__tuning_get()->atomics;
  if (force && *force) {
    if (!strcmp(force, "c11") && info->has_acq_rel && info->has_scope_device)
      info->atomics = WGS_ATOMICS_C11;
    else if (!strcmp(force, "ptx") && nvidia)
      info->atomics = WGS_ATOMICS_PTX;
    else if (!strcmp(force, "fence"))
      info->atomics = WGS_ATOMICS_FENCE;
    else
      return wgs__fail(WGS_EUNSUPPORTED,
                       "atomics layer '%s' cannot be used on '%s' (expected c11 on devices "
                       "with acquire/release at device scope, ptx on NVIDIA, or fence)",
                       force, info->name);
  }
  info->has_timer = info->atomics == WGS_ATOMICS_PTX;

  return WGS_OK;
}

typedef struct {
  cl_platform_id plat;
  cl_device_id dev;
  int pi, di, overall;
} found_device;

static int enumerate(found_device *out, int cap, int *n)
{
  cl_platform_id plats[MAX_PLATFORMS];
  cl_uint np = 0;
  *n = 0;
  cl_int err = clGetPlatformIDs(MAX_PLATFORMS, plats, &np);
  if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (err == CL_SUCCESS && np == 0))
    return wgs__fail(WGS_ENODEV, "no OpenCL platform found: is an ICD registered under "
                                 "/etc/OpenCL/vendors (e.g. Debian package pocl-opencl-icd)?");
  WGS__CL(err, "clGetPlatformIDs");
  if (np > MAX_PLATFORMS)
    np = MAX_PLATFORMS;
  for (cl_uint p = 0; p < np; p++) {
    cl_device_id devs[MAX_DEVICES];
    cl_uint nd = 0;
    if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES, devs, &nd) != CL_SUCCESS)
      continue;
    if (nd > MAX_DEVICES)
      nd = MAX_DEVICES;
    for (cl_uint d = 0; d < nd && *n < cap; d++) {
      out[*n] = (found_device){plats[p], devs[d], (int)p, (int)d, *n};
      (*n)++;
    }
  }
  if (*n == 0)
    return wgs__fail(WGS_ENODEV, "OpenCL platforms found, but none has a device");
  return WGS_OK;
}

static int cl_list(wgs_device_info *infos, size_t cap, size_t *count)
{
  found_device all[MAX_DEVICES];
  int n = 0, rc;
  *count = 0;
  if ((rc = enumerate(all, MAX_DEVICES, &n)) != WGS_OK)
    return rc;
  for (int i = 0; i < n && *count < cap; i++) {
    if ((rc = describe(all[i].plat, all[i].dev, all[i].pi, all[i].di, &infos[*count])) != WGS_OK)
      return rc;
    (*count)++;
  }
  return WGS_OK;
}

static void set_build_options(wgs_device_t *dev)
{
  const wgs_device_info *in = &dev->info;
  const char *std = "-cl-std=CL1.2";
  const char *layer = "-D WGS_LAYER_FENCE=1";
  if (in->atomics == WGS_ATOMICS_C11) {
    std = strstr(in->c_version, "3.") ? "-cl-std=CL3.0" : "-cl-std=CL2.0";
    layer = "-D WGS_LAYER_C11=1";
  } else if (in->atomics == WGS_ATOMICS_PTX) {
    layer = "-D WGS_LAYER_PTX=1";
  }
  /* PoCL 3.1 miscompiles the unchecked device library, whose spins have no exit but their
   * condition: under POCL_WORK_GROUP_METHOD=workitemrepl the counter barrier became an
   * exit-less loop (llvm.assume of the loop condition in its parallel.bc, absent from clang's
   * output) and the split grid barrier's `local id == 0` guard was dropped, so every work-item
   * arrived (stale reads); loopvec broke the same way with other spin shapes. The bounded-spin
   * shape compiles correctly under both methods, so on PoCL unchecked programs are built like
   * checked ones and launched with an unbounded spin limit (UINT64_MAX; cl_launch.c): nothing
   * ever times out, and only a CPU pays the bound's few instructions per spin. */
  int pocl = strstr(in->platform_name, "Portable Computing Language") != NULL;
  snprintf(dev->opts[0], sizeof dev->opts[0], "%s %s%s", std, layer,
           pocl ? " -D WGS_CHECKED=1 -D WGS_CHECK_MISUSE=0 -D WGS_UNCHECKED_BUILD=1" : "");
  /* (the misuse checks are left out: the host ignores them for an unchecked program, and their
   * per-work-item atomics made a persistent bfs on PoCL 10-40% slower; WGS_UNCHECKED_BUILD is a
   * marker for wgs_launch_opencl) */
  snprintf(dev->opts[1], sizeof dev->opts[1], "%s %s -D WGS_CHECKED=1", std, layer);
}

static int finish_open(wgs_device_t *dev)
{
  set_build_options(dev);
  if (dev->queue) {
    cl_command_queue_properties props = 0;
    if (clGetCommandQueueInfo(dev->queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL) ==
        CL_SUCCESS)
      dev->profiling = (props & CL_QUEUE_PROFILING_ENABLE) != 0;
    return WGS_OK;
  }
  cl_int err;
  dev->queue = clCreateCommandQueue(dev->ctx, dev->device, CL_QUEUE_PROFILING_ENABLE, &err);
  if (err != CL_SUCCESS) {
    dev->queue = clCreateCommandQueue(dev->ctx, dev->device, 0, &err);
    WGS__CL(err, "clCreateCommandQueue");
  } else {
    dev->profiling = 1;
  }
  return WGS_OK;
}

int wgs__cl_open(const wgs_device_select *sel, const char *how, wgs_device_t **out)
{
  /* (src/device.c parsed the request: indices, a name to look for, or neither) */
  *out = NULL;
  wgs_device_select want = *sel;

  found_device all[MAX_DEVICES];
  int n = 0, rc;
  if ((rc = enumerate(all, MAX_DEVICES, &n)) != WGS_OK)
    return rc;

  int pick = -1;
  int any = want.platform < 0 && want.device < 0 && !want.name;
  if (any) { /* first GPU, else first device */
    for (int i = 0; i < n && pick < 0; i++) {
      cl_device_type t = 0;
      clGetDeviceInfo(all[i].dev, CL_DEVICE_TYPE, sizeof t, &t, NULL);
      if (t & CL_DEVICE_TYPE_GPU)
        pick = i;
    }
    if (pick < 0)
      pick = 0;
  } else {
    int seen = 0;
    for (int i = 0; i < n && pick < 0; i++) {
      if (want.platform >= 0 && all[i].pi != want.platform)
        continue;
      if (want.name) {
        char pn[128] = "", dn[256] = "", vn[128] = "", hay[520];
        clGetPlatformInfo(all[i].plat, CL_PLATFORM_NAME, sizeof pn, pn, NULL);
        get_str(all[i].dev, CL_DEVICE_NAME, dn, sizeof dn);
        get_str(all[i].dev, CL_DEVICE_VENDOR, vn, sizeof vn);
        pn[sizeof pn - 1] = '\0';
        snprintf(hay, sizeof hay, "%s %s %s", pn, dn, vn);
        if (!contains_ci(hay, want.name))
          continue;
      }
      int idx = want.platform >= 0 ? all[i].di : seen;
      seen++;
      if (want.device >= 0 && idx != want.device)
        continue;
      pick = i;
    }
  }
  if (pick < 0) {
    wgs__fail(WGS_ENODEV, "no OpenCL device matches %s; available:", how);
    for (int i = 0; i < n; i++) {
      char dn[256], line[400];
      get_str(all[i].dev, CL_DEVICE_NAME, dn, sizeof dn);
      snprintf(line, sizeof line, "\n  %d:%d %s", all[i].pi, all[i].di, dn);
      wgs__fail_append(line);
    }
    return WGS_ENODEV;
  }

  wgs_device_t *dev = calloc(1, sizeof *dev);
  if (dev)
    init_refs(dev);
  if (!dev)
    return wgs__fail(WGS_ENOMEM, "wgs_device_open: out of memory");
  dev->ops = &wgs__opencl_ops;
  dev->platform = all[pick].plat;
  dev->device = all[pick].dev;
  if ((rc = describe(dev->platform, dev->device, all[pick].pi, all[pick].di, &dev->info)) != WGS_OK)
    goto fail;
  cl_int err;
  dev->ctx = clCreateContext(NULL, 1, &dev->device, NULL, NULL, &err);
  if (err != CL_SUCCESS) {
    rc = wgs__cl_fail("clCreateContext", err);
    goto fail;
  }
  if ((rc = finish_open(dev)) != WGS_OK)
    goto fail;
  *out = dev;
  return WGS_OK;
fail:
  wgs__cl_close(dev);
  return rc;
}

int wgs_device_wrap_opencl(cl_device_id device, cl_context context, cl_command_queue queue,
                           wgs_device_t **out)
{
  WGS__REQUIRE(out);
  *out = NULL;
  WGS__REQUIRE(device);
  WGS__REQUIRE(context);
  cl_platform_id plat = NULL;
  WGS__CL(clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL),
          "clGetDeviceInfo(PLATFORM) on the wrapped device");
  if (queue) {
    /* A launch is a config write, a kernel and a result read that the queue keeps in order,
     * and launches on one state must not overlap: an out-of-order queue breaks both. */
    cl_command_queue_properties qp = 0;
    WGS__CL(clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof qp, &qp, NULL),
            "clGetCommandQueueInfo(PROPERTIES) on the wrapped queue");
    if (qp & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
      return wgs__fail(WGS_EINVAL, "wgs_device_wrap_opencl: the queue is out of order "
                                   "(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE); wgsync needs an "
                                   "in-order queue, which orders each launch's steps and the "
                                   "launches on one state (pass NULL to have one made)");
  }
  wgs_device_t *dev = calloc(1, sizeof *dev);
  if (dev)
    init_refs(dev);
  if (!dev)
    return wgs__fail(WGS_ENOMEM, "wgs_device_wrap_opencl: out of memory");
  int rc;
  dev->ops = &wgs__opencl_ops;
  dev->platform = plat;
  dev->device = device;
  if ((rc = describe(plat, device, -1, -1, &dev->info)) != WGS_OK) {
    free(dev);
    return rc;
  }
  clRetainContext(context);
  dev->ctx = context;
  if (queue) {
    clRetainCommandQueue(queue);
    dev->queue = queue;
  }
  if ((rc = finish_open(dev)) != WGS_OK) {
    wgs__cl_close(dev);
    return rc;
  }
  *out = dev;
  return WGS_OK;
}

void wgs__cl_dev_retain(wgs_device_t *dev) { __atomic_add_fetch(&dev->refs, 1, __ATOMIC_RELAXED); }

/* The last reference tears the device down (acq_rel: every use by another thread's object
 * happens before it). */
void wgs__cl_dev_release(wgs_device_t *dev)
{
  if (!dev || __atomic_sub_fetch(&dev->refs, 1, __ATOMIC_ACQ_REL) != 0)
    return;
  wgs_program_release(dev->tools[0]);
  wgs_program_release(dev->tools[1]);
  wgs__clock_stop(dev);
  pthread_mutex_destroy(&dev->clock_mu);
  pthread_cond_destroy(&dev->clock_cv);
  if (dev->queue)
    clReleaseCommandQueue(dev->queue);
  if (dev->ctx)
    clReleaseContext(dev->ctx);
  pthread_mutex_destroy(&dev->lazy);
  free(dev);
}

/* wgs_device_close: the user's reference. Programs, states and buffers made on the device keep
 * it open until they are released. */
void wgs__cl_close(wgs_device_t *dev) { wgs__cl_dev_release(dev); }

int wgs__cl_require(const wgs_device_t *dev, const char *who)
{
  if (dev && dev->ops != &wgs__opencl_ops)
    return wgs__fail(WGS_EUNSUPPORTED, "%s: '%s' is a %s device; OpenCL programs, buffers and "
                     "states need an OpenCL device (CUDA kernels launch through wgsync_cuda.h)",
                     who, dev->info.name, dev->ops->name);
  return WGS_OK;
}

static int is_cl(const wgs_device_t *dev) { return dev && dev->ops == &wgs__opencl_ops; }

const char *wgs_device_opencl_build_options(const wgs_device_t *dev, unsigned flags)
{
  if (!is_cl(dev))
    return "";
  return dev->opts[(flags & WGS_BUILD_CHECKED) ? 1 : 0];
}

cl_device_id wgs_device_opencl_id(const wgs_device_t *dev) { return is_cl(dev) ? dev->device : NULL; }
cl_context wgs_device_opencl_context(const wgs_device_t *dev) { return is_cl(dev) ? dev->ctx : NULL; }
cl_command_queue wgs_device_opencl_queue(const wgs_device_t *dev) { return is_cl(dev) ? dev->queue : NULL; }

/* The OpenCL backend's operations (src/device.h). */
const wgs__backend_ops wgs__opencl_ops = {
    .name = "OpenCL",
    .open = wgs__cl_open,
    .list = cl_list,
    .close = wgs__cl_close,
    .default_groups = wgs__cl_default_groups,
    .max_local_mem = wgs__cl_max_local_mem,
    .micro = wgs__cl_micro,
    .mp = wgs__cl_mp,
    .latency = wgs__cl_latency,
    .program_build = wgs__cl_program_build,
    .program_build_il = wgs__cl_program_build_il,
    .program_release = wgs__cl_program_release,
    .program_build_log = wgs__cl_program_build_log,
    .kernel_create = wgs__cl_kernel_create,
    .kernel_release = wgs__cl_kernel_release,
    .kernel_set_arg = wgs__cl_kernel_set_arg,
    .kernel_set_arg_buffer = wgs__cl_kernel_set_arg_buffer,
    .kernel_run = wgs__cl_kernel_run,
    .kernel_resources = wgs__cl_kernel_resources,
    .tools_program = wgs__tools_program,
    .buffer_create = wgs__cl_buffer_create,
    .buffer_release = wgs__cl_buffer_release,
    .buffer_write = wgs__cl_buffer_write,
    .buffer_read = wgs__cl_buffer_read,
    .state_create = wgs__cl_state_create,
    .state_release = wgs__cl_state_release,
    .launch = &wgs__cl_launch,
    .result_words = wgs__cl_result_words,
    .clear_error = wgs__cl_clear_error,
    .read_words = wgs__cl_read_words,
};
