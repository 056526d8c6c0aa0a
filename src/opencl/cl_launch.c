/*
 * OpenCL backend: protocol state, persistent launch, and the report of a checked build.
 *
 * A launch resets the state (poll open, count 0, locks free, flags 0), binds it to the kernel,
 * launches an over-provisioned 1-D grid, waits, and reads back how many groups took part, how
 * long the protocol took, and any error the device library recorded.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cl_internal.h"

#define HEADER_WORDS WGS_W_ARRAYS

int wgs_state_create(wgs_device_t *dev, uint32_t max_groups, wgs_state_t **out)
{
  WGS__REQUIRE(out);
  *out = NULL;
  WGS__REQUIRE(dev);
  if (max_groups == 0 || max_groups > (1u << 24))
    return wgs__fail(WGS_EINVAL, "wgs_state_create: max_groups is %u (expected 1 to %u)",
                     max_groups, 1u << 24);
  cl_int err;
  size_t bytes = (size_t)WGS_STATE_WORDS(max_groups) * sizeof(uint32_t);
  cl_mem m = clCreateBuffer(dev->ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
  WGS__CL(err, "clCreateBuffer(state)");
  wgs_state_t *st = calloc(1, sizeof *st);
  if (!st) {
    clReleaseMemObject(m);
    return wgs__fail(WGS_ENOMEM, "wgs_state_create: out of memory");
  }
  st->dev = dev;
  st->mem = m;
  st->max_groups = max_groups;
  *out = st;
  return WGS_OK;
}

void wgs_state_release(wgs_state_t *st)
{
  if (!st)
    return;
  clReleaseMemObject(st->mem);
  free(st);
}

cl_mem wgs_state_opencl(const wgs_state_t *st) { return st ? st->mem : NULL; }

uint32_t wgs_default_groups(const wgs_device_t *dev, size_t local_size)
{
  if (!dev)
    return 0;
  if (local_size == 0)
    local_size = 256;
  uint32_t cu = dev->info.compute_units ? dev->info.compute_units : 1;
  if (!dev->info.is_gpu) /* PoCL: one group per worker thread at most */
    return cu * 4u;
  /* GPUs: at most 2048 resident work-items and 32 groups per compute unit on NVIDIA;
   * twice that covers other vendors' larger limits. Extra groups leave at once. */
  size_t per_cu = 2048 / local_size;
  if (per_cu < 1)
    per_cu = 1;
  if (per_cu > 32)
    per_cu = 32;
  return (uint32_t)(cu * per_cu * 2u);
}

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void fill_header(uint32_t *h, wgs_lock lock, uint32_t delay, uint64_t wait, uint32_t mode,
                        uint32_t max_groups, uint64_t limit, int timed, wgs_barrier barrier)
{
  memset(h, 0, HEADER_WORDS * sizeof *h);
  h[WGS_W_POLL] = 1u;
  uint32_t *c = h + WGS_W_CONFIG;
  c[WGS_CFG_VERSION] = WGS_LAYOUT_VERSION;
  c[WGS_CFG_LOCK] = lock == WGS_LOCK_SPIN   ? WGS_LOCK_KIND_SPIN
                    : lock == WGS_LOCK_FREE ? WGS_LOCK_KIND_FREE
                                            : WGS_LOCK_KIND_TICKET;
  c[WGS_CFG_DELAY] = delay;
  c[WGS_CFG_MODE] = mode;
  c[WGS_CFG_MAX_GROUPS] = max_groups;
  c[WGS_CFG_LIMIT_LO] = (uint32_t)limit;
  c[WGS_CFG_LIMIT_HI] = (uint32_t)(limit >> 32);
  c[WGS_CFG_TIMED] = timed ? 1u : 0u;
  c[WGS_CFG_WAIT_LO] = (uint32_t)wait;
  c[WGS_CFG_WAIT_HI] = (uint32_t)(wait >> 32);
  c[WGS_CFG_BARRIER] = barrier == WGS_BARRIER_XF ? WGS_BARRIER_KIND_XF : WGS_BARRIER_KIND_COUNTER;
}

/* Resets st and runs kernel on groups x local; fills header with the state's header after. */
static int run_once(wgs_state_t *st, cl_kernel kernel, unsigned state_arg, size_t local,
                    uint32_t groups, const uint32_t *header_in, uint32_t *header_out,
                    uint32_t *final_out, double *kernel_us)
{
  wgs_device_t *dev = st->dev;
  cl_command_queue q = dev->queue;
  const uint32_t zero = 0;
  size_t arrays = (size_t)WGS_A_WORDS(st->max_groups) * sizeof(uint32_t);
  WGS__CL(clEnqueueWriteBuffer(q, st->mem, CL_FALSE, 0, HEADER_WORDS * sizeof(uint32_t), header_in,
                               0, NULL, NULL),
          "clEnqueueWriteBuffer(state header)");
  WGS__CL(clEnqueueFillBuffer(q, st->mem, &zero, sizeof zero, HEADER_WORDS * sizeof(uint32_t),
                              arrays, 0, NULL, NULL),
          "clEnqueueFillBuffer(state arrays)");
  cl_int err = clSetKernelArg(kernel, state_arg, sizeof st->mem, &st->mem);
  if (err != CL_SUCCESS)
    return wgs__fail(WGS_EINVAL, "cannot pass the wgsync state as kernel argument %u: %s (is "
                                 "that argument a __global uint *?)",
                     state_arg, wgs_opencl_error_name(err));
  size_t global = (size_t)groups * local;
  cl_event ev = NULL;
  double t0 = now_ms();
  err = clEnqueueNDRangeKernel(q, kernel, 1, NULL, &global, &local, 0, NULL, &ev);
  if (err != CL_SUCCESS)
    return wgs__fail(err == CL_OUT_OF_RESOURCES || err == CL_INVALID_WORK_GROUP_SIZE ? WGS_ELIMIT
                                                                                     : WGS_EBACKEND,
                     "clEnqueueNDRangeKernel(%u groups x %zu work-items) failed: %s", groups,
                     local, wgs_opencl_error_name(err));
  /* The header and the final count come back in the same wait as the kernel: one host-device
   * round trip per launch instead of three (measured: bench/results, Table 4). */
  cl_int err_h = clEnqueueReadBuffer(q, st->mem, CL_FALSE, 0, HEADER_WORDS * sizeof(uint32_t),
                                     header_out, 0, NULL, NULL);
  cl_int err_f = clEnqueueReadBuffer(q, st->mem, CL_FALSE,
                                     WGS_OFF_FINAL(st->max_groups) * sizeof(uint32_t),
                                     sizeof *final_out, final_out, 0, NULL, NULL);
  err = clFinish(q);
  double t1 = now_ms();
  if (err == CL_SUCCESS)
    err = clWaitForEvents(1, &ev);
  if (err != CL_SUCCESS) {
    clReleaseEvent(ev);
    return wgs__fail(WGS_EBACKEND, "kernel (%u groups x %zu work-items) failed: %s", groups, local,
                     wgs_opencl_error_name(err));
  }
  *kernel_us = (t1 - t0) * 1e3;
  if (dev->profiling) {
    cl_ulong a = 0, b = 0;
    if (clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof a, &a, NULL) ==
            CL_SUCCESS &&
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL) == CL_SUCCESS &&
        b >= a)
      *kernel_us = (double)(b - a) / 1e3;
  }
  clReleaseEvent(ev);
  WGS__CL(err_h, "clEnqueueReadBuffer(state header)");
  WGS__CL(err_f, "clEnqueueReadBuffer(state final count)");
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
  uint64_t iters = 1u << 16;
  uint32_t h[HEADER_WORDS], back[HEADER_WORDS], fin;
  if (rc == WGS_OK) { /* warm-up: PoCL compiles a kernel on its first launch; keep that out */
    double us;
    fill_header(h, WGS_LOCK_TICKET, 0, 0, WGS_MODE_ALL, 1, 16, 0, WGS_BARRIER_XF);
    h[WGS_W_POLL] = 0;
    rc = run_once(st, k->k, 0, 1, 1, h, back, &fin, &us);
  }
  while (rc == WGS_OK) {
    fill_header(h, WGS_LOCK_TICKET, 0, 0, WGS_MODE_ALL, 1, iters, 0, WGS_BARRIER_XF);
    h[WGS_W_POLL] = 0; /* the calibration kernel spins while this is 0 */
    double us = 0, t0 = now_ms();
    rc = run_once(st, k->k, 0, 1, 1, h, back, &fin, &us);
    double ms = now_ms() - t0;
    if (rc == WGS_OK && (ms >= 50.0 || iters >= (1ull << 40))) {
      dev->iters_per_ms = (double)iters / ms;
      break;
    }
    iters *= 4;
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
  if (dev->iters_per_ms <= 0) {
    int rc = calibrate(dev);
    if (rc != WGS_OK)
      return rc;
  }
  double it = us / 1e3 * dev->iters_per_ms;
  *out = it < 1 ? 1 : wgs__saturate_u64(it);
  return WGS_OK;
}

double wgs__default_close_wait_us(const wgs_device_t *dev)
{
  return dev->info.is_gpu ? WGS__GPU_CLOSE_WAIT_US : WGS__CPU_CLOSE_WAIT_US;
}

int wgs__spin_limit(wgs_device_t *dev, double timeout_ms, uint64_t *limit)
{
  if (timeout_ms <= 0)
    timeout_ms = dev->info.has_timer ? 500.0 : 1500.0;
  return us_to_spin(dev, timeout_ms * 1e3, limit);
}

static int launch(wgs_state_t *st, cl_kernel kernel, int checked, const char *kname,
                  const wgs_launch_config *cfg_in, wgs_launch_result *res_out)
{
  wgs_launch_result res_local;
  wgs_launch_result *res = res_out ? res_out : &res_local;
  memset(res, 0, sizeof *res);
  res->protocol_us = -1;
  res->kernel_us = -1;
  wgs_launch_config cfg;
  if (cfg_in)
    cfg = *cfg_in;
  else
    wgs_launch_config_init(&cfg);
  wgs_device_t *dev = st->dev;

  int rc0 = wgs__check_launch_config("wgs_launch", &cfg);
  if (rc0 != WGS_OK)
    return rc0;

  size_t kmax = 0;
  WGS__CL(clGetKernelWorkGroupInfo(kernel, dev->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kmax,
                                   &kmax, NULL),
          "clGetKernelWorkGroupInfo(WORK_GROUP_SIZE)");
  /* Static __local variables plus __local arguments, as the driver counts them: more than the
   * device has would fail at the launch, or (PoCL 3.1) abort the process there. */
  cl_ulong klmem = 0;
  if (clGetKernelWorkGroupInfo(kernel, dev->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof klmem, &klmem,
                               NULL) == CL_SUCCESS &&
      klmem > dev->info.local_mem_bytes)
    return wgs__fail(WGS_ELIMIT, "kernel '%s' needs %llu bytes of local memory per group (its "
                                 "__local variables and arguments), but '%s' has %llu",
                     kname, (unsigned long long)klmem, dev->info.name,
                     (unsigned long long)dev->info.local_mem_bytes);
  size_t local = cfg.local_size;
  if (local == 0)
    local = kmax < 256 ? kmax : 256;
  /* Only the device maximum is checked up front: NVIDIA's driver (580) reports a kernel
   * maximum of 256 even for a one-line kernel, yet launches 1024-wide groups; beyond the
   * reported value the launch decides, and its error names both limits. */
  if (local > dev->info.max_work_group_size)
    return wgs__fail(WGS_ELIMIT, "local size %zu exceeds the device maximum of %zu on '%s' (kernel "
                                 "'%s' reports %zu)",
                     local, dev->info.max_work_group_size, dev->info.name, kname, kmax);
  uint32_t groups = cfg.groups;
  if (groups == 0) {
    groups = wgs_default_groups(dev, local);
    if (groups > st->max_groups)
      groups = st->max_groups;
  }
  if (groups > st->max_groups)
    return wgs__fail(WGS_ELIMIT, "launch of %u groups exceeds the state's capacity of %u groups "
                                 "(the max_groups given to wgs_state_create)",
                     groups, st->max_groups);

  uint64_t limit = UINT64_MAX; /* unchecked: no bound (PoCL builds them with one; cl_device.c) */
  if (checked) {
    int rc = wgs__spin_limit(dev, cfg.timeout_ms, &limit);
    if (rc != WGS_OK)
      return rc;
  }
  uint64_t wait = 0;
  double wait_us = cfg.close_wait_us < 0 ? wgs__default_close_wait_us(dev) : cfg.close_wait_us;
  if (wait_us > 0 && cfg.discovery == WGS_DISCOVERY_PROTOCOL) {
    int rc = us_to_spin(dev, wait_us, &wait);
    if (rc != WGS_OK)
      return rc;
  }
  uint32_t mode = cfg.discovery == WGS_DISCOVERY_PROTOCOL ? WGS_MODE_DISCOVER
                  : cfg.discovery == WGS_DISCOVERY_ALL    ? WGS_MODE_ALL
                                                          : WGS_MODE_FIXED;
  uint32_t h[HEADER_WORDS], back[HEADER_WORDS];
  int timed = dev->info.has_timer && mode == WGS_MODE_DISCOVER && cfg.time_protocol;
  fill_header(h, cfg.lock, cfg.delay, wait, mode, st->max_groups, limit, timed, cfg.barrier);
  h[WGS_W_CONFIG + WGS_CFG_ENOUGH] = cfg.close_at == UINT32_MAX ? 0u
                                     : cfg.close_at             ? cfg.close_at
                                     : dev->info.is_cpu         ? dev->info.compute_units
                                                                : 0u;
  double kus = -1;
  uint32_t fin = 0;
  int rc = run_once(st, kernel, cfg.state_arg, local, groups, h, back, &fin, &kus);
  if (rc == WGS_ELIMIT && local > kmax) {
    char more[200];
    snprintf(more, sizeof more, " (kernel '%s' reports a maximum work-group size of %zu)", kname,
             kmax);
    wgs__fail_append(more);
  }
  if (rc != WGS_OK)
    return rc;
  res->launched = groups;
  res->kernel_us = kus;
  res->participants = mode == WGS_MODE_DISCOVER ? back[WGS_W_COUNT] : groups;
  if (mode == WGS_MODE_DISCOVER && cfg.lock == WGS_LOCK_FREE)
    res->participants = fin ? fin - 1 : 0;

  if (timed) {
    size_t n = (size_t)groups * 4;
    uint32_t *t = malloc(n * sizeof *t);
    if (!t)
      return wgs__fail(WGS_ENOMEM, "wgs_launch: out of memory");
    cl_int err = clEnqueueReadBuffer(dev->queue, st->mem, CL_TRUE,
                                     WGS_OFF_TIME(st->max_groups) * sizeof(uint32_t),
                                     n * sizeof *t, t, 0, NULL, NULL);
    if (err == CL_SUCCESS) {
      uint64_t first = UINT64_MAX, last = 0;
      for (uint32_t g = 0; g < groups; g++) {
        uint64_t a = t[4 * g] | (uint64_t)t[4 * g + 1] << 32;
        uint64_t b = t[4 * g + 2] | (uint64_t)t[4 * g + 3] << 32;
        if (b == 0)
          continue; /* not a participant */
        if (a < first)
          first = a;
        if (b > last)
          last = b;
      }
      if (last >= first && first != UINT64_MAX)
        res->protocol_us = (double)(last - first) / 1e3;
    }
    free(t);
    if (err != CL_SUCCESS)
      return wgs__cl_fail("clEnqueueReadBuffer(state times)", err);
  }

  /* An unchecked program reports nothing, except on PoCL, where it is built with the checked
   * library (cl_device.c) and then may report misuse: unchecked means unchecked, so it is not
   * decoded (its spins have no bound, so no deadlock report can come from it). */
  static const uint32_t none[WGS_LINE_WORDS];
  const uint32_t *e = checked ? back + WGS_W_ERROR : none;
  if (e[WGS_ERR_CODE] == WGS_DEV_ERR_SPLIT)
    return wgs__fail(WGS_EDEADLOCK, "kernel '%s': split grid barrier misused at user line %u "
                                    "(instance %u) by group %u: a wait without an arrive, or two "
                                    "arrives without a wait", kname, e[WGS_ERR_SITE],
                     e[WGS_ERR_INSTANCE], e[WGS_ERR_REPORTER]);
  if (e[WGS_ERR_CODE] == WGS_DEV_ERR_GRID_BARRIER) {
    res->err_site = e[WGS_ERR_SITE];
    res->err_instance = e[WGS_ERR_INSTANCE];
    res->err_arrived = e[WGS_ERR_ARRIVED];
    res->err_expected = e[WGS_ERR_EXPECTED];
    res->err_missing_count = e[WGS_ERR_MISSING_N];
    uint32_t shown = res->err_missing_count < WGS_ERR_MISSING_MAX ? res->err_missing_count
                                                                  : WGS_ERR_MISSING_MAX;
    char ids[WGS_ERR_MISSING_MAX * 12 + 16] = "";
    size_t used = 0;
    for (uint32_t i = 0; i < shown; i++) {
      res->err_missing[i] = e[WGS_ERR_MISSING + i];
      used += (size_t)snprintf(ids + used, sizeof ids - used, "%s%u", i ? ", " : "",
                               res->err_missing[i]);
    }
    if (shown < res->err_missing_count)
      snprintf(ids + used, sizeof ids - used, ", ...");
    return wgs__fail(WGS_EDEADLOCK,
                     "kernel '%s': grid barrier at user line %u (barrier instance %u) was not "
                     "reached by every group within the spin limit: %u of %u groups arrived; "
                     "missing group ids: %s (reported by group %u; %u groups launched, %s)",
                     kname, res->err_site, res->err_instance, res->err_arrived,
                     res->err_expected, ids, e[WGS_ERR_REPORTER], groups,
                     mode == WGS_MODE_DISCOVER ? "ids from discovery" : "native ids, discovery off");
  }
  if (e[WGS_ERR_CODE] == WGS_DEV_ERR_MISUSE)
    return wgs__fail_misuse(kname, e);
  if (e[WGS_ERR_CODE] == WGS_DEV_ERR_LOCK)
    return wgs__fail(WGS_ELOCK, "kernel '%s': group %u waited past the spin limit for the "
                                "discovery mutex%s (%u groups launched, delay %u rounds)",
                     kname, e[WGS_ERR_REPORTER], cfg.delay ? " or in the delay (§5.4)" : "",
                     groups, cfg.delay);
  if (e[WGS_ERR_CODE] != 0)
    return wgs__fail(WGS_EBACKEND, "kernel '%s': device reported unknown error %u", kname,
                     e[WGS_ERR_CODE]);
  if (mode == WGS_MODE_DISCOVER && (res->participants == 0 || res->participants > groups))
    return wgs__fail(WGS_EBACKEND, "kernel '%s': discovery counted %u participants of %u launched "
                                   "groups (did the kernel call wgs_discover with this state?)",
                     kname, res->participants, groups);
  return WGS_OK;
}

static void kernel_name(cl_kernel k, char *buf, size_t cap)
{
  if (clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, cap, buf, NULL) != CL_SUCCESS)
    snprintf(buf, cap, "?");
  buf[cap - 1] = '\0';
}

int wgs_launch(wgs_state_t *st, wgs_kernel_t *k, const wgs_launch_config *cfg,
               wgs_launch_result *res)
{
  WGS__REQUIRE(st);
  WGS__REQUIRE(k);
  if (k->prog->dev != st->dev)
    return wgs__fail(WGS_EINVAL, "wgs_launch: the kernel and the state belong to different "
                                 "devices");
  char name[128];
  kernel_name(k->k, name, sizeof name);
  return launch(st, k->k, (k->prog->flags & WGS_BUILD_CHECKED) != 0, name, cfg, res);
}

int wgs_launch_opencl(wgs_state_t *st, cl_kernel kernel, const wgs_launch_config *cfg,
                      wgs_launch_result *res)
{
  WGS__REQUIRE(st);
  WGS__REQUIRE(kernel);
  char name[128];
  kernel_name(kernel, name, sizeof name);
  /* A program built with wgs_device_opencl_build_options says which build it is in its options
   * (on PoCL an unchecked one is compiled with bounded spins and must run unbounded: the
   * WGS_UNCHECKED_BUILD marker, cl_device.c); any other gets a spin bound in case it is checked. */
  int checked = 1;
  cl_program prog = NULL;
  char opts[512] = "";
  if (clGetKernelInfo(kernel, CL_KERNEL_PROGRAM, sizeof prog, &prog, NULL) == CL_SUCCESS &&
      clGetProgramBuildInfo(prog, st->dev->device, CL_PROGRAM_BUILD_OPTIONS, sizeof opts - 1, opts,
                            NULL) == CL_SUCCESS &&
      strstr(opts, "WGS_UNCHECKED_BUILD"))
    checked = 0;
  return launch(st, kernel, checked, name, cfg, res);
}
