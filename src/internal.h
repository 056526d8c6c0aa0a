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
/* WGS_OK when a SPIR-V module has the structure drivers take for granted, else WGS_ESPIRV
 * naming what is wrong (src/spirv/spirv.c) */
int wgs__spirv_check_structure(const uint32_t *words, size_t n_words);
/* What a Vulkan compute entry point takes as arguments (src/spirv/reflect.c). */
#define WGS_SPIRV_PUSH_MAX 32
typedef struct {
  int known;          /* 0: not reflected (several entry points before SPIR-V 1.4): no checks */
  uint32_t bindings;  /* bit b: a storage buffer at descriptor set 0, binding b */
  uint32_t others;    /* bit b: another resource there (wgsync binds storage buffers only) */
  uint8_t other_kind[32]; /* 1: a uniform buffer; 2: an image, sampler or other */
  unsigned n_push;    /* the push-constant block's members */
  struct {
    uint32_t offset;  /* its Offset decoration (UINT32_MAX: none) */
    unsigned bytes;   /* a scalar's or vector's size in bytes; 0: neither */
  } push[WGS_SPIRV_PUSH_MAX];
  int shared_arg;     /* specialisation constant 1 declared: one shared-memory argument */
} wgs__spirv_args;
int wgs__spirv_reflect(const uint32_t *words, size_t n_words, const char *entry, wgs__spirv_args *out);
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
/* Defaults, resolved here once ("zero means default") for every backend. */
#define WGS__DEFAULT_LOCAL_SIZE 256u        /* work-items per group when a config gives 0 */
/* (the measured values: src/tuning.h) */
static inline size_t wgs__local_size_or_default(size_t local)
{
  return local ? local : WGS__DEFAULT_LOCAL_SIZE;
}
/* The local size a launch takes when its config gives 0 and the kernel requires none: the
 * default capped at the largest group the device (or the kernel: OpenCL) runs, 0 for unknown.
 * Every backend and wgs_default_local_size (the CLI's) decide it here. */
static inline size_t wgs__default_local(size_t max)
{
  return max && max < WGS__DEFAULT_LOCAL_SIZE ? max : WGS__DEFAULT_LOCAL_SIZE;
}
/* The over-provisioned launch when a config gives groups = 0, for every backend: at most 2048
 * resident work-items and 32 groups per compute unit on NVIDIA (exact there: CUDA, and NVIDIA's
 * OpenCL); `spare` times that for GPUs whose limits wgsync does not know (other vendors' are
 * larger); CPUs (PoCL): 4 per compute unit, one group per worker thread being resident. Groups
 * beyond what runs at once leave at once, so too many only costs their start. */
static inline uint32_t wgs__default_groups(unsigned compute_units, size_t local, int is_gpu,
                                           unsigned spare)
{
  uint32_t cu = compute_units ? compute_units : 1u;
  if (!is_gpu)
    return cu * 4u;
  size_t per = 2048 / wgs__local_size_or_default(local);
  per = per < 1 ? 1 : per > 32 ? 32 : per;
  return (uint32_t)(cu * per * (spare ? spare : 1u));
}
/* The most §5.4 delay rounds a launch accepts: each hands the discovery mutex over once (a few
 * us on a GPU; on PoCL 10^5 rounds already took minutes at 8 threads). */
#define WGS__MAX_DELAY 1000000u
/* The message for a WGS_DEV_ERR_MISUSE report (error words e), the same on every backend;
 * returns WGS_EMISUSE. */
int wgs__fail_misuse(const char *kname, const uint32_t *e);
/* Validates the fields both backends read the same way; "who" names the call in messages. */
int wgs__check_launch_config(const char *who, const wgs_launch_config *cfg);

/* src/launch.c: what a launch writes and what it leaves, the same on every backend. */
uint32_t wgs__mode_word(wgs_discovery d);
/* The WGS_CFG_* words of device/common/wgs_layout.h (WGS_CFG_WORDS of them). */
void wgs__config_words(uint32_t *w, const wgs_launch_config *cfg, uint32_t max_groups,
                       uint64_t limit, uint64_t wait, int timed, uint32_t enough, int epochs);
/* WGS_CFG_SHARDS: the counter barrier's sharded shape (S | R << 8 | fewest groups << 16), 0 for
 * none; WGS_CFG_ATOM_MIN below; both from src/tuning.h. */
/* WGS_CFG_PUBLISH: the counter barrier's published shape (fewest groups | R << 16), 0 for none;
 * chosen: the launch asked for it (WGS_BARRIER_PUBLISHED), from src/tuning.h's count. */
uint32_t wgs__barrier_publish(int chosen);
uint32_t wgs__barrier_shards(void);
/* WGS_CFG_ATOM_MIN: from this many groups on, an unsharded arrival waits for its acq_rel add. */
uint32_t wgs__barrier_atom_min(void);
/* What the host keeps about the latest launch on a state, to decode its result. */
typedef struct {
  char kname[128];       /* kernel name for messages ("" when unknown) */
  uint32_t mode;         /* WGS_MODE_* */
  uint32_t launched;     /* groups launched */
  uint32_t local;        /* work-items per group */
  uint32_t delay;
  int checked;           /* decode the error report (checked builds) */
  int entry_check;       /* check the entry counts after it (wgs__launch_ctx) */
  int epochs;            /* launch epochs (the kernel clears; else the host reset the state) */
  int timed;             /* protocol times requested */
  uint32_t expected;     /* discovery: the groups the close waited for (wgs_launch_result) */
} wgs__launch_record;
/* What a state keeps from its launches to their result, the same on every backend. */
typedef struct {
  wgs__launch_record last; /* the latest launch */
  int launches;            /* launches since the last result; -1: some were captured in a graph */
  uint32_t epoch;          /* the device's launch epoch when the host last read it */
} wgs__launch_log;
/* A launch was enqueued (captured: into a CUDA graph, replayed any number of times). */
void wgs__log_launch(wgs__launch_log *log, int captured);
/* WGS_EINVAL naming `who` when nothing was launched since the last result, else WGS_OK. */
int wgs__log_pending(const wgs__launch_log *log, const char *who);
/* Fills res for the latest launch from the state's first WGS_G_LINES lines (glob) and returns
 * its status, with one message on every backend; the next result counts launches afresh. */
int wgs__log_result(wgs__launch_log *log, const uint32_t *glob, wgs_launch_result *res);
/* After a checked launch that reported nothing: every participant's work-item entries (witems)
 * must be its local size times the entries whose representative ran on (entered); sites: the
 * line each last entered. WGS_EMISUSE naming the first group where they differ, else WGS_OK. */
int wgs__check_entries(const wgs__launch_record *lr, uint32_t participants, const uint32_t *entered,
                       const uint32_t *witems, const uint32_t *sites);
/* First start to last end of the participants' protocol stamps (4 words per group); -1. */
double wgs__protocol_us(const uint32_t *t, uint32_t groups);

/* Sources embedded at build time (cmake/embed.cmake). */
extern const char wgs__device_lib_source[];
extern const char wgs__tools_source[];

#ifdef __cplusplus
}
#endif

#endif
