/*
 * Backend-neutral basics: status codes, their names and messages (one X-macro list in
 * wgsync.h), the per-thread last-error detail, and configuration defaults.
 */
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "wgs_layout.h"

#define WGS__ERRBUF 32768
static _Thread_local char errbuf[WGS__ERRBUF];

const char *wgs_strerror(int status)
{
  switch (status) {
#define XX(name, value, msg) \
  case value:                \
    return msg;
    WGS_STATUS_MAP(XX)
#undef XX
  }
  return "unknown wgsync status";
}

const char *wgs_status_name(int status)
{
  switch (status) {
#define XX(name, value, msg) \
  case value:                \
    return "WGS_" #name;
    WGS_STATUS_MAP(XX)
#undef XX
  }
  return "WGS_UNKNOWN";
}

const char *wgs_last_error(void) { return errbuf; }

int wgs__fail(int status, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(errbuf, sizeof errbuf, fmt, ap);
  va_end(ap);
  return status;
}

void wgs__fail_append(const char *text)
{
  size_t used = strlen(errbuf);
  if (used + 1 >= sizeof errbuf)
    return;
  snprintf(errbuf + used, sizeof errbuf - used, "%s", text);
  if (strlen(text) >= sizeof errbuf - used) /* truncated: say so at the end */
    memcpy(errbuf + sizeof errbuf - 32, "\n... (log truncated)\n", 22);
}

void wgs_launch_config_init(wgs_launch_config *cfg)
{
  if (!cfg)
    return;
  memset(cfg, 0, sizeof *cfg);
  /* The fastest protocol that keeps the four properties of Sorensen et al. 2016 §3.2 (measured: 100% recall
   * everywhere; 19 us against the ticket lock's 2.4 ms at 1056 groups on NVIDIA OpenCL, 2.6 us
   * against 2.1 ms on CUDA, H100; 100% at 1-4 PoCL threads). Fig. 3's locks stay a field away. */
  cfg->lock = WGS_LOCK_FREE;
  cfg->discovery = WGS_DISCOVERY_PROTOCOL;
  cfg->close_wait_us = -1;
}

/* One place for the checks both backends make on a launch configuration, so that a bad field
 * is the same error with the same words on OpenCL and CUDA. */
int wgs__check_launch_config(const char *who, const wgs_launch_config *cfg)
{
  if (cfg->lock != WGS_LOCK_TICKET && cfg->lock != WGS_LOCK_SPIN && cfg->lock != WGS_LOCK_FREE)
    return wgs__fail(WGS_EINVAL, "%s: lock is %d (expected WGS_LOCK_TICKET, WGS_LOCK_SPIN or "
                                 "WGS_LOCK_FREE)", who, (int)cfg->lock);
  if (cfg->discovery != WGS_DISCOVERY_PROTOCOL && cfg->discovery != WGS_DISCOVERY_ALL &&
      cfg->discovery != WGS_DISCOVERY_FIXED)
    return wgs__fail(WGS_EINVAL, "%s: discovery is %d (expected WGS_DISCOVERY_PROTOCOL, _ALL or "
                                 "_FIXED)", who, (int)cfg->discovery);
  if ((int)cfg->barrier < WGS_BARRIER_DEFAULT || cfg->barrier > WGS_BARRIER_PUBLISHED)
    return wgs__fail(WGS_EINVAL, "%s: barrier is %d (expected WGS_BARRIER_DEFAULT, _XF, _COUNTER "
                                 "or _PUBLISHED)", who, (int)cfg->barrier);
  if (!(cfg->timeout_ms >= 0) || isinf(cfg->timeout_ms))
    return wgs__fail(WGS_EINVAL, "%s: timeout_ms is %g (expected a finite value >= 0; a value "
                                 "too large for the device's spin counter means no bound)",
                     who, cfg->timeout_ms);
  /* a device clock counts the quiet period in 32 bits of nanoseconds (wgs__quiesce) */
  if (!(cfg->close_wait_us < 4e6))
    return wgs__fail(WGS_EINVAL, "%s: close_wait_us is %g (expected < 4e6, 4 s; < 0 for the "
                                 "device default)", who, cfg->close_wait_us);
  if (cfg->delay && cfg->lock == WGS_LOCK_FREE && cfg->discovery == WGS_DISCOVERY_PROTOCOL)
    return wgs__fail(WGS_EINVAL, "%s: delay is %u lock/unlock rounds of Fig. 3's mutex, but the "
                                 "lock-free protocol has none (choose WGS_LOCK_TICKET or "
                                 "WGS_LOCK_SPIN, --lock ticket|spin)", who, cfg->delay);
  if (cfg->delay > WGS__MAX_DELAY)
    return wgs__fail(WGS_EINVAL, "%s: delay is %u lock/unlock rounds (expected at most %u: "
                                 "each hands the discovery mutex over once)",
                     who, cfg->delay, WGS__MAX_DELAY);
  return WGS_OK;
}

int wgs__fail_misuse(const char *kname, const uint32_t *e)
{
  uint32_t line = e[WGS_ERR_SITE], group = e[WGS_ERR_REPORTER];
  char who[160];
  if (kname)
    snprintf(who, sizeof who, "kernel '%s'", kname);
  else
    snprintf(who, sizeof who, "the kernel");
  switch (e[WGS_ERR_INSTANCE]) {
  case WGS_MISUSE_DISCOVER_TWICE:
    return wgs__fail(WGS_EMISUSE, "%s: wgs_discover called a second time at user line %u "
                                  "(group %u); call it once, first thing in the kernel (the "
                                  "second call answered as the first)", who, line, group);
  case WGS_MISUSE_BEFORE_DISCOVER:
    return wgs__fail(WGS_EMISUSE, "%s: grid barrier at user line %u ran before "
                                  "wgs_discover filled its environment (group %u)", who, line,
                     group);
  case WGS_MISUSE_PARTIAL_GROUP:
    return wgs__fail(WGS_EMISUSE, "%s: grid barrier at user line %u was entered by %u of "
                                  "the %u work-items of group %u; every work-item of a "
                                  "participating group must call it", who, line,
                     e[WGS_ERR_ARRIVED], e[WGS_ERR_EXPECTED], group);
  case WGS_MISUSE_NOT_PARTICIPATING:
    return wgs__fail(WGS_EMISUSE, "%s: grid barrier at user line %u called by group %u, "
                                  "which wgs_discover turned away (it took no part); put the "
                                  "kernel body inside if (wgs_discover(...))", who, line, group);
  default:
    return wgs__fail(WGS_EMISUSE, "%s: device library rule %u broken at user line %u",
                     who, e[WGS_ERR_INSTANCE], line);
  }
}
