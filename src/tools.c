/*
 * What the backends' occupancy tools share: the search for the occupancy bound (grow, then
 * bisect, over a backend's probe), the launch configurations the tools make, the latency
 * statistics and the self-test kernel's report.
 */
#include <stdlib.h>
#include <string.h>

#include "tools.h"
#include "tuning.h"

int wgs__bound_search(uint32_t start, uint32_t limit, int (*probe)(void *ctx, uint32_t n, int *ok),
                      void *ctx, void (*cb)(void *user, uint32_t groups, int ok), void *user,
                      uint32_t *bound)
{
  *bound = 0;
  /* Grow from start until a probe deadlocks, then bisect (lo ok, hi not). */
  uint32_t lo = 0, hi = 0, n = start ? start : 1;
  int rc;
  if (n > limit)
    n = limit;
  for (;;) {
    int ok = 0;
    if ((rc = probe(ctx, n, &ok)) != WGS_OK)
      return rc;
    if (cb)
      cb(user, n, ok);
    if (!ok) {
      hi = n;
      break;
    }
    lo = n;
    if (n >= limit)
      return wgs__fail(WGS_ELIMIT, "no deadlock up to the search limit of %u groups: the "
                                   "occupancy bound is at least %u", limit, limit);
    n = n * 2 > limit ? limit : n * 2;
  }
  if (lo == 0) { /* even the first probe deadlocked: search below it */
    int ok = 0;
    if ((rc = probe(ctx, 1, &ok)) != WGS_OK)
      return rc;
    if (cb)
      cb(user, 1, ok);
    if (!ok)
      return wgs__fail(WGS_EDEADLOCK, "a grid barrier over a single group deadlocked: %s",
                       "the spin limit is too short for this device");
    lo = 1;
  }
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    int ok = 0;
    if ((rc = probe(ctx, mid, &ok)) != WGS_OK)
      return rc;
    if (cb)
      cb(user, mid, ok);
    if (ok)
      lo = mid;
    else
      hi = mid;
  }
  *bound = lo;
  return WGS_OK;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median, min and max of v[0..n) into res. */
void wgs__latency_stats(double *v, uint32_t n, uint32_t groups, uint32_t rounds,
                        wgs_latency_result *res)
{
  qsort(v, n, sizeof *v, cmp_double);
  res->min_us = v[0];
  res->max_us = v[n - 1];
  res->median_us = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  res->groups = groups;
  res->rounds = rounds;
  res->repeats = n;
}

int wgs__selftest_report(const uint32_t *rep, uint32_t rounds, wgs_selftest_result *res)
{
  res->rounds = rounds;
  res->mismatches = rep[0];
  res->first_round = rep[1];
  res->first_reader = rep[2];
  res->first_source = rep[3];
  res->first_word = rep[4];
  res->first_expected = rep[5];
  res->first_got = rep[6];
  res->groups_done = rep[7];
  if (res->mismatches)
    return wgs__fail(WGS_EMISMATCH, "grid barrier self-test: %u stale reads in %u rounds over %u "
                                    "groups; first: round %u, work-item %u read word %u of "
                                    "work-item %u: expected 0x%08x, got 0x%08x",
                     res->mismatches, rounds, res->launch.participants, res->first_round,
                     res->first_reader, res->first_word, res->first_source, res->first_expected,
                     res->first_got);
  if (res->groups_done != res->launch.participants)
    return wgs__fail(WGS_EMISMATCH, "grid barrier self-test: %u of %u participating groups "
                                    "finished", res->groups_done, res->launch.participants);
  return WGS_OK;
}

void wgs__occ_launch_config(const wgs_occupancy_config *c, uint32_t groups, wgs_discovery disc,
                            wgs_launch_config *lc)
{
  wgs_launch_config_init(lc);
  lc->time_protocol = 1; /* the microbenchmarks report the protocol and kernel times */
  lc->time_kernel = 1;
  lc->local_size = c->local_size;
  lc->groups = groups;
  lc->lock = c->lock;
  lc->delay = c->delay;
  lc->close_wait_us = c->close_wait_us;
  lc->discovery = disc;
  lc->timeout_ms = c->timeout_ms;
  lc->barrier = c->barrier;
}

void wgs__selftest_launch_config(const wgs_selftest_config *c, size_t local, uint32_t groups,
                                 wgs_launch_config *lc)
{
  wgs_launch_config_init(lc);
  lc->time_kernel = 1; /* the self-test reports the time per barrier */
  lc->local_size = local;
  lc->groups = groups;
  lc->lock = c->lock;
  lc->delay = c->delay;
  lc->close_wait_us = c->close_wait_us;
  lc->discovery = c->discovery;
  lc->timeout_ms = c->timeout_ms;
  lc->barrier = c->barrier;
}

/* ---- the occupancy tools over a backend's launches (src/device.h) ------------------------- */

int wgs__tool_discover(wgs_device_t *dev, const wgs_occupancy_config *cfg, wgs_launch_result *res)
{
  const wgs__device_head *h = wgs__head(dev);
  uint32_t groups = cfg->groups ? cfg->groups : h->ops->default_groups(dev, cfg->local_size);
  if (groups == 0)
    return wgs__fail(WGS_ENODEV, "'%s' did not give its compute-unit count", h->info.name);
  return h->ops->micro(dev, cfg, groups, WGS_DISCOVERY_PROTOCOL, 1, res);
}

struct bound_ctx {
  wgs_device_t *dev;
  const wgs_occupancy_config *cfg;
};
/* Probe: 1 when a barrier over n groups (all taking part) completed, 0 when the checked build
 * caught it as a deadlock. */
static int bound_probe(void *ctx, uint32_t n, int *ok)
{
  struct bound_ctx *c = ctx;
  wgs_launch_result r;
  int rc = wgs__head(c->dev)->ops->micro(c->dev, c->cfg, n, WGS_DISCOVERY_ALL, 1, &r);
  *ok = rc == WGS_OK;
  return rc == WGS_EDEADLOCK ? WGS_OK : rc;
}

int wgs__tool_bound(wgs_device_t *dev, const wgs_occupancy_config *cfg, uint32_t limit,
                    void (*cb)(void *user, uint32_t groups, int ok), void *user, uint32_t *bound)
{
  const wgs__device_head *h = wgs__head(dev);
  *bound = 0;
  /* The search stops at its first deadlock; the limit only ends it on a device without one. */
  if (limit == 0)
    limit = 4 * h->ops->default_groups(dev, cfg->local_size);
  uint32_t start = h->info.compute_units ? h->info.compute_units : 1;
  struct bound_ctx c = {dev, cfg};
  return wgs__bound_search(start, limit, bound_probe, &c, cb, user, bound);
}

int wgs__tool_selftest(wgs_device_t *dev, const wgs_selftest_config *cfg, wgs_selftest_result *res)
{
  const wgs__device_head *h = wgs__head(dev);
  memset(res, 0, sizeof *res);
  if (cfg->unchecked && cfg->discovery != WGS_DISCOVERY_PROTOCOL) {
    /* Every launched group takes part and nothing bounds the unchecked spins: a count above
     * the occupancy bound would hang. A short checked run first turns that into WGS_EDEADLOCK
     * (wgs_barrier_latency's launches do the same). */
    wgs_selftest_config probe = *cfg;
    probe.unchecked = 0;
    probe.rounds = probe.rounds && probe.rounds < 10 ? probe.rounds : 10;
    int rc = wgs__tool_selftest(dev, &probe, res);
    if (rc != WGS_OK)
      return rc;
    memset(res, 0, sizeof *res);
  }
  size_t local = cfg->local_size ? cfg->local_size : wgs__default_local(h->info.max_work_group_size);
  uint32_t groups = cfg->groups ? cfg->groups : h->ops->default_groups(dev, local);
  uint32_t rounds = cfg->rounds ? cfg->rounds : 1000, rep[8] = {0};
  if (groups == 0)
    return wgs__fail(WGS_ENODEV, "'%s' did not give its compute-unit count", h->info.name);
  int rc = h->ops->mp(dev, cfg, local, groups, rounds, &res->launch, rep);
  if (rc == WGS_OK)
    rc = wgs__selftest_report(rep, rounds, res);
  return rc;
}

int wgs__tool_latency(wgs_device_t *dev, const wgs_latency_config *cfg, wgs_latency_result *res)
{
  const wgs__device_head *h = wgs__head(dev);
  memset(res, 0, sizeof *res);
  uint32_t groups = cfg->groups ? cfg->groups : h->info.compute_units;
  uint32_t rounds = cfg->rounds ? cfg->rounds : 2000, repeats = cfg->repeats ? cfg->repeats : 7;
  double *us = malloc(repeats * sizeof *us);
  if (!us)
    return wgs__fail(WGS_ENOMEM, "wgs_barrier_latency: out of memory");
  int rc = h->ops->latency(dev, cfg, groups, rounds, repeats, us);
  if (rc == WGS_OK)
    wgs__latency_stats(us, repeats, groups, rounds, res);
  free(us);
  return rc;
}

/* The launch of a latency run: exactly `groups`, the bounded spins' default when checked. */
void wgs__latency_launch_config(const wgs_latency_config *c, uint32_t groups, wgs_launch_config *lc)
{
  wgs_launch_config_init(lc);
  lc->local_size = c->local_size;
  lc->groups = groups;
  lc->discovery = WGS_DISCOVERY_FIXED;
  lc->barrier = c->barrier;
  lc->timeout_ms = wgs__tuning_get()->timeout_ms;
  lc->time_kernel = 1;
}

/* ---- the public tool calls (wgsync.h) ---- */
int wgs_occupancy_discover(wgs_device_t *dev, const wgs_occupancy_config *cfg, wgs_launch_result *res)
{
  WGS__REQUIRE(dev);
  WGS__REQUIRE(cfg);
  WGS__REQUIRE(res);
  return wgs__tool_discover(dev, cfg, res);
}

int wgs_occupancy_bound(wgs_device_t *dev, const wgs_occupancy_config *cfg, uint32_t limit,
                        void (*cb)(void *user, uint32_t groups, int ok), void *user, uint32_t *bound)
{
  WGS__REQUIRE(dev);
  WGS__REQUIRE(cfg);
  WGS__REQUIRE(bound);
  return wgs__tool_bound(dev, cfg, limit, cb, user, bound);
}

int wgs_barrier_selftest(wgs_device_t *dev, const wgs_selftest_config *cfg, wgs_selftest_result *res)
{
  WGS__REQUIRE(dev);
  WGS__REQUIRE(cfg);
  WGS__REQUIRE(res);
  return wgs__tool_selftest(dev, cfg, res);
}

int wgs_barrier_latency(wgs_device_t *dev, const wgs_latency_config *cfg, wgs_latency_result *res)
{
  WGS__REQUIRE(dev);
  WGS__REQUIRE(cfg);
  WGS__REQUIRE(res);
  return wgs__tool_latency(dev, cfg, res);
}
