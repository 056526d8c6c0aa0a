/*
 * libwgsync-layer: an OpenCL ICD loader layer (OPENCL_LAYERS) that gives every OpenCL device
 * cl_intel_split_work_group_barrier and cl_intel_concurrent_dispatch, for programs that use them
 * as the extension specifications say, unmodified (docs/layer.md).
 *
 *   layer.c       the layer's entry points, the dispatch table, the device queries
 *   programs.c    programs from source (the device library in front) and from SPIR-V (lowered)
 *   concurrent.c  kernels: the hidden state argument, dispatch types, the occupancy probe that
 *                 answers clGetKernelMaxConcurrentWorkGroupCountINTEL, concurrent launches
 *   rewrite.c     the source scan: built-ins used, kernels given the hidden parameter
 *
 * The layer carries a private copy of the wgsync library, whose OpenCL calls come back through
 * the loader into the layer: on the thread that makes them, wgs__layer_inside is set and every
 * entry point passes straight to the next layer or the driver.
 */
#ifndef WGS_LAYER_INTERNAL_H
#define WGS_LAYER_INTERNAL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <CL/cl_icd.h>
#include <pthread.h>
#include <stddef.h>

#include "wgsync.h"
#include "wgsync_opencl.h"

/* cl_intel_concurrent_dispatch (Intel's specification, version 0.9.0), where the headers lack
 * it. */
#ifndef CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_INTEL
#define CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_INTEL 0x4257
#define CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_DEFAULT_INTEL 0
#define CL_KERNEL_EXEC_INFO_DISPATCH_TYPE_CONCURRENT_INTEL 1
#endif

#define WGS_EXT_SPLIT "cl_intel_split_work_group_barrier"
#define WGS_EXT_CONCURRENT "cl_intel_concurrent_dispatch"
#define WGS_FN_MAX_COUNT "clGetKernelMaxConcurrentWorkGroupCountINTEL"

extern const struct _cl_icd_dispatch *wgs__layer_next; /* the next layer, or the loader's table */
extern _Thread_local int wgs__layer_inside;            /* the layer's own calls: pass through */

/* Settings, from the environment at load time. */
typedef struct {
  int checked; /* WGSYNC_LAYER_CHECKED=1: programs built checked, launches checked (docs/layer.md) */
  int replace_native; /* WGSYNC_LAYER_REPLACE_NATIVE=1: wgsync's concurrent dispatch even where
                         the device has its own */
  int verbose;        /* WGSYNC_LAYER_VERBOSE=1: say what the layer does, on stderr */
} wgs__layer_settings;
extern wgs__layer_settings wgs__layer_cfg;

/* A message on stderr, "wgsync layer: ..." (always for errors the OpenCL status cannot say). */
void wgs__layer_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Copies an answer of n bytes out as the clGet*Info calls do. */
cl_int wgs__layer_answer(const void *v, size_t n, size_t size, void *value, size_t *size_ret);

/* Whether the driver itself has the extension on this device. */
int wgs__layer_native(cl_device_id dev, const char *ext);
/* 1 when every device of the context has ext natively (programs.c). */
int wgs__layer_all_native(cl_context ctx, const char *ext);

/* The wgsync device (its own queue) for a device of a context, shared and counted: get takes
 * a reference, put drops it. NULL with the reason said when wrapping failed. */
wgs_device_t *wgs__layer_device_get(cl_context ctx, cl_device_id dev);
void wgs__layer_device_put(wgs_device_t *d);

/* rewrite.c */
int wgs__layer_mentions(const char *src, size_t n, const char *word);
char *wgs__layer_rewrite(const char *src, size_t n, int hidden, const char *prologue,
                         unsigned *kernels);

/* programs.c: the programs the layer changed. */
typedef struct wgs__layer_program {
  cl_program prog;
  cl_context ctx;
  int device_barrier; /* kernels take the hidden state argument (concurrent dispatch) */
  int checked;        /* built checked */
  char *source;       /* the user's source, as CL_PROGRAM_SOURCE answers */
  struct wgs__layer_program *next;
} wgs__layer_program;
/* A copy of prog's record (its source left out) in *out: 1, or 0 when the layer did not make it. */
int wgs__layer_program_get(cl_program prog, wgs__layer_program *out);

cl_program CL_API_CALL wgs__layer_clCreateProgramWithSource(cl_context, cl_uint, const char **,
                                                            const size_t *, cl_int *);
cl_program CL_API_CALL wgs__layer_clCreateProgramWithIL(cl_context, const void *, size_t, cl_int *);
cl_program CL_API_CALL wgs__layer_clCreateProgramWithBinary(cl_context, cl_uint, const cl_device_id *,
                                                            const size_t *, const unsigned char **,
                                                            cl_int *, cl_int *);
cl_program CL_API_CALL wgs__layer_clCreateProgramWithBuiltInKernels(cl_context, cl_uint,
                                                                    const cl_device_id *,
                                                                    const char *, cl_int *);
cl_program CL_API_CALL wgs__layer_clLinkProgram(cl_context, cl_uint, const cl_device_id *,
                                                const char *, cl_uint, const cl_program *,
                                                void(CL_CALLBACK *)(cl_program, void *), void *,
                                                cl_int *);
cl_int CL_API_CALL wgs__layer_clBuildProgram(cl_program, cl_uint, const cl_device_id *,
                                             const char *,
                                             void(CL_CALLBACK *)(cl_program, void *), void *);
cl_int CL_API_CALL wgs__layer_clCompileProgram(cl_program, cl_uint, const cl_device_id *,
                                               const char *, cl_uint, const cl_program *,
                                               const char **,
                                               void(CL_CALLBACK *)(cl_program, void *), void *);
cl_int CL_API_CALL wgs__layer_clGetProgramInfo(cl_program, cl_program_info, size_t, void *,
                                               size_t *);
cl_int CL_API_CALL wgs__layer_clGetProgramBuildInfo(cl_program, cl_device_id,
                                                    cl_program_build_info, size_t, void *,
                                                    size_t *);
cl_int CL_API_CALL wgs__layer_clReleaseProgram(cl_program);

/* concurrent.c */
cl_kernel CL_API_CALL wgs__layer_clCreateKernel(cl_program, const char *, cl_int *);
cl_int CL_API_CALL wgs__layer_clCreateKernelsInProgram(cl_program, cl_uint, cl_kernel *, cl_uint *);
cl_kernel CL_API_CALL wgs__layer_clCloneKernel(cl_kernel, cl_int *);
cl_int CL_API_CALL wgs__layer_clReleaseKernel(cl_kernel);
cl_int CL_API_CALL wgs__layer_clSetKernelArg(cl_kernel, cl_uint, size_t, const void *);
cl_int CL_API_CALL wgs__layer_clGetKernelInfo(cl_kernel, cl_kernel_info, size_t, void *, size_t *);
cl_int CL_API_CALL wgs__layer_clGetKernelArgInfo(cl_kernel, cl_uint, cl_kernel_arg_info, size_t,
                                                 void *, size_t *);
cl_int CL_API_CALL wgs__layer_clSetKernelExecInfo(cl_kernel, cl_kernel_exec_info, size_t,
                                                  const void *);
cl_int CL_API_CALL wgs__layer_clFinish(cl_command_queue);
cl_int CL_API_CALL wgs__layer_clWaitForEvents(cl_uint, const cl_event *);
cl_int CL_API_CALL wgs__layer_clEnqueueNDRangeKernel(cl_command_queue, cl_kernel, cl_uint,
                                                     const size_t *, const size_t *,
                                                     const size_t *, cl_uint, const cl_event *,
                                                     cl_event *);
cl_int CL_API_CALL wgs__layer_max_count(cl_command_queue, cl_kernel, cl_uint, const size_t *,
                                        const size_t *, size_t *);

#endif
