/*
 * wgsync OpenCL interop: use wgsync with your own cl_context / cl_command_queue / cl_kernel.
 */
#ifndef WGSYNC_OPENCL_H
#define WGSYNC_OPENCL_H

#ifndef CL_TARGET_OPENCL_VERSION /* a version the user chose stays theirs */
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>
#include "wgsync.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Wraps objects you own; wgsync retains them and releases its references on close.
 * queue may be NULL (wgsync creates one on context/device). Profiling times are reported only
 * when the queue has CL_QUEUE_PROFILING_ENABLE. */
int wgs_device_wrap_opencl(cl_device_id device, cl_context context, cl_command_queue queue,
                           wgs_device_t **out);

cl_device_id wgs_device_opencl_id(const wgs_device_t *dev);
cl_context wgs_device_opencl_context(const wgs_device_t *dev);
cl_command_queue wgs_device_opencl_queue(const wgs_device_t *dev);
cl_program wgs_program_opencl(const wgs_program_t *prog);
cl_kernel wgs_kernel_opencl(const wgs_kernel_t *k);
cl_mem wgs_state_opencl(const wgs_state_t *st);
cl_mem wgs_buffer_opencl(const wgs_buffer_t *buf);

/* The build options wgsync uses for this device (-cl-std=..., -D WGS_LAYER_...), for users who
 * build programs themselves from wgs_device_library_source() + their source. */
const char *wgs_device_opencl_build_options(const wgs_device_t *dev, unsigned flags);

/* Launches a kernel you built yourself (the state argument is set by wgsync). */
int wgs_launch_opencl(wgs_state_t *st, cl_kernel kernel, const wgs_launch_config *cfg,
                      wgs_launch_result *res);
/* Asynchronous form: enqueues on the device's queue (wgs_device_opencl_queue) after the
 * num_wait events of wait_list, and returns the kernel's event in *event when event is not
 * NULL (the caller releases it). Read the result with wgs_state_result. */
int wgs_launch_opencl_async(wgs_state_t *st, cl_kernel kernel, const wgs_launch_config *cfg,
                            cl_uint num_wait, const cl_event *wait_list, cl_event *event);

/* "CL_INVALID_VALUE" etc. */
const char *wgs_opencl_error_name(cl_int err);

#ifdef __cplusplus
}
#endif
#endif
