/*
 * Every tuning value of the host library in one place, with the measured default and why.
 * Nothing in the library reads the environment for them: a program changes them only through
 * wgs__tuning_set, a private hook (not in any installed header; the static libraries export it,
 * the shared ones do not) that bench/ and tests/ link against to compare shapes in one process.
 * Set them before the launches they should affect; the library reads them while launching.
 */
#ifndef WGS_TUNING_H
#define WGS_TUNING_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wgs__tuning {
  /* The counter barrier's shapes (device/common/wgs_core.h, "Counter barrier"). */
  uint32_t publish_replicas;  /* the published shape's replicas R (a power of two, <= 32): 32,
                                 as measured in the apps (docs/results.md) */
  uint32_t publish_min_groups; /* every counter launch of this many groups or more is published,
                                 asked or not (<= 65535; 0: only those that ask): 0, as a default
                                 shape it is slower back to back at every count (H100: 2.40
                                 against 2.14 us at 1056 x 256, 4.58 against 2.38 at 4224 x 32) */
  uint32_t publish_asked_min_groups; /* a launch that asks (WGS_BARRIER_PUBLISHED) is published
                                 from this many groups on (0: never), and takes the shapes below
                                 under it:
                                 880, the apps' Table 4 on the H100 (faster at 1056 groups,
                                 slower at 15-541: bc on 15 groups 2.80 against 2.23 ms) */
  uint32_t shards;            /* arrival shards S of the sharded shape (a power of two, <= 32);
                                 0: never sharded. 32 with 16 replicas: best or within 0.1 us
                                 from 792 to 4224 groups (H200) */
  uint32_t replicas;          /* published replicas R (a power of two, <= 32): 16, as above */
  uint32_t shard_min_groups;  /* sharded from this many groups on (<= 65535): 880, where the
                                 sharded shape crosses the acq_rel one (H200: 1.74 against 1.47
                                 us at 792 groups, 1.72 against 2.27 at 1056) */
  uint32_t atom_min_groups;   /* an unsharded arrival is an acq_rel add whose result it waits
                                 for from this many groups on (0: never): 200, where it crosses
                                 the release add (H200: 0.95 against 1.09 us at 264 groups,
                                 0.94 against 0.87 at 132) */
  /* Discovery's quiescence wait when a launch config leaves it to the device (< 0). */
  double gpu_close_wait_us;   /* 10: blocks start a few us apart and the ticket lock hands over
                                 in about 0.7 us (H100, 2112 groups through it in 1.5 ms) */
  double cpu_close_wait_us;   /* 20000: worker threads wake tens of us to a scheduler slice late
                                 (PoCL 3.1, 2 cores: 5 ms found 3 of 4 at 4 threads, 20 ms all) */
  /* A checked spin's bound when a launch config gives 0. */
  double timeout_ms;          /* 500 on devices with a clock */
  double timeout_noclock_ms;  /* 1500 without one (calibrated iterations run long or short) */
  /* Development: none of these is set in a product build. */
  const char *atomics;        /* NULL: the device's layer; "c11", "ptx" or "fence" forces one at
                                 wgs_device_open (the tests run the fence layer on PoCL) */
  const char *device_lib;     /* NULL: the embedded device library; else a file that replaces it
                                 (the concatenation of device/, as build/generated/wgsync.cl) */
  const char *tools_options;  /* NULL; else build options added to the tools' OpenCL kernels
                                 (e.g. -cl-nv-verbose) */
} wgs__tuning;

/* The library's defaults. */
void wgs__tuning_defaults(wgs__tuning *t);
/* The values in force (the defaults until wgs__tuning_set). */
const wgs__tuning *wgs__tuning_get(void);
/* Checks t (WGS_EINVAL naming the field) and makes it the values in force; NULL: the defaults.
 * The strings are referenced, not copied: they must outlive their use. */
int wgs__tuning_set(const wgs__tuning *t);
/* Applies "name=value ..." (space or semicolon separated) to t: publish=R,MIN (every counter
 * launch from MIN groups published; publish=0: none, not even those that ask), publish_asked=N, shards=S,R[,MIN] (shards=0: never sharded), atom_min=N, gpu_close_wait_us=X, cpu_close_wait_us=X, timeout_ms=X,
 * timeout_noclock_ms=X, atomics=c11|ptx|fence, device_lib=PATH, tools_options=TEXT (the rest
 * of the text). WGS_EINVAL naming the part it could not use. For bench/ and tests/, which take
 * the text from where they like (bench/common/tuning_env.c: WGSYNC_TUNING). */
int wgs__tuning_parse(wgs__tuning *t, const char *spec);

#ifdef __cplusplus
}
#endif
#endif
