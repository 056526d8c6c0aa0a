/*
 * The OpenCL backend's tool launches (src/device.h; the tools themselves, their defaults and
 * the bound search are src/tools.c): the microbenchmark of Sorensen et al. 2016 §5.1 (discovery, then a
 * grid barrier among the participants; with every launched group taking part it is the bound
 * search's probe), the grid-barrier message-passing self-test, and the latency runs; and the
 * largest local memory a group can have, found by launching.
 */
#include <stdlib.h>
#include <string.h>

#include "../tools.h"
#include "cl_internal.h"

static int micro_kernel(wgs_device_t *dev, int checked, wgs_kernel_t **k)
{
  wgs_program_t *prog;
  int rc = wgs__tools_program(dev, checked, &prog);
  if (rc != WGS_OK)
    return rc;
  return wgs_kernel_create(prog, "wgs_micro", k);
}

static int check_occ_cfg(const wgs_device_t *dev, const wgs_occupancy_config *cfg)
{
  if (cfg->local_mem_bytes > dev->info.local_mem_bytes)
    return wgs__fail(WGS_ELIMIT, "local memory of %zu bytes per group exceeds the device's %llu "
                                 "bytes on '%s'",
                     cfg->local_mem_bytes, (unsigned long long)dev->info.local_mem_bytes,
                     dev->info.name);
  return WGS_OK;
}

/* One microbenchmark launch: groups, discovery mode, barrier on/off. */
static int micro_run(wgs_device_t *dev, const wgs_occupancy_config *cfg, uint32_t groups,
                     wgs_discovery disc, int do_barrier, wgs_launch_result *res, uint32_t *out_map)
{
  wgs_kernel_t *k = NULL;
  wgs_state_t *st = NULL;
  wgs_buffer_t *out = NULL;
  int rc = micro_kernel(dev, 1, &k);
  if (rc == WGS_OK)
    rc = wgs_state_create(dev, groups, &st);
  if (rc == WGS_OK)
    rc = wgs_buffer_create(dev, (size_t)groups * 2 * sizeof(uint32_t), &out);
  size_t lmem = cfg->local_mem_bytes ? cfg->local_mem_bytes : 1;
  uint32_t words = (uint32_t)(lmem / sizeof(uint32_t)), barrier = do_barrier ? 1u : 0u;
  if (rc == WGS_OK) {
    uint32_t *init = malloc((size_t)groups * 2 * sizeof *init);
    if (!init)
      rc = wgs__fail(WGS_ENOMEM, "out of memory");
    else {
      memset(init, 0xff, (size_t)groups * 2 * sizeof *init); /* poison: unwritten slots show */
      rc = wgs_buffer_write(out, 0, (size_t)groups * 2 * sizeof *init, init);
      free(init);
    }
  }
  if (rc == WGS_OK) rc = wgs_kernel_set_arg(k, 1, lmem, NULL);
  if (rc == WGS_OK) rc = wgs_kernel_set_arg(k, 2, sizeof words, &words);
  if (rc == WGS_OK) rc = wgs_kernel_set_arg(k, 3, sizeof barrier, &barrier);
  if (rc == WGS_OK) rc = wgs_kernel_set_arg_buffer(k, 4, out);
  if (rc == WGS_OK) {
    wgs_launch_config lc;
    wgs__occ_launch_config(cfg, groups, disc, &lc);
    rc = wgs_launch(st, k, &lc, res);
  }
  if (rc == WGS_OK && out_map)
    rc = wgs_buffer_read(out, 0, (size_t)groups * 2 * sizeof(uint32_t), out_map);
  wgs_buffer_release(out);
  wgs_state_release(st);
  wgs_kernel_release(k);
  return rc;
}

int wgs__cl_micro(wgs_device_t *dev, const wgs_occupancy_config *cfg, uint32_t groups,
                  wgs_discovery disc, int do_barrier, wgs_launch_result *res)
{
  int rc = check_occ_cfg(dev, cfg);
  if (rc != WGS_OK)
    return rc;
  return micro_run(dev, cfg, groups, disc, do_barrier, res, NULL);
}

int wgs__cl_max_local_mem(wgs_device_t *dev, size_t local_size, size_t *bytes)
{
  wgs_device_info in;
  wgs_device_get_info(dev, &in);
  wgs_occupancy_config c;
  memset(&c, 0, sizeof c);
  c.local_size = local_size;
  size_t step = 256;
  for (size_t try_bytes = (size_t)in.local_mem_bytes; try_bytes > step; try_bytes -= step) {
    wgs_launch_result r;
    c.local_mem_bytes = try_bytes;
    int rc = micro_run(dev, &c, 1, WGS_DISCOVERY_ALL, 0, &r, NULL);
    if (rc == WGS_OK) {
      *bytes = try_bytes;
      return WGS_OK;
    }
    if (rc != WGS_ELIMIT)
      return rc;
  }
  return wgs__fail(WGS_ELIMIT, "no local memory allocation of more than %zu bytes launches on '%s'",
                   step, in.name);
}

int wgs__cl_mp(wgs_device_t *dev, const wgs_selftest_config *cfg, size_t local, uint32_t groups,
                uint32_t rounds, wgs_launch_result *launch, uint32_t rep_out[8])
{
  wgs_program_t *prog;
  wgs_kernel_t *k = NULL;
  wgs_state_t *st = NULL;
  wgs_buffer_t *data = NULL, *report = NULL;
  uint32_t rep[16] = {0}, split = cfg->split ? 1u : 0u;
  int rc = wgs__tools_program(dev, !cfg->unchecked, &prog);
  if (rc == WGS_OK) rc = wgs_kernel_create(prog, "wgs_mp", &k);
  if (rc == WGS_OK) rc = wgs_state_create(dev, groups, &st);
  if (rc == WGS_OK) rc = wgs_buffer_create(dev, 2 * (size_t)groups * local * 4 * sizeof(uint32_t), &data);
  if (rc == WGS_OK) rc = wgs_buffer_create(dev, sizeof rep, &report);
  if (rc == WGS_OK) rc = wgs_buffer_write(report, 0, sizeof rep, rep);
  if (rc == WGS_OK) rc = wgs_kernel_set_arg_buffer(k, 1, data);
  if (rc == WGS_OK) rc = wgs_kernel_set_arg(k, 2, sizeof rounds, &rounds);
  if (rc == WGS_OK) rc = wgs_kernel_set_arg_buffer(k, 3, report);
  if (rc == WGS_OK) rc = wgs_kernel_set_arg(k, 4, sizeof split, &split);
  if (rc == WGS_OK) {
    wgs_launch_config lc;
    wgs__selftest_launch_config(cfg, local, groups, &lc);
    rc = wgs_launch(st, k, &lc, launch);
  }
  if (rc == WGS_OK)
    rc = wgs_buffer_read(report, 0, sizeof rep, rep);
  if (rc == WGS_OK)
    memcpy(rep_out, rep, 8 * sizeof *rep);
  wgs_buffer_release(report);
  wgs_buffer_release(data);
  wgs_state_release(st);
  wgs_kernel_release(k);
  return rc;
}

int wgs__cl_latency(wgs_device_t *dev, const wgs_latency_config *cfg, uint32_t groups,
                    uint32_t rounds, uint32_t repeats, double *us)
{
  wgs_state_t *st = NULL;
  wgs_buffer_t *sink = NULL;
  uint32_t split = cfg->split ? 1u : 0u;
  int rc = wgs_state_create(dev, groups, &st);
  if (rc == WGS_OK)
    rc = wgs_buffer_create(dev, 16, &sink);
  for (int checked = 1; checked >= 0 && rc == WGS_OK; checked--) {
    wgs_program_t *prog;
    wgs_kernel_t *k = NULL;
    uint32_t n = checked ? 10 : rounds;
    rc = wgs__tools_program(dev, checked, &prog);
    if (rc == WGS_OK) rc = wgs_kernel_create(prog, "wgs_latency", &k);
    if (rc == WGS_OK) rc = wgs_kernel_set_arg(k, 1, sizeof n, &n);
    if (rc == WGS_OK) rc = wgs_kernel_set_arg(k, 2, sizeof split, &split);
    if (rc == WGS_OK) rc = wgs_kernel_set_arg_buffer(k, 3, sink);
    wgs_launch_config lc;
    wgs__latency_launch_config(cfg, groups, &lc);
    /* checked: one probe run; unchecked: a warm-up, then the timed repeats */
    for (uint32_t r = 0; r < (checked ? 1 : repeats + 1) && rc == WGS_OK; r++) {
      wgs_launch_result lr;
      rc = wgs_launch(st, k, &lc, &lr);
      if (rc == WGS_OK && !checked && r > 0)
        us[r - 1] = lr.kernel_us / rounds;
    }
    wgs_kernel_release(k);
  }
  wgs_buffer_release(sink);
  wgs_state_release(st);
  return rc;
}

/* Once per device (under dev->lazy): does a kernel see the host clock move (cl_clock.c)? */
int wgs__clock_check(wgs_device_t *dev)
{
  wgs_program_t *prog;
  wgs_kernel_t *k = NULL;
  wgs_state_t *st = NULL;
  wgs_buffer_t *out = NULL;
  uint32_t moved = 0, bound = 1u << 30;
  int rc = wgs__tools_program(dev, 1, &prog);
  if (rc == WGS_OK)
    rc = wgs_kernel_create(prog, "wgs_clock_check", &k);
  if (rc == WGS_OK)
    rc = wgs_state_create(dev, 1, &st);
  if (rc == WGS_OK)
    rc = wgs_buffer_create(dev, sizeof moved, &out);
  if (rc == WGS_OK && st->host) {
    size_t one = 1;
    if ((rc = wgs_kernel_set_arg(k, 0, sizeof st->mem, &st->mem)) == WGS_OK &&
        (rc = wgs_kernel_set_arg_buffer(k, 1, out)) == WGS_OK &&
        (rc = wgs_kernel_set_arg(k, 2, sizeof bound, &bound)) == WGS_OK) {
      wgs__clock_launch(dev, st); /* ticks while the kernel runs */
      rc = wgs_kernel_run(k, 1, &one, &one);
      wgs__clock_collect(dev, st);
    }
    if (rc == WGS_OK)
      rc = wgs_buffer_read(out, 0, sizeof moved, &moved);
  }
  dev->clock_ok = rc == WGS_OK && moved ? 1 : -1;
  wgs_buffer_release(out);
  wgs_state_release(st);
  wgs_kernel_release(k);
  return rc;
}
