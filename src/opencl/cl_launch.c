/*
 * OpenCL backend: protocol state, persistent launch (asynchronous, with the synchronous call on
 * top), and reading a launch's result.
 *
 * A launch writes the config words when they changed, binds the state, and enqueues the kernel:
 * launch epochs (device/common/wgs_layout.h) keep the state valid from one launch to the next.
 * Checked programs are the exception: their state is reset by two fills before each launch, so
 * that every misuse check stays exact (a second wgs_discover call, for one, is told apart from
 * the next launch's first only within a launch that did not move the epoch on).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cl_internal.h"
#include "../launch.h"

#define GLOBAL_WORDS (WGS_G_LINES * WGS_LINE_WORDS)

int wgs__cl_state_create(wgs_device_t *dev, uint32_t max_groups, wgs_state_t **out)
{
  cl_int err;
  int rc;
  size_t bytes = (size_t)WGS_STATE_WORDS(max_groups) * sizeof(uint32_t);
  int room = wgs__cl_check_alloc(dev, bytes, "wgs_state_create");
  if (room != WGS_OK)
    return room;
  /* A CPU device without a clock gets the state in host memory, for the host clock */
  uint32_t *host = NULL;
  if (wgs__clock_wanted(dev) && !(host = wgs__clock_host_alloc(bytes)))
    return wgs__fail(WGS_ENOMEM, "wgs_state_create: out of memory (%zu bytes)", bytes);
  cl_mem m = clCreateBuffer(dev->ctx, host ? CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR : CL_MEM_READ_WRITE,
                            bytes, host, &err);
  if (err != CL_SUCCESS) {
    free(host);
    return wgs__cl_fail("clCreateBuffer(state)", err);
  }
  wgs_state_t *st = calloc(1, sizeof *st);
  if (!st) {
    clReleaseMemObject(m);
    free(host);
    return wgs__fail(WGS_ENOMEM, "wgs_state_create: out of memory");
  }
  st->host = host;
  wgs__state_head_init((wgs__state_head *)st, &wgs__opencl_ops, dev, max_groups);
  wgs__cl_dev_retain(dev);
  st->mem = m;
  /* All zero (epoch 0, both halves clear), then each half's way back to the base. */
  const uint32_t zero = 0;
  uint32_t back[2] = {WGS_HALF(max_groups, 0u), WGS_HALF(max_groups, 1u)};
  err = clEnqueueFillBuffer(dev->queue, m, &zero, sizeof zero, 0, bytes, 0, NULL, NULL);
  for (int h = 0; h < 2 && err == CL_SUCCESS; h++)
    err = clEnqueueWriteBuffer(dev->queue, m, CL_TRUE, (size_t)back[h] * sizeof(uint32_t),
                               sizeof back[h], &back[h], 0, NULL, NULL);
  if (err == CL_SUCCESS)
    err = clFinish(dev->queue);
  if (err != CL_SUCCESS) {
    wgs__cl_state_release(st);
    return wgs__cl_fail("wgs_state_create: clearing the state", err);
  }
  if (host && (rc = wgs__clock_register(dev, st)) != WGS_OK) {
    wgs__cl_state_release(st);
    return rc;
  }
  *out = st;
  return WGS_OK;
}

void wgs__cl_state_release(wgs_state_t *st)
{
  if (st->timing)
    clReleaseEvent(st->timing);
  if (st->host) {
    clFinish(st->dev->queue); /* its host memory is freed below: nothing may still use it */
    wgs__clock_unregister(st->dev, st);
  }
  clReleaseMemObject(st->mem);
  free(st->host);
  wgs__state_head_fini((wgs__state_head *)st);
  wgs__cl_dev_release(st->dev);
  free(st);
}

cl_mem wgs_state_opencl(const wgs_state_t *st) { return st ? st->mem : NULL; }

uint32_t wgs__cl_default_groups(const wgs_device_t *dev, size_t local_size)
{
  /* NVIDIA's limits are known (the ptx layer runs only there); other GPUs get twice them */
  unsigned spare = dev->info.atomics == WGS_ATOMICS_PTX ? 1u : 2u;
  return wgs__default_groups(dev->info.compute_units, local_size, dev->info.is_gpu, spare);
}

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Writes the config words when they differ from the device's, resets the state when the launch
 * has no epochs, binds it, and enqueues kernel on groups x local, or on nd's range and queue. */
static int enqueue(wgs_state_t *st, cl_kernel kernel, unsigned state_arg, size_t local,
                   uint32_t groups, const uint32_t *cfgw, const wgs__cl_nd_range *nd,
                   cl_uint nwait, const cl_event *wait, cl_event *ev)
{
  wgs_device_t *dev = st->dev;
  cl_command_queue q = nd ? nd->queue : dev->queue;
  uint32_t ticked[WGS_CFG_WORDS];
  if (st->host) { /* the spin unit the plan used (us_to_spin): the host clock where it works */
    memcpy(ticked, cfgw, sizeof ticked);
    ticked[WGS_CFG_TICKS] = dev->clock_ok > 0;
    cfgw = ticked;
  }
  if (!st->cfg_valid || memcmp(st->cfg, cfgw, sizeof st->cfg) != 0) {
    /* Blocking: the host copy may change before a non-blocking write would have read it. */
    st->cfg_valid = 0;
    WGS__CL(clEnqueueWriteBuffer(q, st->mem, CL_TRUE, WGS_G_CONFIG * sizeof(uint32_t),
                                 sizeof st->cfg, cfgw, 0, NULL, NULL),
            "clEnqueueWriteBuffer(state config)");
    memcpy(st->cfg, cfgw, sizeof st->cfg);
    st->cfg_valid = 1;
  }
  if (nd && nd->dispatch != st->dispatch) {
    WGS__CL(clEnqueueWriteBuffer(q, st->mem, CL_TRUE,
                                 (WGS_G_CONFIG + WGS_CFG_DISPATCH) * sizeof(uint32_t),
                                 sizeof nd->dispatch, &nd->dispatch, 0, NULL, NULL),
            "clEnqueueWriteBuffer(state dispatch word)");
    st->dispatch = nd->dispatch;
  }
  /* Host reset: the control line (epoch 0) and half 0 (not its line 0). Also for the first
   * launch with epochs after one without: that one left half 0 as it used it (half 1 is clean:
   * launches without epochs never touch it, and the last launch with them cleared it). */
  if (!cfgw[WGS_CFG_EPOCHS] || st->host_reset) {
    const uint32_t zero = 0;
    WGS__CL(clEnqueueFillBuffer(q, st->mem, &zero, sizeof zero, WGS_G_CTRL * sizeof(uint32_t),
                                WGS_LINE_WORDS * sizeof(uint32_t), 0, NULL, NULL),
            "clEnqueueFillBuffer(state control)");
    size_t h0 = WGS_HALF(st->max_groups, 0u) + WGS_LINE_WORDS;
    WGS__CL(clEnqueueFillBuffer(q, st->mem, &zero, sizeof zero, h0 * sizeof(uint32_t),
                                (WGS_HALF_WORDS(st->max_groups) - WGS_LINE_WORDS) * sizeof(uint32_t),
                                0, NULL, NULL),
            "clEnqueueFillBuffer(state)");
  }
  st->host_reset = !cfgw[WGS_CFG_EPOCHS];
  cl_int err = clSetKernelArg(kernel, state_arg, sizeof st->mem, &st->mem);
  if (err != CL_SUCCESS)
    return wgs__fail(WGS_EINVAL, "cannot pass the wgsync state as kernel argument %u: %s (is "
                                 "that argument a __global uint *?)",
                     state_arg, wgs_opencl_error_name(err));
  size_t global = (size_t)groups * local;
  /* (an nd launch is the layer's: its fixed groups' spins need no clock unless checked, its
   * probe's close wait does) */
  int tick = st->host && dev->clock_ok > 0 &&
             (!nd || nd->checked || cfgw[WGS_CFG_MODE] == WGS_MODE_DISCOVER);
  if (tick)
    wgs__clock_launch(dev, st); /* ticks until the result is read */
  if (nd)
    err = clEnqueueNDRangeKernel(q, kernel, nd->dims, nd->offset, nd->global, nd->local, nwait,
                                 wait, ev);
  else
    err = clEnqueueNDRangeKernel(q, kernel, 1, NULL, &global, &local, nwait, wait, ev);
  if (err != CL_SUCCESS && tick)
    wgs__clock_collect(dev, st);
  if (err != CL_SUCCESS)
    return wgs__fail(err == CL_OUT_OF_RESOURCES || err == CL_INVALID_WORK_GROUP_SIZE ? WGS_ELIMIT
                                                                                     : WGS_EBACKEND,
                     "clEnqueueNDRangeKernel(%u groups x %zu work-items) failed: %s", groups,
                     local, wgs_opencl_error_name(err));
  return WGS_OK;
}

/* Spin iterations per millisecond on devices without a clock: time a spin of known length. */
static int calibrate(wgs_device_t *dev)
{
  wgs_program_t *prog;
  wgs_kernel_t *k = NULL;
  wgs_state_t *st = NULL;
  int rc = wgs__tools_program(dev, 1, &prog);
  if (rc == WGS_OK)
    rc = wgs_kernel_create(prog, "wgs_calibrate", &k);
  if (rc == WGS_OK)
    rc = wgs_state_create(dev, 1, &st);
  wgs_launch_config lc;
  wgs_launch_config_init(&lc);
  lc.discovery = WGS_DISCOVERY_ALL;
  uint32_t w[WGS_CFG_WORDS];
  /* The calibration kernel spins while its half's poll is open (a cleared half) until the
   * bound; the first run is a warm-up: PoCL compiles a kernel on its first launch. */
  for (uint64_t iters = 16, warm = 1; rc == WGS_OK; iters = warm ? 1u << 16 : iters * 4, warm = 0) {
    wgs__config_words(w, &lc, 1, iters, 0, 0, 0, 0);
    double t0 = now_ms();
    rc = enqueue(st, k->k, 0, 1, 1, w, NULL, 0, NULL, NULL);
    cl_int err = rc == WGS_OK ? clFinish(dev->queue) : CL_SUCCESS;
    if (err != CL_SUCCESS)
      rc = wgs__cl_fail("calibration kernel", err);
    double ms = now_ms() - t0;
    if (rc == WGS_OK && !warm && (ms >= 50.0 || iters >= (1ull << 40))) {
      dev->iters_per_ms = (double)iters / ms;
      break;
    }
  }
  wgs_state_release(st);
  wgs_kernel_release(k);
  return rc;
}

/* Microseconds to the device's spin unit: ns with a clock, calibrated iterations without. */
static int us_to_spin(wgs_device_t *dev, double us, uint64_t *out)
{
  if (dev->info.has_timer) {
    *out = wgs__saturate_u64(us * 1e3);
    return WGS_OK;
  }
  if (wgs__clock_wanted(dev) && dev->clock_ok == 0) {
    pthread_mutex_lock(&dev->lazy);
    int rc = dev->clock_ok == 0 ? wgs__clock_check(dev) : WGS_OK;
    pthread_mutex_unlock(&dev->lazy);
    if (rc != WGS_OK)
      return rc;
  }
  if (dev->clock_ok > 0) { /* the host clock: microseconds, at most 32 bits of them */
    *out = us < 1 ? 1 : us > 4.0e9 ? UINT64_MAX : (uint64_t)us;
    return WGS_OK;
  }
  if (dev->iters_per_ms <= 0) {
    pthread_mutex_lock(&dev->lazy);
    int rc = dev->iters_per_ms <= 0 ? calibrate(dev) : WGS_OK;
    pthread_mutex_unlock(&dev->lazy);
    if (rc != WGS_OK)
      return rc;
  }
  double it = us / 1e3 * dev->iters_per_ms;
  *out = it < 1 ? 1 : wgs__saturate_u64(it);
  return WGS_OK;
}

/* The launch sequence's spin unit (src/launch.h): ns, or calibrated iterations without a clock. */
static int cl_to_spin(void *ctx, double us, uint64_t *out) { return us_to_spin(ctx, us, out); }

/* Static __local variables plus __local arguments, as the driver counts them: more than the
 * device has would fail at the launch, or (PoCL 3.1) abort the process there. */
static int check_local_mem(const wgs_device_t *dev, cl_kernel kernel, const char *kname)
{
  cl_ulong klmem = 0;
  if (clGetKernelWorkGroupInfo(kernel, dev->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof klmem, &klmem,
                               NULL) == CL_SUCCESS &&
      klmem > dev->info.local_mem_bytes)
    return wgs__fail(WGS_ELIMIT, "kernel '%s' needs %llu bytes of local memory per group (its "
                                 "__local variables and arguments), but '%s' has %llu",
                     kname, (unsigned long long)klmem, dev->info.name,
                     (unsigned long long)dev->info.local_mem_bytes);
  return WGS_OK;
}

/* One launch through the core (src/launch.h): a kernel of the table's, a cl_kernel of the
 * user's (interop), or the layer's on its own range and queue (nd). */
typedef struct {
  cl_kernel kernel;
  int checked;
  const char *kname;
  const wgs__cl_nd_range *nd;
  cl_uint nwait;
  const cl_event *wait;
  cl_event *ev_out;
} cl_launch;

static int cl_describe(wgs_state_t *st, void *what, wgs_launch_config *cfg, wgs__launch_ctx *c)
{
  const cl_launch *L = what;
  const wgs__cl_nd_range *nd = L->nd;
  cl_kernel kernel = L->kernel;
  const char *kname = L->kname;
  wgs_device_t *dev = st->dev;
  if (L->nwait > 0 && !L->wait)
    return wgs__fail(WGS_EINVAL, "wgs_launch_opencl_async: %u events to wait for, but wait_list "
                                 "is NULL", L->nwait);

  size_t kmax = nd ? nd->kmax : 0;
  if (kmax == 0)
    WGS__CL(clGetKernelWorkGroupInfo(kernel, dev->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kmax,
                                     &kmax, NULL),
            "clGetKernelWorkGroupInfo(WORK_GROUP_SIZE)");
  int rc0 = nd && nd->lmem_checked ? WGS_OK : check_local_mem(dev, kernel, kname);
  if (rc0 != WGS_OK)
    return rc0;
  /* __attribute__((reqd_work_group_size(X, 1, 1))): X is the local size, the default one too */
  size_t reqd[3] = {0, 0, 0};
  if (nd) { /* the range is the caller's: the driver checks it against the kernel */
    /* products taken without wrapping or narrowing: a range whose count does not fit the
     * plan's 32-bit group count is refused here, not passed on truncated */
    size_t items = 1, groups = 1;
    for (cl_uint d = 0; d < nd->dims; d++) {
      size_t g = nd->global[d] / nd->local[d];
      if (nd->local[d] > SIZE_MAX / items || g > SIZE_MAX / groups)
        return wgs__fail(WGS_ELIMIT, "kernel '%s': a range whose work-group size or group count "
                                     "overflows (dimension %u: %zu of %zu)", kname, d,
                         nd->global[d], nd->local[d]);
      items *= nd->local[d];
      groups *= g;
    }
    if (groups > UINT32_MAX)
      return wgs__fail(WGS_ELIMIT, "kernel '%s': %zu work-groups in one launch (at most %u)",
                       kname, groups, UINT32_MAX);
    cfg->local_size = items;
    cfg->groups = (uint32_t)groups;
  } else if (clGetKernelWorkGroupInfo(kernel, dev->device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof reqd,
                               reqd, NULL) == CL_SUCCESS && reqd[0] != 0) {
    if (reqd[1] > 1 || reqd[2] > 1)
      return wgs__fail(WGS_EINVAL, "kernel '%s' requires a work-group of %zu x %zu x %zu "
                                   "(reqd_work_group_size), but wgsync launches are 1-D: use "
                                   "reqd_work_group_size(N, 1, 1)", kname, reqd[0], reqd[1], reqd[2]);
    if (cfg->local_size == 0)
      cfg->local_size = reqd[0];
    else if (cfg->local_size != reqd[0])
      return wgs__fail(WGS_EINVAL, "kernel '%s' requires a local size of %zu "
                                   "(reqd_work_group_size), but the launch asks for %zu (set "
                                   "local_size to %zu, or 0 for the kernel's own)", kname, reqd[0],
                       cfg->local_size, reqd[0]);
  }
  /* NVIDIA's GPUs get their known limits; other GPUs twice them. The kernel's maximum only
   * names the limit in a message: NVIDIA's driver (580) reports 256 even for a one-line kernel,
   * yet launches 1024-wide groups; beyond the reported value the launch decides. */
  int checked = L->checked;
  *c = (wgs__launch_ctx){"wgs_launch", kname, kmax, "wgs_state_create", &dev->info,
                         wgs__default_local(kmax), st->max_groups,
                         dev->info.atomics == WGS_ATOMICS_PTX ? 1u : 2u, checked, !checked, checked,
                         cl_to_spin, NULL, dev};
  return WGS_OK;
}

static int cl_enqueue(wgs_state_t *st, void *what, const wgs_launch_config *cfg,
                      const wgs__launch_ctx *c, const wgs__launch_plan *plan, int *captured)
{
  const cl_launch *L = what;
  (void)c, (void)captured;
  int want_event = L->ev_out || cfg->time_kernel;
  cl_event ev = NULL;
  int rc = enqueue(st, L->kernel, cfg->state_arg, plan->local, plan->groups, plan->w, L->nd,
                   L->nwait, L->wait, want_event ? &ev : NULL);
  if (rc != WGS_OK)
    return rc;
  if (st->timing)
    clReleaseEvent(st->timing);
  st->timing = NULL;
  if (cfg->time_kernel && ev) {
    clRetainEvent(ev);
    st->timing = ev;
  }
  if (L->ev_out)
    *L->ev_out = ev;
  else if (ev)
    clReleaseEvent(ev);
  return WGS_OK;
}

static const wgs__launch_via cl_via = {cl_describe, cl_enqueue};

/* The result's words (src/device.h): the in-order queue runs the read after the launches. */
int wgs__cl_result_words(wgs_state_t *st, uint32_t *glob, double *kernel_us)
{
  wgs_device_t *dev = st->dev;
  cl_int err = clEnqueueReadBuffer(dev->queue, st->mem, CL_TRUE, 0,
                                   GLOBAL_WORDS * sizeof(uint32_t), glob, 0, NULL, NULL);
  if (st->host)
    wgs__clock_collect(dev, st); /* the launches have ended: the clock may rest */
  if (err != CL_SUCCESS)
    return wgs__fail(WGS_EBACKEND, "kernel '%s' (%u groups) failed: %s", st->log.last.kname,
                     st->log.last.launched, wgs_opencl_error_name(err));
  if (st->timing) {
    cl_ulong a = 0, b = 0;
    if (dev->profiling &&
        clGetEventProfilingInfo(st->timing, CL_PROFILING_COMMAND_START, sizeof a, &a, NULL) == CL_SUCCESS &&
        clGetEventProfilingInfo(st->timing, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL) == CL_SUCCESS &&
        b >= a)
      *kernel_us = (double)(b - a) / 1e3;
    clReleaseEvent(st->timing);
    st->timing = NULL;
  }
  return WGS_OK;
}

int wgs__cl_clear_error(wgs_state_t *st)
{
  const uint32_t zero = 0;
  cl_int err = clEnqueueFillBuffer(st->dev->queue, st->mem, &zero, sizeof zero,
                                   WGS_G_ERROR * sizeof(uint32_t), WGS_LINE_WORDS * sizeof(uint32_t),
                                   0, NULL, NULL);
  if (err == CL_SUCCESS)
    err = clFinish(st->dev->queue);
  return err == CL_SUCCESS ? WGS_OK : wgs__cl_fail("clEnqueueFillBuffer(state error report)", err);
}

int wgs__cl_read_words(wgs_state_t *st, size_t offset, size_t n, uint32_t *out)
{
  WGS__CL(clEnqueueReadBuffer(st->dev->queue, st->mem, CL_TRUE, offset * sizeof(uint32_t),
                              n * sizeof(uint32_t), out, 0, NULL, NULL),
          "clEnqueueReadBuffer(state words)");
  return WGS_OK;
}

static void kernel_name(cl_kernel k, char *buf, size_t cap)
{
  if (clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, cap, buf, NULL) != CL_SUCCESS)
    snprintf(buf, cap, "?");
  buf[cap - 1] = '\0';
}

/* The table's launches (src/device.h): `what` is the wgs_kernel_t. */
static cl_launch table_launch(void *what)
{
  wgs_kernel_t *k = what;
  return (cl_launch){k->k, (k->prog->flags & WGS_BUILD_CHECKED) != 0, k->name, NULL, 0, NULL, NULL};
}
static int table_describe(wgs_state_t *st, void *what, wgs_launch_config *cfg, wgs__launch_ctx *c)
{
  cl_launch L = table_launch(what);
  return cl_describe(st, &L, cfg, c);
}
static int table_enqueue(wgs_state_t *st, void *what, const wgs_launch_config *cfg,
                         const wgs__launch_ctx *c, const wgs__launch_plan *plan, int *captured)
{
  cl_launch L = table_launch(what);
  return cl_enqueue(st, &L, cfg, c, plan, captured);
}
const wgs__launch_via wgs__cl_launch = {table_describe, table_enqueue};

int wgs__cl_kernel_run(wgs_kernel_t *k, unsigned dims, const size_t *global, const size_t *local)
{
  wgs_device_t *dev = k->prog->dev;
  const char *name = k->name;
  size_t items = 1;
  for (unsigned d = 0; d < dims; d++) {
    if (global[d] == 0)
      return wgs__fail(WGS_EINVAL, "wgs_kernel_run('%s'): global[%u] is 0", name, d);
    if (local && local[d] == 0)
      return wgs__fail(WGS_EINVAL, "wgs_kernel_run('%s'): local[%u] is 0 (pass local = NULL to "
                                   "let the driver choose)", name, d);
    if (local)
      items *= local[d];
  }
  if (local && items > dev->info.max_work_group_size)
    return wgs__fail(WGS_ELIMIT, "wgs_kernel_run('%s'): groups of %zu work-items exceed the "
                                 "device maximum of %zu on '%s'",
                     name, items, dev->info.max_work_group_size, dev->info.name);
  int rc = check_local_mem(dev, k->k, name);
  if (rc != WGS_OK)
    return rc;
  cl_int err = clEnqueueNDRangeKernel(dev->queue, k->k, dims, NULL, global, local, 0, NULL, NULL);
  if (err != CL_SUCCESS)
    return wgs__fail(err == CL_OUT_OF_RESOURCES || err == CL_INVALID_WORK_GROUP_SIZE ? WGS_ELIMIT
                                                                                     : WGS_EBACKEND,
                     "wgs_kernel_run('%s'): clEnqueueNDRangeKernel failed: %s%s", name,
                     wgs_opencl_error_name(err),
                     err == CL_INVALID_WORK_GROUP_SIZE
                         ? " (a global size that is not a multiple of the local size needs "
                           "non-uniform work-groups, which this device does not support)"
                         : "");
  WGS__CL(clFinish(dev->queue), "clFinish (kernel execution)");
  return WGS_OK;
}

/* A program built with wgs_device_opencl_build_options says which build it is in its options
 * (on PoCL an unchecked one is compiled with bounded spins and must run unbounded: the
 * WGS_UNCHECKED_BUILD marker, cl_device.c); any other gets a spin bound in case it is checked. */
static int opencl_checked(wgs_state_t *st, cl_kernel kernel)
{
  cl_program prog = NULL;
  char opts[512] = "";
  return !(clGetKernelInfo(kernel, CL_KERNEL_PROGRAM, sizeof prog, &prog, NULL) == CL_SUCCESS &&
           clGetProgramBuildInfo(prog, st->dev->device, CL_PROGRAM_BUILD_OPTIONS, sizeof opts - 1,
                                 opts, NULL) == CL_SUCCESS &&
           strstr(opts, "WGS_UNCHECKED_BUILD"));
}

int wgs_launch_opencl(wgs_state_t *st, cl_kernel kernel, const wgs_launch_config *cfg,
                      wgs_launch_result *res)
{
  WGS__REQUIRE(st);
  WGS__REQUIRE(kernel);
  int only_cl = wgs__cl_require(st->dev, "wgs_launch_opencl");
  if (only_cl != WGS_OK)
    return only_cl;
  char name[128];
  kernel_name(kernel, name, sizeof name);
  cl_launch L = {kernel, opencl_checked(st, kernel), name, NULL, 0, NULL, NULL};
  pthread_mutex_lock(&st->lock);
  int rc = wgs__launch_sync_locked(st, &cl_via, &L, cfg, res);
  pthread_mutex_unlock(&st->lock);
  return rc;
}

int wgs_launch_opencl_async(wgs_state_t *st, cl_kernel kernel, const wgs_launch_config *cfg,
                            cl_uint num_wait, const cl_event *wait_list, cl_event *event)
{
  WGS__REQUIRE(st);
  WGS__REQUIRE(kernel);
  int only_cl = wgs__cl_require(st->dev, "wgs_launch_opencl_async");
  if (only_cl != WGS_OK)
    return only_cl;
  char name[128];
  kernel_name(kernel, name, sizeof name);
  cl_launch L = {kernel, opencl_checked(st, kernel), name, NULL, num_wait, wait_list, event};
  pthread_mutex_lock(&st->lock);
  int rc = wgs__launch_via_locked(st, &cl_via, &L, cfg);
  pthread_mutex_unlock(&st->lock);
  return rc;
}

int wgs__cl_launch_nd(wgs_state_t *st, cl_kernel kernel, const wgs_launch_config *cfg,
                      const wgs__cl_nd_range *nd, cl_uint num_wait, const cl_event *wait_list,
                      cl_event *event)
{
  char name[128];
  if (nd->kname)
    snprintf(name, sizeof name, "%s", nd->kname);
  else
    kernel_name(kernel, name, sizeof name);
  cl_launch L = {kernel, nd->checked, name, nd, num_wait, wait_list, event};
  pthread_mutex_lock(&st->lock);
  int rc = wgs__launch_via_locked(st, &cl_via, &L, cfg);
  pthread_mutex_unlock(&st->lock);
  return rc;
}
