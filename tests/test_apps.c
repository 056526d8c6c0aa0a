/*
 * Tests of the applications' host side: graph readers (good files and malformed ones, which
 * must name the line), generators (deterministic, the right shape), CPU references on graphs
 * whose answers are known, and the checks (each must reject a wrong answer). The applications
 * on devices are tested through the CLI (tests/CMakeLists.txt: app.*).
 *
 *   test_apps CASE   (readers | generators | references | checks | run)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apps.h"

#include "check.h"
#include "kernels/app_status.h"

static char tmpdir[] = "/tmp/wgsync-apps-XXXXXX";

static const char *write_file(const char *name, const char *text)
{
  static char path[512];
  snprintf(path, sizeof path, "%s/%s", tmpdir, name);
  FILE *f = fopen(path, "w");
  if (!f)
    return NULL;
  fputs(text, f);
  fclose(f);
  return path;
}

/* Reads `text` as `name`; expects success with n nodes and m edges, or an error containing
 * `want` (e.g. ":3:"). */
static int expect_read(const char *name, const char *text, uint32_t n, uint32_t m, const char *want)
{
  const char *p = write_file(name, text);
  CHECK(p != NULL);
  app_graph g;
  char err[512] = "";
  int rc = app_graph_read(p, 100, &g, err, sizeof err);
  if (want) {
    CHECK_MSG(rc != 0, "%s: malformed input was accepted", name);
    CHECK_MSG(strstr(err, want) != NULL, "%s: error '%s' does not contain '%s'", name, err, want);
    return 0;
  }
  CHECK_MSG(rc == 0, "%s: %s", name, err);
  CHECK_MSG(g.n == n && g.m == m, "%s: read %u nodes / %u edges, expected %u / %u", name, g.n, g.m, n, m);
  app_graph_free(&g);
  return 0;
}

static int t_readers(void)
{
  /* DIMACS: 3 nodes, 3 arcs */
  const char *gr = "c a comment\np sp 3 3\na 1 2 5\na 2 3 7\na 3 1 1\n";
  if (expect_read("ok.gr", gr, 3, 3, NULL))
    return 1;
  { /* zero weights are kept as given (valid for shortest paths) */
    app_graph g;
    char err[256];
    CHECK(app_graph_read(write_file("z.gr", "p sp 2 1\na 1 2 0\n"), 100, &g, err, sizeof err) == 0);
    CHECK_MSG(g.w[0] == 0, "weight 0 became %u", g.w[0]);
    app_graph_free(&g);
  }
  {
    app_graph g;
    char err[256];
    CHECK(app_graph_read(write_file("w.gr", gr), 100, &g, err, sizeof err) == 0);
    CHECK(g.w[g.row[0]] == 5 && g.col[g.row[1]] == 2 && g.w[g.row[1]] == 7);
    app_graph_free(&g);
  }
  if (expect_read("noarc.gr", "p sp 3 2\na 1 2 5\na 2 x 7\n", 0, 0, ":3:") ||
      expect_read("range.gr", "p sp 3 1\na 1 4 5\n", 0, 0, ":2:") ||
      expect_read("early.gr", "a 1 2 3\np sp 3 1\n", 0, 0, ":1:") ||
      expect_read("count.gr", "p sp 3 2\na 1 2 5\n", 0, 0, "declares 2 arcs") ||
      expect_read("junk.gr", "p sp 2 1\nx\n", 0, 0, ":2:") ||
      expect_read("nop.gr", "c only\n", 0, 0, "no problem line"))
    return 1;
  /* METIS: a triangle plus an isolated node (an empty line), 3 undirected edges */
  if (expect_read("ok.graph", "% c\n4 3\n2 3\n1 3\n1 2\n\n", 4, 6, NULL) ||
      expect_read("w.graph", "3 2 1\n2 4\n1 4 3 9\n2 9\n", 3, 4, NULL) ||
      expect_read("short.graph", "4 3\n2 3\n1 3\n", 0, 0, "ends after 2 of 4") ||
      expect_read("range.graph", "2 1\n2\n3\n", 0, 0, ":3:") ||
      expect_read("count.graph", "3 3\n2\n1\n\n", 0, 0, "declares 3 edges") ||
      expect_read("fmt.graph", "3 3 7\n", 0, 0, ":1:"))
    return 1;
  /* METIS is undirected: a one-directional cycle (counts consistent) is the input's fault, named
   * as such, not a wrong answer later; an edge count past 32-bit indices is refused, not wrapped */
  if (expect_read("oneway.graph", "4 2\n2\n3\n4\n1\n", 0, 0, "node 1 lists neighbour 2, but node 2 does not list 1") ||
      expect_read("huge.graph", "2 9223372036854775808\n2\n1\n", 0, 0, "32-bit edge indices"))
    return 1;
  { /* a NUL byte inside a line is an error naming the line, not the line cut short */
    char path[512];
    snprintf(path, sizeof path, "%s/nul.gr", tmpdir);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    static const char nul_text[] = "p sp 3 1\na 1 2 5\0 junk\n";
    CHECK(fwrite(nul_text, 1, sizeof nul_text - 1, f) == sizeof nul_text - 1);
    fclose(f);
    app_graph g;
    char err[256] = "";
    CHECK(app_graph_read(path, 10, &g, err, sizeof err) == WGS_EINVAL);
    CHECK_MSG(strstr(err, "nul.gr:2: the line holds a NUL byte") != NULL, "error: %s", err);
    /* a directory given as a graph file */
    snprintf(path, sizeof path, "%s/dir.gr", tmpdir);
    CHECK(mkdir(path, 0700) == 0);
    CHECK(app_graph_read(path, 10, &g, err, sizeof err) == WGS_EIO);
    CHECK_MSG(strstr(err, "is a directory") != NULL, "error: %s", err);
    rmdir(path);
  }
  /* MatrixMarket */
  if (expect_read("ok.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n% c\n3 3 2\n2 1\n3 2\n", 3, 4, NULL) ||
      expect_read("gen.mtx", "%%MatrixMarket matrix coordinate integer general\n3 3 3\n1 2 4\n2 3 0\n3 3 1\n", 3, 2, NULL) ||
      expect_read("neg.mtx", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n2 3 -2\n", 0, 0, ":3: weight -2") ||
      expect_read("big.graph", "2 1 1\n2 200000000\n1 200000000\n", 0, 0, ":2: node 1: edge weight 200000000 too large") ||
      expect_read("hdr.mtx", "%%MatrixMarket matrix array real general\n3 3\n", 0, 0, ":1:") ||
      expect_read("out.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.0\n", 0, 0, ":3:") ||
      expect_read("val.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 abc\n", 0, 0, ":3:") ||
      expect_read("nnz.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 1\n", 0, 0, "declares 2 entries"))
    return 1;
  {
    app_graph g;
    char err[256];
    CHECK(app_graph_read("/nonexistent/x.gr", 10, &g, err, sizeof err) == WGS_EIO);
    CHECK(strstr(err, "/nonexistent/x.gr") != NULL);
    CHECK(app_graph_read(write_file("x.txt", "1 2\n"), 10, &g, err, sizeof err) == WGS_EINVAL);
    CHECK(strstr(err, "unknown graph format") != NULL);
  }
  /* Random garbage never crashes a reader (run under ASan in development). */
  unsigned seed = 7;
  const char *heads[] = {"p sp 5 4\n", "5 4\n", "%%MatrixMarket matrix coordinate integer general\n5 5 4\n"};
  const char *exts[] = {"g.gr", "g.graph", "g.mtx"};
  for (int t = 0; t < 300; ++t) {
    char text[256];
    int len = snprintf(text, sizeof text, "%s", heads[t % 3]);
    for (int k = 0; k < 40; ++k) {
      seed = seed * 1103515245u + 12345u;
      const char alphabet[] = "0123456789 \n\n-ax.%p";
      text[len++] = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
    }
    text[len] = 0;
    app_graph g;
    char err[256];
    if (app_graph_read(write_file(exts[t % 3], text), 10, &g, err, sizeof err) == 0)
      app_graph_free(&g);
  }
  return 0;
}

static int t_generators(void)
{
  app_graph a, b, c;
  char err[256];
  CHECK(app_graph_rmat(10, 8, 10000, 42, &a, err, sizeof err) == 0);
  CHECK(app_graph_rmat(10, 8, 10000, 42, &b, err, sizeof err) == 0);
  CHECK(a.n == 1024 && a.m > 7000 && a.m <= 8192); /* self-loops dropped */
  CHECK_MSG(a.m == b.m && !memcmp(a.col, b.col, a.m * 4) && !memcmp(a.w, b.w, a.m * 4),
            "R-MAT is not deterministic for a fixed seed");
  uint32_t maxdeg = 0;
  for (uint32_t v = 0; v < a.n; ++v) {
    uint32_t d = a.row[v + 1] - a.row[v];
    maxdeg = d > maxdeg ? d : maxdeg;
  }
  CHECK_MSG(maxdeg > 24, "R-MAT max degree %u: expected a skewed distribution (mean 8)", maxdeg);
  for (uint32_t k = 0; k < a.m; ++k)
    CHECK(a.w[k] >= 1 && a.w[k] <= 10000);
  app_graph_free(&b);
  CHECK(app_graph_rmat(10, 8, 10000, 43, &b, err, sizeof err) == 0);
  CHECK_MSG(a.m != b.m || memcmp(a.col, b.col, a.m * 4), "a different seed gave the same R-MAT graph");
  app_graph_free(&a);
  app_graph_free(&b);
  CHECK(app_graph_random(8, 4, 100, 1, &a, err, sizeof err) == 0);
  CHECK(a.n == 256 && a.m == 1024);
  for (uint32_t v = 0; v < a.n; ++v)
    CHECK(a.row[v + 1] - a.row[v] == 4);
  app_graph_free(&a);
  CHECK(app_graph_grid(4, 3, 100, 1, &c, err, sizeof err) == 0);
  CHECK(c.n == 12 && c.m == 2 * (3 * 3 + 4 * 2) && c.symmetric);
  CHECK(app_graph_from_spec("grid:5x2", 100, 1, &a, err, sizeof err) == 0 && a.n == 10);
  app_graph_free(&a);
  CHECK(app_graph_from_spec("rmat:0", 100, 1, &a, err, sizeof err) == WGS_EINVAL);
  CHECK(strstr(err, "scale 0") != NULL);
  CHECK(app_graph_from_spec("grid:ax3", 100, 1, &a, err, sizeof err) == WGS_EINVAL);
  /* symmetrise: every edge has its reverse, no duplicates, no self-loops */
  CHECK(app_graph_rmat(8, 8, 100, 5, &a, err, sizeof err) == 0);
  CHECK(app_graph_symmetrize(&a, err, sizeof err) == 0 && a.symmetric);
  for (uint32_t u = 0; u < a.n; ++u)
    for (uint32_t k = a.row[u]; k < a.row[u + 1]; ++k) {
      uint32_t v = a.col[k], found = 0;
      CHECK(v != u);
      CHECK(k == a.row[u] || a.col[k - 1] < v);
      for (uint32_t j = a.row[v]; j < a.row[v + 1]; ++j)
        found += a.col[j] == u;
      CHECK_MSG(found == 1, "edge %u-%u has %u reverse edges", u, v, found);
    }
  app_graph_free(&a);
  app_graph_free(&c);
  /* the social-like input: far more skewed than R-MAT at the same size, labels shuffled (the
   * largest degree is not node 0's); deterministic */
  CHECK(app_graph_from_spec("kron:12", 100, 7, &a, err, sizeof err) == 0 && a.n == 4096);
  CHECK(app_graph_kron(12, 16, 100, 7, &b, err, sizeof err) == 0);
  CHECK_MSG(a.m == b.m && !memcmp(a.col, b.col, a.m * 4), "kron is not deterministic for a fixed seed");
  uint32_t top = 0;
  maxdeg = 0;
  for (uint32_t v = 0; v < a.n; ++v)
    if (a.row[v + 1] - a.row[v] > maxdeg)
      maxdeg = a.row[v + 1] - a.row[v], top = v;
  CHECK_MSG(maxdeg >= 40u * (a.m / a.n), "kron max degree %u, mean %u: expected a heavy skew", maxdeg, a.m / a.n);
  CHECK_MSG(top != 0, "kron labels were not shuffled");
  app_graph_free(&a);
  app_graph_free(&b);
  /* the road-like input: symmetric, degree at most 4, about 3/4 of a grid's streets */
  CHECK(app_graph_from_spec("road:100x50", 100, 3, &a, err, sizeof err) == 0 && a.n == 5000 && a.symmetric);
  uint32_t streets = 2 * (99 * 50 + 100 * 49);
  CHECK_MSG(a.m > streets * 7 / 10 && a.m < streets * 8 / 10, "road kept %u of %u directed streets", a.m, streets);
  for (uint32_t v = 0; v < a.n; ++v)
    CHECK(a.row[v + 1] - a.row[v] <= 4);
  app_graph_free(&a);
  CHECK(app_graph_from_spec("road:0", 100, 1, &a, err, sizeof err) == WGS_EINVAL && strstr(err, "road 0x0"));
  return 0;
}

static int t_references(void)
{
  app_graph g;
  char err[256];
  /* 2x3 grid: bfs levels from node 0 are the Manhattan distances */
  CHECK(app_graph_grid(3, 2, 1, 1, &g, err, sizeof err) == 0);
  uint32_t lv[6], want[6] = {0, 1, 2, 1, 2, 3};
  app_ref_bfs(&g, 0, lv);
  CHECK(!memcmp(lv, want, sizeof lv));
  app_ref_sssp(&g, 0, lv, NULL); /* all weights 1: the same */
  CHECK(!memcmp(lv, want, sizeof lv));
  /* bc on a path 0-1-2 from all sources: node 1 lies on the paths 0-2 and 2-0 */
  app_graph p;
  CHECK(app_graph_grid(3, 1, 1, 1, &p, err, sizeof err) == 0);
  uint32_t srcs[3] = {0, 1, 2};
  double bc[3];
  app_ref_bc(&p, srcs, 3, bc);
  CHECK_MSG(bc[0] == 0 && bc[1] == 2 && bc[2] == 0, "bc = %g %g %g, expected 0 2 0", bc[0], bc[1], bc[2]);
  /* a weighted directed graph where the shortest path is not the fewest hops */
  const char *path = write_file("sp.gr", "p sp 3 3\na 1 3 10\na 1 2 3\na 2 3 4\n");
  app_graph d;
  CHECK(app_graph_read(path, 1, &d, err, sizeof err) == 0);
  app_ref_sssp(&d, 0, lv, NULL);
  CHECK(lv[0] == 0 && lv[1] == 3 && lv[2] == 7);
  app_ref_bfs(&d, 2, lv);
  CHECK(lv[2] == 0 && lv[0] == APP_NONE && lv[1] == APP_NONE);
  app_graph_free(&g);
  app_graph_free(&p);
  app_graph_free(&d);
  return 0;
}

static int t_checks(void)
{
  app_graph g;
  char err[256];
  CHECK(app_graph_grid(3, 3, 1, 1, &g, err, sizeof err) == 0);
  uint32_t want[9], got[9];
  app_ref_bfs(&g, 0, want);
  memcpy(got, want, sizeof got);
  CHECK(app_check_levels(&g, want, got, "level", err, sizeof err) == 0);
  got[4]++;
  CHECK(app_check_levels(&g, want, got, "level", err, sizeof err) == WGS_EMISMATCH);
  CHECK(strstr(err, "node 4") != NULL);
  /* 3x3 grid: corners and centre form a maximal independent set */
  uint32_t s[9];
  for (int v = 0; v < 9; ++v)
    s[v] = (v % 2 == 0) ? APP_MIS_IN : APP_MIS_OUT;
  CHECK_MSG(app_check_mis(&g, s, err, sizeof err) == 0, "%s", err);
  s[1] = APP_MIS_IN;
  CHECK(app_check_mis(&g, s, err, sizeof err) == WGS_EMISMATCH && strstr(err, "adjacent"));
  s[1] = APP_MIS_OUT;
  s[4] = APP_MIS_OUT; /* centre out, neighbours 1,3,5,7 all out: not maximal */
  CHECK(app_check_mis(&g, s, err, sizeof err) == WGS_EMISMATCH && strstr(err, "not maximal"));
  s[4] = APP_MIS_UNDECIDED;
  CHECK(app_check_mis(&g, s, err, sizeof err) == WGS_EMISMATCH && strstr(err, "undecided"));
  uint32_t col[9], nc;
  for (int v = 0; v < 9; ++v)
    col[v] = v % 2;
  CHECK(app_check_color(&g, col, &nc, err, sizeof err) == 0 && nc == 2);
  col[1] = 0;
  CHECK(app_check_color(&g, col, &nc, err, sizeof err) == WGS_EMISMATCH);
  col[1] = APP_NONE;
  CHECK(app_check_color(&g, col, &nc, err, sizeof err) == WGS_EMISMATCH && strstr(err, "no colour"));
  double bw[9] = {0};
  float bg[9] = {0};
  bw[4] = 100;
  bg[4] = 100.05f;
  CHECK(app_check_bc(&g, bw, bg, err, sizeof err) == 0);
  bg[4] = 100.5f;
  CHECK(app_check_bc(&g, bw, bg, err, sizeof err) == WGS_EMISMATCH);
  /* the references refuse what they cannot answer */
  app_options o;
  app_options_init(&o);
  app_reference r;
  o.src = 9;
  CHECK(app_reference_make(&g, APP_BFS, &o, &r, err, sizeof err) == WGS_EINVAL && strstr(err, "0..8"));
  app_graph d;
  CHECK(app_graph_random(4, 2, 5, 1, &d, err, sizeof err) == 0);
  o.src = 0;
  CHECK(app_reference_make(&d, APP_MIS, &o, &r, err, sizeof err) == WGS_EINVAL && strstr(err, "undirected"));
  app_graph_free(&d);
  /* sssp distances past 32 bits: refused with the node and the distance, never reported as
   * unreachable (a path of 43 edges of the largest weight read, 10^8: 4.3e9 at node 43) */
  char chain[2048] = "p sp 44 43\n";
  for (int v = 1; v <= 43; v++)
    snprintf(chain + strlen(chain), sizeof chain - strlen(chain), "a %d %d 100000000\n", v, v + 1);
  const char *far = write_file("far.gr", chain);
  CHECK(app_graph_read(far, 1, &d, err, sizeof err) == 0);
  int rc = app_reference_make(&d, APP_SSSP, &o, &r, err, sizeof err);
  CHECK_MSG(rc == WGS_ELIMIT && strstr(err, "to node 43 is 4300000000") && strstr(err, "--weights"),
            "rc %d: %s", rc, err);
  app_graph_free(&d);
  app_graph_free(&g);
  return 0;
}

/* Which steps and how many groups: the balanced steps where degrees are skewed (every app),
 * and no more groups than the step's work items fill. */
static int t_sizing(void)
{
  app_graph r, g;
  char err[256];
  app_options o;
  app_options_init(&o);
  CHECK(app_graph_rmat(12, 8, 10, 1, &r, err, sizeof err) == 0);
  CHECK(app_graph_symmetrize(&r, err, sizeof err) == 0);
  CHECK(app_graph_grid(64, 64, 10, 1, &g, err, sizeof err) == 0);
  CHECK_MSG(app_balanced(&r, APP_BFS, &o) && app_balanced(&r, APP_SSSP, &o) && app_balanced(&r, APP_COLOR, &o),
            "R-MAT is skewed");
  CHECK_MSG(!app_balanced(&g, APP_BFS, &o), "a grid is not skewed");
  CHECK_MSG(app_balanced(&r, APP_MIS, &o) && app_balanced(&r, APP_BC, &o), "every app has balanced steps");
  o.balance = APP_BALANCE_NODES;
  CHECK(!app_balanced(&r, APP_BFS, &o));
  o.balance = APP_BALANCE_EDGES;
  CHECK(app_balanced(&g, APP_SSSP, &o) && app_balanced(&g, APP_COLOR, &o) && app_balanced(&g, APP_MIS, &o) &&
        app_balanced(&g, APP_BC, &o));
  /* 4096 nodes + 16384 edges of the grid in chunks of APP_LB_CHUNK */
  CHECK(app_work_items(&g, APP_SSSP, &o) == (4096u + g.m + APP_LB_CHUNK - 1u) / APP_LB_CHUNK);
  CHECK(app_work_items(&g, APP_BC, &o) == app_work_items(&g, APP_SSSP, &o)); /* both phases balanced */
  /* mis and colour: their balanced steps' commit is per node, so never fewer than the nodes */
  CHECK(app_work_items(&g, APP_MIS, &o) == 4096u && app_work_items(&g, APP_COLOR, &o) == 4096u);
  CHECK(app_work_items(&r, APP_COLOR, &o) >= r.n);
  o.balance = APP_BALANCE_AUTO;
  CHECK(app_groups(&g, APP_BFS, &o, 256, 1056) == 16u); /* 4096 nodes / 256 */
  CHECK(app_groups(&g, APP_BFS, &o, 256, 8) == 8u);     /* no more than run at once */
  CHECK(app_groups(&g, APP_BFS, &o, 100, 1056) == 41u); /* rounded up */
  o.all_groups = 1;
  CHECK(app_groups(&g, APP_BFS, &o, 256, 1056) == 1056u);
  app_graph_free(&r);
  app_graph_free(&g);
  return 0;
}

int main(int argc, char **argv)
{
  if (argc != 2) {
    fprintf(stderr, "usage: test_apps readers|generators|references|checks|sizing\n");
    return 2;
  }
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  int rc;
  if (!strcmp(argv[1], "readers"))
    rc = t_readers();
  else if (!strcmp(argv[1], "generators"))
    rc = t_generators();
  else if (!strcmp(argv[1], "references"))
    rc = t_references();
  else if (!strcmp(argv[1], "checks"))
    rc = t_checks();
  else if (!strcmp(argv[1], "sizing"))
    rc = t_sizing();
  else {
    fprintf(stderr, "test_apps: unknown case '%s'\n", argv[1]);
    rc = 2;
  }
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd)) {
  }
  if (!rc)
    printf("PASS %s\n", argv[1]);
  return rc;
}
