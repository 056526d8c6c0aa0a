/*
 * Graph readers (DIMACS shortest-path text, METIS .graph, MatrixMarket .mtx) and the CSR
 * builder shared with the generators. Malformed input gives an error naming the file, the line
 * and what was expected; nothing here aborts.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "graph.h"
#include "graph_internal.h"
#include "wgsync.h"

void app_err(char *err, size_t errlen, const char *fmt, ...)
{
  if (!err || !errlen)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

void app_graph_free(app_graph *g)
{
  if (!g)
    return;
  free(g->row);
  free(g->col);
  free(g->w);
  memset(g, 0, sizeof *g);
}

/* ---- edge lists and CSR ------------------------------------------------------------------ */

int app_edges_push(app_edges *e, uint32_t u, uint32_t v, uint32_t w)
{
  if (e->n == e->cap) {
    size_t cap = e->cap ? e->cap * 2 : 1024;
    app_edge *p = realloc(e->e, cap * sizeof *p);
    if (!p)
      return WGS_ENOMEM;
    e->e = p;
    e->cap = cap;
  }
  e->e[e->n++] = (app_edge){u, v, w};
  return 0;
}

void app_edges_free(app_edges *e)
{
  free(e->e);
  memset(e, 0, sizeof *e);
}

/* The most nodes a graph may have: all 32-bit ids but the last, unless a build sets fewer (the
 * fuzzing build, tests/fuzz/run.sh: a header declaring 656 million isolated nodes is a valid
 * file whose 2.6 GB of row offsets the fuzzer's memory limit counts as a crash). */
#ifndef APP_GRAPH_MAX_NODES
#define APP_GRAPH_MAX_NODES 0xfffffffeu
#endif

int app_csr_from_edges(uint32_t n, const app_edges *e, app_graph *g, char *err, size_t errlen)
{
  memset(g, 0, sizeof *g);
  if (e->n > 0xfffffff0u) {
    app_err(err, errlen, "%zu edges: more than wgsync's 32-bit edge indices hold", e->n);
    return WGS_ELIMIT;
  }
  if (n > APP_GRAPH_MAX_NODES) {
    app_err(err, errlen, "%u nodes: more than this build reads (%u)", n, APP_GRAPH_MAX_NODES);
    return WGS_ELIMIT;
  }
  g->n = n;
  g->m = (uint32_t)e->n;
  g->row = calloc((size_t)n + 1, sizeof *g->row);
  g->col = malloc((e->n ? e->n : 1) * sizeof *g->col);
  g->w = malloc((e->n ? e->n : 1) * sizeof *g->w);
  if (!g->row || !g->col || !g->w) {
    app_graph_free(g);
    app_err(err, errlen, "out of memory for a graph of %u nodes and %zu edges", n, e->n);
    return WGS_ENOMEM;
  }
  for (size_t i = 0; i < e->n; ++i)
    g->row[e->e[i].u + 1]++;
  for (uint32_t v = 0; v < n; ++v)
    g->row[v + 1] += g->row[v];
  uint32_t *fill = malloc(((size_t)n + 1) * sizeof *fill);
  if (!fill) {
    app_graph_free(g);
    app_err(err, errlen, "out of memory");
    return WGS_ENOMEM;
  }
  memcpy(fill, g->row, ((size_t)n + 1) * sizeof *fill);
  for (size_t i = 0; i < e->n; ++i) { /* stable: each node's edges keep their input order */
    uint32_t k = fill[e->e[i].u]++;
    g->col[k] = e->e[i].v;
    g->w[k] = e->e[i].w;
  }
  free(fill);
  return 0;
}

/* SplitMix64: the generators' and the weights' random numbers, identical on every machine. */
uint64_t app_rng_next(uint64_t *s)
{
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint32_t app_rng_weight(uint64_t *s, uint32_t max_weight)
{
  return max_weight <= 1 ? 1u : 1u + (uint32_t)(app_rng_next(s) % max_weight);
}

/* ---- line-oriented reading ---------------------------------------------------------------- */

typedef struct {
  FILE *f;
  const char *path;
  char *line;
  size_t cap;
  unsigned long lineno;
  unsigned long nul_line; /* first line holding a NUL byte (0: none) */
} reader;

static int reader_open(reader *r, const char *path, char *err, size_t errlen)
{
  memset(r, 0, sizeof *r);
  r->path = path;
  r->f = fopen(path, "r");
  struct stat sb;
  if (!r->f || fstat(fileno(r->f), &sb) != 0) {
    app_err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    if (r->f)
      fclose(r->f);
    r->f = NULL;
    return WGS_EIO;
  }
  if (S_ISDIR(sb.st_mode)) { /* it opens, and reads as an empty file */
    app_err(err, errlen, "%s: is a directory, not a graph file", path);
    fclose(r->f);
    r->f = NULL;
    return WGS_EIO;
  }
  return 0;
}

/* One line; -1 at EOF or at a line with a NUL byte, which the parsers would otherwise read only
 * up to the NUL (the rest silently dropped): reader_close turns it into the error. */
static ssize_t reader_getline(reader *r)
{
  ssize_t len = getline(&r->line, &r->cap, r->f);
  if (len < 0)
    return -1;
  r->lineno++;
  if ((size_t)len != strlen(r->line)) {
    r->nul_line = r->lineno;
    return -1;
  }
  return len;
}

/* Next line with content (comments starting with any char of `comment` skipped); 1 at EOF. */
static int reader_next(reader *r, const char *comment, char **out)
{
  for (;;) {
    if (reader_getline(r) < 0)
      return 1;
    char *p = r->line;
    while (*p && isspace((unsigned char)*p))
      p++;
    if (!*p || strchr(comment, *p))
      continue;
    *out = p;
    return 0;
  }
}

/* Closes r and returns the reader's result: rc, or the NUL-byte error, which explains whatever
 * the parser made of the cut line (a binary file given as a graph, say). */
static int reader_close(reader *r, int rc, char *err, size_t errlen)
{
  if (r->nul_line) {
    app_err(err, errlen, "%s:%lu: the line holds a NUL byte (not a text graph file?)", r->path,
            r->nul_line);
    rc = WGS_EINVAL;
  }
  if (r->f)
    fclose(r->f);
  free(r->line);
  return rc;
}

/* A reader's last step: an error found only at the close (a NUL byte, a read error) still
 * fails the read, and the graph built before it is freed, not left to a caller that frees
 * only on success (found by tests/fuzz). */
static int reader_finish(reader *r, int rc, app_graph *g, char *err, size_t errlen)
{
  int had = rc;
  rc = reader_close(r, rc, err, errlen);
  if (rc && !had)
    app_graph_free(g);
  return rc;
}

/* Parses an unsigned decimal at *p (skipping blanks); 0 on success, advancing *p. */
static int scan_u64(char **p, uint64_t *v)
{
  char *s = *p;
  while (*s == ' ' || *s == '\t')
    s++;
  if (!isdigit((unsigned char)*s))
    return -1;
  errno = 0;
  char *end;
  unsigned long long x = strtoull(s, &end, 10);
  if (errno || (*end && !isspace((unsigned char)*end)))
    return -1;
  *v = x;
  *p = end;
  return 0;
}

static int rest_is_blank(const char *p)
{
  while (*p && isspace((unsigned char)*p))
    p++;
  return *p == 0;
}

/* ---- DIMACS shortest-path: "c ..." comments, "p sp N M", "a U V W" (1-based) ---------------- */

int app_graph_read_dimacs(const char *path, app_graph *g, char *err, size_t errlen)
{
  reader r;
  int rc = reader_open(&r, path, err, errlen);
  if (rc)
    return rc;
  app_edges e = {0};
  uint64_t n = 0, m = 0, arcs = 0;
  int have_p = 0;
  char *p;
  while (!reader_next(&r, "c", &p)) {
    if (p[0] == 'p') {
      char *q = p + 1;
      while (*q == ' ' || *q == '\t')
        q++;
      if (have_p || strncmp(q, "sp", 2) || (q += 2, scan_u64(&q, &n)) || scan_u64(&q, &m) ||
          !rest_is_blank(q) || n == 0 || n >= APP_INF) {
        app_err(err, errlen, "%s:%lu: expected one problem line 'p sp NODES ARCS' with 1 <= NODES < 2^32",
                path, r.lineno);
        rc = WGS_EINVAL;
        break;
      }
      have_p = 1;
    } else if (p[0] == 'a') {
      uint64_t u, v, w;
      char *q = p + 1;
      if (!have_p) {
        app_err(err, errlen, "%s:%lu: arc before the problem line 'p sp NODES ARCS'", path, r.lineno);
        rc = WGS_EINVAL;
        break;
      }
      if (scan_u64(&q, &u) || scan_u64(&q, &v) || scan_u64(&q, &w) || !rest_is_blank(q)) {
        app_err(err, errlen, "%s:%lu: expected 'a FROM TO WEIGHT' with non-negative integers", path,
                r.lineno);
        rc = WGS_EINVAL;
        break;
      }
      if (u < 1 || u > n || v < 1 || v > n) {
        app_err(err, errlen, "%s:%lu: arc %llu -> %llu: nodes are numbered 1..%llu", path, r.lineno,
                (unsigned long long)u, (unsigned long long)v, (unsigned long long)n);
        rc = WGS_EINVAL;
        break;
      }
      if (w > APP_MAX_WEIGHT) {
        app_err(err, errlen, "%s:%lu: weight %llu too large (at most %u)", path, r.lineno,
                (unsigned long long)w, APP_MAX_WEIGHT);
        rc = WGS_EINVAL;
        break;
      }
      arcs++;
      if (u != v && (rc = app_edges_push(&e, (uint32_t)(u - 1), (uint32_t)(v - 1), (uint32_t)w))) {
        app_err(err, errlen, "%s:%lu: out of memory", path, r.lineno);
        break;
      }
    } else {
      app_err(err, errlen, "%s:%lu: expected a 'c', 'p' or 'a' line", path, r.lineno);
      rc = WGS_EINVAL;
      break;
    }
  }
  if (!rc && !have_p) {
    app_err(err, errlen, "%s: no problem line 'p sp NODES ARCS'", path);
    rc = WGS_EINVAL;
  }
  if (!rc && arcs != m) {
    app_err(err, errlen, "%s:%lu: the problem line declares %llu arcs but the file has %llu", path,
            r.lineno, (unsigned long long)m, (unsigned long long)arcs);
    rc = WGS_EINVAL;
  }
  if (!rc)
    rc = app_csr_from_edges((uint32_t)n, &e, g, err, errlen);
  app_edges_free(&e);
  return reader_finish(&r, rc, g, err, errlen);
}

static int cmp_u32(const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* METIS graphs are undirected: every edge u-v is listed under u and under v. A file that lists
 * one direction only would make mis and bc blame the computation ("not independent", NaN), so
 * it is refused here, naming the first edge without its reverse. */
static int check_symmetric(const app_graph *g, const char *path, char *err, size_t errlen)
{
  uint32_t *sorted = malloc((g->m ? g->m : 1) * sizeof *sorted);
  if (!sorted) {
    app_err(err, errlen, "%s: out of memory checking symmetry", path);
    return WGS_ENOMEM;
  }
  memcpy(sorted, g->col, (size_t)g->m * sizeof *sorted);
  for (uint32_t v = 0; v < g->n; ++v)
    qsort(sorted + g->row[v], g->row[v + 1] - g->row[v], sizeof *sorted, cmp_u32);
  int rc = 0;
  for (uint32_t u = 0; u < g->n && !rc; ++u)
    for (uint32_t i = g->row[u]; i < g->row[u + 1]; ++i) {
      uint32_t v = g->col[i];
      if (!bsearch(&u, sorted + g->row[v], g->row[v + 1] - g->row[v], sizeof *sorted, cmp_u32)) {
        app_err(err, errlen, "%s: node %u lists neighbour %u, but node %u does not list %u: a "
                "METIS graph is undirected and lists every edge under both ends", path, u + 1,
                v + 1, v + 1, u + 1);
        rc = WGS_EINVAL;
        break;
      }
    }
  free(sorted);
  return rc;
}

/* ---- METIS: "N M [FMT [NCON]]", then line i lists node i's neighbours (1-based) ------------ */

int app_graph_read_metis(const char *path, uint32_t max_weight, app_graph *g, char *err,
                         size_t errlen)
{
  reader r;
  int rc = reader_open(&r, path, err, errlen);
  if (rc)
    return rc;
  app_edges e = {0};
  uint64_t n = 0, m = 0, fmt = 0, ncon = 0, entries = 0;
  uint64_t seed = 0x6d657469ull;
  char *p;
  if (reader_next(&r, "%", &p)) {
    app_err(err, errlen, "%s: empty file; expected a header 'NODES EDGES [FMT [NCON]]'", path);
    rc = WGS_EINVAL;
    goto out;
  }
  {
    char *q = p;
    if (scan_u64(&q, &n) || scan_u64(&q, &m) || n == 0 || n >= APP_INF) {
      app_err(err, errlen, "%s:%lu: expected a header 'NODES EDGES [FMT [NCON]]' with 1 <= NODES < 2^32",
              path, r.lineno);
      rc = WGS_EINVAL;
      goto out;
    }
    if (m > 0xfffffff0u / 2) { /* 2*m adjacency entries, each a 32-bit edge index */
      app_err(err, errlen, "%s:%lu: header declares %llu edges: more than wgsync's 32-bit edge "
              "indices hold (at most %u)", path, r.lineno, (unsigned long long)m, 0xfffffff0u / 2);
      rc = WGS_ELIMIT;
      goto out;
    }
    if (!rest_is_blank(q) && scan_u64(&q, &fmt)) {
      app_err(err, errlen, "%s:%lu: FMT must be 0, 1, 10, 11, 100, 101, 110 or 111", path, r.lineno);
      rc = WGS_EINVAL;
      goto out;
    }
    if (fmt % 10 > 1 || (fmt / 10) % 10 > 1 || fmt / 100 > 1) {
      app_err(err, errlen, "%s:%lu: FMT %llu: expected three 0/1 digits (sizes, vertex weights, edge weights)",
              path, r.lineno, (unsigned long long)fmt);
      rc = WGS_EINVAL;
      goto out;
    }
    ncon = (fmt / 10) % 10 ? 1 : 0;
    if (!rest_is_blank(q) && (scan_u64(&q, &ncon) || !rest_is_blank(q))) {
      app_err(err, errlen, "%s:%lu: NCON must be a non-negative integer", path, r.lineno);
      rc = WGS_EINVAL;
      goto out;
    }
  }
  int has_size = fmt / 100 == 1, has_vw = (fmt / 10) % 10 == 1, has_ew = fmt % 10 == 1;
  /* Node lines: an empty line is a node without neighbours, so read raw lines here. */
  for (uint64_t v = 0; v < n; ++v) {
    ssize_t len;
    do {
      len = reader_getline(&r);
    } while (len >= 0 && r.line[0] == '%');
    if (len < 0) {
      app_err(err, errlen, "%s:%lu: file ends after %llu of %llu node lines", path, r.lineno,
              (unsigned long long)v, (unsigned long long)n);
      rc = WGS_EINVAL;
      goto out;
    }
    char *q = r.line;
    uint64_t skip = (has_size ? 1 : 0) + (has_vw ? ncon : 0), x;
    for (uint64_t k = 0; k < skip; ++k)
      if (scan_u64(&q, &x)) {
        app_err(err, errlen, "%s:%lu: node %llu: expected %llu size/weight value(s) first", path,
                r.lineno, (unsigned long long)v + 1, (unsigned long long)skip);
        rc = WGS_EINVAL;
        goto out;
      }
    while (!rest_is_blank(q)) {
      uint64_t u, w = 0;
      if (scan_u64(&q, &u) || (has_ew && scan_u64(&q, &w))) {
        app_err(err, errlen, "%s:%lu: node %llu: expected %s", path, r.lineno,
                (unsigned long long)v + 1, has_ew ? "'NEIGHBOUR WEIGHT' pairs" : "neighbour ids");
        rc = WGS_EINVAL;
        goto out;
      }
      if (u < 1 || u > n) {
        app_err(err, errlen, "%s:%lu: node %llu: neighbour %llu out of range 1..%llu", path, r.lineno,
                (unsigned long long)v + 1, (unsigned long long)u, (unsigned long long)n);
        rc = WGS_EINVAL;
        goto out;
      }
      entries++;
      if (has_ew && w > APP_MAX_WEIGHT) {
        app_err(err, errlen, "%s:%lu: node %llu: edge weight %llu too large (at most %u)", path,
                r.lineno, (unsigned long long)v + 1, (unsigned long long)w, APP_MAX_WEIGHT);
        rc = WGS_EINVAL;
        goto out;
      }
      uint32_t wt = has_ew ? (uint32_t)w : app_rng_weight(&seed, max_weight);
      if (u - 1 != v && (rc = app_edges_push(&e, (uint32_t)v, (uint32_t)(u - 1), wt))) {
        app_err(err, errlen, "%s:%lu: out of memory", path, r.lineno);
        goto out;
      }
    }
  }
  if (entries != 2 * m) {
    app_err(err, errlen, "%s: header declares %llu edges (%llu adjacency entries) but the node lines have %llu",
            path, (unsigned long long)m, (unsigned long long)(2 * m), (unsigned long long)entries);
    rc = WGS_EINVAL;
    goto out;
  }
  if (!reader_next(&r, "%", &p)) {
    app_err(err, errlen, "%s:%lu: more lines than the %llu nodes the header declares", path, r.lineno,
            (unsigned long long)n);
    rc = WGS_EINVAL;
    goto out;
  }
  rc = app_csr_from_edges((uint32_t)n, &e, g, err, errlen);
  if (!rc && (rc = check_symmetric(g, path, err, errlen)))
    app_graph_free(g);
  if (!rc)
    g->symmetric = 1; /* METIS graphs are undirected */
out:
  app_edges_free(&e);
  return reader_finish(&r, rc, g, err, errlen);
}

/* ---- MatrixMarket: "%%MatrixMarket matrix coordinate FIELD SYMMETRY", "R C NNZ", "I J [V]" -- */

int app_graph_read_mtx(const char *path, uint32_t max_weight, app_graph *g, char *err,
                       size_t errlen)
{
  reader r;
  int rc = reader_open(&r, path, err, errlen);
  if (rc)
    return rc;
  app_edges e = {0};
  uint64_t seed = 0x6d7478ull;
  char obj[32] = "", fmt[32] = "", field[32] = "", sym[32] = "";
  ssize_t len = reader_getline(&r);
  if (len < 0 || sscanf(r.line, "%%%%MatrixMarket %31s %31s %31s %31s", obj, fmt, field, sym) != 4) {
    app_err(err, errlen, "%s:1: expected '%%%%MatrixMarket matrix coordinate FIELD SYMMETRY'", path);
    rc = WGS_EINVAL;
    goto out;
  }
  for (char *s = obj; *s; ++s) *s = (char)tolower((unsigned char)*s);
  for (char *s = fmt; *s; ++s) *s = (char)tolower((unsigned char)*s);
  for (char *s = field; *s; ++s) *s = (char)tolower((unsigned char)*s);
  for (char *s = sym; *s; ++s) *s = (char)tolower((unsigned char)*s);
  if (strcmp(obj, "matrix") || strcmp(fmt, "coordinate")) {
    app_err(err, errlen, "%s:1: '%s %s': only 'matrix coordinate' holds a graph", path, obj, fmt);
    rc = WGS_EINVAL;
    goto out;
  }
  int pattern = !strcmp(field, "pattern"), integer = !strcmp(field, "integer");
  if (!pattern && !integer && strcmp(field, "real") && strcmp(field, "double")) {
    app_err(err, errlen, "%s:1: field '%s': expected pattern, integer or real", path, field);
    rc = WGS_EINVAL;
    goto out;
  }
  int symmetric = !strcmp(sym, "symmetric") || !strcmp(sym, "skew-symmetric") || !strcmp(sym, "hermitian");
  if (!symmetric && strcmp(sym, "general")) {
    app_err(err, errlen, "%s:1: symmetry '%s': expected general or symmetric", path, sym);
    rc = WGS_EINVAL;
    goto out;
  }
  char *p;
  uint64_t rows, cols, nnz;
  if (reader_next(&r, "%", &p)) {
    app_err(err, errlen, "%s:%lu: file ends before the size line 'ROWS COLS NONZEROS'", path, r.lineno);
    rc = WGS_EINVAL;
    goto out;
  }
  {
    char *q = p;
    if (scan_u64(&q, &rows) || scan_u64(&q, &cols) || scan_u64(&q, &nnz) || !rest_is_blank(q) ||
        rows == 0 || cols == 0 || rows >= APP_INF || cols >= APP_INF) {
      app_err(err, errlen, "%s:%lu: expected the size line 'ROWS COLS NONZEROS' (1..2^32-1)", path, r.lineno);
      rc = WGS_EINVAL;
      goto out;
    }
  }
  uint64_t n = rows > cols ? rows : cols, seen = 0;
  while (!reader_next(&r, "%", &p)) {
    uint64_t i, j;
    char *q = p;
    if (scan_u64(&q, &i) || scan_u64(&q, &j)) {
      app_err(err, errlen, "%s:%lu: expected an entry 'ROW COL%s'", path, r.lineno, pattern ? "" : " VALUE");
      rc = WGS_EINVAL;
      goto out;
    }
    if (i < 1 || i > rows || j < 1 || j > cols) {
      app_err(err, errlen, "%s:%lu: entry (%llu, %llu) outside the %llu x %llu matrix", path, r.lineno,
              (unsigned long long)i, (unsigned long long)j, (unsigned long long)rows,
              (unsigned long long)cols);
      rc = WGS_EINVAL;
      goto out;
    }
    uint32_t wt;
    if (pattern) {
      if (!rest_is_blank(q)) {
        app_err(err, errlen, "%s:%lu: a pattern entry has no value", path, r.lineno);
        rc = WGS_EINVAL;
        goto out;
      }
      wt = app_rng_weight(&seed, max_weight);
    } else {
      char *end;
      errno = 0;
      double val = strtod(q, &end);
      if (end == q || errno || !rest_is_blank(end) || val != val) {
        app_err(err, errlen, "%s:%lu: expected a numeric VALUE after the indices", path, r.lineno);
        rc = WGS_EINVAL;
        goto out;
      }
      /* integer weights as given; real values are not path lengths: generate */
      if (integer && (val < 0 || val > APP_MAX_WEIGHT || val != (double)(uint32_t)val)) {
        app_err(err, errlen, "%s:%lu: weight %g: expected an integer from 0 to %u", path, r.lineno,
                val, APP_MAX_WEIGHT);
        rc = WGS_EINVAL;
        goto out;
      }
      wt = integer ? (uint32_t)val : app_rng_weight(&seed, max_weight);
    }
    if (++seen > nnz) {
      app_err(err, errlen, "%s:%lu: more entries than the %llu the size line declares", path, r.lineno,
              (unsigned long long)nnz);
      rc = WGS_EINVAL;
      goto out;
    }
    if (i == j)
      continue;
    if ((rc = app_edges_push(&e, (uint32_t)(i - 1), (uint32_t)(j - 1), wt)) ||
        (symmetric && (rc = app_edges_push(&e, (uint32_t)(j - 1), (uint32_t)(i - 1), wt)))) {
      app_err(err, errlen, "%s:%lu: out of memory", path, r.lineno);
      goto out;
    }
  }
  if (seen != nnz) {
    app_err(err, errlen, "%s:%lu: the size line declares %llu entries but the file has %llu", path,
            r.lineno, (unsigned long long)nnz, (unsigned long long)seen);
    rc = WGS_EINVAL;
    goto out;
  }
  rc = app_csr_from_edges((uint32_t)n, &e, g, err, errlen);
  if (!rc)
    g->symmetric = symmetric;
out:
  app_edges_free(&e);
  return reader_finish(&r, rc, g, err, errlen);
}

static const char *base_name(const char *path)
{
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

static int ends_with(const char *s, const char *suffix)
{
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && !strcmp(s + a - b, suffix);
}

int app_graph_read(const char *path, uint32_t max_weight, app_graph *g, char *err, size_t errlen)
{
  int rc;
  if (ends_with(path, ".gr"))
    rc = app_graph_read_dimacs(path, g, err, errlen);
  else if (ends_with(path, ".graph"))
    rc = app_graph_read_metis(path, max_weight, g, err, errlen);
  else if (ends_with(path, ".mtx"))
    rc = app_graph_read_mtx(path, max_weight, g, err, errlen);
  else {
    app_err(err, errlen, "%s: unknown graph format; expected a .gr (DIMACS), .graph (METIS) or .mtx (MatrixMarket) file",
            path);
    return WGS_EINVAL;
  }
  if (!rc)
    snprintf(g->name, sizeof g->name, "%s", base_name(path));
  return rc;
}
