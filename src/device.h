/*
 * The host core's view of a device: a small table of backend operations (as PoCL's
 * pocl_device_ops) behind every wgs_device_t, so that one API drives OpenCL, CUDA, Vulkan and
 * null devices.
 *
 * A backend's device structure starts with WGS__DEVICE_HEAD (as libuv's handle fields): the
 * core reads only that head; the rest is the backend's (src/opencl/cl_internal.h: struct
 * wgs_device; src/cuda/cuda_internal.h: struct wgs__cuda_device; src/vulkan/vk_internal.h:
 * wgs__vk_device; src/null/null_internal.h: wgs__null_device).
 */
#ifndef WGS_DEVICE_H
#define WGS_DEVICE_H

#include <pthread.h>

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wgs__backend_ops {
  const char *name; /* "opencl", "cuda" */
  /* Opens the device sel names, as src/device.c parsed the request (how: it in words, for
   * messages). OpenCL: platform and device indices, or a name to look for, or neither (the
   * default); the other backends: sel->device, their device index. */
  int (*open)(const wgs_device_select *sel, const char *how, wgs_device_t **out);
  /* Every device of the backend, up to cap, into infos; *count the number written. WGS_ENODEV
   * (with the reason) when the machine has none for this backend. */
  int (*list)(wgs_device_info *infos, size_t cap, size_t *count);
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

  /* The objects of wgsync.h (src/api.c checks the arguments, then calls these). An entry a
   * backend leaves NULL is WGS_EUNSUPPORTED on its devices, saying so. Each object a backend
   * makes starts with its head (WGS__OBJECT_HEAD, WGS__STATE_HEAD below). */
  int (*program_build)(wgs_device_t *dev, const char *source, const char *options, unsigned flags,
                       wgs_program_t **out);
  int (*program_build_il)(wgs_device_t *dev, const uint32_t *words, size_t n_words,
                          const char *options, wgs_program_t **out);
  void (*program_release)(wgs_program_t *prog);
  const char *(*program_build_log)(const wgs_program_t *prog);
  int (*kernel_create)(wgs_program_t *prog, const char *name, wgs_kernel_t **out);
  void (*kernel_release)(wgs_kernel_t *k);
  int (*kernel_set_arg)(wgs_kernel_t *k, unsigned index, size_t size, const void *value);
  int (*kernel_set_arg_buffer)(wgs_kernel_t *k, unsigned index, wgs_buffer_t *buf);
  int (*kernel_run)(wgs_kernel_t *k, unsigned dims, const size_t *global, const size_t *local);
  int (*kernel_resources)(wgs_kernel_t *k, wgs_kernel_resources *out);
  /* The tools' kernels (wgs_tools_program): a program the device owns, whose kernel_create
   * knows at least wgs_micro, wgs_mp and wgs_latency. */
  int (*tools_program)(wgs_device_t *dev, int checked, wgs_program_t **out);
  int (*buffer_create)(wgs_device_t *dev, size_t bytes, wgs_buffer_t **out);
  void (*buffer_release)(wgs_buffer_t *buf);
  int (*buffer_write)(wgs_buffer_t *buf, size_t offset, size_t bytes, const void *src);
  int (*buffer_read)(wgs_buffer_t *buf, size_t offset, size_t bytes, void *dst);

  /* States and launches. The core holds the state's lock around each. */
  int (*state_create)(wgs_device_t *dev, uint32_t max_groups, wgs_state_t **out);
  void (*state_release)(wgs_state_t *st);
  /* How the core launches the backend's kernels (src/launch.h; `what` is the wgs_kernel_t). */
  const struct wgs__launch_via *launch;
  /* The result, decoded once in the core (src/api.c) from these: wait for the state's launches
   * and fill its first WGS_G_LINES lines (glob) and the latest launch's kernel time (-1: none);
   * clear the error line after a report was read; read n words from a word offset. */
  int (*result_words)(wgs_state_t *st, uint32_t *glob, double *kernel_us);
  int (*clear_error)(wgs_state_t *st);
  int (*read_words)(wgs_state_t *st, size_t offset, size_t n, uint32_t *out);
} wgs__backend_ops;

/* The first fields of every program, kernel and buffer. */
#define WGS__OBJECT_HEAD                                                                     \
  const wgs__backend_ops *ops;                                                               \
  wgs_device_t *dev
typedef struct wgs__object_head {
  WGS__OBJECT_HEAD;
} wgs__object_head;
static inline const wgs__object_head *wgs__object(const void *obj)
{
  return (const wgs__object_head *)obj;
}

/* The first fields of every buffer: the core checks ranges against its size. */
#define WGS__BUFFER_HEAD                                                                     \
  WGS__OBJECT_HEAD;                                                                          \
  size_t bytes
typedef struct wgs__buffer_head {
  WGS__BUFFER_HEAD;
} wgs__buffer_head;

/* The first fields of every state: what the core's launch sequence and result decoder keep. */
#define WGS__STATE_HEAD                                                                      \
  WGS__OBJECT_HEAD;                                                                          \
  uint32_t max_groups;                                                                       \
  wgs__launch_log log;   /* the launches since the last result */                            \
  int in_sync;           /* 1 inside a synchronous launch (wgs__launch_sync_locked): its      \
                            launch and result calls follow each other on one thread, under   \
                            the lock */                                                       \
  pthread_mutex_t lock   /* launches and results, one at a time (recursive) */
typedef struct wgs__state_head {
  WGS__STATE_HEAD;
} wgs__state_head;
static inline wgs__state_head *wgs__state(wgs_state_t *st) { return (wgs__state_head *)(void *)st; }
/* Fills the head of a new state (the lock made recursive); wgs__state_head_fini undoes it. */
void wgs__state_head_init(wgs__state_head *h, const wgs__backend_ops *ops, wgs_device_t *dev,
                          uint32_t max_groups);
void wgs__state_head_fini(wgs__state_head *h);
/* The result of a state's latest launch (its lock held), decoded from the backend's words. */
int wgs__state_result_locked(wgs_state_t *st, wgs_launch_result *res);
/* A launch (the state's lock held): described and enqueued by via, planned and recorded here
 * (src/launch.h); cfg NULL: the defaults. The table's launches and each backend's interop
 * launches come through it. */
int wgs__launch_via_locked(wgs_state_t *st, const struct wgs__launch_via *via, void *what,
                           const wgs_launch_config *cfg);
/* The same, then the result (a synchronous launch). */
int wgs__launch_sync_locked(wgs_state_t *st, const struct wgs__launch_via *via, void *what,
                            const wgs_launch_config *cfg, wgs_launch_result *res);

/* The first fields of every backend's device. */
#define WGS__DEVICE_HEAD                                                                     \
  const wgs__backend_ops *ops; /* the backend that opened it */                              \
  wgs_device_info info;                                                                      \
  double stamp_tick_ns /* ns per tick of the protocol's timestamps (0: they count ns) */

typedef struct wgs__device_head {
  WGS__DEVICE_HEAD;
} wgs__device_head;

static inline const wgs__device_head *wgs__head(const wgs_device_t *dev)
{
  return (const wgs__device_head *)(const void *)dev;
}

/* The backends' tables: each library defines its own and finds the other's when the program
 * links both (src/device.c); wgs__own_backend names the one a library carries (its
 * *_device_api.c), referenced strongly by src/device.c. */
extern const struct wgs__backend_ops *const wgs__own_backend;
extern const wgs__backend_ops wgs__opencl_ops;
extern const wgs__backend_ops wgs__cuda_ops;



#ifdef __cplusplus
}
#endif
#endif
