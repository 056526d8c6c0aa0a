/* Shared by the graph readers, generators and references (not part of any public API). */
#ifndef WGS_APPS_GRAPH_INTERNAL_H
#define WGS_APPS_GRAPH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "graph.h"

/* Distances are 32-bit on the device: weights above this are refused or clamped. */
#define APP_MAX_WEIGHT 100000000u

typedef struct {
  uint32_t u, v, w;
} app_edge;

typedef struct {
  app_edge *e;
  size_t n, cap;
} app_edges;

int app_edges_push(app_edges *e, uint32_t u, uint32_t v, uint32_t w);
void app_edges_free(app_edges *e);
/* CSR in input order per node; *g is overwritten. */
int app_csr_from_edges(uint32_t n, const app_edges *e, app_graph *g, char *err, size_t errlen);
uint64_t app_rng_next(uint64_t *s);
uint32_t app_rng_weight(uint64_t *s, uint32_t max_weight);
void app_err(char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
