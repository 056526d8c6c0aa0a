/*
 * Graphs for the applications of Sorensen et al. 2016 §5.2–5.3 (bfs, sssp, mis, color, bc): a CSR graph,
 * readers for the formats those benchmark suites ship (DIMACS shortest-path text, METIS .graph,
 * MatrixMarket .mtx), deterministic generators (R-MAT with GTgraph's parameters, uniform random
 * graphs of out-degree 4 like Lonestar's r4-2e23, 2-D grids), and CPU reference implementations
 * that every GPU result is checked against.
 *
 * Every function returns 0 on success or a wgs_status code with the reason in wgs_last_error()
 * style: here, the caller-provided `err` buffer ("file.gr:17: expected 'a u v w'").
 */
#ifndef WGS_APPS_GRAPH_H
#define WGS_APPS_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define APP_INF 0xffffffffu

typedef struct {
  uint32_t n;         /* nodes */
  uint32_t m;         /* directed edges (an undirected edge counts twice) */
  uint32_t *row;      /* n + 1 offsets */
  uint32_t *col;      /* m targets */
  uint32_t *w;        /* m weights (>= 1 for sssp inputs; generated when a format has none) */
  int symmetric;      /* every edge u->v has v->u (required by mis, color, bc) */
  char name[128];     /* "rmat-s16-e8", "grid-1000x1000", the file's base name, ... */
} app_graph;

void app_graph_free(app_graph *g);

/* Reads FILE by its extension: .gr (DIMACS sp), .graph (METIS), .mtx (MatrixMarket).
 * Self-loops are dropped; duplicate edges kept. Weights missing from the format are generated
 * deterministically in [1, max_weight]. Errors name the file, the line and what was expected. */
int app_graph_read(const char *path, uint32_t max_weight, app_graph *g, char *err, size_t errlen);
int app_graph_read_dimacs(const char *path, app_graph *g, char *err, size_t errlen);
int app_graph_read_metis(const char *path, uint32_t max_weight, app_graph *g, char *err,
                         size_t errlen);
int app_graph_read_mtx(const char *path, uint32_t max_weight, app_graph *g, char *err,
                       size_t errlen);

/* Generators (seeded, deterministic on every machine):
 *   rmat: 2^scale nodes, edge_factor * 2^scale edges, GTgraph's a=.45 b=.15 c=.15 d=.25;
 *   random: 2^scale nodes, each with `degree` out-edges to uniform targets (Lonestar r4-2eK);
 *   grid: w x h 4-neighbour grid (road-like; 1000x1000 is ecology1's shape).
 * Weights uniform in [1, max_weight]. */
int app_graph_rmat(uint32_t scale, uint32_t edge_factor, uint32_t max_weight, uint64_t seed,
                   app_graph *g, char *err, size_t errlen);
/* Graph500's Kronecker parameters, labels shuffled: a social-network-like, skewed input. */
int app_graph_kron(uint32_t scale, uint32_t edge_factor, uint32_t max_weight, uint64_t seed,
                   app_graph *g, char *err, size_t errlen);
/* A grid keeping each street with probability 3/4: a road-network-like input (low degree,
 * high diameter). */
int app_graph_road(uint32_t w, uint32_t h, uint32_t max_weight, uint64_t seed, app_graph *g,
                   char *err, size_t errlen);
int app_graph_random(uint32_t scale, uint32_t degree, uint32_t max_weight, uint64_t seed,
                     app_graph *g, char *err, size_t errlen);
int app_graph_grid(uint32_t w, uint32_t h, uint32_t max_weight, uint64_t seed, app_graph *g,
                   char *err, size_t errlen);

/* Progress of the generators: fn(what, done, total, ctx) about every 2^20 edges they make (what:
 * "kron", "rmat", ...). NULL: none (the default). Not thread-safe: set it before generating. */
typedef void (*app_graph_progress_fn)(const char *what, uint64_t done, uint64_t total, void *ctx);
void app_graph_set_progress(app_graph_progress_fn fn, void *ctx);

/* "rmat:SCALE[:EF]", "random:SCALE[:DEG]" (alias r4), "grid:W[xH]", or a file path. */
int app_graph_from_spec(const char *spec, uint32_t max_weight, uint64_t seed, app_graph *g,
                        char *err, size_t errlen);

/* The undirected version (both directions of every edge, duplicates and self-loops removed),
 * replacing *g. Weights of an edge pair take the smaller one. */
int app_graph_symmetrize(app_graph *g, char *err, size_t errlen);

/* A node priority for mis / color, the same on host and device: a 32-bit hash of the id. */
uint32_t app_priority(uint32_t v);

/* ---- CPU references and checks -------------------------------------------------------- */
void app_ref_bfs(const app_graph *g, uint32_t src, uint32_t *level);
/* Dijkstra; returns the largest finite distance (in 64 bits; UINT64_MAX: out of memory) and
 * its node in *farthest (may be NULL). dist: 32-bit, APP_INF from 2^32 - 1 on. */
uint64_t app_ref_sssp(const app_graph *g, uint32_t src, uint32_t *dist, uint32_t *farthest);
/* Brandes over the given sources, unnormalised, both directions counted (as the GPU version).
 * Returns the largest shortest-path count met (the device keeps these in float). */
double app_ref_bc(const app_graph *g, const uint32_t *sources, uint32_t nsrc, double *bc);

/* Each returns 0 when the result is right, else a status with the first wrong node in err. */
int app_check_levels(const app_graph *g, const uint32_t *want, const uint32_t *got,
                     const char *what, char *err, size_t errlen);
int app_check_mis(const app_graph *g, const uint32_t *status, char *err, size_t errlen);
int app_check_color(const app_graph *g, const uint32_t *color, uint32_t *ncolors, char *err,
                    size_t errlen);
int app_check_bc(const app_graph *g, const double *want, const float *got, char *err,
                 size_t errlen);

/* bc's sources: nsrc nodes spread evenly over the ids, skipping isolated nodes where possible. */
uint32_t app_bc_sources(const app_graph *g, uint32_t nsrc, uint32_t *out);

#ifdef __cplusplus
}
#endif
#endif
