/*
 * The OpenCL backend's one entry point for the OpenCL layer (layer/): a wgsync launch on a range
 * and queue of the caller's. The layer includes this header, not the backend's internals.
 */
#ifndef WGS_CL_LAYER_H
#define WGS_CL_LAYER_H

#include "wgsync_opencl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A launch on a range and queue of the caller's (the OpenCL layer, layer/): dims 1 to 3, every
 * global[d] a multiple of local[d] (checked by the caller); the group count and local size the
 * plan checks are their products. The kernel must be built with -D WGS_ND_RANGE=1. */
typedef struct {
  cl_command_queue queue;
  cl_uint dims;
  const size_t *offset, *global, *local;
  int checked; /* a checked build: bounded spins, a reset state before each launch */
  /* What the caller already knows of the kernel, so that a launch asks the driver nothing it
   * asked before (each query costs 1-2 us on NVIDIA): its name (NULL: ask), its maximum
   * work-group size (0: ask), and 1 when its local memory was checked against the device's. */
  const char *kname;
  size_t kmax;
  int lmem_checked;
  uint32_t dispatch; /* the state's WGS_CFG_DISPATCH for this launch, written on queue when it
                        changes (ordered with the kernel: written on another queue, Intel's CPU
                        runtime ran a kernel that had not seen it) */
} wgs__cl_nd_range;
int wgs__cl_launch_nd(wgs_state_t *st, cl_kernel kernel, const wgs_launch_config *cfg,
                      const wgs__cl_nd_range *nd, cl_uint num_wait, const cl_event *wait_list,
                      cl_event *event);

#ifdef __cplusplus
}
#endif
#endif
