/*
 * The launch sequence, once for every backend: a backend describes the launch (what it knows of
 * the device, kernel and state), the core plans it (src/launch.c: the launch's sizes and its
 * config words), the backend enqueues the plan (writing the words where they changed), and the
 * core records what its result is decoded from (src/api.c, wgs__launch_via_locked). A backend
 * does only what is its own.
 */
#ifndef WGS_LAUNCH_H
#define WGS_LAUNCH_H

#include "internal.h"
#include "wgs_layout.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  const char *who;            /* the call, for messages ("wgs_launch", "wgs_cuda_launch") */
  const char *kname;          /* the kernel's name, for messages and the result (NULL: none) */
  size_t kernel_max;          /* the kernel's own maximum local size, where the backend knows one
                                 that can be below the device's (0: none); named in a limit's
                                 message */
  const char *state_ctor;     /* the state's constructor, for the capacity message */
  const wgs_device_info *info;
  size_t local_default;       /* the local size when the config gives 0 */
  uint32_t capacity;          /* the state's max_groups */
  unsigned spare;             /* wgs__default_groups's factor (GPUs whose limits wgsync lacks) */
  int checked;                /* the kernel is a checked build (spins bounded, reports decoded) */
  int epochs;                 /* the kernel clears the state between launches (launch epochs) */
  /* The result checks the groups' entry counts (wgs__check_entries): only where the backend
   * knows the kernel is a checked build (three reads more per result). CUDA kernels are the
   * user's, checked or not, and NVIDIA runs a partial group's representative on, whose check
   * reports it on the device. */
  int entry_check;
  /* A time in microseconds in the device's spin unit (nanoseconds, or calibrated iterations). */
  int (*to_spin)(void *ctx, double us, uint64_t *out);
  /* The groups of local_size that fit at once (0: none known): a discovery launch's early close
   * when the config leaves close_at to the backend, and the most a fixed launch may take. NULL
   * where the backend has no exact answer. */
  uint32_t (*fits)(void *ctx, size_t local_size);
  void *ctx;
} wgs__launch_ctx;

typedef struct {
  size_t local;
  uint32_t groups;
  uint32_t mode;              /* WGS_MODE_* */
  int timed;                  /* protocol times recorded on the device */
  uint32_t w[WGS_CFG_WORDS];  /* the config words (device/common/wgs_layout.h) */
} wgs__launch_plan;

/* Validates cfg, resolves its defaults ("zero means default"), checks the sizes against the
 * device and the state, and fills the plan. */
int wgs__plan_launch(const wgs__launch_ctx *c, const wgs_launch_config *cfg, wgs__launch_plan *p);

/* How a backend launches one kind of kernel (its table's kernels, or an interop launch's):
 * describe fills c for the launch of `what` on st, and may complete cfg from what the kernel or
 * device requires (a kernel's required local size, a CPU device's spin bound) or refuse it;
 * enqueue writes the plan's words where they changed and enqueues the kernel (*captured: into a
 * CUDA graph). */
typedef struct wgs__launch_via {
  int (*describe)(wgs_state_t *st, void *what, wgs_launch_config *cfg, wgs__launch_ctx *c);
  int (*enqueue)(wgs_state_t *st, void *what, const wgs_launch_config *cfg, const wgs__launch_ctx *c,
                 const wgs__launch_plan *p, int *captured);
} wgs__launch_via;

/* Records an enqueued launch for its result (wgs__log_result); captured: into a CUDA graph. */
void wgs__log_plan(wgs__launch_log *log, const char *kname, const wgs__launch_plan *p,
                   const wgs_launch_config *cfg, const wgs__launch_ctx *c, int captured);

#ifdef __cplusplus
}
#endif
#endif
