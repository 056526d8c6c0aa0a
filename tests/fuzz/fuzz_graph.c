/*
 * libFuzzer target: the graph readers (apps/graph/graph_io.c). The first byte picks the format
 * (DIMACS .gr, METIS .graph, MatrixMarket .mtx); the rest is the file, read through a memfd.
 * A reader must either refuse the input with a message or return a well-formed CSR graph: that
 * is checked here, and anything else (a crash, a sanitizer report, a malformed graph) is a bug.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "graph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  int fd = memfd_create("graph", 0);
  if (fd < 0)
    return 0;
  if (size > 1 && write(fd, data + 1, size - 1) != (ssize_t)(size - 1)) {
    close(fd);
    return 0;
  }
  char path[64], err[512];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  app_graph g = {0};
  int rc;
  switch (data[0] % 3) {
  case 0: rc = app_graph_read_dimacs(path, &g, err, sizeof err); break;
  case 1: rc = app_graph_read_metis(path, 100, &g, err, sizeof err); break;
  default: rc = app_graph_read_mtx(path, 100, &g, err, sizeof err); break;
  }
  close(fd);
  if (rc != 0) {
    if (err[0] == '\0')
      abort(); /* refused without saying why */
    return 0;
  }
  if (!g.row || g.row[0] != 0 || g.row[g.n] != g.m)
    abort();
  for (uint32_t v = 0; v < g.n; v++)
    if (g.row[v] > g.row[v + 1])
      abort();
  for (uint32_t e = 0; e < g.m; e++) /* (weights may be 0: DIMACS allows it) */
    if (g.col[e] >= g.n || !g.w)
      abort();
  app_graph_free(&g);
  return 0;
}
