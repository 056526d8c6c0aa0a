/*
 * The public object API of wgsync.h, once for every backend: programs, kernels, buffers,
 * states, launches and their results go through the device's backend table (src/device.h).
 * What is the same everywhere lives here: the argument checks, the state's lock (one launch or
 * result at a time, from any thread), the synchronous launch on top of the asynchronous one,
 * and the decoding of a launch's result from the words a backend reads back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "device.h"
#include "launch.h"
#include "wgs_layout.h"

#define GLOBAL_WORDS (WGS_G_LINES * WGS_LINE_WORDS)

static const wgs__backend_ops *dev_ops(const wgs_device_t *dev) { return wgs__head(dev)->ops; }

static int unsupported(const wgs__backend_ops *ops, const char *who, const char *what)
{
  return wgs__fail(WGS_EUNSUPPORTED, "%s: %s devices have no %s%s", who, ops->name, what,
                   !strcmp(ops->name, "CUDA")
                       ? " (CUDA kernels come from nvcc or NVRTC: wrap one with "
                         "wgs_kernel_cuda or wgs_kernel_cuda_function, wgsync_cuda.h)"
                       : "");
}
#define CALL_OR_UNSUPPORTED(ops, fn, who, what, ...)                                         \
  ((ops)->fn ? (ops)->fn(__VA_ARGS__) : unsupported((ops), (who), (what)))

/* ---- programs and kernels ------------------------------------------------------------------ */

int wgs_program_build(wgs_device_t *dev, const char *source, const char *options, unsigned flags,
                      wgs_program_t **out)
{
  WGS__REQUIRE(out);
  *out = NULL;
  WGS__REQUIRE(dev);
  WGS__REQUIRE(source);
  if (flags & ~(unsigned)WGS_BUILD_CHECKED)
    return wgs__fail(WGS_EINVAL, "wgs_program_build: unknown flags 0x%x (expected 0 or "
                                 "WGS_BUILD_CHECKED)", flags);
  return CALL_OR_UNSUPPORTED(dev_ops(dev), program_build, "wgs_program_build",
                             "programs built from source", dev, source, options, flags, out);
}

int wgs_program_build_il(wgs_device_t *dev, const uint32_t *words, size_t n_words,
                         const char *options, wgs_program_t **out)
{
  WGS__REQUIRE(out);
  *out = NULL;
  WGS__REQUIRE(dev);
  WGS__REQUIRE(words);
  return CALL_OR_UNSUPPORTED(dev_ops(dev), program_build_il, "wgs_program_build_il",
                             "programs built from SPIR-V", dev, words, n_words, options, out);
}

void wgs_program_release(wgs_program_t *prog)
{
  if (prog)
    wgs__object(prog)->ops->program_release(prog);
}

const char *wgs_program_build_log(const wgs_program_t *prog)
{
  return prog ? wgs__object(prog)->ops->program_build_log(prog) : "";
}

int wgs_kernel_create(wgs_program_t *prog, const char *name, wgs_kernel_t **out)
{
  WGS__REQUIRE(out);
  *out = NULL;
  WGS__REQUIRE(prog);
  WGS__REQUIRE(name);
  return wgs__object(prog)->ops->kernel_create(prog, name, out);
}

int wgs_kernel_get_resources(wgs_kernel_t *k, wgs_kernel_resources *out)
{
  WGS__REQUIRE(out);
  memset(out, 0, sizeof *out);
  out->registers = -1;
  WGS__REQUIRE(k);
  return CALL_OR_UNSUPPORTED(wgs__object(k)->ops, kernel_resources, "wgs_kernel_get_resources",
                             "kernel resources to report", k, out);
}

int wgs_tools_program(wgs_device_t *dev, int checked, wgs_program_t **prog)
{
  WGS__REQUIRE(prog);
  *prog = NULL;
  WGS__REQUIRE(dev);
  return CALL_OR_UNSUPPORTED(dev_ops(dev), tools_program, "wgs_tools_program",
                             "tools kernels", dev, checked != 0, prog);
}

void wgs_kernel_release(wgs_kernel_t *k)
{
  if (k)
    wgs__object(k)->ops->kernel_release(k);
}

int wgs_kernel_set_arg(wgs_kernel_t *k, unsigned index, size_t size, const void *value)
{
  WGS__REQUIRE(k);
  return wgs__object(k)->ops->kernel_set_arg(k, index, size, value);
}

int wgs_kernel_set_arg_buffer(wgs_kernel_t *k, unsigned index, wgs_buffer_t *buf)
{
  WGS__REQUIRE(k);
  WGS__REQUIRE(buf);
  if (wgs__object(buf)->ops != wgs__object(k)->ops) /* (the backend checks its devices) */
    return wgs__fail(WGS_EINVAL, "wgs_kernel_set_arg_buffer: argument %u: a %s buffer for a %s "
                                 "kernel", index, wgs__object(buf)->ops->name,
                     wgs__object(k)->ops->name);
  return wgs__object(k)->ops->kernel_set_arg_buffer(k, index, buf);
}

int wgs_kernel_run(wgs_kernel_t *k, unsigned dims, const size_t *global, const size_t *local)
{
  if (!k || !global)
    return wgs__fail(WGS_EINVAL, "wgs_kernel_run: argument '%s' is NULL", k ? "global" : "k");
  if (dims < 1 || dims > 3)
    return wgs__fail(WGS_EINVAL, "wgs_kernel_run: dims is %u (expected 1, 2 or 3)", dims);
  const wgs__backend_ops *ops = wgs__object(k)->ops;
  return CALL_OR_UNSUPPORTED(ops, kernel_run, "wgs_kernel_run", "ordinary launches through wgsync",
                             k, dims, global, local);
}

/* ---- buffers --------------------------------------------------------------------------------- */

int wgs_buffer_create(wgs_device_t *dev, size_t bytes, wgs_buffer_t **out)
{
  WGS__REQUIRE(out);
  *out = NULL;
  WGS__REQUIRE(dev);
  if (bytes == 0)
    return wgs__fail(WGS_EINVAL, "wgs_buffer_create: bytes is 0 (expected at least 1)");
  return CALL_OR_UNSUPPORTED(dev_ops(dev), buffer_create, "wgs_buffer_create", "wgsync buffers",
                             dev, bytes, out);
}

void wgs_buffer_release(wgs_buffer_t *buf)
{
  if (buf)
    wgs__object(buf)->ops->buffer_release(buf);
}

/* The range within the buffer (offset + bytes may wrap: both are named as given). */
static int check_range(const wgs_buffer_t *buf, size_t offset, size_t bytes, const char *who)
{
  size_t size = ((const wgs__buffer_head *)(const void *)buf)->bytes;
  if (offset > size || bytes > size - offset)
    return wgs__fail(WGS_EINVAL, "%s: %zu bytes at offset %zu reach past the buffer of %zu bytes",
                     who, bytes, offset, size);
  return WGS_OK;
}

int wgs_buffer_write(wgs_buffer_t *buf, size_t offset, size_t bytes, const void *src)
{
  WGS__REQUIRE(buf);
  WGS__REQUIRE(src);
  int rc = check_range(buf, offset, bytes, "wgs_buffer_write");
  return rc != WGS_OK ? rc : wgs__object(buf)->ops->buffer_write(buf, offset, bytes, src);
}

int wgs_buffer_read(wgs_buffer_t *buf, size_t offset, size_t bytes, void *dst)
{
  WGS__REQUIRE(buf);
  WGS__REQUIRE(dst);
  int rc = check_range(buf, offset, bytes, "wgs_buffer_read");
  return rc != WGS_OK ? rc : wgs__object(buf)->ops->buffer_read(buf, offset, bytes, dst);
}

/* ---- states, launches, results ---------------------------------------------------------------- */

void wgs__state_head_init(wgs__state_head *h, const wgs__backend_ops *ops, wgs_device_t *dev,
                          uint32_t max_groups)
{
  h->ops = ops;
  h->dev = dev;
  h->max_groups = max_groups;
  memset(&h->log, 0, sizeof h->log);
  h->in_sync = 0;
  pthread_mutexattr_t ma;
  pthread_mutexattr_init(&ma);
  pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&h->lock, &ma);
  pthread_mutexattr_destroy(&ma);
}

void wgs__state_head_fini(wgs__state_head *h) { pthread_mutex_destroy(&h->lock); }

int wgs_state_create(wgs_device_t *dev, uint32_t max_groups, wgs_state_t **out)
{
  WGS__REQUIRE(out);
  *out = NULL;
  WGS__REQUIRE(dev);
  if (max_groups == 0 || max_groups > (1u << 24))
    return wgs__fail(WGS_EINVAL, "wgs_state_create: max_groups is %u (expected 1 to %u)",
                     max_groups, 1u << 24);
  return CALL_OR_UNSUPPORTED(dev_ops(dev), state_create, "wgs_state_create", "wgsync states", dev,
                             max_groups, out);
}

void wgs_state_release(wgs_state_t *st)
{
  if (st)
    wgs__state(st)->ops->state_release(st);
}

/* One device: the same handle, or on CUDA the same ordinal (one primary context); OpenCL
 * handles of one device have contexts of their own, whose objects do not mix. */
static int same_device(const wgs_device_t *a, const wgs_device_t *b)
{
  const wgs__device_head *ha = wgs__head(a), *hb = wgs__head(b);
  return a == b || (ha->ops == hb->ops && ha->info.backend == WGS_BACKEND_CUDA &&
                    ha->info.device_index == hb->info.device_index);
}

static int check_launch(wgs_state_t *st, wgs_kernel_t *k, const char *who)
{
  if (!st || !k)
    return wgs__fail(WGS_EINVAL, "%s: argument '%s' is NULL", who, st ? "k" : "st");
  if (!same_device(wgs__object(k)->dev, wgs__state(st)->dev))
    return wgs__fail(WGS_EINVAL, "%s: the kernel and the state belong to different devices", who);
  return WGS_OK;
}

int wgs_launch_async(wgs_state_t *st, wgs_kernel_t *k, const wgs_launch_config *cfg)
{
  int rc = check_launch(st, k, "wgs_launch_async");
  if (rc != WGS_OK)
    return rc;
  wgs__state_head *h = wgs__state(st);
  pthread_mutex_lock(&h->lock);
  rc = wgs__launch_via_locked(st, h->ops->launch, k, cfg);
  pthread_mutex_unlock(&h->lock);
  return rc;
}

/* The launch sequence (src/launch.h): the backend describes, the core plans, the backend
 * enqueues, the core records. A limit that the plan or the enqueue found is named against the
 * kernel's own maximum where the backend knows one. */
int wgs__launch_via_locked(wgs_state_t *st, const wgs__launch_via *via, void *what,
                           const wgs_launch_config *cfg_in)
{
  wgs_launch_config cfg;
  if (cfg_in)
    cfg = *cfg_in;
  else
    wgs_launch_config_init(&cfg);
  wgs__launch_ctx c;
  memset(&c, 0, sizeof c);
  int rc = via->describe(st, what, &cfg, &c);
  if (rc != WGS_OK)
    return rc;
  wgs__launch_plan plan;
  int captured = 0;
  if ((rc = wgs__plan_launch(&c, &cfg, &plan)) != WGS_OK) {
    /* (only the device maximum is checked before the launch: NVIDIA's OpenCL driver reports a
     * kernel maximum of 256 even for a one-line kernel, yet launches 1024-wide groups) */
    if (rc == WGS_ELIMIT && c.kernel_max && cfg.local_size > c.info->max_work_group_size) {
      char more[200];
      snprintf(more, sizeof more, " (kernel '%s' reports %zu)", c.kname ? c.kname : "", c.kernel_max);
      wgs__fail_append(more);
    }
    return rc;
  }
  if ((rc = via->enqueue(st, what, &cfg, &c, &plan, &captured)) != WGS_OK) {
    if (rc == WGS_ELIMIT && c.kernel_max && plan.local > c.kernel_max) {
      char more[200];
      snprintf(more, sizeof more, " (kernel '%s' reports a maximum work-group size of %zu)",
               c.kname ? c.kname : "", c.kernel_max);
      wgs__fail_append(more);
    }
    return rc;
  }
  wgs__log_plan(&wgs__state(st)->log, c.kname, &plan, &cfg, &c, captured);
  return WGS_OK;
}

/* One state's result (its lock held). A backend reads the words; the decoding is this. */
int wgs__state_result_locked(wgs_state_t *st, wgs_launch_result *res_out)
{
  wgs__state_head *h = wgs__state(st);
  wgs_launch_result res_local;
  wgs_launch_result *res = res_out ? res_out : &res_local;
  memset(res, 0, sizeof *res);
  res->protocol_us = res->kernel_us = -1;
  int rc = wgs__log_pending(&h->log, "wgs_state_result");
  if (rc != WGS_OK)
    return rc;
  uint32_t glob[GLOBAL_WORDS];
  double kernel_us = -1;
  if ((rc = h->ops->result_words(st, glob, &kernel_us)) != WGS_OK)
    return rc;
  res->kernel_us = kernel_us;
  wgs__launch_record lr = h->log.last;
  rc = wgs__log_result(&h->log, glob, res);
  if (glob[WGS_G_ERROR + WGS_ERR_CODE] != 0) { /* read: the next report may be written */
    int rc_clear = h->ops->clear_error(st);
    if (rc == WGS_OK)
      rc = rc_clear;
  }
  /* The latest launch's half (launches without epochs use half 0). */
  uint32_t mg = h->max_groups, hi = lr.epochs ? (glob[WGS_G_CTRL + WGS_CTRL_RESULT_EPOCH] & 1u) : 0u;
  size_t half = WGS_HALF(mg, hi);
  if (rc == WGS_OK && lr.checked && lr.entry_check && res->participants > 0) {
    /* the entry counts against the entry records (wgs__check_entries) */
    uint32_t n = res->participants;
    uint32_t *w = malloc((size_t)n * 3 * sizeof *w);
    if (!w)
      return wgs__fail(WGS_ENOMEM, "wgs_state_result: out of memory");
    rc = h->ops->read_words(st, half + WGS_OFF_ENTERED(mg), n, w);
    if (rc == WGS_OK)
      rc = h->ops->read_words(st, half + WGS_OFF_WITEMS(mg), n, w + n);
    if (rc == WGS_OK)
      rc = h->ops->read_words(st, WGS_SITE(mg, hi), n, w + 2 * (size_t)n);
    if (rc == WGS_OK)
      rc = wgs__check_entries(&lr, n, w, w + n, w + 2 * (size_t)n);
    free(w);
  }
  if (rc == WGS_OK && lr.timed) {
    size_t n = (size_t)lr.launched * 4;
    uint32_t *t = malloc(n * sizeof *t);
    if (!t)
      return wgs__fail(WGS_ENOMEM, "wgs_state_result: out of memory");
    rc = h->ops->read_words(st, half + WGS_OFF_TIME(mg), n, t);
    if (rc == WGS_OK) {
      double tick = wgs__head(h->dev)->stamp_tick_ns;
      res->protocol_us = wgs__protocol_us(t, lr.launched);
      if (res->protocol_us > 0 && tick > 0)
        res->protocol_us *= tick;
    }
    free(t);
  }
  return rc;
}

int wgs_state_result(wgs_state_t *st, wgs_launch_result *res)
{
  WGS__REQUIRE(st);
  wgs__state_head *h = wgs__state(st);
  pthread_mutex_lock(&h->lock);
  int rc = wgs__state_result_locked(st, res);
  pthread_mutex_unlock(&h->lock);
  return rc;
}

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int wgs__launch_sync_locked(wgs_state_t *st, const wgs__launch_via *via, void *what,
                            const wgs_launch_config *cfg, wgs_launch_result *res)
{
  wgs_launch_config c;
  if (cfg)
    c = *cfg;
  else
    wgs_launch_config_init(&c);
  double t0 = now_ms();
  wgs__state_head *h = wgs__state(st);
  h->in_sync = 1; /* (the backend may skip what the pair makes redundant: src/cuda/cuda_launch.cu) */
  int rc = wgs__launch_via_locked(st, via, what, &c);
  if (rc != WGS_OK) {
    h->in_sync = 0;
    if (res) {
      memset(res, 0, sizeof *res);
      res->protocol_us = res->kernel_us = -1;
    }
    return rc;
  }
  wgs_launch_result local;
  wgs_launch_result *r = res ? res : &local;
  rc = wgs__state_result_locked(st, r);
  h->in_sync = 0;
  if (c.time_kernel && r->kernel_us < 0) /* no timing events on this device: the wall clock */
    r->kernel_us = (now_ms() - t0) * 1e3;
  return rc;
}

int wgs_launch(wgs_state_t *st, wgs_kernel_t *k, const wgs_launch_config *cfg,
               wgs_launch_result *res)
{
  int rc = check_launch(st, k, "wgs_launch");
  if (rc != WGS_OK) {
    if (res) {
      memset(res, 0, sizeof *res);
      res->protocol_us = res->kernel_us = -1;
    }
    return rc;
  }
  wgs__state_head *h = wgs__state(st);
  pthread_mutex_lock(&h->lock);
  rc = wgs__launch_sync_locked(st, h->ops->launch, k, cfg, res);
  pthread_mutex_unlock(&h->lock);
  return rc;
}
