/* wgsync latency: per-barrier time of the grid barrier over exactly --groups groups (default:
 * the compute-unit count). */
#include <string.h>

#include "cli.h"

int cmd_latency(const cli_opts *o, cli_target *t)
{
  wgs_latency_config c;
  memset(&c, 0, sizeof c);
  c.local_size = cli_resolve_local_size(t, o->local_size);
  c.groups = o->groups;
  c.rounds = o->rounds_set ? o->rounds : 2000;
  c.repeats = o->runs_set ? o->runs : 7;
  c.barrier = o->barrier;
  c.split = o->split;
  wgs_latency_result r;
  int rc = wgs_barrier_latency(t->dev, &c, &r);
  if (rc != WGS_OK)
    return cli_fail("latency", rc);
  const char *kind = cli_barrier_name(o->barrier);
  if (o->json) {
    json_w j;
    cli_json_open(&j, "latency");
    cli_device_json(&j, "device", &t->info);
    json_str(&j, "barrier", kind);
    json_bool(&j, "split", o->split);
    json_int(&j, "groups", r.groups);
    json_int(&j, "local_size", (long long)c.local_size);
    json_int(&j, "rounds", r.rounds);
    json_int(&j, "repeats", r.repeats);
    json_num(&j, "median_us", r.median_us);
    json_num(&j, "min_us", r.min_us);
    json_num(&j, "max_us", r.max_us);
    json_end_obj(&j);
    json_finish(&j);
  } else {
    cli_print_header(&t->info);
    printf("latency  %s barrier%s, %u groups x %zu work-items: median %.3f us per barrier "
           "[min %.3f, max %.3f] (%u repeats of %u barriers)\n",
           kind, o->split ? " (split arrive+wait)" : "", r.groups, c.local_size, r.median_us,
           r.min_us, r.max_us, r.repeats, r.rounds);
  }
  return 0;
}
