/*
 * The applications on Vulkan: bfs, whose kernels are GLSL (apps/vulkan/bfs.comp, compiled to
 * SPIR-V at build time), in the OpenCL forms: the host loop (a launch, its submit and wait, and
 * a read of the stop flag per level), the persistent kernel (discovery, every level inside one
 * launch) and the fixed form (discovery's count hard-coded, Sorensen et al. 2016 §5.3). The other
 * applications' steps exist as C for OpenCL C and CUDA only (apps/kernels/app_steps.h): on a
 * Vulkan device they are refused by name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../apps.h"

/* bfs.comp's three kernels, unchecked and checked (glslangValidator --vn) */
#include "app_vk_bfs_0_0.h"
#include "app_vk_bfs_0_1.h"
#include "app_vk_bfs_1_0.h"
#include "app_vk_bfs_1_1.h"
#include "app_vk_bfs_2_0.h"
#include "app_vk_bfs_2_1.h"

enum { K_INIT, K_STEP, K_PERSIST, K_MAX };
enum { ARG_ROW = 1, ARG_COL, ARG_LEVEL, ARG_FLAGS, ARG_N, ARG_SRC, ARG_DEPTH };

struct app_vk {
  wgs_device_t *dev;
  const app_graph *g;
  app_options o;
  size_t local;
  wgs_program_t *prog[K_MAX];
  wgs_kernel_t *k[K_MAX];
  wgs_buffer_t *row, *col, *level, *flags;
  wgs_state_t *st;
  uint32_t capacity;   /* the state's: the host loop's widest launch, or what runs at once */
  uint32_t discovered; /* participants of the last persistent run */
  uint32_t *out;
};

void app_vk_destroy(app_vk *c)
{
  if (!c)
    return;
  for (int i = 0; i < K_MAX; ++i) {
    wgs_kernel_release(c->k[i]);
    wgs_program_release(c->prog[i]);
  }
  wgs_buffer_t *bufs[] = {c->row, c->col, c->level, c->flags};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; ++i)
    wgs_buffer_release(bufs[i]);
  wgs_state_release(c->st);
  free(c->out);
  free(c);
}

static int upload(app_vk *c, size_t bytes, const void *init, wgs_buffer_t **out)
{
  int rc = wgs_buffer_create(c->dev, bytes ? bytes : 4, out);
  if (!rc && init && bytes)
    rc = wgs_buffer_write(*out, 0, bytes, init);
  return rc;
}

static int set_u32(wgs_kernel_t *k, unsigned i, uint32_t v) { return wgs_kernel_set_arg(k, i, 4, &v); }

int app_vk_create(wgs_device_t *dev, const app_graph *g, app_id a, const app_options *o,
                  app_vk **out, char *err, size_t errlen)
{
  *out = NULL;
  if (a != APP_BFS) {
    snprintf(err, errlen, "%s has OpenCL C and CUDA kernels only; on a Vulkan device wgsync runs "
                          "bfs (apps/vulkan/bfs.comp)", app_name(a));
    return WGS_EUNSUPPORTED;
  }
  if (o->src >= g->n) {
    snprintf(err, errlen, "source node %u: the graph has %u nodes", o->src, g->n);
    return WGS_EINVAL;
  }
  app_vk *c = calloc(1, sizeof *c);
  if (!c)
    return app_fail(WGS_ENOMEM, err, errlen, "out of memory");
  c->dev = dev;
  c->g = g;
  c->o = *o;
  wgs_device_info in;
  int rc = wgs_device_get_info(dev, &in);
  size_t lmax = in.max_work_group_size;
  c->local = o->local_size ? o->local_size : (lmax < 256 ? lmax : 256);
  static const struct {
    const uint32_t *w;
    size_t bytes;
  } spv[K_MAX][2] = {
      {{app_vk_bfs_0_0, sizeof app_vk_bfs_0_0}, {app_vk_bfs_0_1, sizeof app_vk_bfs_0_1}},
      {{app_vk_bfs_1_0, sizeof app_vk_bfs_1_0}, {app_vk_bfs_1_1, sizeof app_vk_bfs_1_1}},
      {{app_vk_bfs_2_0, sizeof app_vk_bfs_2_0}, {app_vk_bfs_2_1, sizeof app_vk_bfs_2_1}}};
  int ck = o->checked ? 1 : 0;
  for (int i = 0; i < K_MAX && !rc; ++i) {
    rc = wgs_program_build_il(dev, spv[i][ck].w, spv[i][ck].bytes / 4, ck ? "-DWGS_CHECKED=1" : "",
                              &c->prog[i]);
    if (!rc)
      rc = wgs_kernel_create(c->prog[i], "main", &c->k[i]);
  }
  if (rc) {
    app_vk_destroy(c);
    return app_fail(rc, err, errlen, "building bfs's Vulkan kernels");
  }
  uint32_t zero[4] = {0, 0, 0, 0};
  if (!(c->out = malloc((size_t)g->n * 4)) ||
      (rc = upload(c, ((size_t)g->n + 1) * 4, g->row, &c->row)) ||
      (rc = upload(c, (size_t)g->m * 4, g->col, &c->col)) ||
      (rc = upload(c, (size_t)g->n * 4, NULL, &c->level)) ||
      (rc = upload(c, sizeof zero, zero, &c->flags))) {
    app_vk_destroy(c);
    return app_fail(rc ? rc : WGS_ENOMEM, err, errlen, "uploading the graph");
  }
  /* the host loop launches a work-item per node; the persistent forms no more than run at once */
  uint32_t wide = (uint32_t)((g->n + c->local - 1) / c->local);
  uint32_t fits = wgs_default_groups(dev, c->local);
  c->capacity = wide > fits ? wide : fits;
  if ((rc = wgs_state_create(dev, c->capacity, &c->st))) {
    app_vk_destroy(c);
    return app_fail(rc, err, errlen, "the protocol state");
  }
  for (int i = 0; i < K_MAX && !rc; ++i) {
    wgs_kernel_t *k = c->k[i];
    rc = wgs_kernel_set_arg_buffer(k, ARG_ROW, c->row);
    if (!rc) rc = wgs_kernel_set_arg_buffer(k, ARG_COL, c->col);
    if (!rc) rc = wgs_kernel_set_arg_buffer(k, ARG_LEVEL, c->level);
    if (!rc) rc = wgs_kernel_set_arg_buffer(k, ARG_FLAGS, c->flags);
    if (!rc) rc = set_u32(k, ARG_N, g->n);
    if (!rc) rc = set_u32(k, ARG_SRC, o->src);
    if (!rc) rc = set_u32(k, ARG_DEPTH, 0);
  }
  if (rc) {
    app_vk_destroy(c);
    return app_fail(rc, err, errlen, "setting bfs's arguments");
  }
  *out = c;
  return 0;
}

static void config(const app_vk *c, wgs_launch_config *cfg)
{
  wgs_launch_config_init(cfg);
  cfg->local_size = c->local;
  cfg->lock = c->o.lock;
  cfg->close_wait_us = c->o.close_wait_us;
  cfg->timeout_ms = c->o.timeout_ms;
  if (c->o.barrier != WGS_BARRIER_DEFAULT)
    cfg->barrier = c->o.barrier;
}

/* The host loop: the init kernel, then one launch per level until a level changes nothing. The
 * host-loop kernels have no grid barrier: every launched group takes part (WGS_DISCOVERY_ALL). */
static int run_multi(app_vk *c, app_run *r, char *err, size_t errlen)
{
  wgs_launch_config cfg;
  config(c, &cfg);
  cfg.discovery = WGS_DISCOVERY_ALL;
  cfg.groups = (uint32_t)((c->g->n + c->local - 1) / c->local);
  wgs_launch_result res;
  int rc = wgs_launch(c->st, c->k[K_INIT], &cfg, &res);
  if (rc)
    return app_fail(rc, err, errlen, "the init kernel");
  r->launches = 1;
  uint32_t go = 1, zero = 0;
  for (uint32_t d = 0; go; ++d) {
    if ((rc = wgs_buffer_write(c->flags, 0, 4, &zero)) || (rc = set_u32(c->k[K_STEP], ARG_DEPTH, d)) ||
        (rc = wgs_launch(c->st, c->k[K_STEP], &cfg, &res)) || (rc = wgs_buffer_read(c->flags, 0, 4, &go)))
      return app_fail(rc, err, errlen, "a level of the host loop");
    r->launches++;
    r->steps++;
  }
  r->groups = cfg.groups;
  return 0;
}

static int run_persistent(app_vk *c, int fixed, app_run *r, char *err, size_t errlen)
{
  wgs_launch_config cfg;
  config(c, &cfg);
  uint32_t fits = wgs_default_groups(c->dev, c->local);
  cfg.groups = app_groups(c->g, APP_BFS, &c->o, c->local, fits);
  if (fixed) {
    cfg.discovery = WGS_DISCOVERY_FIXED;
    cfg.groups = c->o.fixed_groups ? c->o.fixed_groups : c->discovered;
  }
  wgs_launch_result res;
  int rc = wgs_launch(c->st, c->k[K_PERSIST], &cfg, &res);
  if (rc)
    return app_fail(rc, err, errlen, fixed ? "fixed-occupancy launch" : "persistent launch");
  r->launches = 1;
  r->groups = res.participants;
  if (!fixed)
    c->discovered = res.participants;
  if ((rc = wgs_buffer_read(c->flags, 12, 4, &r->steps)))
    return app_fail(rc, err, errlen, "reading the step count");
  return 0;
}

int app_vk_run(app_vk *c, app_form f, const app_reference *ref, app_run *r, char *err, size_t errlen)
{
  memset(r, 0, sizeof *r);
  int rc;
  double t0 = app_now_ms();
  if (f == APP_FORM_MULTI) {
    rc = run_multi(c, r, err, errlen);
  } else if (f == APP_FORM_PERSISTENT || f == APP_FORM_FIXED) {
    if (f == APP_FORM_FIXED && !c->discovered && !c->o.fixed_groups) {
      app_run warm; /* the hard-coded count is what discovery finds: run it once first */
      if ((rc = run_persistent(c, 0, &warm, err, errlen)))
        return rc;
      t0 = app_now_ms();
    }
    rc = run_persistent(c, f == APP_FORM_FIXED, r, err, errlen);
  } else {
    snprintf(err, errlen, "form '%s' exists only on CUDA", app_form_name(f));
    return WGS_EUNSUPPORTED;
  }
  r->ms = app_now_ms() - t0;
  if (rc)
    return rc;
  if ((rc = wgs_buffer_read(c->level, 0, (size_t)c->g->n * 4, c->out)))
    return app_fail(rc, err, errlen, "reading the result");
  if ((rc = app_verify(c->g, ref, c->out, NULL, r->summary, sizeof r->summary, err, errlen))) {
    char tmp[512];
    snprintf(tmp, sizeof tmp, "bfs (%s form): wrong result: %s", app_form_name(f), err);
    snprintf(err, errlen, "%s", tmp);
    return rc;
  }
  return 0;
}
