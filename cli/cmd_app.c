/*
 * wgsync app NAME --graph SPEC: one graph application (bfs, sssp, mis, color, bc) in several
 * forms side by side (Sorensen et al. 2016 §5.2-5.3): the host loop of kernels, the persistent kernel with
 * discovery, the persistent kernel with a hard-coded group count, and on CUDA also grid.sync()
 * and a CUDA graph with a WHILE node (on a Vulkan device: bfs, in the first three forms). Forms run interleaved (one run of each, repeated) after a
 * warm-up; every run is checked against the CPU reference; median, min and max are reported.
 */
#include <stdlib.h>
#include <string.h>

#include "apps.h"
#include "cli.h"

typedef struct {
  app_form form;
  double *ms;
  app_run last;
} form_runs;

/* "multi,persistent" -> forms; the default depends on the backend. */
static int parse_forms(const char *s, int cuda, app_form *out, int *count)
{
  *count = 0;
  if (!s) {
    out[(*count)++] = APP_FORM_MULTI;
    out[(*count)++] = APP_FORM_PERSISTENT;
    out[(*count)++] = APP_FORM_FIXED;
    if (cuda) {
      out[(*count)++] = APP_FORM_GRIDSYNC;
      out[(*count)++] = APP_FORM_GRAPH;
    }
    return 0;
  }
  char buf[256];
  snprintf(buf, sizeof buf, "%s", s);
  for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
    app_form f;
    if (app_form_parse(tok, &f)) {
      fprintf(stderr, "wgsync: --forms: '%s' is not multi, persistent, fixed, gridsync or graph\n", tok);
      return 2;
    }
    if (!cuda && (f == APP_FORM_GRIDSYNC || f == APP_FORM_GRAPH)) {
      fprintf(stderr, "wgsync: --forms: '%s' exists only on CUDA devices (-n cuda)\n", tok);
      return 2;
    }
    if (*count == APP_FORM_COUNT) {
      fprintf(stderr, "wgsync: --forms: at most %d forms\n", APP_FORM_COUNT);
      return 2;
    }
    out[(*count)++] = f;
  }
  if (*count == 0) { /* "--forms ''" or "--forms ,": nothing would run, yet exit 0 */
    fprintf(stderr, "wgsync: --forms '%s' names no form (expected e.g. multi,persistent)\n", s);
    return 2;
  }
  return 0;
}

/* Generation's progress on stderr, once a second at most and only after the first second (a
 * small graph prints nothing more). */
static void graph_progress(const char *what, uint64_t done, uint64_t total, void *ctx)
{
  static double last;
  double start = *(const double *)ctx, now = cli_now_s();
  if (now - start < 1.0 || now - last < 1.0)
    return;
  last = now;
  fprintf(stderr, "wgsync app: generating %s: %llu of %llu edges (%.0f%%)\n", what,
          (unsigned long long)done, (unsigned long long)total, 100.0 * (double)done / (double)total);
}

int cmd_app(const cli_opts *o, cli_target *t)
{
  app_id a;
  if (!o->app_name || app_parse(o->app_name, &a)) {
    fprintf(stderr, "wgsync app: %s%s%s: expected bfs, sssp, mis, color or bc\n",
            o->app_name ? "'" : "no application given", o->app_name ? o->app_name : "",
            o->app_name ? "' is not an application" : "");
    return 2;
  }
  if (cli_apps_missing(t)) {
    fprintf(stderr, "wgsync app: %s: run them on an OpenCL or CUDA device (wgsync devices lists "
                    "them)\n", cli_apps_missing(t));
    return 2;
  }
  if (t->info.backend == WGS_BACKEND_VULKAN && a != APP_BFS) {
    fprintf(stderr, "wgsync app: %s has OpenCL C and CUDA kernels only; on a Vulkan device wgsync "
                    "runs bfs (run %s on an OpenCL or CUDA device: wgsync devices lists them)\n",
            app_name(a), app_name(a));
    return 2;
  }
  app_form forms[APP_FORM_COUNT];
  int nforms;
  if (parse_forms(o->forms, t->cuda, forms, &nforms))
    return 2;
  char err[1024] = "";
  app_graph g;
  const char *spec = o->graph ? o->graph : "rmat:14";
  uint32_t maxw = o->max_weight ? o->max_weight : 10000;
  double t0 = cli_now_s();
  if (!o->quiet) {
    fprintf(stderr, "wgsync app: loading %s\n", spec);
    app_graph_set_progress(graph_progress, &t0);
  }
  int rc = app_graph_from_spec(spec, maxw, o->seed, &g, err, sizeof err);
  if (!rc && app_needs_symmetric(a) && !g.symmetric)
    rc = app_graph_symmetrize(&g, err, sizeof err);
  app_graph_set_progress(NULL, NULL);
  if (rc) {
    fprintf(stderr, "wgsync app: %s\n", err);
    return 1;
  }
  if (!o->quiet)
    fprintf(stderr, "wgsync app: loaded %s: %u nodes, %u edges%s in %.1f s\n", g.name, g.n, g.m,
            g.symmetric ? " (symmetric)" : "", cli_now_s() - t0);
  app_options ao;
  app_options_init(&ao);
  ao.local_size = cli_resolve_local_size(t, o->local_size);
  ao.src = o->src;
  if (o->bc_sources)
    ao.bc_sources = o->bc_sources;
  ao.fixed_groups = o->fixed_groups;
  ao.balance = o->balance; /* the CLI's 0/1/2 are APP_BALANCE_AUTO/NODES/EDGES */
  ao.all_groups = o->all_groups;
  ao.barrier = o->barrier;
  if (o->lock_set)
    ao.lock = o->lock;
  ao.close_wait_us = o->wait_us;
  ao.checked = o->checked;
  ao.timeout_ms = o->timeout_ms;
  app_reference ref;
  if (!o->quiet)
    fprintf(stderr, "wgsync app: CPU reference for %s on %u nodes, %u edges\n", app_name(a), g.n, g.m);
  if ((rc = app_reference_make(&g, a, &ao, &ref, err, sizeof err))) {
    fprintf(stderr, "wgsync app: %s\n", err);
    app_graph_free(&g);
    return 1;
  }
  app_cl *cl = NULL;
  app_cu *cu = NULL;
  app_vk *vk = NULL;
  if (t->info.backend == WGS_BACKEND_VULKAN) {
#ifdef WGSYNC_APPS_VULKAN
    rc = app_vk_create(t->dev, &g, a, &ao, &vk, err, sizeof err);
#else
    rc = WGS_EUNSUPPORTED;
    snprintf(err, sizeof err, "this wgsync was built without the Vulkan apps");
#endif
  } else if (t->cuda) {
#ifdef WGSYNC_APPS_CUDA
    rc = app_cu_create(t->cuda_device, &g, a, &ao, &cu, err, sizeof err);
#else
    rc = WGS_EUNSUPPORTED;
    snprintf(err, sizeof err, "this wgsync was built without CUDA");
#endif
  } else {
    rc = app_cl_create(t->dev, &g, a, &ao, &cl, err, sizeof err);
  }
  if (rc) {
    fprintf(stderr, "wgsync app: %s\n", err);
    app_reference_free(&ref);
    app_graph_free(&g);
    return 1;
  }
  uint32_t runs = o->runs_set ? o->runs : 5, warm = 1;
  form_runs fr[APP_FORM_COUNT];
  memset(fr, 0, sizeof fr);
  for (int i = 0; i < nforms && !rc; ++i) {
    fr[i].form = forms[i];
    if (!(fr[i].ms = calloc(runs, sizeof(double))))
      rc = WGS_ENOMEM;
  }
  /* Interleaved: warm-up of every form, then run r of every form, so drift hits all alike. */
  for (uint32_t r = 0; r < warm + runs && !rc; ++r)
    for (int i = 0; i < nforms && !rc; ++i) {
      app_run run;
#ifdef WGSYNC_APPS_VULKAN
      if (vk)
        rc = app_vk_run(vk, forms[i], &ref, &run, err, sizeof err);
      else
#endif
#ifdef WGSYNC_APPS_CUDA
      rc = cu ? app_cu_run(cu, forms[i], &ref, &run, err, sizeof err)
              : app_cl_run(cl, forms[i], &ref, &run, err, sizeof err);
#else
      rc = app_cl_run(cl, forms[i], &ref, &run, err, sizeof err);
#endif
      if (rc)
        break;
      if (r >= warm)
        fr[i].ms[r - warm] = run.ms;
      fr[i].last = run;
      if (!o->quiet) {
        char regs[32] = "";
        if (run.registers)
          snprintf(regs, sizeof regs, ", %u registers", run.registers);
        fprintf(stderr, "  %s %-10s %s %u/%u: %9.3f ms, %u steps, %u groups%s\n", app_name(a),
                app_form_name(forms[i]), r < warm ? "warm-up" : "run", r < warm ? r + 1 : r - warm + 1,
                r < warm ? warm : runs, run.ms, run.steps, run.groups, regs);
      }
    }
  if (rc) {
    fprintf(stderr, "wgsync app: %s\n", err);
  } else {
    cli_stats st[APP_FORM_COUNT];
    double med[APP_FORM_COUNT];
    for (int i = 0; i < nforms; ++i) {
      st[i] = cli_summarize(fr[i].ms, runs);
      med[i] = st[i].median;
    }
    int mi = -1, pi = -1, fi = -1;
    for (int i = 0; i < nforms; ++i) {
      if (forms[i] == APP_FORM_MULTI) mi = i;
      if (forms[i] == APP_FORM_PERSISTENT) pi = i;
      if (forms[i] == APP_FORM_FIXED) fi = i;
    }
    if (o->json) {
      json_w j;
      cli_json_open(&j, "app");
      cli_device_json(&j, "device", &t->info);
      json_str(&j, "app", app_name(a));
      json_obj(&j, "graph");
      json_str(&j, "name", g.name);
      json_str(&j, "spec", spec);
      json_int(&j, "nodes", g.n);
      json_int(&j, "edges", g.m);
      json_bool(&j, "symmetric", g.symmetric);
      json_end_obj(&j);
      json_int(&j, "local_size", (long long)ao.local_size);
      json_str(&j, "lock", cli_lock_name(ao.lock));
      json_str(&j, "barrier", ao.barrier == WGS_BARRIER_DEFAULT ? "default" : cli_barrier_name(ao.barrier));
      json_int(&j, "runs", runs);
      json_int(&j, "warmup", warm);
      json_arr(&j, "forms");
      for (int i = 0; i < nforms; ++i) {
        json_obj(&j, NULL);
        json_str(&j, "form", app_form_name(forms[i]));
        json_num(&j, "median_ms", med[i]);
        json_num(&j, "min_ms", st[i].min);
        json_num(&j, "max_ms", st[i].max);
        json_int(&j, "steps", fr[i].last.steps);
        json_int(&j, "launches", fr[i].last.launches);
        json_int(&j, "groups", fr[i].last.groups);
        if (fr[i].last.registers)
          json_int(&j, "registers", fr[i].last.registers);
        json_str(&j, "verified", fr[i].last.summary);
        json_arr(&j, "ms");
        for (uint32_t r = 0; r < runs; ++r)
          json_num(&j, NULL, fr[i].ms[r]);
        json_end_arr(&j);
        json_end_obj(&j);
      }
      json_end_arr(&j);
      if (mi >= 0 && pi >= 0)
        json_num(&j, "speedup_persistent_over_multi", med[mi] / med[pi]);
      if (pi >= 0 && fi >= 0)
        json_num(&j, "portability_slowdown", med[pi] / med[fi]);
      json_end_obj(&j);
      json_finish(&j);
    } else {
      cli_print_header(&t->info);
      printf("app %s on %s (%u nodes, %u edges, %s), local size %zu, %u runs after %u warm-up\n",
             app_name(a), g.name, g.n, g.m, g.symmetric ? "undirected" : "directed",
             ao.local_size, runs, warm);
      printf("  %-10s %11s %11s %11s %7s %9s %7s  %s\n", "form", "median ms", "min ms", "max ms",
             "steps", "launches", "groups", "checked against the CPU reference");
      for (int i = 0; i < nforms; ++i)
        printf("  %-10s %11.3f %11.3f %11.3f %7u %9u %7u  %s\n", app_form_name(forms[i]), med[i],
               st[i].min, st[i].max, fr[i].last.steps,
               fr[i].last.launches, fr[i].last.groups, fr[i].last.summary);
      if (mi >= 0 && pi >= 0)
        printf("speedup of the persistent kernel over the host loop: %.2fx (median over median)\n",
               med[mi] / med[pi]);
      if (pi >= 0) { /* slow beside the host loop, or runs far apart: say why and what to do */
        int slow = (mi >= 0 && med[mi] < med[pi]) || st[pi].max > 4 * st[pi].min;
        char what[128], note[1024];
        snprintf(what, sizeof what, "note: the persistent kernel's runs took %.3f to %.3f ms",
                 st[pi].min, st[pi].max);
        cli_cpu_load_note(note, sizeof note, &t->info, slow, what);
        if (note[0])
          printf("%s\n", note);
      }
      if (pi >= 0 && fi >= 0)
        printf("portability cost (discovery vs %u hard-coded groups): %.3fx\n", fr[fi].last.groups,
               med[pi] / med[fi]);
      for (int i = 0; i < nforms; ++i)
        if (forms[i] == APP_FORM_GRIDSYNC || forms[i] == APP_FORM_GRAPH)
          printf("persistent (wgsync) vs %s: %.2fx\n", app_form_name(forms[i]), med[i] / med[pi >= 0 ? pi : i]);
    }
  }
  for (int i = 0; i < nforms; ++i)
    free(fr[i].ms);
  app_cl_destroy(cl);
#ifdef WGSYNC_APPS_CUDA
  app_cu_destroy(cu);
#endif
#ifdef WGSYNC_APPS_VULKAN
  app_vk_destroy(vk);
#endif
  app_reference_free(&ref);
  app_graph_free(&g);
  return rc ? 1 : 0;
}
