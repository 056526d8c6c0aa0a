/* wgsync barrier: K grid barriers among the discovered groups, each checked by message passing. */
#include <string.h>

#include "cli.h"

int cmd_barrier(const cli_opts *o, cli_target *t)
{
  wgs_device_info in = t->info;
  wgs_selftest_config c;
  memset(&c, 0, sizeof c);
  c.local_size = cli_resolve_local_size(t, o->local_size);
  c.groups = o->groups;
  c.rounds = o->rounds;
  c.lock = o->lock;
  c.delay = o->delay;
  c.close_wait_us = o->wait_us;
  c.discovery = o->discovery;
  c.timeout_ms = o->timeout_ms;
  c.unchecked = o->unchecked;
  c.barrier = o->barrier;
  c.split = o->split;
  if (!o->json) {
    cli_print_header(&in);
    printf("barrier  %u %s grid barriers%s, message-passing check across each, local size %zu, "
           "%s build\n", c.rounds, cli_barrier_name(c.barrier),
           c.split ? " (split: arrive, work, wait)" : "", c.local_size,
           c.unchecked ? "unchecked" : "checked");
    fflush(stdout);
  }
  wgs_selftest_result r;
  int rc = wgs_barrier_selftest(t->dev, &c, &r);
  if (o->json) {
    json_w j;
    cli_json_open(&j, "barrier");
    cli_device_json(&j, "device", &in);
    json_obj(&j, "settings");
    json_int(&j, "local_size", (long long)c.local_size);
    json_int(&j, "rounds", c.rounds);
    json_str(&j, "lock", cli_lock_name(c.lock));
    json_bool(&j, "checked", !c.unchecked);
    json_str(&j, "discovery", c.discovery == WGS_DISCOVERY_ALL ? "all" : "protocol");
    json_str(&j, "barrier", cli_barrier_name(c.barrier));
    json_bool(&j, "split", c.split);
    json_end_obj(&j);
    json_str(&j, "status", wgs_status_name(rc));
    json_str(&j, "detail", rc ? wgs_last_error() : "");
    json_int(&j, "launched", r.launch.launched);
    json_int(&j, "participants", r.launch.participants);
    json_int(&j, "expected", r.launch.expected);
    json_int(&j, "groups_done", r.groups_done);
    json_int(&j, "stale_reads", r.mismatches);
    json_num(&j, "kernel_us", r.launch.kernel_us);
    json_num(&j, "us_per_barrier", r.launch.kernel_us >= 0 ? r.launch.kernel_us / c.rounds : -1);
    json_end_obj(&j);
    json_finish(&j);
    return rc ? 1 : 0;
  }
  if (rc != WGS_OK)
    return cli_fail("barrier", rc);
  printf("  %u participating groups (of %u launched) passed %u barriers; 0 stale reads\n",
         r.launch.participants, r.launch.launched, r.rounds);
  printf("  kernel %.1f us, %.3f us per barrier (includes the writes and checks)\n",
         r.launch.kernel_us, r.launch.kernel_us / r.rounds);
  { /* a barrier of more than 1 ms on a CPU: the machine's load, if it is the reason */
    char note[1024];
    cli_cpu_load_note(note, sizeof note, &t->info, r.launch.kernel_us / r.rounds > 1000.0,
                      "  note: barriers this slow");
    if (note[0])
      printf("%s\n", note);
  }
  if (r.launch.participants < r.launch.expected) {
    char note[256];
    cli_short_note(note, sizeof note, 1, 1, r.launch.expected, c.close_wait_us);
    printf("  note: %s\n", note);
  }
  printf("  PASS\n");
  return 0;
}
