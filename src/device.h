/*
 * The host core's view of a device: a small table of backend operations (as PoCL's
 * pocl_device_ops) behind every wgs_device_t, so that one API drives OpenCL and CUDA devices.
 *
 * A backend's device structure starts with WGS__DEVICE_HEAD (as libuv's handle fields): the
 * core reads only that head; the rest is the backend's (src/opencl/cl_internal.h: struct
 * wgs_device; src/cuda/cuda_backend.cu: struct wgs__cuda_device).
 */
#ifndef WGS_DEVICE_H
#define WGS_DEVICE_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wgs__backend_ops {
  const char *name; /* "opencl", "cuda" */
  /* Opens the device sel names. OpenCL: sel as given to wgs_device_open (it reads WGSYNC_DEVICE
   * when sel is unset); CUDA: sel->device is the ordinal, how names the request. */
  int (*open)(const wgs_device_select *sel, const char *how, wgs_device_t **out);
  void (*close)(wgs_device_t *dev);
  uint32_t (*default_groups)(const wgs_device_t *dev, size_t local_size);
  int (*max_local_mem)(wgs_device_t *dev, size_t local_size, size_t *bytes);
  /* The tools' launches; their defaults, checks and searches are the core's (src/tools.c).
   * micro: one launch of the Sorensen et al. 2016 §5.1 microbenchmark (discovery, then a grid barrier when
   * do_barrier) over `groups`, the checked build; */
  int (*micro)(wgs_device_t *dev, const wgs_occupancy_config *cfg, uint32_t groups,
               wgs_discovery disc, int do_barrier, wgs_launch_result *res);
  /* mp: one launch of the message-passing self-test (checked unless cfg->unchecked); its 8
   * report words into rep; */
  int (*mp)(wgs_device_t *dev, const wgs_selftest_config *cfg, size_t local, uint32_t groups,
            uint32_t rounds, wgs_launch_result *launch, uint32_t rep[8]);
  /* latency: a checked probe of 10 barriers, a warm-up, then `repeats` unchecked launches of
   * `rounds` barriers over exactly `groups`: microseconds per barrier of each into us[]. */
  int (*latency)(wgs_device_t *dev, const wgs_latency_config *cfg, uint32_t groups, uint32_t rounds,
                 uint32_t repeats, double *us);
} wgs__backend_ops;

/* The first fields of every backend's device. */
#define WGS__DEVICE_HEAD                                                                     \
  const wgs__backend_ops *ops; /* the backend that opened it */                              \
  wgs_device_info info

typedef struct wgs__device_head {
  WGS__DEVICE_HEAD;
} wgs__device_head;

static inline const wgs__device_head *wgs__head(const wgs_device_t *dev)
{
  return (const wgs__device_head *)(const void *)dev;
}

/* The backends' tables: each library defines its own and finds the other's when the program
 * links both (src/device.c). */
extern const wgs__backend_ops wgs__opencl_ops;
extern const wgs__backend_ops wgs__cuda_ops;

/* The occupancy tools over a device's backend (src/tools.c): defaults ("zero means default"),
 * checks and searches written once for every backend. Arguments are not NULL. */
int wgs__tool_discover(wgs_device_t *dev, const wgs_occupancy_config *cfg, wgs_launch_result *res);
int wgs__tool_bound(wgs_device_t *dev, const wgs_occupancy_config *cfg, uint32_t limit,
                    void (*cb)(void *user, uint32_t groups, int ok), void *user, uint32_t *bound);
int wgs__tool_selftest(wgs_device_t *dev, const wgs_selftest_config *cfg, wgs_selftest_result *res);
int wgs__tool_latency(wgs_device_t *dev, const wgs_latency_config *cfg, wgs_latency_result *res);

/* "cuda" or "cuda:N": N (0 for "cuda"); -1 for any other name; -2 for "cuda:" and no index. */
int wgs__cuda_name(const char *name);

#ifdef __cplusplus
}
#endif
#endif
