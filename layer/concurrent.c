/*
 * cl_intel_concurrent_dispatch through the layer, for the kernels of programs it rewrote
 * (programs.c): each takes a hidden last argument, the wgsync state, that the user never sees
 * (CL_KERNEL_NUM_ARGS, clSetKernelArg and clGetKernelArgInfo count without it).
 *
 * clGetKernelMaxConcurrentWorkGroupCountINTEL answers what the occupancy discovery protocol
 * (Sorensen et al. 2016 §3) finds for this kernel, local size and local memory: the layer
 * launches the kernel itself, over-provisioned, in probe mode (device/opencl/wgs_layer.cl),
 * where every group runs discovery and leaves before the user's code. Its participants were
 * running at once, with this kernel's registers and local memory, so that many groups are
 * co-resident: the bound discovery guarantees, not an estimate from device limits. The answer
 * is kept per device, local size and local memory.
 *
 * A concurrent dispatch of more groups than that is refused (CL_INVALID_VALUE, as the extension
 * says); otherwise every group of the range takes part (WGS_MODE_FIXED) and intel_device_barrier
 * is wgsync's grid barrier over them. Dispatches of one kernel on one device share its state, so
 * they must be ordered (one in-order queue, or events), as wgsync's launches on one state are.
 *
 * Checked builds (WGSYNC_LAYER_CHECKED=1) read each concurrent dispatch's report when it has
 * ended: at once inside the enqueue when its wait list has completed, else (a user event, or
 * work still queued) never there, since the program can complete its events only after the
 * enqueue returns: the report is read by the first clFinish or clWaitForEvents after which the
 * dispatch has ended, or by the kernel's next dispatch or release. A report that names an error
 * is printed then, and the kernel's next dispatch returns its error instead of running.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layer_internal.h"
#include "wgs_layout.h"
#include "../src/opencl/cl_layer.h"

#define CACHE 8

typedef struct per_device {
  cl_device_id dev;
  wgs_device_t *wd;
  size_t kmax;               /* the kernel's CL_KERNEL_WORK_GROUP_SIZE here (0: not asked yet) */
  cl_ulong lmem_checked;     /* local memory found to fit this device (+1; 0: none yet) */
  wgs_state_t *conc, *probe;         /* the concurrent dispatches' state, the probe's */
  wgs_state_t **retired;             /* states outgrown while launches may still use them */
  int nretired;
  uint32_t conc_groups, probe_groups; /* their capacities */
  struct {
    size_t local;
    cl_ulong lmem;
    size_t count;
  } cache[CACHE];
  int ncache;
  struct per_device *next;
} per_device;

typedef struct krec {
  cl_kernel k;
  char name[128];   /* its function name, for reports */
  cl_context ctx;
  cl_uint hidden;   /* the hidden argument's index: the user's argument count */
  uint64_t set;     /* the user's arguments set so far (bit i: argument i < 64) */
  uint64_t local;   /* those set as __local, of local_bytes[i] bytes */
  size_t local_bytes[64];
  int checked;
  cl_uint dispatch; /* CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_*_INTEL */
  cl_mem zero;      /* the default dispatch's state: a config line of zeros */
  cl_mem bound;     /* what the hidden argument holds now */
  cl_command_queue last_q; /* retained: drained before the states are released */
  cl_device_id last_dev;    /* last_q's device and context */
  cl_context last_ctx;
  int lmem_known;           /* lmem holds the kernel's local memory: no __local argument was set
                               since it was read (a dispatch reads it only then) */
  cl_ulong lmem;
  per_device *devs;
  cl_event pending;         /* checked: the dispatch whose report is still to be read */
  per_device *pending_dev;
  cl_int deferred;          /* checked: a read report's error, for the next dispatch */
  struct krec *next;
} krec;

static krec *kernels;
static pthread_mutex_t kernels_lock = PTHREAD_MUTEX_INITIALIZER;

static krec *find(cl_kernel k)
{
  for (krec *r = kernels; r; r = r->next)
    if (r->k == k)
      return r;
  return NULL;
}

/* A record for a kernel of a program the layer rewrote for the device barrier. */
static void track(cl_kernel k, const wgs__layer_program *p)
{
  cl_uint n = 0;
  krec *r = calloc(1, sizeof *r);
  if (!r || wgs__layer_next->clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof n, &n, NULL) !=
                CL_SUCCESS || n == 0) {
    free(r);
    return;
  }
  r->k = k;
  if (wgs__layer_next->clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof r->name - 1, r->name,
                                       NULL) != CL_SUCCESS)
    snprintf(r->name, sizeof r->name, "?");
  r->ctx = p->ctx;
  r->hidden = n - 1;
  r->checked = p->checked;
  r->dispatch = CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_DEFAULT_INTEL;
  pthread_mutex_lock(&kernels_lock);
  krec *old = find(k); /* a handle the driver reused: that kernel is gone */
  if (old)
    old->k = NULL;
  r->next = kernels;
  kernels = r;
  pthread_mutex_unlock(&kernels_lock);
}

static cl_int to_cl(int rc, const char *what);

/* Checked builds: the pending dispatch's report, when the dispatch has ended (held:
 * kernels_lock; inside: set). Returns 1 when nothing is left pending. */
static int collect(krec *r)
{
  const struct _cl_icd_dispatch *nx = wgs__layer_next;
  if (!r->pending)
    return 1;
  cl_int status = CL_QUEUED;
  if (nx->clGetEventInfo(r->pending, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                         NULL) != CL_SUCCESS)
    status = -1;
  if (status > CL_COMPLETE)
    return 0;
  nx->clReleaseEvent(r->pending);
  r->pending = NULL;
  wgs_launch_result res;
  cl_int err = status < 0 ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
                          : to_cl(wgs_state_result(r->pending_dev->conc, &res),
                                  "concurrent dispatch (its report, read after it ended)");
  if (err != CL_SUCCESS && r->deferred == CL_SUCCESS)
    r->deferred = err;
  return 1;
}

static void drop(krec *r)
{
  const struct _cl_icd_dispatch *nx = wgs__layer_next;
  wgs__layer_inside++;
  if (r->last_q) { /* launches may still use the states */
    nx->clFinish(r->last_q);
    nx->clReleaseCommandQueue(r->last_q);
  }
  collect(r); /* (its report is printed, if it names an error) */
  if (r->pending)
    nx->clReleaseEvent(r->pending);
  for (per_device *d = r->devs, *next; d; d = next) {
    next = d->next;
    wgs_state_release(d->conc);
    wgs_state_release(d->probe);
    for (int i = 0; i < d->nretired; i++)
      wgs_state_release(d->retired[i]);
    free(d->retired);
    wgs__layer_device_put(d->wd);
    free(d);
  }
  if (r->zero)
    nx->clReleaseMemObject(r->zero);
  wgs__layer_inside--;
  free(r);
}

cl_kernel CL_API_CALL wgs__layer_clCreateKernel(cl_program prog, const char *name, cl_int *errcode)
{
  cl_kernel k = wgs__layer_next->clCreateKernel(prog, name, errcode);
  wgs__layer_program p;
  if (k && wgs__layer_program_get(prog, &p) && p.device_barrier)
    track(k, &p);
  return k;
}

cl_int CL_API_CALL wgs__layer_clCreateKernelsInProgram(cl_program prog, cl_uint n, cl_kernel *ks,
                                                       cl_uint *n_ret)
{
  cl_uint made = 0;
  cl_int err = wgs__layer_next->clCreateKernelsInProgram(prog, n, ks, &made);
  if (n_ret)
    *n_ret = made;
  wgs__layer_program p;
  if (err != CL_SUCCESS || !ks || !wgs__layer_program_get(prog, &p) || !p.device_barrier)
    return err;
  for (cl_uint i = 0; i < made && i < n; i++)
    track(ks[i], &p);
  return err;
}

cl_kernel CL_API_CALL wgs__layer_clCloneKernel(cl_kernel src, cl_int *errcode)
{
  cl_kernel k = wgs__layer_next->clCloneKernel(src, errcode);
  if (!k || wgs__layer_inside)
    return k;
  pthread_mutex_lock(&kernels_lock);
  krec *r = find(src);
  krec copy = r ? *r : (krec){0};
  pthread_mutex_unlock(&kernels_lock);
  if (r) {
    wgs__layer_program p = {.ctx = copy.ctx, .device_barrier = 1, .checked = copy.checked};
    track(k, &p);
    pthread_mutex_lock(&kernels_lock);
    if ((r = find(k))) { /* exec info is cloned with the arguments */
      r->dispatch = copy.dispatch;
      r->set = copy.set;
      r->local = copy.local;
      memcpy(r->local_bytes, copy.local_bytes, sizeof r->local_bytes);
    }
    pthread_mutex_unlock(&kernels_lock);
  }
  return k;
}

cl_int CL_API_CALL wgs__layer_clReleaseKernel(cl_kernel k)
{
  const struct _cl_icd_dispatch *nx = wgs__layer_next;
  krec *gone = NULL;
  if (!wgs__layer_inside) {
    cl_uint refs = 0;
    pthread_mutex_lock(&kernels_lock);
    krec **p = &kernels;
    while (*p && (*p)->k != k)
      p = &(*p)->next;
    if (*p && nx->clGetKernelInfo(k, CL_KERNEL_REFERENCE_COUNT, sizeof refs, &refs, NULL) ==
                  CL_SUCCESS && refs == 1) {
      gone = *p;
      *p = gone->next;
    }
    pthread_mutex_unlock(&kernels_lock);
  }
  if (gone)
    drop(gone);
  return nx->clReleaseKernel(k);
}

/* The user's hidden-argument count: the hidden argument is not theirs to set or see. */
static int hidden_index(cl_kernel k, cl_uint *hidden)
{
  if (wgs__layer_inside)
    return 0;
  pthread_mutex_lock(&kernels_lock);
  krec *r = find(k);
  if (r)
    *hidden = r->hidden;
  pthread_mutex_unlock(&kernels_lock);
  return r != NULL;
}

cl_int CL_API_CALL wgs__layer_clSetKernelArg(cl_kernel k, cl_uint index, size_t size,
                                             const void *value)
{
  if (__atomic_load_n(&kernels, __ATOMIC_ACQUIRE) && !wgs__layer_inside) {
    pthread_mutex_lock(&kernels_lock);
    krec *r = find(k);
    cl_uint hidden = r ? r->hidden : 0;
    if (r && !value) /* a __local argument: the kernel's local memory changes */
      r->lmem_known = 0;
    pthread_mutex_unlock(&kernels_lock);
    if (r && index >= hidden)
      return CL_INVALID_ARG_INDEX;
    cl_int err = wgs__layer_next->clSetKernelArg(k, index, size, value);
    if (r && err == CL_SUCCESS && index < 64) { /* which are set: the probe fills the rest */
      pthread_mutex_lock(&kernels_lock);
      if ((r = find(k))) {
        r->set |= 1ull << index;
        r->local = value ? r->local & ~(1ull << index) : r->local | 1ull << index;
        r->local_bytes[index] = value ? 0 : size;
      }
      pthread_mutex_unlock(&kernels_lock);
    }
    return err;
  }
  return wgs__layer_next->clSetKernelArg(k, index, size, value);
}

cl_int CL_API_CALL wgs__layer_clGetKernelInfo(cl_kernel k, cl_kernel_info name, size_t size,
                                              void *value, size_t *size_ret)
{
  cl_uint hidden;
  if (name == CL_KERNEL_NUM_ARGS && kernels && hidden_index(k, &hidden))
    return wgs__layer_answer(&hidden, sizeof hidden, size, value, size_ret);
  return wgs__layer_next->clGetKernelInfo(k, name, size, value, size_ret);
}

cl_int CL_API_CALL wgs__layer_clGetKernelArgInfo(cl_kernel k, cl_uint index,
                                                 cl_kernel_arg_info name, size_t size,
                                                 void *value, size_t *size_ret)
{
  cl_uint hidden;
  if (kernels && hidden_index(k, &hidden) && index >= hidden)
    return CL_INVALID_ARG_INDEX;
  return wgs__layer_next->clGetKernelArgInfo(k, index, name, size, value, size_ret);
}

/* The kernel's context's devices all have the extension natively (and are not replaced). */
static int native_kernel(cl_kernel k)
{
  cl_context ctx = NULL;
  return wgs__layer_next->clGetKernelInfo(k, CL_KERNEL_CONTEXT, sizeof ctx, &ctx, NULL) ==
             CL_SUCCESS &&
         wgs__layer_all_native(ctx, WGS_EXT_CONCURRENT);
}

cl_int CL_API_CALL wgs__layer_clSetKernelExecInfo(cl_kernel k, cl_kernel_exec_info name,
                                                  size_t size, const void *value)
{
  const struct _cl_icd_dispatch *nx = wgs__layer_next;
  if (name != CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_INTEL || wgs__layer_inside || native_kernel(k))
    return nx->clSetKernelExecInfo(k, name, size, value);
  if (!value || size != sizeof(cl_uint))
    return CL_INVALID_VALUE;
  cl_uint type;
  memcpy(&type, value, sizeof type);
  if (type != CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_DEFAULT_INTEL &&
      type != CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_CONCURRENT_INTEL)
    return CL_INVALID_VALUE;
  cl_uint refs;
  if (nx->clGetKernelInfo(k, CL_KERNEL_REFERENCE_COUNT, sizeof refs, &refs, NULL) != CL_SUCCESS)
    return CL_INVALID_KERNEL;
  pthread_mutex_lock(&kernels_lock);
  krec *r = find(k);
  if (r)
    r->dispatch = type;
  pthread_mutex_unlock(&kernels_lock);
  if (!r && type == CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_CONCURRENT_INTEL) {
    wgs__layer_say("clSetKernelExecInfo: concurrent dispatch is served for kernels of programs "
                   "built from source that call intel_device_barrier or "
                   "intel_is_device_barrier_valid; this kernel's program does not");
    return CL_INVALID_OPERATION;
  }
  return CL_SUCCESS;
}

/* ---- the probe and concurrent launches ---------------------------------------------------- */

static cl_int to_cl(int rc, const char *what)
{
  if (rc == WGS_OK)
    return CL_SUCCESS;
  wgs__layer_say("%s: %s", what, wgs_last_error());
  switch (rc) {
  case WGS_ENOMEM:
    return CL_OUT_OF_HOST_MEMORY;
  case WGS_EINVAL:
    return CL_INVALID_VALUE;
  default:
    return CL_OUT_OF_RESOURCES;
  }
}

static per_device *device_entry(krec *r, cl_device_id dev)
{
  per_device *d = r->devs;
  while (d && d->dev != dev)
    d = d->next;
  if (d)
    return d;
  if (!(d = calloc(1, sizeof *d)))
    return NULL;
  if (!(d->wd = wgs__layer_device_get(r->ctx, dev))) {
    free(d);
    return NULL;
  }
  d->dev = dev;
  d->next = r->devs;
  r->devs = d;
  return d;
}

/* A state of at least groups' capacity. One too small is released at once when its launches ran
 * on the wgsync device's queue (retire 0: the probe's, finished), else kept until the kernel is
 * released: the user's queue may hold a dispatch that waits for an event the program completes
 * only after this enqueue returns, so the layer never waits for that queue here. */
static int state_for(per_device *d, wgs_state_t **st, uint32_t *cap, uint32_t groups, int retire)
{
  if (*st && *cap >= groups)
    return WGS_OK;
  if (*st && retire) {
    wgs_state_t **more = realloc(d->retired, (size_t)(d->nretired + 1) * sizeof *more);
    if (!more)
      return WGS_ENOMEM;
    d->retired = more;
    d->retired[d->nretired++] = *st;
  } else {
    wgs_state_release(*st);
  }
  *st = NULL;
  int rc = wgs_state_create(d->wd, groups, st);
  if (rc == WGS_OK)
    *cap = groups;
  return rc;
}

/* The probe's kernel when some of the user's arguments are not set yet: Intel's query depends on
 * the kernel's resources, not its arguments, and a conformant program may ask right after
 * clCreateKernel. A new kernel of the same function (the same code, registers and private
 * memory) gets the user's __local sizes where set and a stand-in for every other argument
 * (the probe's groups leave before the user's code, so no value is read): a null buffer, else
 * a 1-byte __local, else zero bytes of the size the driver accepts. Returns NULL (and says
 * which argument) when no stand-in is accepted (an image or a sampler). */
static cl_kernel probe_kernel(krec *r, cl_device_id dev)
{
  const struct _cl_icd_dispatch *nx = wgs__layer_next;
  cl_program prog = NULL;
  cl_int err = nx->clGetKernelInfo(r->k, CL_KERNEL_PROGRAM, sizeof prog, &prog, NULL);
  cl_kernel pk = err == CL_SUCCESS ? nx->clCreateKernel(prog, r->name, &err) : NULL;
  if (!pk)
    return NULL;
  size_t most = 1024;
  nx->clGetDeviceInfo(dev, CL_DEVICE_MAX_PARAMETER_SIZE, sizeof most, &most, NULL);
  static const unsigned char zeros[4096];
  const cl_mem none = NULL;
  for (cl_uint i = 0; i < r->hidden; i++) {
    int have = i < 64 && (r->local >> i & 1u);
    err = have ? nx->clSetKernelArg(pk, i, r->local_bytes[i], NULL)
               : nx->clSetKernelArg(pk, i, sizeof none, &none);
    if (err != CL_SUCCESS && !have)
      err = nx->clSetKernelArg(pk, i, 1, NULL);
    for (size_t n = 1; err != CL_SUCCESS && !have && n <= most && n <= sizeof zeros; n++)
      err = nx->clSetKernelArg(pk, i, n, zeros);
    if (err != CL_SUCCESS) {
      wgs__layer_say(WGS_FN_MAX_COUNT ": kernel '%s': argument %u is not set and takes no "
                     "stand-in (an image or a sampler): set it before the query", r->name, i);
      nx->clReleaseKernel(pk);
      return NULL;
    }
  }
  return pk;
}

/* The probe's answer for this local size (held: kernels_lock; inside: set). */
static cl_int probe(krec *r, per_device *d, cl_uint dims, const size_t *offset,
                    const size_t *local, size_t *count)
{
  size_t lsize = 1;
  for (cl_uint i = 0; i < dims; i++)
    lsize *= local[i];
  if (!r->lmem_known) {
    r->lmem = 0;
    wgs__layer_next->clGetKernelWorkGroupInfo(r->k, d->dev, CL_KERNEL_LOCAL_MEM_SIZE,
                                              sizeof r->lmem, &r->lmem, NULL);
    r->lmem_known = 1;
  }
  cl_ulong lmem = r->lmem;
  for (int i = 0; i < d->ncache; i++)
    if (d->cache[i].local == lsize && d->cache[i].lmem == lmem) {
      *count = d->cache[i].count;
      return CL_SUCCESS;
    }
  uint32_t groups = wgs_default_groups(d->wd, lsize);
  int rc = state_for(d, &d->probe, &d->probe_groups, groups, 0);
  size_t global[3] = {local[0] * groups, dims > 1 ? local[1] : 1, dims > 2 ? local[2] : 1};
  wgs__cl_nd_range nd = {wgs_device_opencl_queue(d->wd), dims, offset, global, local, r->checked,
                         r->name, 0, 0, WGS_DISPATCH_PROBE};
  wgs_launch_config cfg;
  wgs_launch_config_init(&cfg);
  cfg.state_arg = r->hidden;
  cfg.discovery = WGS_DISCOVERY_PROTOCOL;
  wgs_launch_result res;
  memset(&res, 0, sizeof res);
  uint64_t mine = r->hidden >= 64 ? ~0ull : (1ull << r->hidden) - 1u;
  cl_kernel pk = r->k;
  if ((r->set & mine) != mine && rc == WGS_OK && !(pk = probe_kernel(r, d->dev)))
    return CL_INVALID_KERNEL_ARGS;
  if (pk == r->k)
    r->bound = NULL;
  if (rc == WGS_OK)
    rc = wgs__cl_launch_nd(d->probe, pk, &cfg, &nd, 0, NULL, NULL);
  if (rc == WGS_OK)
    rc = wgs_state_result(d->probe, &res);
  if (pk != r->k)
    wgs__layer_next->clReleaseKernel(pk);
  if (rc != WGS_OK)
    return to_cl(rc, "the occupancy probe of clGetKernelMaxConcurrentWorkGroupCountINTEL");
  *count = res.participants;
  d->lmem_checked = lmem + 1; /* the launch checked it */
  if (wgs__layer_cfg.verbose)
    wgs__layer_say("probe: %u of %u groups of %zu work-items ran at once (%llu bytes of local "
                   "memory each)", res.participants, res.launched, lsize,
                   (unsigned long long)lmem);
  int slot = d->ncache < CACHE ? d->ncache++ : CACHE - 1;
  d->cache[slot].local = lsize;
  d->cache[slot].lmem = lmem;
  d->cache[slot].count = *count;
  return CL_SUCCESS;
}

static cl_device_id queue_device(cl_command_queue q, cl_context *ctx)
{
  cl_device_id dev = NULL;
  if (wgs__layer_next->clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL) != CL_SUCCESS ||
      wgs__layer_next->clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof *ctx, ctx, NULL) != CL_SUCCESS)
    return NULL;
  return dev;
}

/* The local size's dimensions are nonzero and their product fits a size_t (a product that
 * wrapped would pass every later check; no device takes a group that large). */
static cl_int check_range(cl_uint dims, const size_t *local)
{
  if (dims < 1 || dims > 3)
    return CL_INVALID_WORK_DIMENSION;
  if (!local)
    return CL_INVALID_WORK_GROUP_SIZE;
  size_t items = 1;
  for (cl_uint i = 0; i < dims; i++) {
    if (local[i] == 0 || local[i] > SIZE_MAX / items)
      return CL_INVALID_WORK_GROUP_SIZE;
    items *= local[i];
  }
  return CL_SUCCESS;
}

cl_int CL_API_CALL wgs__layer_max_count(cl_command_queue q, cl_kernel k, cl_uint dims,
                                        const size_t *offset, const size_t *local, size_t *count)
{
  const struct _cl_icd_dispatch *nx = wgs__layer_next;
  if (!count)
    return CL_INVALID_VALUE;
  cl_context qctx = NULL;
  cl_device_id dev = queue_device(q, &qctx);
  if (!dev)
    return CL_INVALID_COMMAND_QUEUE;
  if (native_kernel(k)) { /* the driver's own query */
    cl_platform_id plat = NULL;
    nx->clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL);
    cl_int(CL_API_CALL * fn)(cl_command_queue, cl_kernel, cl_uint, const size_t *,
                             const size_t *, size_t *) =
        (cl_int(CL_API_CALL *)(cl_command_queue, cl_kernel, cl_uint, const size_t *,
                               const size_t *, size_t *))
            nx->clGetExtensionFunctionAddressForPlatform(plat, WGS_FN_MAX_COUNT);
    return fn ? fn(q, k, dims, offset, local, count) : CL_INVALID_OPERATION;
  }
  cl_int err = check_range(dims, local);
  if (err != CL_SUCCESS)
    return err;
  pthread_mutex_lock(&kernels_lock);
  krec *r = find(k);
  if (!r) {
    pthread_mutex_unlock(&kernels_lock);
    cl_uint refs;
    if (nx->clGetKernelInfo(k, CL_KERNEL_REFERENCE_COUNT, sizeof refs, &refs, NULL) != CL_SUCCESS)
      return CL_INVALID_KERNEL;
    wgs__layer_say(WGS_FN_MAX_COUNT ": the layer answers for kernels of programs built from "
                   "source that call intel_device_barrier or intel_is_device_barrier_valid; this "
                   "kernel's program does not");
    return CL_INVALID_OPERATION;
  }
  if (qctx != r->ctx) {
    pthread_mutex_unlock(&kernels_lock);
    return CL_INVALID_CONTEXT;
  }
  per_device *d = device_entry(r, dev);
  wgs__layer_inside++;
  err = d ? probe(r, d, dims, offset, local, count) : CL_OUT_OF_RESOURCES;
  wgs__layer_inside--;
  pthread_mutex_unlock(&kernels_lock);
  return err;
}

/* Binds the default dispatch's state (a line of zeros: dispatch 0) to the hidden argument. */
static cl_int bind_default(krec *r)
{
  const struct _cl_icd_dispatch *nx = wgs__layer_next;
  cl_int err = CL_SUCCESS;
  if (!r->zero) {
    static const uint32_t zeros[WGS_G_LINES * WGS_LINE_WORDS];
    r->zero = nx->clCreateBuffer(r->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof zeros,
                                 (void *)zeros, &err);
    if (err != CL_SUCCESS)
      return err;
  }
  if (r->bound != r->zero && (err = nx->clSetKernelArg(r->k, r->hidden, sizeof r->zero, &r->zero)) ==
                                 CL_SUCCESS)
    r->bound = r->zero;
  return err;
}

cl_int CL_API_CALL wgs__layer_clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dims,
                                                     const size_t *offset, const size_t *global,
                                                     const size_t *local, cl_uint nwait,
                                                     const cl_event *wait, cl_event *ev)
{
  const struct _cl_icd_dispatch *nx = wgs__layer_next;
  if (!__atomic_load_n(&kernels, __ATOMIC_ACQUIRE) || wgs__layer_inside)
    return nx->clEnqueueNDRangeKernel(q, k, dims, offset, global, local, nwait, wait, ev);
  pthread_mutex_lock(&kernels_lock);
  krec *r = find(k);
  if (!r) {
    pthread_mutex_unlock(&kernels_lock);
    return nx->clEnqueueNDRangeKernel(q, k, dims, offset, global, local, nwait, wait, ev);
  }
  cl_int err = CL_SUCCESS;
  if (r->last_q != q) {
    if (r->last_q)
      nx->clReleaseCommandQueue(r->last_q);
    nx->clRetainCommandQueue(q);
    r->last_q = q;
    r->last_dev = NULL; /* looked up for the concurrent dispatch that needs it */
  }
  if (r->dispatch == CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_DEFAULT_INTEL) {
    err = bind_default(r);
    pthread_mutex_unlock(&kernels_lock);
    return err != CL_SUCCESS ? err
                             : nx->clEnqueueNDRangeKernel(q, k, dims, offset, global, local, nwait,
                                                          wait, ev);
  }
  /* Checked builds: the last dispatch's report first; an error it names is this call's */
  wgs__layer_inside++;
  if (!collect(r)) {
    wgs__layer_say("concurrent dispatch of '%s': the checked report of its previous dispatch is "
                   "not read (that dispatch has not ended: its wait list is not complete); this "
                   "dispatch's replaces it", r->name);
    nx->clReleaseEvent(r->pending);
    r->pending = NULL;
  }
  wgs__layer_inside--;
  if (r->deferred != CL_SUCCESS) {
    err = r->deferred;
    r->deferred = CL_SUCCESS;
    pthread_mutex_unlock(&kernels_lock);
    wgs__layer_say("concurrent dispatch of '%s' not run: the previous dispatch's checked report "
                   "(above) named an error", r->name);
    return err;
  }
  /* Concurrent dispatch: the range's checks (the extension's errors), then the probe's bound */
  if ((err = check_range(dims, local)) == CL_SUCCESS && !global)
    err = CL_INVALID_GLOBAL_WORK_SIZE;
  /* the group count saturates at SIZE_MAX: a product that wrapped (1 x 2^40 x 2^40 is 0 in 64
   * bits) would pass the count check and reach the driver */
  size_t groups = 1;
  for (cl_uint i = 0; err == CL_SUCCESS && i < dims; i++) {
    if (global[i] == 0 || global[i] % local[i] != 0)
      err = global[i] == 0 ? CL_INVALID_GLOBAL_WORK_SIZE : CL_INVALID_WORK_GROUP_SIZE;
    else
      groups = global[i] / local[i] > SIZE_MAX / groups ? SIZE_MAX : groups * (global[i] / local[i]);
  }
  cl_context qctx = r->last_ctx;
  cl_device_id dev = r->last_dev;
  if (err == CL_SUCCESS && !dev && (dev = queue_device(q, &qctx))) {
    r->last_dev = dev;
    r->last_ctx = qctx;
  }
  if (err == CL_SUCCESS && !dev)
    err = CL_INVALID_COMMAND_QUEUE;
  else if (err == CL_SUCCESS && qctx != r->ctx)
    err = CL_INVALID_CONTEXT;
  per_device *d = err == CL_SUCCESS ? device_entry(r, dev) : NULL;
  if (err == CL_SUCCESS && !d)
    err = CL_OUT_OF_RESOURCES;
  wgs__layer_inside++;
  size_t most = 0;
  if (err == CL_SUCCESS)
    err = probe(r, d, dims, offset, local, &most);
  if (err == CL_SUCCESS && groups > most) {
    if (wgs__layer_cfg.verbose)
      wgs__layer_say("concurrent dispatch of %zu work-groups refused: at most %zu run at once",
                     groups, most);
    err = CL_INVALID_VALUE;
  }
  if (err == CL_SUCCESS) {
    /* (the state's capacity is the probe's count: every accepted range fits it) */
    int rc = state_for(d, &d->conc, &d->conc_groups, (uint32_t)most, 1);
    if (rc == WGS_OK) {
      wgs_launch_config cfg;
      wgs_launch_config_init(&cfg);
      cfg.state_arg = r->hidden;
      cfg.discovery = WGS_DISCOVERY_FIXED;
      if (d->kmax == 0)
        nx->clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof d->kmax, &d->kmax,
                                     NULL);
      /* the local memory the probe's launch checked (it asks the driver itself) */
      wgs__cl_nd_range nd = {q, dims, offset, global, local, r->checked, r->name, d->kmax,
                             d->lmem_checked == r->lmem + 1, WGS_DISPATCH_CONCURRENT};
      r->bound = NULL;
      /* checked: the report is read at once only when nothing the dispatch waits for is
       * outstanding; else the launch's event is kept for collect() */
      int now = 1;
      cl_event mine = NULL;
      for (cl_uint i = 0; r->checked && i < nwait && now; i++) {
        cl_int status = CL_QUEUED;
        now = wait && nx->clGetEventInfo(wait[i], CL_EVENT_COMMAND_EXECUTION_STATUS,
                                         sizeof status, &status, NULL) == CL_SUCCESS &&
              status <= CL_COMPLETE;
      }
      rc = wgs__cl_launch_nd(d->conc, k, &cfg, &nd, nwait, wait, ev ? ev : now ? NULL : &mine);
      if (rc == WGS_OK)
        d->lmem_checked = r->lmem + 1;
      if (wgs__layer_cfg.verbose > 1)
        wgs__layer_say("concurrent dispatch of %zu groups: %s", groups,
                       rc == WGS_OK ? "enqueued" : wgs_last_error());
      if (rc == WGS_OK && r->checked && now) { /* the checked build's report, not a hang */
        wgs_launch_result res;
        nx->clFinish(q);
        rc = wgs_state_result(d->conc, &res);
      } else if (rc == WGS_OK && r->checked) {
        if (ev)
          nx->clRetainEvent(mine = *ev);
        r->pending = mine;
        r->pending_dev = d;
      } else if (mine) {
        nx->clReleaseEvent(mine);
      }
    }
    err = to_cl(rc, "concurrent dispatch");
  }
  wgs__layer_inside--;
  pthread_mutex_unlock(&kernels_lock);
  return err;
}

/* Checked builds: the reports of dispatches that have ended by now (after a wait). */
static void collect_all(void)
{
  pthread_mutex_lock(&kernels_lock);
  wgs__layer_inside++;
  for (krec *r = kernels; r; r = r->next)
    if (r->k && r->pending)
      collect(r);
  wgs__layer_inside--;
  pthread_mutex_unlock(&kernels_lock);
}

cl_int CL_API_CALL wgs__layer_clFinish(cl_command_queue q)
{
  cl_int err = wgs__layer_next->clFinish(q);
  if (wgs__layer_cfg.checked && !wgs__layer_inside && __atomic_load_n(&kernels, __ATOMIC_ACQUIRE))
    collect_all();
  return err;
}

cl_int CL_API_CALL wgs__layer_clWaitForEvents(cl_uint n, const cl_event *events)
{
  cl_int err = wgs__layer_next->clWaitForEvents(n, events);
  if (wgs__layer_cfg.checked && !wgs__layer_inside && __atomic_load_n(&kernels, __ATOMIC_ACQUIRE))
    collect_all();
  return err;
}
