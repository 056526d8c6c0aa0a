/* Backend-neutral parts of the applications: names, options, CPU references and checks. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apps.h"
#include "kernels/app_status.h"

static const char *const app_names[APP_COUNT] = {"bfs", "sssp", "mis", "color", "bc"};
static const char *const form_names[APP_FORM_COUNT] = {"multi", "persistent", "fixed", "gridsync",
                                                       "graph"};

double app_now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int app_fail(int rc, char *err, size_t errlen, const char *what)
{
  snprintf(err, errlen, "%s: %s", what, wgs_last_error()[0] ? wgs_last_error() : wgs_strerror(rc));
  return rc;
}

const char *app_name(app_id a) { return a < APP_COUNT ? app_names[a] : "?"; }
const char *app_form_name(app_form f) { return f < APP_FORM_COUNT ? form_names[f] : "?"; }
int app_needs_symmetric(app_id a) { return a == APP_MIS || a == APP_COLOR || a == APP_BC; }

int app_parse(const char *s, app_id *out)
{
  for (int i = 0; i < APP_COUNT; ++i)
    if (!strcmp(s, app_names[i])) {
      *out = (app_id)i;
      return 0;
    }
  return WGS_EINVAL;
}

int app_form_parse(const char *s, app_form *out)
{
  for (int i = 0; i < APP_FORM_COUNT; ++i)
    if (!strcmp(s, form_names[i])) {
      *out = (app_form)i;
      return 0;
    }
  return WGS_EINVAL;
}

void app_options_init(app_options *o)
{
  memset(o, 0, sizeof *o);
  o->bc_sources = 4;
  o->lock = WGS_LOCK_FREE;
  o->close_wait_us = -1;
}

int app_balanced(const app_graph *g, app_id a, const app_options *o)
{
  (void)a; /* every app has balanced steps */
  if (o->balance != APP_BALANCE_AUTO)
    return o->balance == APP_BALANCE_EDGES;
  uint32_t maxdeg = 0;
  for (uint32_t v = 0; v < g->n; ++v)
    if (g->row[v + 1] - g->row[v] > maxdeg)
      maxdeg = g->row[v + 1] - g->row[v];
  return maxdeg >= 64u && (uint64_t)maxdeg * g->n >= (uint64_t)APP_SKEW * g->m;
}

uint32_t app_work_items(const app_graph *g, app_id a, const app_options *o)
{
  if (!app_balanced(g, a, o))
    return g->n;
  uint32_t chunks = (uint32_t)(((uint64_t)g->n + g->m + APP_LB_CHUNK - 1u) / APP_LB_CHUNK);
  /* mis and colour balance their mark phase (and mis its exclude): their commit still takes a
   * node per work item, so the persistent loop needs the larger of the two (mis on rmat:16 had
   * 136 groups for 65,536 nodes: 0.28 ms against 0.25 for the CUDA graph's 256-group launches) */
  if (a == APP_MIS || a == APP_COLOR)
    return chunks > g->n ? chunks : g->n;
  return chunks;
}

uint32_t app_groups(const app_graph *g, app_id a, const app_options *o, size_t local, uint32_t max)
{
  uint64_t need = ((uint64_t)app_work_items(g, a, o) + local - 1) / local;
  if (o->all_groups || need >= max)
    return max;
  return need ? (uint32_t)need : 1u;
}

void app_reference_free(app_reference *r)
{
  free(r->u32);
  free(r->bc);
  free(r->sources);
  memset(r, 0, sizeof *r);
}

int app_reference_make(const app_graph *g, app_id a, const app_options *o, app_reference *r,
                       char *err, size_t errlen)
{
  memset(r, 0, sizeof *r);
  r->app = a;
  r->src = o->src;
  if (g->n == 0) {
    snprintf(err, errlen, "graph '%s' has no nodes", g->name);
    return WGS_EINVAL;
  }
  if ((a == APP_BFS || a == APP_SSSP) && o->src >= g->n) {
    snprintf(err, errlen, "source node %u: the graph has nodes 0..%u", o->src, g->n - 1);
    return WGS_EINVAL;
  }
  if (app_needs_symmetric(a) && !g->symmetric) {
    snprintf(err, errlen, "%s needs an undirected graph; '%s' is directed (symmetrise it first)",
             app_name(a), g->name);
    return WGS_EINVAL;
  }
  switch (a) {
  case APP_BFS:
  case APP_SSSP:
    if (!(r->u32 = malloc((size_t)g->n * sizeof *r->u32)))
      break;
    if (a == APP_BFS) {
      app_ref_bfs(g, o->src, r->u32);
      return 0;
    }
    uint32_t far = 0;
    uint64_t maxd = app_ref_sssp(g, o->src, r->u32, &far);
    if (maxd == UINT64_MAX)
      break;
    if (maxd >= APP_INF) { /* 2^32 - 1 is the device's "unreached" */
      app_reference_free(r);
      snprintf(err, errlen, "sssp on '%s': the shortest distance from node %u to node %u is "
               "%llu, beyond the 32-bit distances the device keeps (at most %u); use smaller "
               "edge weights (--weights)", g->name, o->src, far, (unsigned long long)maxd,
               APP_INF - 1u);
      return WGS_ELIMIT;
    }
    return 0;
  case APP_BC: {
    uint32_t k = o->bc_sources ? o->bc_sources : 4;
    if (!(r->sources = malloc((size_t)k * sizeof *r->sources)) ||
        !(r->bc = malloc((size_t)g->n * sizeof *r->bc)))
      break;
    r->nsrc = app_bc_sources(g, k, r->sources);
    double max_sigma = app_ref_bc(g, r->sources, r->nsrc, r->bc);
    if (max_sigma > 1e37) { /* float's range ends at 3.4e38; sums of ratios need headroom */
      app_reference_free(r);
      snprintf(err, errlen, "bc on '%s': shortest-path counts reach %.3g, beyond the float range "
               "(3.4e38) the device keeps them in; use a smaller or less regular graph (on a "
               "k x k grid the counts grow like 4^k)", g->name, max_sigma);
      return WGS_ELIMIT;
    }
    return 0;
  }
  default:
    return 0; /* mis and color are checked by their properties */
  }
  app_reference_free(r);
  snprintf(err, errlen, "out of memory for the CPU reference of %s on %u nodes", app_name(a), g->n);
  return WGS_ENOMEM;
}

int app_verify(const app_graph *g, const app_reference *r, const uint32_t *u32, const float *f32,
               char *summary, size_t slen, char *err, size_t errlen)
{
  int rc;
  uint32_t reached = 0, maxv = 0, k = 0;
  switch (r->app) {
  case APP_BFS:
  case APP_SSSP:
    if ((rc = app_check_levels(g, r->u32, u32, r->app == APP_BFS ? "level" : "distance", err, errlen)))
      return rc;
    for (uint32_t v = 0; v < g->n; ++v)
      if (u32[v] != APP_NONE) {
        reached++;
        maxv = u32[v] > maxv ? u32[v] : maxv;
      }
    snprintf(summary, slen, "%u of %u reached, %s %u", reached, g->n,
             r->app == APP_BFS ? "depth" : "max distance", maxv);
    return 0;
  case APP_MIS:
    if ((rc = app_check_mis(g, u32, err, errlen)))
      return rc;
    for (uint32_t v = 0; v < g->n; ++v)
      k += u32[v] == APP_MIS_IN;
    snprintf(summary, slen, "independent and maximal, %u of %u nodes", k, g->n);
    return 0;
  case APP_COLOR:
    if ((rc = app_check_color(g, u32, &k, err, errlen)))
      return rc;
    snprintf(summary, slen, "proper, %u colours", k);
    return 0;
  case APP_BC: {
    if ((rc = app_check_bc(g, r->bc, f32, err, errlen)))
      return rc;
    double mx = 0;
    for (uint32_t v = 0; v < g->n; ++v)
      mx = f32[v] > mx ? f32[v] : mx;
    snprintf(summary, slen, "%u sources, max BC %.4g, within 1e-3 of the reference", r->nsrc, mx);
    return 0;
  }
  default:
    snprintf(err, errlen, "unknown application %d", (int)r->app);
    return WGS_EINVAL;
  }
}
