/*
 * Backend-neutral internals: error reporting shared by every module.
 */
#ifndef WGS_INTERNAL_H
#define WGS_INTERNAL_H

#include <stdint.h>

#include "wgsync.h"

#if defined(__GNUC__)
#define WGS__PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define WGS__PRINTF(a, b)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Records the detail message for wgs_last_error() and returns status. */
int wgs__fail(int status, const char *fmt, ...) WGS__PRINTF(2, 3);
/* Appends to the current detail message (e.g. a build log). */
void wgs__fail_append(const char *text);

/* NULL-argument check with a message that names the argument and the function. */
#define WGS__REQUIRE(ptr)                                                                    \
  do {                                                                                       \
    if ((ptr) == NULL)                                                                       \
      return wgs__fail(WGS_EINVAL, "%s: argument '%s' is NULL", __func__, #ptr);             \
  } while (0)

/* A non-negative amount in a device's spin unit (ns or iterations), saturated: a timeout too
 * large for 64 bits means "never", not a bound wrapped to nothing. */
static inline uint64_t wgs__saturate_u64(double v)
{
  return !(v > 0) ? 0 : v >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)v;
}
/* The most §5.4 delay rounds a launch accepts: each hands the discovery mutex over once (a few
 * us on a GPU; on PoCL 10^5 rounds already took minutes at 8 threads). */
#define WGS__MAX_DELAY 1000000u
/* The message for a WGS_DEV_ERR_MISUSE report (error words e), the same on every backend;
 * returns WGS_EMISUSE. */
int wgs__fail_misuse(const char *kname, const uint32_t *e);
/* Validates the fields both backends read the same way; "who" names the call in messages. */
int wgs__check_launch_config(const char *who, const wgs_launch_config *cfg);

/* Shared by the backends' tools (src/occupancy.c). */
/* The launch a tool makes for an occupancy or self-test configuration. */
void wgs__occ_launch_config(const wgs_occupancy_config *c, uint32_t groups, wgs_discovery disc,
                            wgs_launch_config *lc);
void wgs__selftest_launch_config(const wgs_selftest_config *c, size_t local, uint32_t groups,
                                 wgs_launch_config *lc);
void wgs__latency_stats(double *per_barrier_us, uint32_t n, wgs_latency_result *res);
/* Fills res from the self-test kernel's report words (8) and returns its status. */
int wgs__selftest_report(const uint32_t *rep, uint32_t rounds, wgs_selftest_result *res);

/* Sources embedded at build time (cmake/embed.cmake). */
extern const char wgs__device_lib_source[];
extern const char wgs__tools_source[];

#ifdef __cplusplus
}
#endif

#endif
