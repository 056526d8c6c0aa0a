/* The tuning values in force (src/tuning.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tuning.h"
#include "wgs_layout.h"

/* The measured defaults (src/tuning.h says why each). */
#define WGS__TUNING_DEFAULTS                                                                 \
  {                                                                                          \
    .publish_replicas = 32u, .publish_min_groups = 0u, .publish_asked_min_groups = 880u,     \
    .shards = 32u, .replicas = 16u,                                                          \
    .shard_min_groups = 880u, .atom_min_groups = 200u,                                       \
    .gpu_close_wait_us = 10.0, .cpu_close_wait_us = 20000.0, .timeout_ms = 500.0,            \
    .timeout_noclock_ms = 1500.0,                                                            \
  }
static const wgs__tuning defaults = WGS__TUNING_DEFAULTS;
static wgs__tuning current = WGS__TUNING_DEFAULTS;

void wgs__tuning_defaults(wgs__tuning *t) { *t = defaults; }

const wgs__tuning *wgs__tuning_get(void) { return &current; }

static int pow2_upto(uint32_t v, uint32_t max) { return v >= 1 && v <= max && (v & (v - 1)) == 0; }

int wgs__tuning_set(const wgs__tuning *t)
{
  if (!t)
    t = &defaults;
  if (!pow2_upto(t->publish_replicas, WGS_SHARDS_MAX) || t->publish_min_groups > 0xffffu ||
      t->publish_asked_min_groups > 0xffffu)
    return wgs__fail(WGS_EINVAL, "tuning: publish on %u replicas from %u groups, or %u when asked "
                     "(expected a power of two from 1 to %u, at most 65535 groups)",
                     t->publish_replicas, t->publish_min_groups, t->publish_asked_min_groups,
                     (unsigned)WGS_SHARDS_MAX);
  if (t->shards != 0 && (!pow2_upto(t->shards, WGS_SHARDS_MAX) ||
                         !pow2_upto(t->replicas, WGS_SHARDS_MAX) || t->shard_min_groups > 0xffffu))
    return wgs__fail(WGS_EINVAL, "tuning: shards %u, replicas %u from %u groups (expected powers "
                     "of two from 1 to %u, from at most 65535 groups; shards 0: never sharded)",
                     t->shards, t->replicas, t->shard_min_groups, (unsigned)WGS_SHARDS_MAX);
  if (!(t->gpu_close_wait_us >= 0 && t->cpu_close_wait_us >= 0 && t->timeout_ms > 0 &&
        t->timeout_noclock_ms > 0))
    return wgs__fail(WGS_EINVAL, "tuning: close waits must be >= 0 and timeouts > 0");
  if (t->atomics && strcmp(t->atomics, "c11") && strcmp(t->atomics, "ptx") &&
      strcmp(t->atomics, "fence"))
    return wgs__fail(WGS_EINVAL, "tuning: atomics '%s' (expected c11, ptx or fence)", t->atomics);
  current = *t;
  return WGS_OK;
}

/* The value after "name=" in a copy that lives for the process (development use only). */
static const char *keep(const char *v, size_t n)
{
  char *s = malloc(n + 1);
  if (s) {
    memcpy(s, v, n);
    s[n] = '\0';
  }
  return s;
}

int wgs__tuning_parse(wgs__tuning *t, const char *spec)
{
  const char *p = spec ? spec : "";
  while (*p) {
    p += strspn(p, " ;");
    if (!*p)
      break;
    const char *eq = strchr(p, '=');
    if (!eq)
      return wgs__fail(WGS_EINVAL, "tuning '%s': expected name=value at '%s'", spec, p);
    size_t nlen = (size_t)(eq - p);
    const char *v = eq + 1;
    if (nlen == 13 && !strncmp(p, "tools_options", nlen)) { /* the rest of the text */
      t->tools_options = keep(v, strlen(v));
      return t->tools_options ? WGS_OK : wgs__fail(WGS_ENOMEM, "tuning: out of memory");
    }
    size_t vlen = strcspn(v, " ;");
    char val[256];
    if (vlen >= sizeof val)
      return wgs__fail(WGS_EINVAL, "tuning '%s': value too long at '%s'", spec, p);
    memcpy(val, v, vlen);
    val[vlen] = '\0';
    char tail;
    unsigned a = 0, b = 0, c = t->shard_min_groups;
    double x = 0;
#define NAME(s) (nlen == sizeof(s) - 1 && !strncmp(p, s, nlen))
    if (NAME("publish")) {
      int n = sscanf(val, "%u,%u%c", &a, &b, &tail);
      if (n == 1 && a == 0)
        t->publish_min_groups = 0, t->publish_asked_min_groups = 0;
      else if (n == 2 && b != 0)
        t->publish_replicas = a, t->publish_min_groups = b;
      else
        return wgs__fail(WGS_EINVAL, "tuning: publish=%s (expected R,MIN or 0)", val);
    } else if (NAME("publish_asked") || NAME("atom_min")) {
      if (sscanf(val, "%u%c", &a, &tail) != 1)
        return wgs__fail(WGS_EINVAL, "tuning: %.*s=%s (expected a group count)", (int)nlen, p, val);
      if (NAME("publish_asked"))
        t->publish_asked_min_groups = a;
      else
        t->atom_min_groups = a;
    } else if (NAME("shards")) {
      int n = sscanf(val, "%u,%u,%u%c", &a, &b, &c, &tail);
      if (n == 1 && a == 0)
        t->shards = 0;
      else if (n == 2 || n == 3)
        t->shards = a, t->replicas = b, t->shard_min_groups = c;
      else
        return wgs__fail(WGS_EINVAL, "tuning: shards=%s (expected S,R[,MIN] or 0)", val);
    } else if (NAME("gpu_close_wait_us") || NAME("cpu_close_wait_us") || NAME("timeout_ms") ||
               NAME("timeout_noclock_ms")) {
      if (sscanf(val, "%lf%c", &x, &tail) != 1)
        return wgs__fail(WGS_EINVAL, "tuning: %.*s=%s (expected a number)", (int)nlen, p, val);
      if (NAME("gpu_close_wait_us"))
        t->gpu_close_wait_us = x;
      else if (NAME("cpu_close_wait_us"))
        t->cpu_close_wait_us = x;
      else if (NAME("timeout_ms"))
        t->timeout_ms = x;
      else
        t->timeout_noclock_ms = x;
    } else if (NAME("atomics") || NAME("device_lib")) {
      const char *s = keep(val, vlen);
      if (!s)
        return wgs__fail(WGS_ENOMEM, "tuning: out of memory");
      if (NAME("atomics"))
        t->atomics = s;
      else
        t->device_lib = s;
    } else {
      return wgs__fail(WGS_EINVAL, "tuning '%s': unknown name '%.*s' (expected publish, publish_asked, shards, atom_min, "
                       "gpu_close_wait_us, cpu_close_wait_us, timeout_ms, timeout_noclock_ms, "
                       "atomics, device_lib or tools_options)", spec, (int)nlen, p);
    }
#undef NAME
    p = v + vlen;
  }
  return WGS_OK;
}
