/*
 * Backend-neutral half of a persistent launch: the config words a launch writes (only when
 * they change: launch epochs, device/common/wgs_layout.h, make a launch one kernel launch), and
 * the decoding of what a launch leaves in the state's global lines (participants, the checked
 * build's error report) into a wgs_launch_result and a status with one message, the same on
 * OpenCL and CUDA.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch.h"
#include "tuning.h"
#include "wgs_layout.h"

uint32_t wgs__mode_word(wgs_discovery d)
{
  return d == WGS_DISCOVERY_PROTOCOL ? WGS_MODE_DISCOVER
         : d == WGS_DISCOVERY_ALL    ? WGS_MODE_ALL
                                     : WGS_MODE_FIXED;
}

void wgs__config_words(uint32_t *w, const wgs_launch_config *cfg, uint32_t max_groups,
                       uint64_t limit, uint64_t wait, int timed, uint32_t enough, int epochs)
{
  memset(w, 0, WGS_CFG_WORDS * sizeof *w);
  w[WGS_CFG_VERSION] = WGS_LAYOUT_VERSION;
  w[WGS_CFG_LOCK] = cfg->lock == WGS_LOCK_SPIN   ? WGS_LOCK_KIND_SPIN
                    : cfg->lock == WGS_LOCK_FREE ? WGS_LOCK_KIND_FREE
                                                 : WGS_LOCK_KIND_TICKET;
  w[WGS_CFG_DELAY] = cfg->delay;
  w[WGS_CFG_MODE] = wgs__mode_word(cfg->discovery);
  w[WGS_CFG_MAX_GROUPS] = max_groups;
  w[WGS_CFG_LIMIT_LO] = (uint32_t)limit;
  w[WGS_CFG_LIMIT_HI] = (uint32_t)(limit >> 32);
  w[WGS_CFG_TIMED] = timed ? 1u : 0u;
  w[WGS_CFG_WAIT_LO] = (uint32_t)wait;
  w[WGS_CFG_WAIT_HI] = (uint32_t)(wait >> 32);
  w[WGS_CFG_BARRIER] = cfg->barrier == WGS_BARRIER_XF ? WGS_BARRIER_KIND_XF : WGS_BARRIER_KIND_COUNTER;
  w[WGS_CFG_ENOUGH] = enough;
  w[WGS_CFG_EPOCHS] = epochs ? 1u : 0u;
  w[WGS_CFG_PUBLISH] = wgs__barrier_publish(cfg->barrier == WGS_BARRIER_PUBLISHED);
  w[WGS_CFG_SHARDS] = wgs__barrier_shards();
  w[WGS_CFG_ATOM_MIN] = wgs__barrier_atom_min();
}

/* The counter barrier's shapes for the config words: the published shape's fewest groups | R <<
 * 16 (0: never), S | R << 8 | fewest groups << 16 (0: never sharded), and the acq_rel threshold;
 * the values are src/tuning.h's. */
uint32_t wgs__barrier_publish(int chosen)
{
  const wgs__tuning *t = wgs__tuning_get();
  uint32_t min = t->publish_min_groups ? t->publish_min_groups : chosen ? t->publish_asked_min_groups : 0u;
  return min == 0 ? 0u : min | t->publish_replicas << 16;
}

uint32_t wgs__barrier_shards(void)
{
  const wgs__tuning *t = wgs__tuning_get();
  return t->shards == 0 ? 0u : t->shards | t->replicas << 8 | t->shard_min_groups << 16;
}

uint32_t wgs__barrier_atom_min(void) { return wgs__tuning_get()->atom_min_groups; }

double wgs__protocol_us(const uint32_t *t, uint32_t groups)
{
  uint64_t first = UINT64_MAX, last = 0;
  for (uint32_t g = 0; g < groups; g++) {
    uint64_t a = t[4 * g] | (uint64_t)t[4 * g + 1] << 32, b = t[4 * g + 2] | (uint64_t)t[4 * g + 3] << 32;
    if (b == 0)
      continue; /* not a participant */
    first = a < first ? a : first;
    last = b > last ? b : last;
  }
  return first != UINT64_MAX && last >= first ? (double)(last - first) / 1e3 : -1;
}

void wgs__log_launch(wgs__launch_log *log, int captured)
{
  if (captured)
    log->launches = -1; /* replays move the epoch as often as the caller runs the graph */
  else if (log->launches >= 0)
    log->launches++;
}

int wgs__log_pending(const wgs__launch_log *log, const char *who)
{
  if (log->launches == 0)
    return wgs__fail(WGS_EINVAL, "%s: no launch on this state since the last result", who);
  return WGS_OK;
}

/* epoch_before: the device's epoch before the launch (UINT32_MAX: unknown, when several
 * launches or a graph ran since the host last read it: any movement is theirs). */
static int decode_result(const uint32_t *glob, const wgs__launch_record *lr, uint32_t epoch_before,
                         wgs_launch_result *res)
{
  const uint32_t *ctrl = glob + WGS_G_CTRL, *e = glob + WGS_G_ERROR;
  char who[160];
  if (lr->kname[0])
    snprintf(who, sizeof who, "kernel '%s': ", lr->kname);
  else
    who[0] = '\0';
  uint32_t epoch = ctrl[WGS_CTRL_EPOCH];
  res->launched = lr->launched;
  res->expected = lr->expected;
  res->participants = lr->mode == WGS_MODE_DISCOVER ? 0 : lr->launched;
  if (lr->mode == WGS_MODE_DISCOVER && (!lr->epochs || ctrl[WGS_CTRL_RESULT_EPOCH] + 1u == epoch))
    res->participants = ctrl[WGS_CTRL_PARTICIPANTS];

  /* An unchecked program reports nothing, except on PoCL, where it is built with the checked
   * library (src/opencl/cl_device.c) and then may report misuse: unchecked means unchecked,
   * so it is not decoded (its spins have no bound, so no deadlock report can come from it). */
  uint32_t code = lr->checked ? e[WGS_ERR_CODE] : 0;
  /* A loop the driver cut is reported by every build (device/vulkan/wgsync.glsl, wgsi_cut): a
   * launch whose loops were cut must not return as if it ran. */
  if (e[WGS_ERR_CODE] == WGS_DEV_ERR_CUT)
    code = WGS_DEV_ERR_CUT;
  if (code == WGS_DEV_ERR_SPLIT) /* a broken rule, as every other misuse */
    return wgs__fail(WGS_EMISUSE, "%ssplit grid barrier misused at user line %u (instance %u) "
                                    "by group %u: a wait without an arrive, a wait of another "
                                    "kind than its arrive (a grid reduction's type or "
                                    "operation), or two arrives without a wait",
                     who, e[WGS_ERR_SITE], e[WGS_ERR_INSTANCE], e[WGS_ERR_REPORTER]);
  if (code == WGS_DEV_ERR_CUT) { /* (to the bound search, the same deadlock) */
    static const char cap[] = "lavapipe ends every loop of a shader invocation after 65,535 "
                              "iterations in all, waits included";
    if (e[WGS_ERR_ARRIVED] == 1u) /* WGS_CUT_DISCOVERY */
      return wgs__fail(WGS_EDEADLOCK,
                       "%sdiscovery did not complete: the driver ended group %u's waiting loop "
                       "with its condition unmet (%s): more groups than run at once, or more "
                       "waiting than the driver allows one launch (%u groups launched)",
                       who, e[WGS_ERR_REPORTER], cap, lr->launched);
    if (e[WGS_ERR_ARRIVED] == 2u) /* WGS_CUT_REDUCTION */
      return wgs__fail(WGS_EDEADLOCK,
                       "%sgrid reduction at user line %u (barrier instance %u) is wrong: the "
                       "driver ended group %u's loop over the %u groups' values (%s); the "
                       "launch's loops ran out of the driver's budget",
                       who, e[WGS_ERR_SITE], e[WGS_ERR_INSTANCE], e[WGS_ERR_REPORTER],
                       e[WGS_ERR_EXPECTED], cap);
    return wgs__fail(WGS_EDEADLOCK,
                     "%sgrid barrier at user line %u (barrier instance %u reached) was not "
                     "reached by every one of its %u groups before the driver ended group %u's "
                     "waiting loop with its condition unmet (%s; the spin limit not reached): "
                     "more groups than run at once, or more waiting than the driver allows one "
                     "launch, or a loop of the kernel's own cut before it (%u groups launched)",
                     who, e[WGS_ERR_SITE], e[WGS_ERR_INSTANCE], e[WGS_ERR_EXPECTED],
                     e[WGS_ERR_REPORTER], cap, lr->launched);
  }
  if (code == WGS_DEV_ERR_GRID_BARRIER) {
    res->err_site = e[WGS_ERR_SITE];
    res->err_instance = e[WGS_ERR_INSTANCE];
    res->err_arrived = e[WGS_ERR_ARRIVED];
    res->err_expected = e[WGS_ERR_EXPECTED];
    res->err_missing_count = e[WGS_ERR_MISSING_N];
    uint32_t shown = res->err_missing_count < WGS_ERR_MISSING_MAX ? res->err_missing_count
                                                                  : WGS_ERR_MISSING_MAX;
    char ids[WGS_ERR_MISSING_MAX * 12 + 16] = "";
    size_t used = 0;
    for (uint32_t i = 0; i < shown; i++) {
      res->err_missing[i] = e[WGS_ERR_MISSING + i];
      used += (size_t)snprintf(ids + used, sizeof ids - used, "%s%u", i ? ", " : "",
                               res->err_missing[i]);
    }
    if (shown < res->err_missing_count)
      snprintf(ids + used, sizeof ids - used, ", ...");
    /* (site 0: a device library that has no source line to give, as Triton's) */
    char line[32] = "";
    if (res->err_site != 0)
      snprintf(line, sizeof line, " at user line %u", res->err_site);
    return wgs__fail(WGS_EDEADLOCK,
                     "%sgrid barrier%s (barrier instance %u) was not reached by "
                     "every group within the spin limit: %u of %u groups arrived; missing group "
                     "ids: %s (reported by group %u; %u groups launched, %s)",
                     who, line, res->err_instance, res->err_arrived, res->err_expected, ids, e[WGS_ERR_REPORTER], lr->launched,
                     lr->mode == WGS_MODE_DISCOVER ? "ids from discovery"
                                                   : "native ids, discovery off");
  }
  if (code == WGS_DEV_ERR_MISUSE)
    return wgs__fail_misuse(lr->kname[0] ? lr->kname : NULL, e);
  if (code == WGS_DEV_ERR_LOCK)
    return wgs__fail(WGS_ELOCK, "%sgroup %u waited past the spin limit in discovery (for the "
                                "mutex%s, or for the participant count; %u groups launched)",
                     who, e[WGS_ERR_REPORTER], lr->delay ? " or in the delay of §5.4" : "",
                     lr->launched);
  if (code != 0)
    return wgs__fail(WGS_EBACKEND, "%sdevice reported unknown error %u", who, code);
  if (lr->epochs && epoch_before != UINT32_MAX && epoch == epoch_before)
    return wgs__fail(WGS_EBACKEND, "%sthe launch did not run wgs_discover in every launched group "
                                   "(did the kernel call wgs_discover with this state, first "
                                   "thing and outside any condition?)", who);
  if (lr->mode == WGS_MODE_DISCOVER &&
      (res->participants == 0 || res->participants > lr->launched))
    return wgs__fail(WGS_EBACKEND, "%sdiscovery counted %u participants of %u launched groups "
                                   "(did the kernel call wgs_discover with this state?)", who,
                     res->participants, lr->launched);
  return WGS_OK;
}

/* A grid barrier reached by only some work-items of a group is undefined behaviour, and what a
 * compiler makes of it differs: NVIDIA and PoCL run the representative on, where
 * wgs__check_entry reports it; Intel's CPU runtime ends the work-items that reached the barrier
 * at its first work-group barrier, so no code after it runs, no check either, and (every group
 * alike) nothing ever waits. The entry counts, taken before that barrier, still tell. */
int wgs__check_entries(const wgs__launch_record *lr, uint32_t participants, const uint32_t *entered,
                       const uint32_t *witems, const uint32_t *sites)
{
  for (uint32_t g = 0; g < participants; g++) {
    /* 0: no entry, or a build without misuse checks (WGS_CHECK_MISUSE=0), which counts none */
    if (witems[g] == 0 || (uint64_t)witems[g] == (uint64_t)entered[g] * lr->local)
      continue;
    char who[160];
    if (lr->kname[0])
      snprintf(who, sizeof who, "kernel '%s'", lr->kname);
    else
      snprintf(who, sizeof who, "the kernel");
    return wgs__fail(WGS_EMISUSE, "%s: grid barrier at user line %u was entered by only some "
                                  "work-items of group %u (%u work-item entries, where %u entries "
                                  "of all %u make %llu; those that entered stopped there); every "
                                  "work-item of a participating group must call it", who, sites[g],
                     g, witems[g], entered[g], lr->local,
                     (unsigned long long)entered[g] * lr->local);
  }
  return WGS_OK;
}

int wgs__log_result(wgs__launch_log *log, const uint32_t *glob, wgs_launch_result *res)
{
  uint32_t before = log->launches == 1 ? log->epoch : UINT32_MAX;
  log->launches = 0;
  log->epoch = glob[WGS_G_CTRL + WGS_CTRL_EPOCH];
  return decode_result(glob, &log->last, before, res);
}

/* ---- the launch sequence (src/launch.h) --------------------------------------------------- */

int wgs__plan_launch(const wgs__launch_ctx *c, const wgs_launch_config *cfg, wgs__launch_plan *p)
{
  const wgs_device_info *in = c->info;
  int rc = wgs__check_launch_config(c->who, cfg);
  if (rc != WGS_OK)
    return rc;
  size_t local = cfg->local_size ? cfg->local_size : c->local_default;
  if (local > in->max_work_group_size)
    return wgs__fail(WGS_ELIMIT, "%s: local size %zu exceeds the device maximum of %zu on '%s'",
                     c->who, local, in->max_work_group_size, in->name);
  uint32_t groups = cfg->groups;
  if (groups == 0) { /* over-provisioned, within the state */
    groups = wgs__default_groups(in->compute_units, local, in->is_gpu, c->spare);
    if (groups > c->capacity)
      groups = c->capacity;
  }
  if (groups > c->capacity)
    return wgs__fail(WGS_ELIMIT, "launch of %u groups exceeds the state's capacity of %u groups "
                                 "(the max_groups given to %s)", groups, c->capacity, c->state_ctor);
  uint32_t mode = wgs__mode_word(cfg->discovery);
  /* A fixed launch promises that every group is resident at once. Where the backend knows how
   * many fit (CUDA's occupancy API is exact for the kernel, its block size and shared memory),
   * more can never all be resident: their first grid barrier would wait forever in an unchecked
   * build. Refused here, before anything runs. (WGS_DISCOVERY_ALL is the unsafe search, which
   * probes past the bound with checked builds on purpose.) */
  if (mode == WGS_MODE_FIXED && c->fits) {
    uint32_t fit = c->fits(c->ctx, local);
    if (fit != 0 && groups > fit)
      return wgs__fail(WGS_ELIMIT, "%s: WGS_DISCOVERY_FIXED with %u groups, but only %u groups of "
                                   "%zu work-items of this kernel fit on '%s' at once (the "
                                   "occupancy API: its registers and shared memory decide); "
                                   "launch at most %u, or use discovery (WGS_DISCOVERY_PROTOCOL)",
                       c->who, groups, fit, local, in->name, fit);
  }
  uint64_t limit = UINT64_MAX, wait = 0; /* unchecked: nothing bounds the spins */
  if (c->checked) {
    double ms = cfg->timeout_ms > 0 ? cfg->timeout_ms
                : in->has_timer     ? wgs__tuning_get()->timeout_ms
                                    : wgs__tuning_get()->timeout_noclock_ms;
    if ((rc = c->to_spin(c->ctx, ms * 1e3, &limit)) != WGS_OK)
      return rc;
  }
  uint32_t enough = 0;
  if (mode == WGS_MODE_DISCOVER) {
    double us = cfg->close_wait_us >= 0 ? cfg->close_wait_us
                : in->is_gpu             ? wgs__tuning_get()->gpu_close_wait_us
                                         : wgs__tuning_get()->cpu_close_wait_us;
    if (us > 0 && (rc = c->to_spin(c->ctx, us, &wait)) != WGS_OK)
      return rc;
    /* the close wait ends early once this many groups polled: those that fit at once (a CPU:
     * one per worker thread) */
    enough = cfg->close_at == UINT32_MAX ? 0u
             : cfg->close_at             ? cfg->close_at
             : in->is_cpu                ? in->compute_units
             : c->fits                   ? c->fits(c->ctx, local)
                                         : 0u;
  }
  p->local = local;
  p->groups = groups;
  p->mode = mode;
  p->timed = in->has_timer && mode == WGS_MODE_DISCOVER && cfg->time_protocol;
  wgs__config_words(p->w, cfg, c->capacity, limit, wait, p->timed, enough, c->epochs);
  return WGS_OK;
}

void wgs__log_plan(wgs__launch_log *log, const char *kname, const wgs__launch_plan *p,
                   const wgs_launch_config *cfg, const wgs__launch_ctx *c, int captured)
{
  wgs__launch_record *lr = &log->last;
  snprintf(lr->kname, sizeof lr->kname, "%s", kname ? kname : "");
  lr->mode = p->mode;
  lr->launched = p->groups;
  lr->local = (uint32_t)p->local;
  lr->delay = cfg->delay;
  lr->checked = c->checked;
  lr->entry_check = c->entry_check;
  lr->epochs = c->epochs;
  lr->timed = p->timed;
  uint32_t enough = p->w[WGS_CFG_ENOUGH];
  lr->expected = p->mode != WGS_MODE_DISCOVER ? 0u : enough < p->groups ? enough : p->groups;
  wgs__log_launch(log, captured);
}
