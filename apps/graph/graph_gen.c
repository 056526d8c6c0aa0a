/*
 * Deterministic graph generators (R-MAT, uniform random of fixed out-degree, 2-D grid), the
 * "--graph" spec parser, and symmetrisation. Same seed, same graph, on every machine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "graph_internal.h"
#include "wgsync.h"

#include "../kernels/app_priority.h"

uint32_t app_priority(uint32_t v) { return APP_PRIORITY(v); }

static app_graph_progress_fn progress_fn;
static void *progress_ctx;

void app_graph_set_progress(app_graph_progress_fn fn, void *ctx)
{
  progress_fn = fn;
  progress_ctx = ctx;
}

static int check_scale(uint32_t scale, char *err, size_t errlen)
{
  if (scale < 1 || scale > 28) {
    app_err(err, errlen, "scale %u: expected 1..28 (2^scale nodes)", scale);
    return WGS_EINVAL;
  }
  return 0;
}

/* R-MAT (Chakrabarti et al.) with GTgraph's defaults a=.45 b=.15 c=.15 d=.25: each edge picks
 * one quadrant per bit of the node ids. Self-loops are dropped. */
/* R-MAT's recursive quadrant choice with probabilities a, b, c (d = the rest); permute: node
 * labels shuffled afterwards (Graph500's generator does, so that the high-degree nodes are not
 * the low ids). */
static int rmat_gen(uint32_t scale, uint32_t edge_factor, double a, double b, double c, int permute,
                    const char *kind, uint32_t max_weight, uint64_t seed, app_graph *g, char *err,
                    size_t errlen)
{
  int rc = check_scale(scale, err, errlen);
  if (rc)
    return rc;
  if (edge_factor < 1 || (uint64_t)edge_factor << scale > 0x7fffffffu) {
    app_err(err, errlen, "edge factor %u at scale %u: expected 1.. with at most 2^31 edges", edge_factor, scale);
    return WGS_EINVAL;
  }
  uint32_t n = 1u << scale, *perm = NULL;
  uint64_t m = (uint64_t)edge_factor << scale, s = seed;
  app_edges e = {0};
  if (permute) {
    if (!(perm = malloc((size_t)n * sizeof *perm))) {
      app_err(err, errlen, "out of memory generating %s scale %u", kind, scale);
      return WGS_ENOMEM;
    }
    for (uint32_t i = 0; i < n; ++i)
      perm[i] = i;
    for (uint32_t i = n - 1; i > 0; --i) { /* Fisher-Yates */
      uint32_t j = (uint32_t)(app_rng_next(&s) % (i + 1u)), t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
  }
  for (uint64_t i = 0; i < m; ++i) {
    if (progress_fn && (i & ((1u << 20) - 1)) == 0)
      progress_fn(kind, i, m, progress_ctx);
    uint32_t u = 0, v = 0;
    for (uint32_t bit = 0; bit < scale; ++bit) {
      double r = (double)(app_rng_next(&s) >> 11) * 0x1.0p-53;
      uint32_t du = r >= a + b, dv = (r >= a && r < a + b) || r >= a + b + c;
      u = (u << 1) | du;
      v = (v << 1) | dv;
    }
    uint32_t w = app_rng_weight(&s, max_weight);
    if (perm)
      u = perm[u], v = perm[v];
    if (u != v && (rc = app_edges_push(&e, u, v, w))) {
      app_err(err, errlen, "out of memory generating %s scale %u", kind, scale);
      app_edges_free(&e);
      free(perm);
      return rc;
    }
  }
  free(perm);
  rc = app_csr_from_edges(n, &e, g, err, errlen);
  app_edges_free(&e);
  if (!rc)
    snprintf(g->name, sizeof g->name, "%s-s%u-e%u", kind, scale, edge_factor);
  return rc;
}

/* GTgraph's R-MAT parameters (0.45, 0.15, 0.15, 0.25), the seed paper's inputs. */
int app_graph_rmat(uint32_t scale, uint32_t edge_factor, uint32_t max_weight, uint64_t seed,
                   app_graph *g, char *err, size_t errlen)
{
  return rmat_gen(scale, edge_factor, 0.45, 0.15, 0.15, 0, "rmat", max_weight, seed, g, err, errlen);
}

/* A social-network-like input: Graph500's Kronecker parameters (0.57, 0.19, 0.19, 0.05), far
 * more skewed than R-MAT's above (a few nodes hold a large share of the edges), labels shuffled. */
int app_graph_kron(uint32_t scale, uint32_t edge_factor, uint32_t max_weight, uint64_t seed,
                   app_graph *g, char *err, size_t errlen)
{
  return rmat_gen(scale, edge_factor, 0.57, 0.19, 0.19, 1, "kron", max_weight, seed, g, err, errlen);
}

/* Lonestar's "r4-2eK" kind: 2^scale nodes, each with `degree` out-edges to uniform targets. */
int app_graph_random(uint32_t scale, uint32_t degree, uint32_t max_weight, uint64_t seed,
                     app_graph *g, char *err, size_t errlen)
{
  int rc = check_scale(scale, err, errlen);
  if (rc)
    return rc;
  if (degree < 1 || (uint64_t)degree << scale > 0x7fffffffu) {
    app_err(err, errlen, "degree %u at scale %u: expected 1.. with at most 2^31 edges", degree, scale);
    return WGS_EINVAL;
  }
  uint32_t n = 1u << scale;
  uint64_t s = seed;
  app_edges e = {0};
  for (uint32_t u = 0; u < n; ++u)
    for (uint32_t k = 0; k < degree; ++k) {
      uint32_t v = (uint32_t)(app_rng_next(&s) & (n - 1));
      if (v == u)
        v = (v + 1) & (n - 1);
      if (n > 1 && (rc = app_edges_push(&e, u, v, app_rng_weight(&s, max_weight)))) {
        app_err(err, errlen, "out of memory generating random scale %u", scale);
        app_edges_free(&e);
        return rc;
      }
    }
  rc = app_csr_from_edges(n, &e, g, err, errlen);
  app_edges_free(&e);
  if (!rc)
    snprintf(g->name, sizeof g->name, "r%u-2e%u", degree, scale);
  return rc;
}

/* w x h grid, 4 neighbours, both directions with the same weight (road networks and ecology1
 * have this shape: degree <= 4, diameter ~ w + h). */
/* A W x H lattice, undirected and weighted; drop != 0 leaves out each street with probability
 * 1/drop (one more draw per street, so drop = 0 keeps grid's graphs as they were). */
static int lattice(uint32_t w, uint32_t h, uint32_t drop, const char *kind, uint32_t max_weight,
                   uint64_t seed, app_graph *g, char *err, size_t errlen)
{
  if (w < 1 || h < 1 || (uint64_t)w * h > (1u << 28)) {
    app_err(err, errlen, "%s %ux%u: expected 1..2^28 nodes", kind, w, h);
    return WGS_EINVAL;
  }
  uint64_t s = seed;
  app_edges e = {0};
  int rc = 0;
  for (uint32_t y = 0; y < h && !rc; ++y)
    for (uint32_t x = 0; x < w && !rc; ++x) {
      uint32_t u = y * w + x;
      if (x + 1 < w && (!drop || app_rng_next(&s) % drop != 0u)) {
        uint32_t wt = app_rng_weight(&s, max_weight);
        rc = app_edges_push(&e, u, u + 1, wt) || app_edges_push(&e, u + 1, u, wt);
      }
      if (!rc && y + 1 < h && (!drop || app_rng_next(&s) % drop != 0u)) {
        uint32_t wt = app_rng_weight(&s, max_weight);
        rc = app_edges_push(&e, u, u + w, wt) || app_edges_push(&e, u + w, u, wt);
      }
    }
  if (rc) {
    app_edges_free(&e);
    app_err(err, errlen, "out of memory generating %s %ux%u", kind, w, h);
    return WGS_ENOMEM;
  }
  rc = app_csr_from_edges(w * h, &e, g, err, errlen);
  app_edges_free(&e);
  if (!rc) {
    g->symmetric = 1;
    snprintf(g->name, sizeof g->name, "%s-%ux%u", kind, w, h);
  }
  return rc;
}

int app_graph_grid(uint32_t w, uint32_t h, uint32_t max_weight, uint64_t seed, app_graph *g,
                   char *err, size_t errlen)
{
  return lattice(w, h, 0, "grid", max_weight, seed, g, err, errlen);
}

/* A road-network-like input: a W x H grid that keeps each street with probability 3/4, so the
 * degree is 1-4 (2.9 on average, like road maps' 2.4-2.8) and the diameter is a few times
 * W + H; some nodes end up unreachable, as in a real map's islands. Undirected, weighted. */
int app_graph_road(uint32_t w, uint32_t h, uint32_t max_weight, uint64_t seed, app_graph *g,
                   char *err, size_t errlen)
{
  return lattice(w, h, 4, "road", max_weight, seed, g, err, errlen);
}

static int parse_fields(const char *s, uint32_t *v, int max, char sep2)
{
  int k = 0;
  while (*s && k < max) {
    char *end;
    unsigned long x = strtoul(s, &end, 10);
    if (end == s || x > 0xffffffffu)
      return -1;
    v[k++] = (uint32_t)x;
    s = end;
    if (*s == ':' || (sep2 && *s == sep2))
      s++;
    else if (*s)
      return -1;
  }
  return *s ? -1 : k;
}

int app_graph_from_spec(const char *spec, uint32_t max_weight, uint64_t seed, app_graph *g,
                        char *err, size_t errlen)
{
  uint32_t v[3];
  int k;
  if (!spec || !*spec) {
    app_err(err, errlen, "empty graph; expected rmat:SCALE[:EF], kron:SCALE[:EF], random:SCALE[:DEG], "
                         "grid:W[xH], road:W[xH] or a file");
    return WGS_EINVAL;
  }
  if (!strncmp(spec, "rmat:", 5)) {
    if ((k = parse_fields(spec + 5, v, 2, 0)) < 1) {
      app_err(err, errlen, "'%s': expected rmat:SCALE[:EDGE_FACTOR]", spec);
      return WGS_EINVAL;
    }
    return app_graph_rmat(v[0], k > 1 ? v[1] : 8, max_weight, seed, g, err, errlen);
  }
  if (!strncmp(spec, "kron:", 5)) {
    if ((k = parse_fields(spec + 5, v, 2, 0)) < 1) {
      app_err(err, errlen, "'%s': expected kron:SCALE[:EDGE_FACTOR]", spec);
      return WGS_EINVAL;
    }
    return app_graph_kron(v[0], k > 1 ? v[1] : 16, max_weight, seed, g, err, errlen);
  }
  if (!strncmp(spec, "road:", 5)) {
    if ((k = parse_fields(spec + 5, v, 2, 'x')) < 1) {
      app_err(err, errlen, "'%s': expected road:W[xH]", spec);
      return WGS_EINVAL;
    }
    return app_graph_road(v[0], k > 1 ? v[1] : v[0], max_weight, seed, g, err, errlen);
  }
  if (!strncmp(spec, "random:", 7) || !strncmp(spec, "r4:", 3)) {
    const char *p = strchr(spec, ':') + 1;
    if ((k = parse_fields(p, v, 2, 0)) < 1) {
      app_err(err, errlen, "'%s': expected random:SCALE[:DEGREE]", spec);
      return WGS_EINVAL;
    }
    return app_graph_random(v[0], k > 1 ? v[1] : 4, max_weight, seed, g, err, errlen);
  }
  if (!strncmp(spec, "grid:", 5)) {
    if ((k = parse_fields(spec + 5, v, 2, 'x')) < 1) {
      app_err(err, errlen, "'%s': expected grid:W[xH]", spec);
      return WGS_EINVAL;
    }
    return app_graph_grid(v[0], k > 1 ? v[1] : v[0], max_weight, seed, g, err, errlen);
  }
  return app_graph_read(spec, max_weight, g, err, errlen);
}

static int edge_cmp(const void *a, const void *b)
{
  const app_edge *x = a, *y = b;
  if (x->u != y->u)
    return x->u < y->u ? -1 : 1;
  if (x->v != y->v)
    return x->v < y->v ? -1 : 1;
  return x->w < y->w ? -1 : x->w > y->w;
}

int app_graph_symmetrize(app_graph *g, char *err, size_t errlen)
{
  app_edges e = {0};
  e.cap = (size_t)g->m * 2 + 1;
  e.e = malloc(e.cap * sizeof *e.e);
  if (!e.e) {
    app_err(err, errlen, "out of memory symmetrising %u edges", g->m);
    return WGS_ENOMEM;
  }
  for (uint32_t u = 0; u < g->n; ++u)
    for (uint32_t k = g->row[u]; k < g->row[u + 1]; ++k)
      if (g->col[k] != u) {
        e.e[e.n++] = (app_edge){u, g->col[k], g->w[k]};
        e.e[e.n++] = (app_edge){g->col[k], u, g->w[k]};
      }
  qsort(e.e, e.n, sizeof *e.e, edge_cmp);
  size_t out = 0;
  for (size_t i = 0; i < e.n; ++i) /* sorted by weight within (u, v): the first is the lightest */
    if (!out || e.e[out - 1].u != e.e[i].u || e.e[out - 1].v != e.e[i].v)
      e.e[out++] = e.e[i];
  e.n = out;
  app_graph s;
  int rc = app_csr_from_edges(g->n, &e, &s, err, errlen);
  app_edges_free(&e);
  if (rc)
    return rc;
  memcpy(s.name, g->name, sizeof s.name);
  s.symmetric = 1;
  app_graph_free(g);
  *g = s;
  return 0;
}
