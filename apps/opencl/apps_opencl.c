/*
 * The applications on OpenCL: the host loop of kernels (multi-kernel, Sorensen et al. 2016 §5.2's original
 * form) and the persistent kernel launched through wgs_launch (portable: discovery; specialised:
 * WGS_DISCOVERY_FIXED with a hard-coded group count, §5.3). Kernels: apps/kernels/apps.cl.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../apps.h"
#include "../kernels/app_status.h"
#include "wgsync_opencl.h"

extern const char wgs__apps_source[]; /* app_priority.h + app_status.h + app_steps.h + apps.cl */

enum { K_INIT, K_STEP, K_STEP2, K_PERSIST, K_STEP3, K_MAX }; /* K_STEP3: mis_commit_k */
enum { NBUF = 8 };

struct app_cl {
  wgs_device_t *dev;
  const app_graph *g;
  app_id app;
  app_options o;
  size_t local;
  wgs_program_t *prog;
  wgs_program_t *pprog;     /* the persistent kernel's own build (NVIDIA: a register cap), or NULL */
  wgs_kernel_t *k[K_MAX];
  char popts[512];          /* the persistent kernel's build options (its checked probe's too) */
  wgs_program_t *probe_prog; /* checked build, for the probe of a user-given fixed count */
  wgs_kernel_t *probe_k;
  int probed;               /* the fixed count passed its checked probe */
  wgs_buffer_t *row, *col, *w, *flags, *sources;
  wgs_buffer_t *u[3]; /* uint arrays of n */
  wgs_buffer_t *f[3]; /* float arrays of n */
  wgs_state_t *st, *st_fixed; /* the persistent and the fixed form's: see app_cl_create */
  uint32_t nsrc;
  uint32_t *src_host;  /* bc's sources */
  char msg[256];       /* the last OpenCL call that failed */
  uint32_t discovered; /* participants of the last persistent run */
  uint32_t lb;         /* the balanced steps (app_balanced): built with APP_LB=1 */
  uint32_t *out_u32;
  float *out_f32;
};

static int cl_fail(app_cl *c, cl_int e, const char *call)
{
  snprintf(c->msg, sizeof c->msg, "%s failed: %s", call, wgs_opencl_error_name(e));
  return WGS_EBACKEND;
}

void app_cl_destroy(app_cl *c)
{
  if (!c)
    return;
  for (int i = 0; i < K_MAX; ++i)
    wgs_kernel_release(c->k[i]);
  wgs_program_release(c->prog);
  wgs_program_release(c->pprog);
  wgs_kernel_release(c->probe_k);
  wgs_program_release(c->probe_prog);
  wgs_buffer_t *bufs[] = {c->row, c->col, c->w, c->flags, c->sources, c->u[0], c->u[1], c->u[2],
                          c->f[0], c->f[1], c->f[2]};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i)
    wgs_buffer_release(bufs[i]);
  wgs_state_release(c->st);
  wgs_state_release(c->st_fixed);
  free(c->src_host);
  free(c->out_u32);
  free(c->out_f32);
  free(c);
}

static int buf(app_cl *c, size_t bytes, const void *init, wgs_buffer_t **out)
{
  int rc = wgs_buffer_create(c->dev, bytes ? bytes : 4, out);
  if (!rc && init)
    rc = wgs_buffer_write(*out, 0, bytes, init);
  return rc;
}

/* Arguments by kind: 'b' buffer, 'u' uint value. */
static int set_args(wgs_kernel_t *k, unsigned first, const char *kinds, ...)
{
  va_list ap;
  va_start(ap, kinds);
  int rc = 0;
  for (unsigned i = 0; kinds[i] && !rc; ++i) {
    if (kinds[i] == 'b')
      rc = wgs_kernel_set_arg_buffer(k, first + i, va_arg(ap, wgs_buffer_t *));
    else {
      cl_uint v = va_arg(ap, unsigned);
      rc = wgs_kernel_set_arg(k, first + i, sizeof v, &v);
    }
  }
  va_end(ap);
  return rc;
}

static const char *kernel_names[APP_COUNT][K_MAX] = {
    [APP_BFS] = {"bfs_init_k", "bfs_step_k", NULL, "bfs_persistent"},
    [APP_SSSP] = {"sssp_init_k", "sssp_step_k", NULL, "sssp_persistent"},
    [APP_MIS] = {"mis_init_k", "mis_select_k", "mis_exclude_k", "mis_persistent", "mis_commit_k"},
    [APP_COLOR] = {"color_init_k", "color_step_k", "color_commit_k", "color_persistent"},
    [APP_BC] = {"bc_init_k", "bc_forward_k", "bc_backward_k", "bc_persistent"},
};

int app_cl_create(wgs_device_t *dev, const app_graph *g, app_id a, const app_options *o,
                  app_cl **out, char *err, size_t errlen)
{
  *out = NULL;
  if (a >= APP_COUNT) {
    snprintf(err, errlen, "unknown application %d", (int)a);
    return WGS_EINVAL;
  }
  app_cl *c = calloc(1, sizeof *c);
  if (!c) {
    snprintf(err, errlen, "out of memory");
    return WGS_ENOMEM;
  }
  c->dev = dev;
  c->g = g;
  c->app = a;
  c->o = *o;
  wgs_device_info info;
  int rc = wgs_device_get_info(dev, &info);
  if (rc) {
    app_cl_destroy(c);
    return app_fail(rc, err, errlen, "device info");
  }
  /* --balance auto on a CPU: per node. A CPU work-group runs its work-items in a loop, so one
   * long node does not hold up a SIMT group, and the balanced steps' search cost more (PoCL, 2
   * cores: bfs and sssp on rmat:12 1.8x slower per run) */
  if (info.is_cpu && c->o.balance == APP_BALANCE_AUTO)
    c->o.balance = APP_BALANCE_NODES;
  c->lb = (uint32_t)app_balanced(g, a, &c->o);
  c->local = o->local_size ? o->local_size : 256;
  if (c->local > info.max_work_group_size)
    c->local = info.max_work_group_size;
  if (!(c->out_u32 = malloc((size_t)g->n * 4)) || !(c->out_f32 = malloc((size_t)g->n * 4))) {
    app_cl_destroy(c);
    snprintf(err, errlen, "out of memory");
    return WGS_ENOMEM;
  }
  /* The persistent kernel on NVIDIA: at most 32 registers, as CUDA's persistent kernels
   * (PERSISTENT_BOUNDS in apps_cuda.cu), so that 8 groups of 256 run on an SM instead of 4: on
   * the H200 every persistent run 1.12x faster geomean (colour on kron:18 52.0 -> 33.6 ms, mis
   * 0.72 -> 0.53), the host loop's kernels 0.99x with the same cap, so they keep the
   * compiler's choice (H200). WGSYNC_APPS_OPTIONS adds
   * build options to both builds (measurement). */
  const char *extra = getenv("WGSYNC_APPS_OPTIONS");
  int nv = strstr(info.platform_name, "NVIDIA") != NULL;
  char opts[512];
  snprintf(opts, sizeof opts, "%s %s", c->lb ? "-D APP_LB=1" : "", extra ? extra : "");
  snprintf(c->popts, sizeof c->popts, "%s%s %s", c->lb ? "-D APP_LB=1" : "",
           nv ? " -cl-nv-maxrregcount=32" : "", extra ? extra : "");
  if ((rc = wgs_program_build(dev, wgs__apps_source, opts, o->checked ? WGS_BUILD_CHECKED : 0,
                              &c->prog)) ||
      (nv && (rc = wgs_program_build(dev, wgs__apps_source, c->popts,
                                     o->checked ? WGS_BUILD_CHECKED : 0, &c->pprog)))) {
    app_cl_destroy(c);
    return app_fail(rc, err, errlen, "building the applications' kernels");
  }
  for (int i = 0; i < K_MAX; ++i)
    if (kernel_names[a][i] &&
        (rc = wgs_kernel_create(i == K_PERSIST && c->pprog ? c->pprog : c->prog,
                                kernel_names[a][i], &c->k[i]))) {
      app_cl_destroy(c);
      return app_fail(rc, err, errlen, kernel_names[a][i]);
    }
  size_t n4 = (size_t)g->n * 4;
  uint32_t zeros[4] = {0, 0, 0, 0};
  if ((rc = buf(c, ((size_t)g->n + 1) * 4, g->row, &c->row)) ||
      (rc = buf(c, (size_t)g->m * 4, g->col, &c->col)) ||
      (rc = buf(c, (size_t)g->m * 4, g->w, &c->w)) || (rc = buf(c, 16, zeros, &c->flags))) {
    app_cl_destroy(c);
    return app_fail(rc, err, errlen, "uploading the graph");
  }
  int nu = a == APP_SSSP ? 3 : 1, nf = a == APP_BC ? 3 : 0;
  for (int i = 0; i < nu && !rc; ++i)
    rc = buf(c, n4, NULL, &c->u[i]);
  for (int i = 0; i < nf && !rc; ++i)
    rc = buf(c, n4, NULL, &c->f[i]);
  if (!rc && a == APP_BC) {
    uint32_t k = o->bc_sources ? o->bc_sources : 4;
    if (!(c->src_host = malloc((size_t)k * 4)))
      rc = WGS_ENOMEM;
    else {
      c->nsrc = app_bc_sources(g, k, c->src_host);
      rc = buf(c, (size_t)c->nsrc * 4, c->src_host, &c->sources);
    }
  }
  if (rc) {
    app_cl_destroy(c);
    return app_fail(rc, err, errlen, "allocating the application's arrays");
  }
  uint32_t cap = wgs_default_groups(dev, c->local);
  if (o->fixed_groups > cap)
    cap = o->fixed_groups;
  /* A state per form: a launch whose configuration differs from its state's last one first
   * writes the config words (a transfer before the kernel), and the forms alternate run by run;
   * each form measured as a program repeating its launch would run it. */
  if ((rc = wgs_state_create(dev, cap, &c->st)) || (rc = wgs_state_create(dev, cap, &c->st_fixed))) {
    app_cl_destroy(c);
    return app_fail(rc, err, errlen, "wgsync state");
  }
  *out = c;
  return 0;
}

/* ---- multi-kernel form ------------------------------------------------------------------- */

static int enqueue(app_cl *c, int which, app_run *r)
{
  size_t global = ((size_t)c->g->n + c->local - 1) / c->local * c->local;
  cl_int e = clEnqueueNDRangeKernel(wgs_device_opencl_queue(c->dev), wgs_kernel_opencl(c->k[which]),
                                    1, NULL, &global, &c->local, 0, NULL, NULL);
  r->launches++;
  r->groups = (uint32_t)(global / c->local);
  return e == CL_SUCCESS ? 0 : cl_fail(c, e, "clEnqueueNDRangeKernel");
}

static const uint32_t zero_word = 0;
#define TRY(x)                                                                                \
  do {                                                                                        \
    if (!rc)                                                                                  \
      rc = (x);                                                                               \
  } while (0)

static int flag_clear(app_cl *c)
{
  cl_int e = clEnqueueWriteBuffer(wgs_device_opencl_queue(c->dev), wgs_buffer_opencl(c->flags),
                                  CL_FALSE, 0, 4, &zero_word, 0, NULL, NULL);
  return e == CL_SUCCESS ? 0 : cl_fail(c, e, "clEnqueueWriteBuffer(stop flag)");
}

/* The host loop's read-back: blocking, so it also waits for the step. */
static int flag_read(app_cl *c, uint32_t *v)
{
  cl_int e = clEnqueueReadBuffer(wgs_device_opencl_queue(c->dev), wgs_buffer_opencl(c->flags),
                                 CL_TRUE, 0, 4, v, 0, NULL, NULL);
  return e == CL_SUCCESS ? 0 : cl_fail(c, e, "clEnqueueReadBuffer(stop flag)");
}

/* One flagged step: clear the flag, launch, read it back. */
static int flagged(app_cl *c, int which, app_run *r, uint32_t *go)
{
  int rc = flag_clear(c);
  TRY(enqueue(c, which, r));
  TRY(flag_read(c, go));
  r->steps++;
  return rc;
}

static int run_multi(app_cl *c, app_run *r)
{
  unsigned n = c->g->n, src = c->o.src;
  wgs_buffer_t *u0 = c->u[0], *u1 = c->u[1], *u2 = c->u[2], *row = c->row, *col = c->col;
  wgs_kernel_t **k = c->k;
  uint32_t go = 1;
  int rc = 0;
  switch (c->app) {
  case APP_BFS:
    TRY(set_args(k[K_INIT], 0, "ubu", n, u0, src));
    TRY(enqueue(c, K_INIT, r));
    for (unsigned d = 0; !rc && go; ++d) {
      TRY(set_args(k[K_STEP], 0, "bbubub", row, col, n, u0, d, c->flags));
      TRY(flagged(c, K_STEP, r, &go));
    }
    break;
  case APP_SSSP:
    TRY(set_args(k[K_INIT], 0, "ubbbu", n, u0, u1, u2, src));
    TRY(enqueue(c, K_INIT, r));
    for (unsigned it = 0; !rc && go; ++it) {
      TRY(set_args(k[K_STEP], 0, "bbbubbbbu", row, col, c->w, n, u0, it & 1 ? u2 : u1,
                   it & 1 ? u1 : u2, c->flags, it));
      TRY(flagged(c, K_STEP, r, &go));
    }
    break;
  case APP_MIS:
    TRY(set_args(k[K_INIT], 0, "ub", n, u0));
    TRY(enqueue(c, K_INIT, r));
    TRY(set_args(k[K_STEP], 0, "bbub", row, col, n, u0));
    TRY(set_args(k[K_STEP2], 0, "bbubb", row, col, n, u0, c->flags));
    TRY(set_args(k[K_STEP3], 0, "ubb", n, u0, c->flags));
    while (!rc && go) {
      TRY(enqueue(c, K_STEP, r));
      if (c->lb) { /* balanced: mark, commit (its flag stops the loop), exclude */
        TRY(flagged(c, K_STEP3, r, &go));
        TRY(enqueue(c, K_STEP2, r));
      } else {
        TRY(flagged(c, K_STEP2, r, &go));
      }
    }
    break;
  case APP_COLOR:
    TRY(set_args(k[K_INIT], 0, "ub", n, u0));
    TRY(enqueue(c, K_INIT, r));
    for (unsigned it = 0; !rc && go; ++it) {
      TRY(set_args(k[K_STEP], 0, "bbubub", row, col, n, u0, it, c->flags));
      if (c->lb) { /* balanced: the mark phase, then the commit raises the flag */
        TRY(enqueue(c, K_STEP, r));
        TRY(set_args(k[K_STEP2], 0, "ubub", n, u0, it, c->flags));
        TRY(flagged(c, K_STEP2, r, &go));
      } else {
        TRY(flagged(c, K_STEP, r, &go));
      }
    }
    break;
  case APP_BC: {
    float zf = 0.0f; /* bc = 0: one fill command (the persistent form zeroes it in-kernel) */
    cl_int e = clEnqueueFillBuffer(wgs_device_opencl_queue(c->dev), wgs_buffer_opencl(c->f[2]),
                                   &zf, sizeof zf, 0, (size_t)n * 4, 0, NULL, NULL);
    if (e != CL_SUCCESS)
      rc = cl_fail(c, e, "clEnqueueFillBuffer(bc)");
    for (uint32_t s = 0; s < c->nsrc && !rc; ++s) {
      TRY(set_args(k[K_INIT], 0, "ubbbu", n, u0, c->f[0], c->f[1], c->src_host[s]));
      TRY(enqueue(c, K_INIT, r));
      unsigned d = 0;
      for (go = 1; !rc && go; ++d) {
        TRY(set_args(k[K_STEP], 0, "bbubbub", row, col, n, u0, c->f[0], d, c->flags));
        TRY(flagged(c, K_STEP, r, &go));
      }
      for (unsigned lv = d - 1; !rc && lv > 1; --lv) { /* as bc_persistent */
        TRY(set_args(k[K_STEP2], 0, "bbubbbbu", row, col, n, u0, c->f[0], c->f[1], c->f[2],
                     lv - 1));
        TRY(enqueue(c, K_STEP2, r));
      }
    }
    break;
  }
  default:
    rc = WGS_EINVAL;
  }
  if (!rc) {
    cl_int e = clFinish(wgs_device_opencl_queue(c->dev));
    if (e != CL_SUCCESS)
      rc = cl_fail(c, e, "clFinish");
  }
  return rc;
}

/* ---- persistent form ----------------------------------------------------------------------- */

static int persistent_args(app_cl *c, wgs_kernel_t *k)
{
  const app_graph *g = c->g;
  unsigned n = g->n, src = c->o.src;
  wgs_buffer_t *u0 = c->u[0], *u1 = c->u[1], *u2 = c->u[2];
  switch (c->app) {
  case APP_BFS:
    return set_args(k, 1, "bbubub", c->row, c->col, n, u0, src, c->flags);
  case APP_SSSP:
    return set_args(k, 1, "bbbubbbub", c->row, c->col, c->w, n, u0, u1, u2, src, c->flags);
  case APP_MIS:
  case APP_COLOR:
    return set_args(k, 1, "bbubb", c->row, c->col, n, u0, c->flags);
  case APP_BC:
    return set_args(k, 1, "bbubbbbbub", c->row, c->col, n, u0, c->f[0], c->f[1], c->f[2],
                    c->sources, c->nsrc, c->flags);
  default:
    return WGS_EINVAL;
  }
}

/*
 * A fixed count the user gave may exceed what the device runs at once, and the application's
 * kernels are unchecked by default: the grid barrier would spin forever. The first fixed run
 * is therefore preceded by the same run of a checked build of the kernel (bounded spins), so
 * that too many groups is WGS_EDEADLOCK with the groups that never arrived, as in
 * `wgsync latency`. The probe writes the same arrays the real run then rewrites.
 */
static int probe_fixed(app_cl *c, const wgs_launch_config *cfg, char *err, size_t errlen)
{
  int rc = 0;
  char opts[600];
  snprintf(opts, sizeof opts, "-D WGS_CHECK_MISUSE=0 %s", c->popts); /* the kernel's occupancy */
  if (!c->probe_prog &&
      (rc = wgs_program_build(c->dev, wgs__apps_source, opts, WGS_BUILD_CHECKED, &c->probe_prog)))
    return app_fail(rc, err, errlen, "building the checked probe of --fixed-groups");
  if (!c->probe_k && (rc = wgs_kernel_create(c->probe_prog, kernel_names[c->app][K_PERSIST],
                                             &c->probe_k)))
    return app_fail(rc, err, errlen, "the checked probe's kernel");
  if ((rc = persistent_args(c, c->probe_k)))
    return app_fail(rc, err, errlen, "setting the checked probe's arguments");
  wgs_launch_result res;
  rc = wgs_launch(c->st_fixed, c->probe_k, cfg, &res);
  if (rc == WGS_EDEADLOCK) {
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "--fixed-groups %u: more groups than this device runs at once for "
             "this kernel (a grid barrier over them would never complete; discovery found %u). "
             "Checked probe: %s", cfg->groups, c->discovered, wgs_last_error());
    snprintf(err, errlen, "%s", tmp);
    return rc;
  }
  if (rc)
    return app_fail(rc, err, errlen, "checked probe of --fixed-groups");
  c->probed = 1;
  return 0;
}

static int run_persistent(app_cl *c, int fixed, app_run *r, char *err, size_t errlen)
{
  wgs_kernel_t *k = c->k[K_PERSIST];
  int rc = persistent_args(c, k);
  if (rc)
    return app_fail(rc, err, errlen, "setting the persistent kernel's arguments");
  wgs_launch_config cfg;
  wgs_launch_config_init(&cfg);
  cfg.local_size = c->local;
  cfg.lock = c->o.lock;
  cfg.close_wait_us = c->o.close_wait_us;
  cfg.timeout_ms = c->o.timeout_ms;
  cfg.barrier = c->o.barrier;
  /* no more groups than the step's work items fill (app_groups); discovery then finds that
   * many or fewer */
  cfg.groups = app_groups(c->g, c->app, &c->o, c->local, wgs_default_groups(c->dev, c->local));
  if (fixed) {
    cfg.discovery = WGS_DISCOVERY_FIXED;
    cfg.groups = c->o.fixed_groups ? c->o.fixed_groups : c->discovered;
    /* A count discovery found is occupant by construction, and so is one no larger (a
     * discovery run comes first: app_cl_run); only a larger count the user gave is probed. A
     * probe alone could refuse too much: a checked build can hold fewer groups at once than
     * the unchecked kernel (more registers; seen with wgsync's own probes on the H100). */
    if (c->o.fixed_groups > c->discovered && !c->o.checked && !c->probed &&
        (rc = probe_fixed(c, &cfg, err, errlen)))
      return rc;
  }
  wgs_launch_result res;
  double t0 = app_now_ms();
  rc = wgs_launch(fixed ? c->st_fixed : c->st, k, &cfg, &res);
  r->ms = app_now_ms() - t0;
  if (rc)
    return app_fail(rc, err, errlen, fixed ? "fixed-occupancy launch" : "persistent launch");
  r->launches = 1;
  r->groups = res.participants;
  if (!fixed)
    c->discovered = res.participants;
  uint32_t trips = 0;
  if ((rc = wgs_buffer_read(c->flags, 12, 4, &trips)))
    return app_fail(rc, err, errlen, "reading the step count");
  r->steps = trips;
  return 0;
}

int app_cl_run(app_cl *c, app_form f, const app_reference *ref, app_run *r, char *err,
               size_t errlen)
{
  memset(r, 0, sizeof *r);
  int rc;
  if (f == APP_FORM_MULTI) {
    double t0 = app_now_ms();
    c->msg[0] = 0;
    rc = run_multi(c, r);
    r->ms = app_now_ms() - t0;
    if (rc) {
      snprintf(err, errlen, "multi-kernel host loop: %s",
               c->msg[0] ? c->msg : wgs_last_error()[0] ? wgs_last_error() : wgs_strerror(rc));
      return rc;
    }
  } else if (f == APP_FORM_PERSISTENT || f == APP_FORM_FIXED) {
    if (f == APP_FORM_FIXED && !c->discovered) {
      /* the hard-coded count is what discovery finds for this kernel (a count the user gave is
       * checked against it): run it once first */
      app_run warm;
      memset(&warm, 0, sizeof warm);
      if ((rc = run_persistent(c, 0, &warm, err, errlen)))
        return rc;
    }
    if ((rc = run_persistent(c, f == APP_FORM_FIXED, r, err, errlen)))
      return rc;
  } else {
    snprintf(err, errlen, "form '%s' exists only on CUDA", app_form_name(f));
    return WGS_EUNSUPPORTED;
  }
  wgs_buffer_t *res = c->app == APP_BC ? c->f[2] : c->u[0];
  if ((rc = wgs_buffer_read(res, 0, (size_t)c->g->n * 4,
                            c->app == APP_BC ? (void *)c->out_f32 : (void *)c->out_u32)))
    return app_fail(rc, err, errlen, "reading the result");
  if ((rc = app_verify(c->g, ref, c->out_u32, c->out_f32, r->summary, sizeof r->summary, err, errlen))) {
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s (%s form): wrong result: %s", app_name(c->app), app_form_name(f), err);
    snprintf(err, errlen, "%s", tmp);
    return rc;
  }
  return 0;
}
