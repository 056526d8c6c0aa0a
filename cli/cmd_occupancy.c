/*
 * wgsync discover / bound: Sorensen et al. 2016 §5.1 on the chosen device — discovered occupancy per run
 * (ticket or spin lock, delay, close wait) and the occupancy bound found by the unsafe search.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void stats_json(json_w *j, const char *key, cli_stats s)
{
  json_obj(j, key);
  json_num(j, "min", s.valid ? s.min : -1);
  json_num(j, "median", s.valid ? s.median : -1);
  json_num(j, "max", s.valid ? s.max : -1);
  json_num(j, "mean", s.valid ? s.mean : -1);
  json_end_obj(j);
}

static wgs_occupancy_config occ_config(const cli_opts *o, cli_target *t,
                                       const wgs_device_info *in, int *rc)
{
  wgs_occupancy_config c;
  memset(&c, 0, sizeof c);
  c.local_size = cli_resolve_local_size(t, o->local_size);
  c.local_mem_bytes = o->local_mem ? o->local_mem : 1;
  *rc = WGS_OK;
  if (o->local_mem == SIZE_MAX)
    *rc = wgs_occupancy_max_local_mem(t->dev, c.local_size, &c.local_mem_bytes);
  c.lock = o->lock;
  c.delay = o->delay;
  c.close_wait_us = o->wait_us;
  c.groups = o->groups;
  c.timeout_ms = o->timeout_ms;
  c.barrier = o->barrier;
  return c;
}

static void settings_json(json_w *j, const wgs_occupancy_config *c, const cli_target *t)
{
  json_obj(j, "settings");
  json_int(j, "local_size", (long long)c->local_size);
  json_int(j, "local_mem_bytes", (long long)c->local_mem_bytes);
  json_str(j, "lock", cli_lock_name(c->lock));
  json_int(j, "delay", c->delay);
  if (c->close_wait_us < 0) /* the library's default: 10 us on GPUs, 20 ms on CPUs, ending early
                               once the device's known bound has polled (close_at) */
    json_str(j, "close_wait_us", "device default");
  else
    json_num(j, "close_wait_us", c->close_wait_us);
  json_int(j, "groups_launched",
           c->groups ? c->groups : wgs_default_groups(t->dev, c->local_size));
  json_num(j, "timeout_ms", c->timeout_ms > 0 ? c->timeout_ms : -1);
  json_end_obj(j);
}

static void progress(void *user, uint32_t groups, int ok)
{
  fprintf(stderr, "  probe %6u groups: %s\n", groups, ok ? "barrier completed" : "deadlock caught");
}

static int find_bound(const cli_opts *o, cli_target *t, const wgs_occupancy_config *c,
                      uint32_t *bound)
{
  return wgs_occupancy_bound(t->dev, c, o->limit, o->quiet ? NULL : progress, NULL, bound);
}

int cmd_bound(const cli_opts *o, cli_target *t)
{
  wgs_device_info in = t->info;
  int crc;
  wgs_occupancy_config c = occ_config(o, t, &in, &crc);
  if (crc != WGS_OK)
    return cli_fail("occupancy", crc);
  if (!o->json) {
    cli_print_header(&in);
    printf("bound    unsafe search: one grid barrier over N launched groups, discovery off,\n"
           "         local size %zu, local memory %zu B (checked build: deadlocks are caught)\n",
           c.local_size, c.local_mem_bytes);
    fflush(stdout);
  }
  uint32_t bound = 0;
  int rc = find_bound(o, t, &c, &bound);
  if (rc != WGS_OK)
    return cli_fail("bound", rc);
  if (o->json) {
    json_w j;
    cli_json_open(&j, "bound");
    cli_device_json(&j, "device", &in);
    settings_json(&j, &c, t);
    json_int(&j, "bound", bound);
    json_end_obj(&j);
    json_finish(&j);
  } else {
    printf("occupancy bound: %u groups of %zu work-items\n", bound, c.local_size);
  }
  return 0;
}

int cmd_discover(const cli_opts *o, cli_target *t)
{
  wgs_device_info in = t->info;
  int crc;
  wgs_occupancy_config c = occ_config(o, t, &in, &crc);
  if (crc != WGS_OK)
    return cli_fail("occupancy", crc);
  uint32_t bound = 0;
  int rc;
  if (!o->json)
    cli_print_header(&in);
  if (o->with_bound) {
    if (!o->json)
      printf("bound    unsafe search (local size %zu, local memory %zu B)...\n", c.local_size,
             c.local_mem_bytes);
    fflush(stdout);
    if ((rc = find_bound(o, t, &c, &bound)) != WGS_OK)
      return cli_fail("discover", rc);
    if (!o->json)
      printf("         occupancy bound: %u groups\n", bound);
  }
  uint32_t runs = o->runs;
  double *count = calloc(runs, sizeof *count), *proto = calloc(runs, sizeof *proto),
         *kern = calloc(runs, sizeof *kern);
  uint32_t launched = 0, expected = 0, short_runs = 0;
  if (!o->json) {
    printf("discover %s lock, delay %u, close wait %s, local size %zu, local memory %zu B, %u runs\n",
           cli_lock_name(c.lock), c.delay,
           c.close_wait_us < 0 ? "device default" : "as given", c.local_size, c.local_mem_bytes,
           runs);
    printf("  %4s %9s %12s %12s %12s\n", "run", "launched", "participants", "protocol_us",
           "kernel_us");
  }
  for (uint32_t i = 0; i < runs; i++) {
    wgs_launch_result r;
    if ((rc = wgs_occupancy_discover(t->dev, &c, &r)) != WGS_OK) {
      free(count), free(proto), free(kern);
      return cli_fail("discover", rc);
    }
    launched = r.launched;
    expected = r.expected;
    short_runs += r.participants < r.expected;
    count[i] = r.participants;
    proto[i] = r.protocol_us;
    kern[i] = r.kernel_us;
    if (!o->json) {
      printf("  %4u %9u %12u ", i + 1, r.launched, r.participants);
      if (r.protocol_us >= 0)
        printf("%12.2f ", r.protocol_us);
      else
        printf("%12s ", "n/a");
      printf("%12.1f\n", r.kernel_us);
      fflush(stdout);
    }
  }
  cli_stats sc = cli_summarize(count, runs), sp = cli_summarize(proto, runs), sk = cli_summarize(kern, runs);
  double recall = bound ? sc.mean / bound : -1;
  if (o->json) {
    json_w j;
    cli_json_open(&j, "discover");
    cli_device_json(&j, "device", &in);
    settings_json(&j, &c, t);
    json_int(&j, "launched", launched);
    json_arr(&j, "runs");
    for (uint32_t i = 0; i < runs; i++) {
      json_obj(&j, NULL);
      json_int(&j, "participants", (long long)count[i]);
      json_num(&j, "protocol_us", proto[i]);
      json_num(&j, "kernel_us", kern[i]);
      json_end_obj(&j);
    }
    json_end_arr(&j);
    stats_json(&j, "participants", sc);
    stats_json(&j, "protocol_us", sp);
    stats_json(&j, "kernel_us", sk);
    if (bound) {
      json_int(&j, "bound", bound);
      json_num(&j, "recall", recall);
    }
    json_int(&j, "expected", expected);
    if (short_runs) {
      char note[256];
      cli_short_note(note, sizeof note, short_runs, runs, expected, c.close_wait_us);
      json_str(&j, "note", note);
    }
    json_end_obj(&j);
    json_finish(&j);
  } else {
    printf("  participants min %.0f  median %.1f  max %.0f  mean %.2f\n", sc.min, sc.median, sc.max,
           sc.mean);
    if (sp.valid)
      printf("  protocol time (device clock) median %.2f us  [min %.2f, max %.2f]\n", sp.median,
             sp.min, sp.max);
    else
      printf("  protocol time: no device clock on this device; kernel time median %.1f us "
             "[min %.1f, max %.1f]\n", sk.median, sk.min, sk.max);
    if (bound)
      printf("  recall %.1f%% of the occupancy bound (%u)\n", 100 * recall, bound);
    if (short_runs) {
      char note[256];
      cli_short_note(note, sizeof note, short_runs, runs, expected, c.close_wait_us);
      printf("  note: %s\n", note);
    }
  }
  free(count), free(proto), free(kern);
  return 0;
}
