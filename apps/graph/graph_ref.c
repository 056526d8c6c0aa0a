/*
 * CPU reference implementations and result checks. Every GPU run of an application is compared
 * with these; a wrong answer is an error naming the first node that differs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "graph_internal.h"
#include "wgsync.h"

#include "../kernels/app_status.h"

void app_ref_bfs(const app_graph *g, uint32_t src, uint32_t *level)
{
  for (uint32_t v = 0; v < g->n; ++v)
    level[v] = APP_INF;
  uint32_t *q = malloc(((size_t)g->n + 1) * sizeof *q);
  if (!q)
    return;
  size_t head = 0, tail = 0;
  level[src] = 0;
  q[tail++] = src;
  while (head < tail) {
    uint32_t v = q[head++];
    for (uint32_t k = g->row[v]; k < g->row[v + 1]; ++k)
      if (level[g->col[k]] == APP_INF) {
        level[g->col[k]] = level[v] + 1;
        q[tail++] = g->col[k];
      }
  }
  free(q);
}

/* Dijkstra with a binary heap (lazy deletion). */
typedef struct {
  uint64_t d;
  uint32_t v;
} heap_item;

static void heap_push(heap_item *h, size_t *n, heap_item x)
{
  size_t i = (*n)++;
  while (i && h[(i - 1) / 2].d > x.d) {
    h[i] = h[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h[i] = x;
}

static heap_item heap_pop(heap_item *h, size_t *n)
{
  heap_item top = h[0], x = h[--*n];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= *n)
      break;
    if (c + 1 < *n && h[c + 1].d < h[c].d)
      c++;
    if (h[c].d >= x.d)
      break;
    h[i] = h[c];
    i = c;
  }
  h[i] = x;
  return top;
}

uint64_t app_ref_sssp(const app_graph *g, uint32_t src, uint32_t *dist, uint32_t *farthest)
{
  uint64_t far = 0;
  uint64_t *d = malloc((size_t)g->n * sizeof *d);
  heap_item *h = malloc(((size_t)g->m + 1) * sizeof *h);
  if (!d || !h) {
    free(d);
    free(h);
    return UINT64_MAX;
  }
  for (uint32_t v = 0; v < g->n; ++v)
    d[v] = UINT64_MAX;
  size_t hn = 0;
  d[src] = 0;
  heap_push(h, &hn, (heap_item){0, src});
  while (hn) {
    heap_item it = heap_pop(h, &hn);
    if (it.d != d[it.v])
      continue;
    for (uint32_t k = g->row[it.v]; k < g->row[it.v + 1]; ++k) {
      uint64_t nd = it.d + g->w[k];
      if (nd < d[g->col[k]]) {
        d[g->col[k]] = nd;
        heap_push(h, &hn, (heap_item){nd, g->col[k]});
      }
    }
  }
  for (uint32_t v = 0; v < g->n; ++v) {
    if (d[v] != UINT64_MAX && d[v] >= far) {
      far = d[v];
      if (farthest)
        *farthest = v;
    }
    /* the device keeps 32-bit distances (the caller refuses a farthest one that does not fit) */
    dist[v] = d[v] >= APP_INF ? APP_INF : (uint32_t)d[v];
  }
  free(d);
  free(h);
  return far;
}

/* Brandes: a BFS from each source, then dependencies accumulated from the deepest level up. */
double app_ref_bc(const app_graph *g, const uint32_t *sources, uint32_t nsrc, double *bc)
{
  double max_sigma = 0;
  size_t n = g->n;
  uint32_t *level = malloc(n * sizeof *level), *order = malloc((n + 1) * sizeof *order);
  double *sigma = malloc(n * sizeof *sigma), *delta = malloc(n * sizeof *delta);
  for (size_t v = 0; v < n; ++v)
    bc[v] = 0;
  if (!level || !order || !sigma || !delta)
    goto out;
  for (uint32_t si = 0; si < nsrc; ++si) {
    uint32_t s = sources[si];
    for (size_t v = 0; v < n; ++v) {
      level[v] = APP_INF;
      sigma[v] = 0;
      delta[v] = 0;
    }
    size_t head = 0, tail = 0;
    level[s] = 0;
    sigma[s] = 1;
    order[tail++] = s;
    while (head < tail) {
      uint32_t v = order[head++];
      for (uint32_t k = g->row[v]; k < g->row[v + 1]; ++k) {
        uint32_t u = g->col[k];
        if (level[u] == APP_INF) {
          level[u] = level[v] + 1;
          order[tail++] = u;
        }
        if (level[u] == level[v] + 1)
          sigma[u] += sigma[v];
      }
    }
    while (tail-- > 0) {
      uint32_t v = order[tail];
      max_sigma = sigma[v] > max_sigma ? sigma[v] : max_sigma;
      for (uint32_t k = g->row[v]; k < g->row[v + 1]; ++k) {
        uint32_t u = g->col[k];
        if (level[u] == level[v] + 1)
          delta[v] += sigma[v] / sigma[u] * (1.0 + delta[u]);
      }
      if (v != s)
        bc[v] += delta[v];
    }
  }
out:
  free(level);
  free(order);
  free(sigma);
  free(delta);
  return max_sigma;
}

uint32_t app_bc_sources(const app_graph *g, uint32_t nsrc, uint32_t *out)
{
  uint32_t k = 0;
  if (nsrc > g->n)
    nsrc = g->n;
  for (uint32_t i = 0; i < nsrc; ++i) {
    uint32_t v = (uint32_t)(((uint64_t)i * g->n) / nsrc);
    for (uint32_t t = 0; t < g->n && g->row[v] == g->row[v + 1]; ++t) /* skip isolated nodes */
      v = (v + 1) % g->n;
    out[k++] = v;
  }
  return k;
}

int app_check_levels(const app_graph *g, const uint32_t *want, const uint32_t *got,
                     const char *what, char *err, size_t errlen)
{
  uint32_t bad = 0, first = 0;
  for (uint32_t v = 0; v < g->n; ++v)
    if (want[v] != got[v] && !bad++)
      first = v;
  if (!bad)
    return 0;
  app_err(err, errlen, "%u of %u nodes have the wrong %s; first: node %u has %u, the CPU reference says %u%s",
          bad, g->n, what, first, got[first], want[first],
          want[first] == APP_INF ? " (unreachable)" : "");
  return WGS_EMISMATCH;
}

int app_check_mis(const app_graph *g, const uint32_t *status, char *err, size_t errlen)
{
  for (uint32_t v = 0; v < g->n; ++v) {
    if (status[v] != APP_MIS_IN && status[v] != APP_MIS_OUT) {
      app_err(err, errlen, "node %u is undecided (status %u): the set is not maximal", v, status[v]);
      return WGS_EMISMATCH;
    }
    int has_in = 0;
    for (uint32_t k = g->row[v]; k < g->row[v + 1]; ++k) {
      uint32_t u = g->col[k];
      if (u == v)
        continue;
      if (status[v] == APP_MIS_IN && status[u] == APP_MIS_IN) {
        app_err(err, errlen, "nodes %u and %u are adjacent and both in the set: not independent", v, u);
        return WGS_EMISMATCH;
      }
      has_in |= status[u] == APP_MIS_IN;
    }
    if (status[v] == APP_MIS_OUT && !has_in) {
      app_err(err, errlen, "node %u is out of the set but has no neighbour in it: not maximal", v);
      return WGS_EMISMATCH;
    }
  }
  return 0;
}

int app_check_color(const app_graph *g, const uint32_t *color, uint32_t *ncolors, char *err,
                    size_t errlen)
{
  uint32_t maxc = 0;
  for (uint32_t v = 0; v < g->n; ++v) {
    if (color[v] == APP_INF) {
      app_err(err, errlen, "node %u has no colour", v);
      return WGS_EMISMATCH;
    }
    if (color[v] > maxc)
      maxc = color[v];
    for (uint32_t k = g->row[v]; k < g->row[v + 1]; ++k)
      if (g->col[k] != v && color[g->col[k]] == color[v]) {
        app_err(err, errlen, "adjacent nodes %u and %u share colour %u: not a proper colouring", v,
                g->col[k], color[v]);
        return WGS_EMISMATCH;
      }
  }
  if (ncolors)
    *ncolors = g->n ? maxc + 1 : 0;
  return 0;
}

int app_check_bc(const app_graph *g, const double *want, const float *got, char *err,
                 size_t errlen)
{
  /* float on the device against double here: relative 1e-3 of the value (at least 1e-3) */
  for (uint32_t v = 0; v < g->n; ++v) {
    double tol = 1e-3 * fmax(1.0, fabs(want[v]));
    if (!(fabs((double)got[v] - want[v]) <= tol)) {
      app_err(err, errlen, "node %u: BC %.6g, the CPU reference says %.6g (tolerance %.3g)", v,
              (double)got[v], want[v], tol);
      return WGS_EMISMATCH;
    }
  }
  return 0;
}
