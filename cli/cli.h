/* wgsync CLI: shared options, output helpers, and the subcommands. */
#ifndef WGS_CLI_H
#define WGS_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "wgsync.h"

typedef struct {
  wgs_device_select sel;
  int json;
  int quiet;
  size_t local_size;      /* 0: 256 capped at the device maximum */
  size_t local_mem;       /* bytes; SIZE_MAX: device maximum */
  wgs_lock lock;
  int lock_set;
  uint32_t delay;
  double wait_us;         /* < 0: device default */
  uint32_t runs;
  uint32_t groups;
  double timeout_ms;
  uint32_t rounds;
  uint32_t limit;
  int with_bound;
  int unchecked;
  wgs_discovery discovery;
  wgs_barrier barrier;
  int split;
  int rounds_set, runs_set;
  /* app */
  const char *app_name, *graph, *forms;
  uint32_t src, bc_sources, max_weight, fixed_groups;
  int balance;    /* APP_BALANCE_* (0: auto) */
  int all_groups; /* --all-groups */
  uint64_t seed;
  int checked;
} cli_opts;

/* The device a command runs on (cli/target.c). */
typedef struct {
  wgs_device_t *dev;       /* OpenCL or CUDA: the device API works on either */
  wgs_device_info info;
  int cuda, cuda_device;   /* a CUDA device, and its ordinal */
} cli_target;
int cli_target_open(const wgs_device_select *sel, cli_target *t);
void cli_target_close(cli_target *t);
/* Why the graph applications cannot run on t's device (they have OpenCL C and CUDA kernels
 * only), or NULL where they can. */
const char *cli_apps_missing(const cli_target *t);

/* JSON writer: enough for flat objects and arrays, strings escaped. */
typedef struct {
  FILE *f;
  int depth;
  int first[16];
} json_w;
void json_begin(json_w *j, FILE *f);
void json_obj(json_w *j, const char *key);   /* key NULL inside arrays / at top */
void json_arr(json_w *j, const char *key);
void json_end_obj(json_w *j);
void json_end_arr(json_w *j);
void json_str(json_w *j, const char *key, const char *v);
void json_num(json_w *j, const char *key, double v); /* NaN/negative sentinel -> null if < -0.5 */
void json_int(json_w *j, const char *key, long long v);
void json_bool(json_w *j, const char *key, int v);
void json_finish(json_w *j);

void cli_now_iso(char *buf, size_t cap);
double cli_now_s(void); /* a monotonic clock, seconds */
/* The remedy when discovery closed before every group the device runs at once had polled
 * (wgs_launch_result.expected): in `runs` runs, `short_runs` did. */
void cli_short_note(char *buf, size_t cap, uint32_t short_runs, uint32_t runs, uint32_t expected,
                    double close_wait_us);
/* min, median, max and mean of the values >= 0 (negative ones mean "not measured") */
typedef struct {
  double min, median, max, mean;
  int valid; /* 0 when no value was >= 0 */
} cli_stats;
cli_stats cli_summarize(const double *v, size_t n);
/* On a CPU device, when a measurement looks like it was taken on a busy machine (slow: the
 * caller's judgement; or the runnable threads beside this one and the device's workers more
 * than the cores): a note on why spinning barriers suffer there and what to do, in buf
 * (empty when there is nothing to say). what names the measurement. */
void cli_cpu_load_note(char *buf, size_t cap, const wgs_device_info *in, int slow, const char *what);
/* Opens the top-level object every --json output starts with: tool, command, date. */
void cli_json_open(json_w *j, const char *command);
void cli_device_json(json_w *j, const char *key, const wgs_device_info *in);
void cli_print_header(const wgs_device_info *in);
const char *cli_atomics_name(wgs_atomics a);
const char *cli_lock_name(wgs_lock l);
const char *cli_barrier_name(wgs_barrier b);
/* Reports a failed call (stderr; with --json also a JSON object on stdout: tool, command, date,
 * status, error, detail) and returns the exit status 1. */
int cli_fail(const char *cmd, int rc);
extern int cli_json_errors; /* set when --json was given (cli_fail writes the object) */
size_t cli_resolve_local_size(const cli_target *t, size_t want);

/* cli/options.c: the usage text; argv[1] is the command. cli_parse returns -1 to go on, else
 * the exit status (0 after --help, 2 after an error, reported on stderr). */
void cli_usage(FILE *f);
void cli_usage_app(FILE *f);
void cli_usage_command(FILE *f, const char *cmd);
int cli_parse(int argc, char **argv, cli_opts *o);
int cmd_devices(const cli_opts *o);
int cmd_spirv(int argc, char **argv);
int cmd_discover(const cli_opts *o, cli_target *t);
int cmd_bound(const cli_opts *o, cli_target *t);
int cmd_barrier(const cli_opts *o, cli_target *t);
int cmd_kernels(const cli_opts *o, cli_target *t);
int cmd_latency(const cli_opts *o, cli_target *t);
int cmd_app(const cli_opts *o, cli_target *t);

#endif
