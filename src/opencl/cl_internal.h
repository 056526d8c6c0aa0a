/*
 * OpenCL backend internals: the objects behind the public opaque handles.
 */
#ifndef WGS_CL_INTERNAL_H
#define WGS_CL_INTERNAL_H

#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <pthread.h>

#include "wgsync_opencl.h"
#include "../device.h"
#include "../launch.h"
#include "cl_layer.h"
#include "wgs_layout.h"

struct wgs_device {
  WGS__DEVICE_HEAD; /* ops (wgs__opencl_ops) and info: what the core reads (src/device.h) */
  cl_platform_id platform;
  cl_device_id device;
  cl_context ctx;
  cl_command_queue queue;
  int profiling;            /* queue has CL_QUEUE_PROFILING_ENABLE */
  char opts[2][256];        /* build options: [0] plain, [1] checked */
  double iters_per_ms;      /* checked spins without a device clock: calibrated lazily */
  wgs_program_t *tools[2];  /* tools program (discover/bound/self-test), [checked] */
  /* References: the user's handle (until wgs_device_close) and every program, state and buffer
   * made on the device, so that closing it first (the OpenCL idiom of releasing early) leaves
   * them usable; the device goes when the last goes (wgs__cl_dev_release). */
  int refs;
  pthread_mutex_t lazy;     /* the tools programs and the calibration, made on first use */
  /* The host clock (cl_clock.c), on CPU devices without a clock of their own. */
  int clock_ok;             /* 1: kernels see it move; -1: they do not; 0: not checked yet */
  int clock_running, clock_stop, clock_inflight;
  double clock_base;
  pthread_t clock_thread;
  pthread_mutex_t clock_mu;
  pthread_cond_t clock_cv;
  struct wgs_state *clock_states; /* states whose clock word it writes */
};

struct wgs_program {
  WGS__OBJECT_HEAD;         /* ops (wgs__opencl_ops) and the device */
  cl_program prog;
  unsigned flags;
  char *log;
  int refs;                 /* the user's handle and each kernel made from it */
  int holds_dev;            /* 0 for the device's own tools programs (no cycle) */
};

struct wgs_kernel {
  WGS__OBJECT_HEAD;
  wgs_program_t *prog;      /* a reference: the program may be released before the kernel */
  cl_kernel k;
  char name[128];           /* its function name (messages, the launch's record) */
};

struct wgs_state {
  WGS__STATE_HEAD;             /* ops, device, capacity, launch log and lock (src/device.h) */
  cl_mem mem;
  uint32_t cfg[WGS_CFG_WORDS]; /* the config words on the device, when cfg_valid */
  int cfg_valid;
  uint32_t dispatch;           /* the OpenCL layer's dispatch word on the device (WGS_CFG_DISPATCH) */
  int host_reset;              /* the last launch ran without epochs (its half 0 is used) */
  cl_event timing;             /* the latest launch's event, when it asked for kernel_us */
  uint32_t *host;              /* the state's host memory where it has a host clock, else NULL */
  struct wgs_state *clock_next;
  int clock_pending;           /* launches not yet collected (they keep the clock ticking) */
};

struct wgs_buffer {
  WGS__BUFFER_HEAD; /* ops, device, size (src/device.h) */
  cl_mem mem;
};

/* The backend's objects (cl_program.c, cl_launch.c): the entries of its table (src/device.h). */
int wgs__cl_program_build(wgs_device_t *dev, const char *source, const char *options,
                          unsigned flags, wgs_program_t **out);
int wgs__cl_program_build_il(wgs_device_t *dev, const uint32_t *words, size_t n_words,
                             const char *options, wgs_program_t **out);
void wgs__cl_program_release(wgs_program_t *p);
const char *wgs__cl_program_build_log(const wgs_program_t *p);
int wgs__cl_kernel_create(wgs_program_t *prog, const char *name, wgs_kernel_t **out);
void wgs__cl_kernel_release(wgs_kernel_t *k);
int wgs__cl_kernel_set_arg(wgs_kernel_t *k, unsigned index, size_t size, const void *value);
int wgs__cl_kernel_set_arg_buffer(wgs_kernel_t *k, unsigned index, wgs_buffer_t *b);
int wgs__cl_buffer_create(wgs_device_t *dev, size_t bytes, wgs_buffer_t **out);
void wgs__cl_buffer_release(wgs_buffer_t *b);
int wgs__cl_buffer_write(wgs_buffer_t *b, size_t off, size_t bytes, const void *src);
int wgs__cl_buffer_read(wgs_buffer_t *b, size_t off, size_t bytes, void *dst);
int wgs__cl_kernel_run(wgs_kernel_t *k, unsigned dims, const size_t *global, const size_t *local);
int wgs__cl_kernel_resources(wgs_kernel_t *k, wgs_kernel_resources *out);
int wgs__cl_state_create(wgs_device_t *dev, uint32_t max_groups, wgs_state_t **out);
void wgs__cl_state_release(wgs_state_t *st);
extern const wgs__launch_via wgs__cl_launch; /* the table's (src/launch.h) */
int wgs__cl_result_words(wgs_state_t *st, uint32_t *glob, double *kernel_us);

int wgs__cl_clear_error(wgs_state_t *st);
int wgs__cl_read_words(wgs_state_t *st, size_t offset, size_t n, uint32_t *out);

/* Fails with WGS_EBACKEND naming the OpenCL call and error. */
int wgs__cl_fail(const char *what, cl_int err);
#define WGS__CL(call, what)                                                                  \
  do {                                                                                       \
    cl_int wgs__e = (call);                                                                  \
    if (wgs__e != CL_SUCCESS)                                                                \
      return wgs__cl_fail((what), wgs__e);                                                   \
  } while (0)

/* WGS_OK when dev is an OpenCL device, else WGS_EUNSUPPORTED naming `who` (programs, buffers
 * and states are OpenCL objects; CUDA kernels launch through wgsync_cuda.h). */
int wgs__cl_require(const wgs_device_t *dev, const char *who);

/* The backend's operations behind the core's device API (src/device.c). */
int wgs__cl_open(const wgs_device_select *sel, const char *how, wgs_device_t **out);
void wgs__cl_close(wgs_device_t *dev);
uint32_t wgs__cl_default_groups(const wgs_device_t *dev, size_t local_size);
int wgs__cl_max_local_mem(wgs_device_t *dev, size_t local_size, size_t *bytes);
int wgs__cl_micro(wgs_device_t *dev, const wgs_occupancy_config *cfg, uint32_t groups,
                  wgs_discovery disc, int do_barrier, wgs_launch_result *res);
int wgs__cl_mp(wgs_device_t *dev, const wgs_selftest_config *cfg, size_t local, uint32_t groups,
               uint32_t rounds, wgs_launch_result *launch, uint32_t rep[8]);
int wgs__cl_latency(wgs_device_t *dev, const wgs_latency_config *cfg, uint32_t groups,
                    uint32_t rounds, uint32_t repeats, double *us);

/* WGS_ELIMIT / WGS_ENOMEM when the device or (CPU devices) the process cannot hold bytes. */
int wgs__cl_check_alloc(const wgs_device_t *dev, size_t bytes, const char *who);
/* WGS_EINVAL when build options end in -D or -I with nothing after them. */
int wgs__check_build_options(const char *who, const char *options);

/* The host clock (cl_clock.c). */
int wgs__clock_wanted(const wgs_device_t *dev);
void *wgs__clock_host_alloc(size_t bytes);
int wgs__clock_register(wgs_device_t *dev, struct wgs_state *st);
void wgs__clock_unregister(wgs_device_t *dev, struct wgs_state *st);
void wgs__clock_launch(wgs_device_t *dev, struct wgs_state *st);
void wgs__clock_collect(wgs_device_t *dev, struct wgs_state *st);
void wgs__clock_stop(wgs_device_t *dev);
int wgs__clock_check(wgs_device_t *dev); /* (cl_tools.c: it runs a tools kernel) */

/* Device and program references (cl_device.c, cl_program.c). */
void wgs__cl_dev_retain(wgs_device_t *dev);
void wgs__cl_dev_release(wgs_device_t *dev);
void wgs__cl_program_retain(wgs_program_t *p);

/* The tools program (device/opencl/kernels/tools.cl), built once per device and mode. */
int wgs__tools_program(wgs_device_t *dev, int checked, wgs_program_t **out);


#endif
