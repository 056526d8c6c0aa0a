/*
 * The launch sequence, once for every backend (src/launch.c): from a wgs_launch_config and what
 * the backend knows of the device, kernel and state, the launch's sizes and its config words;
 * then the record its result is decoded from. A backend does only what is its own: writing the
 * words when they changed and enqueueing the kernel.
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

/* Records an enqueued launch for its result (wgs__log_result); captured: into a CUDA graph. */
void wgs__log_plan(wgs__launch_log *log, const char *kname, const wgs__launch_plan *p,
                   const wgs_launch_config *cfg, const wgs__launch_ctx *c, int captured);

#ifdef __cplusplus
}
#endif
#endif
