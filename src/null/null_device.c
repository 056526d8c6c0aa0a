/* The null backend (null_internal.h): its one device and its table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "null_internal.h"

static void describe(wgs_device_info *in)
{
  memset(in, 0, sizeof *in);
  in->backend = WGS_BACKEND_NULL;
  in->platform_index = -1;
  in->device_index = 0;
  snprintf(in->platform_name, sizeof in->platform_name, "wgsync");
  snprintf(in->name, sizeof in->name, "null (no device: launches run no code)");
  snprintf(in->vendor, sizeof in->vendor, "wgsync");
  snprintf(in->driver_version, sizeof in->driver_version, "none");
  snprintf(in->device_version, sizeof in->device_version, "none");
  snprintf(in->c_version, sizeof in->c_version, "none");
  in->compute_units = 4; /* what its launches take part with: 4 groups at once */
  in->max_work_group_size = 1024;
  in->local_mem_bytes = 65536;
  in->global_mem_bytes = 1ull << 30;
  in->atomics = WGS_ATOMICS_C11;
}

static int null_list(wgs_device_info *infos, size_t cap, size_t *count)
{
  *count = 0;
  if (cap > 0) {
    describe(&infos[0]);
    *count = 1;
  }
  return WGS_OK;
}

static int null_open(const wgs_device_select *sel, const char *how, wgs_device_t **out)
{
  (void)sel, (void)how;
  wgs__null_device *d = calloc(1, sizeof *d);
  if (!d)
    return wgs__fail(WGS_ENOMEM, "wgs_device_open: out of memory");
  d->ops = &wgs__null_ops;
  d->refs = 1;
  describe(&d->info);
  *out = (wgs_device_t *)(void *)d;
  return WGS_OK;
}

void wgs__null_dev_retain(wgs_device_t *dev)
{
  __atomic_add_fetch(&((wgs__null_device *)(void *)dev)->refs, 1, __ATOMIC_RELAXED);
}

void wgs__null_dev_release(wgs_device_t *dev)
{
  if (dev && __atomic_sub_fetch(&((wgs__null_device *)(void *)dev)->refs, 1, __ATOMIC_ACQ_REL) == 0)
    free(dev);
}

static void null_close(wgs_device_t *dev) { wgs__null_dev_release(dev); }

static uint32_t null_default_groups(const wgs_device_t *dev, size_t local_size)
{
  return wgs__default_groups(wgs__head(dev)->info.compute_units, local_size, 0, 1);
}

static int null_max_local_mem(wgs_device_t *dev, size_t local_size, size_t *bytes)
{
  (void)local_size;
  *bytes = (size_t)wgs__head(dev)->info.local_mem_bytes;
  return WGS_OK;
}

/* The tools measure a device: the null device has none to measure. */
static int no_tools(const char *what)
{
  return wgs__fail(WGS_EUNSUPPORTED, "%s: the null device runs no code, so there is nothing to "
                                     "measure (open an OpenCL or CUDA device)", what);
}
static int null_micro(wgs_device_t *dev, const wgs_occupancy_config *cfg, uint32_t groups,
                      wgs_discovery disc, int do_barrier, wgs_launch_result *res)
{
  (void)dev, (void)cfg, (void)groups, (void)disc, (void)do_barrier, (void)res;
  return no_tools("the occupancy tools");
}
static int null_mp(wgs_device_t *dev, const wgs_selftest_config *cfg, size_t local, uint32_t groups,
                   uint32_t rounds, wgs_launch_result *launch, uint32_t rep[8])
{
  (void)dev, (void)cfg, (void)local, (void)groups, (void)rounds, (void)launch, (void)rep;
  return no_tools("the barrier self-test");
}
static int null_latency(wgs_device_t *dev, const wgs_latency_config *cfg, uint32_t groups,
                        uint32_t rounds, uint32_t repeats, double *us)
{
  (void)dev, (void)cfg, (void)groups, (void)rounds, (void)repeats, (void)us;
  return no_tools("the barrier latency");
}

const wgs__backend_ops wgs__null_ops = {
    .name = "null",
    .open = null_open,
    .list = null_list,
    .close = null_close,
    .default_groups = null_default_groups,
    .max_local_mem = null_max_local_mem,
    .micro = null_micro,
    .mp = null_mp,
    .latency = null_latency,
    .program_build = wgs__null_program_build,
    .program_build_il = NULL,
    .program_release = wgs__null_program_release,
    .program_build_log = wgs__null_program_build_log,
    .kernel_create = wgs__null_kernel_create,
    .kernel_release = wgs__null_kernel_release,
    .kernel_set_arg = wgs__null_kernel_set_arg,
    .kernel_set_arg_buffer = wgs__null_kernel_set_arg_buffer,
    .kernel_run = NULL,
    .kernel_resources = wgs__null_kernel_resources,
    .tools_program = NULL, /* it runs no code: no tools */
    .buffer_create = wgs__null_buffer_create,
    .buffer_release = wgs__null_buffer_release,
    .buffer_write = wgs__null_buffer_write,
    .buffer_read = wgs__null_buffer_read,
    .state_create = wgs__null_state_create,
    .state_release = wgs__null_state_release,
    .launch = &wgs__null_launch,
    .result_words = wgs__null_result_words,
    .clear_error = wgs__null_clear_error,
    .read_words = wgs__null_read_words,
};
