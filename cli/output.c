/* wgsync CLI: JSON writer and the device description every subcommand prints first. */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static void sep(json_w *j, const char *key)
{
  if (j->depth > 0) {
    if (!j->first[j->depth])
      fputc(',', j->f);
    j->first[j->depth] = 0;
    fputc('\n', j->f);
    for (int i = 0; i < j->depth; i++)
      fputs("  ", j->f);
  }
  if (key)
    fprintf(j->f, "\"%s\": ", key);
}

static void esc(FILE *f, const char *s)
{
  fputc('"', f);
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c == '\n')
      fputs("\\n", f);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

void json_begin(json_w *j, FILE *f)
{
  memset(j, 0, sizeof *j);
  j->f = f;
}
static void open_(json_w *j, const char *key, char c)
{
  sep(j, key);
  fputc(c, j->f);
  j->depth++;
  j->first[j->depth] = 1;
}
static void close_(json_w *j, char c)
{
  int empty = j->first[j->depth];
  j->depth--;
  if (!empty) {
    fputc('\n', j->f);
    for (int i = 0; i < j->depth; i++)
      fputs("  ", j->f);
  }
  fputc(c, j->f);
}
void json_obj(json_w *j, const char *key) { open_(j, key, '{'); }
void json_arr(json_w *j, const char *key) { open_(j, key, '['); }
void json_end_obj(json_w *j) { close_(j, '}'); }
void json_end_arr(json_w *j) { close_(j, ']'); }
void json_str(json_w *j, const char *key, const char *v)
{
  sep(j, key);
  esc(j->f, v);
}
void json_num(json_w *j, const char *key, double v)
{
  sep(j, key);
  if (isnan(v) || v < -0.5)
    fputs("null", j->f);
  else
    fprintf(j->f, "%.6g", v);
}
void json_int(json_w *j, const char *key, long long v)
{
  sep(j, key);
  fprintf(j->f, "%lld", v);
}
void json_bool(json_w *j, const char *key, int v)
{
  sep(j, key);
  fputs(v ? "true" : "false", j->f);
}
void json_finish(json_w *j)
{
  fputc('\n', j->f);
  fflush(j->f);
}

void cli_now_iso(char *buf, size_t cap)
{
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void cli_short_note(char *buf, size_t cap, uint32_t short_runs, uint32_t runs, uint32_t expected,
                    double close_wait_us)
{
  char wait[64] = "the device's default";
  if (close_wait_us >= 0)
    snprintf(wait, sizeof wait, "%.0f us", close_wait_us);
  snprintf(buf, cap, "%u of %u runs closed with fewer than the %u groups this device runs at "
           "once: the close wait (%s) ended before they all polled (a busy machine?); "
           "--wait-us 200000 (close_wait_us) waits longer", short_runs, runs, expected, wait);
}

double cli_now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void cli_json_open(json_w *j, const char *command)
{
  char date[32];
  cli_now_iso(date, sizeof date);
  json_begin(j, stdout);
  json_obj(j, NULL);
  json_str(j, "tool", "wgsync " WGS_VERSION_STRING);
  json_str(j, "command", command);
  json_str(j, "date", date);
}

const char *cli_atomics_name(wgs_atomics a)
{
  switch (a) {
  case WGS_ATOMICS_C11:
    return "c11 (acquire/release, device scope)";
  case WGS_ATOMICS_PTX:
    return "ptx (ld.acquire.gpu / st.release.gpu)";
  case WGS_ATOMICS_FENCE:
    return "fence (OpenCL 1.2 atomics + mem_fence, best effort)";
  case WGS_ATOMICS_VULKAN:
    return "vulkan (memory model: acquire/release, QueueFamily scope)";
  }
  return "?";
}

const char *cli_lock_name(wgs_lock l)
{
  return l == WGS_LOCK_SPIN ? "spin" : l == WGS_LOCK_FREE ? "free" : "ticket";
}

const char *cli_barrier_name(wgs_barrier b)
{
  return b == WGS_BARRIER_XF ? "xf" : b == WGS_BARRIER_PUBLISHED ? "published" : "counter";
}

void cli_device_json(json_w *j, const char *key, const wgs_device_info *in)
{
  json_obj(j, key);
  char backend[16], id[32] = "";
  snprintf(backend, sizeof backend, "%s", wgs_backend_name(in->backend));
  for (char *c = backend; *c; c++)
    *c = (char)tolower((unsigned char)*c);
  wgs_device_id(in, id, sizeof id);
  json_str(j, "backend", backend);
  json_str(j, "id", id);
  json_int(j, "platform_index", in->platform_index);
  json_int(j, "device_index", in->device_index);
  json_str(j, "platform", in->platform_name);
  json_str(j, "name", in->name);
  json_str(j, "vendor", in->vendor);
  json_str(j, "driver_version", in->driver_version);
  json_str(j, "device_version", in->device_version);
  json_str(j, "opencl_c", in->c_version);
  json_str(j, "type", in->is_gpu ? "gpu" : in->is_cpu ? "cpu" : "other");
  json_int(j, "compute_units", in->compute_units);
  json_int(j, "max_work_group_size", (long long)in->max_work_group_size);
  json_int(j, "local_mem_bytes", (long long)in->local_mem_bytes);
  json_int(j, "global_mem_bytes", (long long)in->global_mem_bytes);
  json_str(j, "atomics", cli_atomics_name(in->atomics));
  json_bool(j, "acq_rel", in->has_acq_rel);
  json_bool(j, "scope_device", in->has_scope_device);
  json_bool(j, "split_barrier_extension", in->has_split_barrier);
  json_bool(j, "device_timer", in->has_timer);
  json_end_obj(j);
}

void cli_print_header(const wgs_device_info *in)
{
  char date[32];
  cli_now_iso(date, sizeof date);
  printf("wgsync %s  %s\n", WGS_VERSION_STRING, date);
  char id[32] = "?";
  wgs_device_id(in, id, sizeof id);
  if (in->backend == WGS_BACKEND_OPENCL)
    printf("device   %s (%s, platform %d device %d)\n", in->name, in->platform_name,
           in->platform_index, in->device_index);
  else
    printf("device   %s (%s device %d: %s)\n", in->name, wgs_backend_name(in->backend),
           in->device_index, id);
  printf("driver   %s; %s; %s\n", in->driver_version, in->device_version, in->c_version);
  printf("atomics  %s\n", cli_atomics_name(in->atomics));
}

int cli_json_errors;

int cli_fail(const char *cmd, int rc)
{
  if (cli_json_errors) { /* a script reading --json gets an object, not text */
    json_w j;
    cli_json_open(&j, cmd);
    json_str(&j, "status", wgs_status_name(rc));
    json_str(&j, "error", wgs_strerror(rc));
    json_str(&j, "detail", wgs_last_error());
    json_end_obj(&j);
    json_finish(&j);
  }
  fprintf(stderr, "wgsync %s: %s (%s)\n%s\n", cmd, wgs_strerror(rc), wgs_status_name(rc),
          wgs_last_error());
  return 1;
}

size_t cli_resolve_local_size(const cli_target *t, size_t want)
{
  return want ? want : wgs_default_local_size(t->dev); /* the library's, as wgs_launch's */
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The machine's load: online cores, the 1-minute load average, and the runnable threads (the
 * fourth field of /proc/loadavg, "running/total", which counts this one): the fewest of 5 looks
 * 10 ms apart, so that a thread that ran for a moment is not counted. 0 when unknown. */
static int machine_load(long *cores, double *avg1, long *running)
{
  *cores = sysconf(_SC_NPROCESSORS_ONLN);
  *avg1 = 0;
  *running = -1;
  for (int i = 0; i < 5; i++) {
    FILE *f = fopen("/proc/loadavg", "r");
    if (!f)
      return 0;
    double a1, a5, a15;
    long r;
    int ok = fscanf(f, "%lf %lf %lf %ld/", &a1, &a5, &a15, &r) == 4;
    fclose(f);
    if (!ok)
      return 0;
    *avg1 = a1;
    if (*running < 0 || r < *running)
      *running = r;
    if (i < 4)
      usleep(10000);
  }
  return *cores > 0;
}

void cli_cpu_load_note(char *buf, size_t cap, const wgs_device_info *in, int slow, const char *what)
{
  buf[0] = '\0';
  long cores, running;
  double avg1;
  if (!in->is_cpu || !machine_load(&cores, &avg1, &running))
    return;
  long others = running > 1 ? running - 1 : 0, workers = (long)in->compute_units;
  int crowded = others + workers > cores; /* (now: the minute's average lags by a minute) */
  if (!slow && !crowded)
    return;
  long free_cores = cores - others > 1 ? cores - others : 1;
  snprintf(buf, cap,
           "%s: on a CPU the groups of a persistent kernel spin while they wait for each other, "
           "so a worker thread taken off its core stalls every barrier until it returns. This "
           "machine: %ld cores, %ld other runnable thread(s) now, load %.2f over the last "
           "minute, and the device runs %ld worker(s). Run it on an idle machine, or with no "
           "more workers than free cores (PoCL: POCL_MAX_PTHREAD_COUNT=%ld "
           "POCL_CPU_MAX_CU_COUNT=%ld; lavapipe: LP_NUM_THREADS=%ld).",
           what, cores, others, avg1, workers, free_cores, free_cores, free_cores);
}

cli_stats cli_summarize(const double *v, size_t n)
{
  cli_stats s = {0, 0, 0, 0, 0};
  double *t = malloc(n * sizeof *t);
  size_t m = 0;
  for (size_t i = 0; t && i < n; i++)
    if (v[i] >= 0)
      t[m++] = v[i];
  if (m) {
    qsort(t, m, sizeof *t, cmp_double);
    s.min = t[0];
    s.max = t[m - 1];
    s.median = m % 2 ? t[m / 2] : (t[m / 2 - 1] + t[m / 2]) / 2;
    for (size_t i = 0; i < m; i++)
      s.mean += t[i] / m;
    s.valid = 1;
  }
  free(t);
  return s;
}
