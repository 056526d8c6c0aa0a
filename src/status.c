/*
 * Backend-neutral basics: status codes, their names and messages (one X-macro list in
 * wgsync.h), the per-thread last-error detail, and configuration defaults.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

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
  cfg->lock = WGS_LOCK_TICKET;
  cfg->discovery = WGS_DISCOVERY_PROTOCOL;
  cfg->close_wait_us = -1;
}
