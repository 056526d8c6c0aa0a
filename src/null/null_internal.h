/*
 * The null backend: no device. Its one device ("null") keeps states and buffers in host memory,
 * and a launch runs no code: the backend plays the device's side of what a kernel that only
 * calls wgs_discover leaves behind (every group polls; the first compute_units groups take part,
 * or every launched group without discovery), so that the host core's launch sequence, config
 * words, launch epochs and result decoding run and are tested without OpenCL or CUDA. It is
 * also the template for a new backend: the table's entries, each in the file of its job
 * (null_device.c, null_launch.c, null_program.c), as in src/opencl and src/cuda.
 */
#ifndef WGS_NULL_INTERNAL_H
#define WGS_NULL_INTERNAL_H

#include "../device.h"
#include "../launch.h"
#include "wgs_layout.h"

extern const wgs__backend_ops wgs__null_ops;

typedef struct {
  WGS__DEVICE_HEAD;
  int refs; /* the user's handle and every state, program, kernel and buffer made on it */
} wgs__null_device;
void wgs__null_dev_retain(wgs_device_t *dev);
void wgs__null_dev_release(wgs_device_t *dev);

typedef struct {
  WGS__STATE_HEAD;
  uint32_t *words; /* the state, as a device would hold it (device/common/wgs_layout.h) */
} wgs__null_state;

typedef struct {
  WGS__OBJECT_HEAD;
  int refs;
  unsigned flags;
} wgs__null_program;

typedef struct {
  WGS__OBJECT_HEAD;
  wgs__null_program *prog;
  char name[64];
} wgs__null_kernel;

typedef struct {
  WGS__BUFFER_HEAD; /* ops, device, size (src/device.h) */
  unsigned char *data;
} wgs__null_buffer;

/* The entries of the table (null_launch.c, null_program.c). */
int wgs__null_state_create(wgs_device_t *dev, uint32_t max_groups, wgs_state_t **out);
void wgs__null_state_release(wgs_state_t *st);
extern const wgs__launch_via wgs__null_launch;
int wgs__null_result_words(wgs_state_t *st, uint32_t *glob, double *kernel_us);
int wgs__null_clear_error(wgs_state_t *st);
int wgs__null_read_words(wgs_state_t *st, size_t offset, size_t n, uint32_t *out);
int wgs__null_program_build(wgs_device_t *dev, const char *source, const char *options,
                            unsigned flags, wgs_program_t **out);
void wgs__null_program_release(wgs_program_t *p);
const char *wgs__null_program_build_log(const wgs_program_t *p);
int wgs__null_kernel_create(wgs_program_t *p, const char *name, wgs_kernel_t **out);
void wgs__null_kernel_release(wgs_kernel_t *k);
int wgs__null_kernel_resources(wgs_kernel_t *k, wgs_kernel_resources *out);
int wgs__null_kernel_set_arg(wgs_kernel_t *k, unsigned index, size_t size, const void *value);
int wgs__null_kernel_set_arg_buffer(wgs_kernel_t *k, unsigned index, wgs_buffer_t *b);
int wgs__null_buffer_create(wgs_device_t *dev, size_t bytes, wgs_buffer_t **out);
void wgs__null_buffer_release(wgs_buffer_t *b);
int wgs__null_buffer_write(wgs_buffer_t *b, size_t off, size_t bytes, const void *src);
int wgs__null_buffer_read(wgs_buffer_t *b, size_t off, size_t bytes, void *dst);

#endif
