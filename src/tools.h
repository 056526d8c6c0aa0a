/*
 * The occupancy tools, written once over the backends' tables (src/tools.c): what the public
 * tool calls run (defaults, checks, searches, statistics), and what a backend's own tool
 * launches share. Included by src/tools.c and the backends' *_tools files; the device API
 * (src/device.c) does not call into it.
 */
#ifndef WGS_TOOLS_H
#define WGS_TOOLS_H

#include "device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The occupancy tools over a device's backend (src/tools.c): defaults ("zero means default"),
 * checks and searches written once for every backend. Arguments are not NULL (the public calls
 * in src/tools.c check them); CUDA's ordinal calls (wgs_cuda_occupancy_*, wgs_cuda_barrier_*)
 * enter here too. */
int wgs__tool_discover(wgs_device_t *dev, const wgs_occupancy_config *cfg, wgs_launch_result *res);
int wgs__tool_bound(wgs_device_t *dev, const wgs_occupancy_config *cfg, uint32_t limit,
                    void (*cb)(void *user, uint32_t groups, int ok), void *user, uint32_t *bound);
int wgs__tool_selftest(wgs_device_t *dev, const wgs_selftest_config *cfg, wgs_selftest_result *res);
int wgs__tool_latency(wgs_device_t *dev, const wgs_latency_config *cfg, wgs_latency_result *res);

/* Shared by the backends' tool launches. */
/* The occupancy bound: grow from start (doubling, up to limit) until probe says a barrier over
 * n groups deadlocked, then bisect; *bound is the largest n that completed. */
int wgs__bound_search(uint32_t start, uint32_t limit, int (*probe)(void *ctx, uint32_t n, int *ok),
                      void *ctx, void (*cb)(void *user, uint32_t groups, int ok), void *user,
                      uint32_t *bound);
/* The launch a tool makes for an occupancy or self-test configuration. */
void wgs__occ_launch_config(const wgs_occupancy_config *c, uint32_t groups, wgs_discovery disc,
                            wgs_launch_config *lc);
void wgs__selftest_launch_config(const wgs_selftest_config *c, size_t local, uint32_t groups,
                                 wgs_launch_config *lc);
void wgs__latency_stats(double *per_barrier_us, uint32_t n, uint32_t groups, uint32_t rounds,
                        wgs_latency_result *res);
void wgs__latency_launch_config(const wgs_latency_config *c, uint32_t groups, wgs_launch_config *lc);
/* Fills res from the self-test kernel's report words (8) and returns its status. */
int wgs__selftest_report(const uint32_t *rep, uint32_t rounds, wgs_selftest_result *res);

#ifdef __cplusplus
}
#endif
#endif
