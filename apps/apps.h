/*
 * The graph applications of Sorensen et al. 2016 §5.2–5.3 on wgsync: bfs, sssp, mis, color, bc, each as a
 * host loop of kernels (multi-kernel) and as one persistent kernel with discovery and the grid
 * barrier, plus the specialised variant with a hard-coded group count; on CUDA also with
 * cooperative groups' grid.sync() and as a CUDA graph whose loop is a conditional WHILE node.
 * Every run is checked against the CPU reference; a wrong answer is an error, not a number.
 */
#ifndef WGS_APPS_H
#define WGS_APPS_H

#include <stddef.h>
#include <stdint.h>

#include "graph/graph.h"
#include "wgsync.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { APP_BFS, APP_SSSP, APP_MIS, APP_COLOR, APP_BC, APP_COUNT } app_id;

typedef enum {
  APP_FORM_MULTI,      /* host loop: launch the step's kernels, read the stop flag, repeat */
  APP_FORM_PERSISTENT, /* one kernel: discovery + grid barrier (portable) */
  APP_FORM_FIXED,      /* one kernel, hard-coded group count, no discovery (§5.3 specialised) */
  APP_FORM_GRIDSYNC,   /* CUDA: one cooperative kernel with grid.sync() */
  APP_FORM_GRAPH,      /* CUDA: a CUDA graph; the loop is a conditional WHILE node */
  APP_FORM_COUNT
} app_form;

const char *app_name(app_id a);
const char *app_form_name(app_form f);
int app_parse(const char *s, app_id *out);
int app_form_parse(const char *s, app_form *out);
/* mis, color and bc need an undirected graph. */
int app_needs_symmetric(app_id a);

typedef struct {
  size_t local_size;     /* 0: 256, capped at the device maximum */
  uint32_t src;          /* bfs / sssp source node */
  uint32_t bc_sources;   /* bc: number of sources (0: 4) */
  uint32_t fixed_groups; /* FIXED: groups; 0: the count discovery found in the first
                            persistent run (OpenCL) or the occupancy API (CUDA) */
  wgs_lock lock;         /* discovery protocol of the persistent form */
  double close_wait_us;  /* < 0: device default */
  int checked;           /* build with WGS_BUILD_CHECKED (bounded spins) */
  double timeout_ms;
  int balance;           /* the steps, per node or balanced: APP_BALANCE_* */
  int all_groups;        /* 1: the persistent forms take every group that runs at once; 0 (the
                            default): no more than the step's work items fill (app_groups) */
  wgs_barrier barrier;   /* the persistent and fixed forms' grid barrier; WGS_BARRIER_DEFAULT:
                            on CUDA the published shape (the steps spread the groups' arrivals,
                            where it is measured faster: docs/results.md), elsewhere the
                            library's default */
} app_options;
enum { APP_BALANCE_AUTO = 0, APP_BALANCE_NODES = 1, APP_BALANCE_EDGES = 2 };
void app_options_init(app_options *o);

/* Whether the app takes the load-balanced steps (apps/kernels/app_steps.h, merge-path split) on
 * this graph: as asked, or under APP_BALANCE_AUTO when its degrees are skewed (the largest at
 * least APP_SKEW times the mean, and at least 64). Every app has them.
 * (The OpenCL apps turn AUTO into NODES on a CPU device.) */
#define APP_SKEW 8u
int app_balanced(const app_graph *g, app_id a, const app_options *o);
/* Work items of one step: nodes, or the balanced steps' chunks (for mis and colour, whose
 * balanced steps also have a per-node phase, the larger of the two). */
uint32_t app_work_items(const app_graph *g, app_id a, const app_options *o);
/* Groups of local work-items the persistent forms launch: the step's work items at one per
 * work-item, no more than max (what runs at once), at least 1; max under all_groups. */
uint32_t app_groups(const app_graph *g, app_id a, const app_options *o, size_t local, uint32_t max);

typedef struct {
  double ms;          /* host wall-clock time of the algorithm (graph already on the device) */
  uint32_t steps;     /* loop trips (the host loop's or the device's) */
  uint32_t launches;  /* kernel (or graph) launches */
  uint32_t groups;    /* groups that did the work */
  uint32_t registers; /* registers per work-item of the persistent kernel that ran (CUDA; 0:
                         not known) */
  char summary[128];  /* what was checked: "65536 reached, depth 12" */
} app_run;

/* The CPU reference for one (graph, app): computed once, used to check every run. */
typedef struct {
  app_id app;
  uint32_t *u32;       /* bfs levels, sssp distances */
  double *bc;
  uint32_t *sources;   /* bc */
  uint32_t nsrc;
  uint32_t src;
} app_reference;

int app_reference_make(const app_graph *g, app_id a, const app_options *o, app_reference *r,
                       char *err, size_t errlen);
void app_reference_free(app_reference *r);
/* Checks a device result (u32 for bfs/sssp/mis/color, f32 for bc); fills summary. */
int app_verify(const app_graph *g, const app_reference *r, const uint32_t *u32, const float *f32,
               char *summary, size_t slen, char *err, size_t errlen);

/* The host's clock for a run's time (ms); and err filled as "what: the library's last error"
 * (or the status's text), returning rc: what the OpenCL and Vulkan forms report with. */
double app_now_ms(void);
int app_fail(int rc, char *err, size_t errlen, const char *what);

/* ---- OpenCL -------------------------------------------------------------------------------- */
typedef struct app_cl app_cl;
/* Builds the apps program (once per device and options) and uploads the graph. */
int app_cl_create(wgs_device_t *dev, const app_graph *g, app_id a, const app_options *o,
                  app_cl **out, char *err, size_t errlen);
/* One run of one form (multi, persistent, fixed), verified against ref. */
int app_cl_run(app_cl *c, app_form f, const app_reference *ref, app_run *r, char *err,
               size_t errlen);
void app_cl_destroy(app_cl *c);

/* ---- Vulkan (apps/vulkan; present when built with the Vulkan backend: WGSYNC_APPS_VULKAN) ---
 * bfs only (its GLSL kernels, apps/vulkan/bfs.comp); the other apps are refused by name. Forms:
 * multi, persistent, fixed. */
typedef struct app_vk app_vk;
int app_vk_create(wgs_device_t *dev, const app_graph *g, app_id a, const app_options *o,
                  app_vk **out, char *err, size_t errlen);
int app_vk_run(app_vk *c, app_form f, const app_reference *ref, app_run *r, char *err,
               size_t errlen);
void app_vk_destroy(app_vk *c);

/* ---- CUDA (apps/cuda; present when built with CUDA) ---------------------------------------- */
typedef struct app_cu app_cu;
int app_cu_create(int device, const app_graph *g, app_id a, const app_options *o, app_cu **out,
                  char *err, size_t errlen);
int app_cu_run(app_cu *c, app_form f, const app_reference *ref, app_run *r, char *err,
               size_t errlen);
void app_cu_destroy(app_cu *c);

#ifdef __cplusplus
}
#endif
#endif
