/*
 * CUDA backend internals, shared by its files (the same jobs as src/opencl's): cuda_device.cu
 * (driver entry points, devices, the table), cuda_launch.cu (states, launches, result words),
 * cuda_program.cu (kernel handles, buffers), cuda_tools.cu (the tools' launches),
 * cuda_errors.cu (statuses from CUDA errors).
 */
#ifndef WGS_CUDA_INTERNAL_H
#define WGS_CUDA_INTERNAL_H

#include <cuda.h>
#include <cuda_runtime.h>

#include "../device.h"
#include "../launch.h"
#include "wgsync_cuda.h"

#define GLOBAL_WORDS (WGS_G_LINES * WGS_LINE_WORDS)
#define CU(call, what)                                                                       \
  do {                                                                                       \
    cudaError_t e_ = (call);                                                                 \
    if (e_ != cudaSuccess)                                                                   \
      return wgs__cuda_fail((what), e_);                                                     \
  } while (0)

/* The driver API, for kernels given as CUfunction / CUkernel handles (modules loaded by NVRTC
 * programs, CuPy, cuda-python, Numba, Triton). Reached through the runtime's entry-point query,
 * so libwgsync_cuda needs no link to libcuda and any runtime copy in the process can launch. */
typedef CUresult (*wgs__cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                                        unsigned, unsigned, unsigned, CUstream, void **, void **);
typedef CUresult (*wgs__cuOccupancy)(int *, CUfunction, int, size_t);
typedef CUresult (*wgs__cuGetErrorName)(CUresult, const char **);
typedef CUresult (*wgs__cuFuncGetAttribute)(int *, CUfunction_attribute, CUfunction);
struct wgs__cuda_driver_api {
  int loaded, ok;
  wgs__cuLaunchKernel launch;
  wgs__cuOccupancy occupancy;
  wgs__cuGetErrorName error_name;
  wgs__cuFuncGetAttribute func_attribute;
};
extern struct wgs__cuda_driver_api wgs__cuda_drv; /* filled by wgs__load_driver */
int wgs__load_driver(void);

/* Statuses from CUDA errors, with the call named (cuda_errors.cu). */
int wgs__cuda_fail(const char *what, cudaError_t e);
int wgs__cu_fail(const char *what, CUresult r);

/* What is launched: a runtime-API symbol, or a driver-API function handle. */
typedef struct {
  const void *sym;
  CUfunction fn;
  const char *who;
  const char *name; /* for messages, NULL when unknown */
} kernel_ref;

/* One launch (src/launch.h's `what` for wgs__cuda_launch_via): the kernel, the caller's argument
 * array (the state's slot is filled at the enqueue), shared memory and stream. */
struct wgs_cuda_state;
typedef struct {
  struct wgs_cuda_state *st;
  kernel_ref kr;
  void **args;
  unsigned num_args;
  size_t shared_bytes;
  cudaStream_t stream;
  uint32_t *planned; /* a launch the caller makes (wgs_cuda_prepare_launch): the groups to launch
                        go here, and the enqueue writes the config words only */
} wgs__cuda_launch_args;

/* A state on a CUDA device (a wgs_state_t, and a wgs_cuda_state_t, point at one). */
struct wgs_cuda_state {
  WGS__STATE_HEAD;       /* ops, device, capacity, launch log and lock (src/device.h) */
  int device;
  unsigned *mem;
  unsigned *io;          /* pinned: the global lines of the state, read back for a result */
  volatile unsigned *mirror; /* pinned, mapped: the result words the device mirrors (WGS_MIRROR_*) */
  unsigned *mirror_dev;  /* its device address */
  int max_threads, sms;  /* device attributes, asked once */
  wgs_device_info info;  /* what the launch sequence reads (src/launch.h), from those */
  cudaEvent_t e0, e1;    /* kernel time (when asked), made once per state */
  int timing;            /* the latest launch recorded e0, e1 */
  uint32_t cfg[WGS_CFG_WORDS]; /* the config words on the device, when cfg_valid */
  int cfg_valid;
  cudaStream_t stream;   /* the latest launch's stream: a result waits for it */
  /* The occupancy API's answer for the last kernel launched on this state (the early close's
   * "enough"): asked once per kernel and shape, not on every launch of a loop. */
  const void *occ_kernel;
  size_t occ_local, occ_shared;
  uint32_t occ_groups;
  wgs__cuda_launch_args table; /* the table's launch in progress (the lock held) */
};
typedef struct wgs_cuda_state cuda_state;
static inline cuda_state *cs(wgs_state_t *st) { return (cuda_state *)(void *)st; }
static inline wgs_state_t *pub(cuda_state *st) { return (wgs_state_t *)(void *)st; }

/* A CUDA device behind a wgs_device_t (src/device.h): the head, the ordinal, and the references
 * of the user's handle and of every state, kernel and buffer made on it. */
struct wgs__cuda_device {
  WGS__DEVICE_HEAD;
  int ordinal;
  int refs;
  wgs_program_t *tools[2]; /* wgs_tools_program's, unchecked and checked, made on first use */
};
extern "C" const wgs__backend_ops wgs__cuda_ops;

/* Devices (cuda_device.cu). */
int wgs__set_device(int device);
int wgs__use_device(int device); /* wgs__set_device unless it is current already (cheap) */
void wgs__cuda_dev_retain(wgs_device_t *dev);
void wgs__cuda_dev_release(wgs_device_t *dev);
int wgs__cuda_open_ordinal(int ordinal, const char *how, wgs_device_t **out);
/* One on the stack, for the entry points that name a GPU by ordinal: its caller's reference
 * never goes, so the states made on it never free it. */
int wgs__ordinal_device(int device, wgs__cuda_device *d);

/* States, launches, results (cuda_launch.cu). */
int wgs__cuda_state_create(wgs_device_t *dev, uint32_t max_groups, wgs_state_t **out);
void wgs__cuda_state_release(wgs_state_t *st);
extern const wgs__launch_via wgs__cuda_launch_via; /* what: a wgs__cuda_launch_args */
int wgs__cuda_result_words(wgs_state_t *st, uint32_t *glob, double *kernel_us);
int wgs__cuda_clear_error(wgs_state_t *st);
int wgs__cuda_read_words(wgs_state_t *st, size_t offset, size_t n, uint32_t *out);

/* Kernel handles and buffers (cuda_program.cu). */
void wgs__cuda_kernel_release(wgs_kernel_t *k);
int wgs__cuda_kernel_set_arg(wgs_kernel_t *k, unsigned index, size_t size, const void *value);
int wgs__cuda_kernel_set_arg_buffer(wgs_kernel_t *k, unsigned index, wgs_buffer_t *b);
extern const wgs__launch_via wgs__cuda_launch; /* the table's: what is the wgs_kernel_t */
int wgs__cuda_buffer_create(wgs_device_t *dev, size_t bytes, wgs_buffer_t **out);
void wgs__cuda_buffer_release(wgs_buffer_t *b);
int wgs__cuda_buffer_write(wgs_buffer_t *b, size_t off, size_t bytes, const void *src);
int wgs__cuda_buffer_read(wgs_buffer_t *b, size_t off, size_t bytes, void *dst);
int wgs__cuda_kernel_resources(wgs_kernel_t *k, wgs_kernel_resources *out);
int wgs__cuda_tools_program(wgs_device_t *dev, int checked, wgs_program_t **out);
void wgs__cuda_program_release(wgs_program_t *prog);
const char *wgs__cuda_program_build_log(const wgs_program_t *prog);
int wgs__cuda_kernel_create(wgs_program_t *prog, const char *name, wgs_kernel_t **out);

/* The tools' launches (cuda_tools.cu). */
int wgs__micro_run(wgs_device_t *dev, const wgs_occupancy_config *cfg, uint32_t groups,
                   wgs_discovery disc, int do_barrier, wgs_launch_result *res);
int wgs__cuda_mp(wgs_device_t *dev, const wgs_selftest_config *cfg, size_t local, uint32_t groups,
                 uint32_t rounds, wgs_launch_result *launch, uint32_t rep_out[8]);
int wgs__cuda_latency_runs(wgs_device_t *dev, const wgs_latency_config *cfg, uint32_t groups,
                           uint32_t rounds, uint32_t repeats, double *us);
/* The tools' kernel of that name (wgs_micro, wgs_mp, wgs_latency: the OpenCL tools' names) in
 * the checked or unchecked build; NULL when there is none. *names lists them, for messages. */
const void *wgs__cuda_tools_kernel(const char *name, int checked, const char **names);

#endif
